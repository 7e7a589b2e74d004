#include "paimon_rowid/meta/manifest.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "arrow/scalar.h"
#include "paimon_rowid/codec/avro.h"
#include "paimon_rowid/codec/binary_row.h"
#include "paimon_rowid/testing/gtest_util.h"

namespace paimon_rowid {
namespace {

using avro::Value;

std::string Partition(const std::string& dt) {
  return *EncodeBinaryRow({std::make_shared<arrow::StringScalar>(dt)});
}

DataFileMeta SampleFile(int n) {
  DataFileMeta f;
  f.file_name = "data-" + std::to_string(n) + ".parquet";
  f.file_size = 1000 + n;
  f.row_count = 10 * (n + 1);
  f.min_key = EmptySerializedBinaryRow();
  f.max_key = EmptySerializedBinaryRow();
  f.key_stats = SimpleStats::Empty();
  f.value_stats = SimpleStats::Empty();
  f.min_sequence_number = n;
  f.max_sequence_number = n + 1;
  f.schema_id = 0;
  f.level = 0;
  f.creation_time_millis = 1715644800000 + n;
  f.delete_row_count = 0;
  f.file_source = 0;
  f.value_stats_cols = std::vector<std::string>{};
  f.first_row_id = 100 * n;
  if (n % 2) {
    f.extra_files = {"data-" + std::to_string(n) + ".index"};
    f.embedded_file_index = std::string("\x00\x01idx", 5);
    f.external_path = "/ext/data-" + std::to_string(n) + ".parquet";
    f.write_cols = std::vector<std::string>{"a", "b"};
    f.write_cols_sequences = std::vector<int64_t>{3, 4};
    f.value_stats.min_values = Partition("a");
    f.value_stats.max_values = Partition("zzzzzzzzzz");
    f.value_stats.null_counts = std::vector<std::optional<int64_t>>{std::nullopt, 5};
  } else {
    f.value_stats.null_counts.reset();
  }
  return f;
}

std::vector<ManifestEntry> SampleEntries() {
  std::vector<ManifestEntry> entries;
  for (int n = 0; n < 5; ++n) {
    ManifestEntry e;
    e.kind = n == 4 ? FileKind::kDelete : FileKind::kAdd;
    e.partition = Partition("2024051" + std::to_string(n));
    e.bucket = 0;
    e.total_buckets = -1;
    e.file = SampleFile(n);
    entries.push_back(e);
  }
  return entries;
}

std::vector<ManifestFileMeta> SampleMetas() {
  std::vector<ManifestFileMeta> metas(3);
  for (int n = 0; n < 3; ++n) {
    ManifestFileMeta& m = metas[n];
    m.file_name = "manifest-" + std::to_string(n);
    m.file_size = 4096 + n;
    m.num_added_files = n + 1;
    m.num_deleted_files = n;
    m.partition_stats = SimpleStats::Empty();
    m.schema_id = n;
    if (n > 0) {
      m.min_bucket = 0;
      m.max_bucket = 0;
      m.min_level = 0;
      m.max_level = 0;
      m.min_row_id = 0;
      m.max_row_id = 99 * n;
      m.partition_stats.min_values = Partition("20240510");
      m.partition_stats.max_values = Partition("20240514");
      m.partition_stats.null_counts = std::vector<std::optional<int64_t>>{0};
    }
  }
  return metas;
}

class ManifestCodecTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ManifestCodecTest, EntriesRoundTrip) {
  auto entries = SampleEntries();
  auto data = EncodeManifest(entries, GetParam());
  ASSERT_OK(data);
  auto decoded = DecodeManifest(*data);
  ASSERT_OK(decoded);
  EXPECT_EQ(*decoded, entries);
}

TEST_P(ManifestCodecTest, ManifestListRoundTrip) {
  auto metas = SampleMetas();
  auto data = EncodeManifestList(metas, GetParam());
  ASSERT_OK(data);
  auto decoded = DecodeManifestList(*data);
  ASSERT_OK(decoded);
  EXPECT_EQ(*decoded, metas);
  // A list with no manifests is a header-only file.
  auto empty = DecodeManifestList(*EncodeManifestList({}, GetParam()));
  ASSERT_OK(empty);
  EXPECT_TRUE(empty->empty());
}

TEST_P(ManifestCodecTest, ManyEntriesSpanManyBlocks) {
  std::vector<ManifestEntry> entries;
  for (int n = 0; n < 20000; ++n) {
    ManifestEntry e;
    e.partition = Partition("2024" + std::to_string(n % 97));
    e.file = SampleFile(n);
    entries.push_back(std::move(e));
  }
  auto data = EncodeManifest(entries, GetParam());
  ASSERT_OK(data);
  auto decoded = DecodeManifest(*data);
  ASSERT_OK(decoded);
  EXPECT_EQ(*decoded, entries);
}

INSTANTIATE_TEST_SUITE_P(Codecs, ManifestCodecTest,
                         ::testing::Values("null", "deflate", "snappy", "zstandard"));

// Field names, nesting and record names of a writer schema, for comparing with Java's.
TEST(ManifestSchemaTest, EncoderWritesJavaSchemas) {
  auto data = *EncodeManifest(SampleEntries(), "zstandard");
  auto reader = *avro::FileReader::Open(data);
  auto schema = nlohmann::json::parse(reader->metadata().at("avro.schema"));
  EXPECT_EQ(schema["name"], "record");
  EXPECT_EQ(schema["namespace"], "org.apache.paimon.avro.generated");
  ASSERT_EQ(schema["fields"].size(), 6u);
  const auto& file = schema["fields"][5];
  EXPECT_EQ(file["name"], "_FILE");
  EXPECT_EQ(file["type"]["name"], "record__FILE");
  ASSERT_EQ(file["type"]["fields"].size(), 21u);
  EXPECT_EQ(file["type"]["fields"][5]["type"]["name"], "record__FILE__KEY_STATS");
  EXPECT_EQ(file["type"]["fields"][6]["type"]["name"], "record__FILE__VALUE_STATS");
  const auto& creation = file["type"]["fields"][12];
  EXPECT_EQ(creation["name"], "_CREATION_TIME");
  EXPECT_EQ(creation["type"][1]["logicalType"], "timestamp-millis");
  EXPECT_TRUE(creation["default"].is_null());
  EXPECT_EQ(file["type"]["fields"][20]["name"], "_WRITE_COLS_SEQUENCES");
  EXPECT_EQ(reader->codec(), "zstandard");
  // The parsed node resolves the nested record's full name in the parent namespace.
  EXPECT_EQ(reader->schema()->children[5]->name, "org.apache.paimon.avro.generated.record__FILE");

  auto list_reader = *avro::FileReader::Open(*EncodeManifestList(SampleMetas(), "null"));
  auto list_schema = nlohmann::json::parse(list_reader->metadata().at("avro.schema"));
  ASSERT_EQ(list_schema["fields"].size(), 13u);
  EXPECT_EQ(list_schema["fields"][5]["type"]["name"], "record__PARTITION_STATS");
  EXPECT_EQ(list_schema["fields"][12]["name"], "_MAX_ROW_ID");
}

// A writer schema unlike Java's: fields reordered, optional fields left out, unknown fields
// added, _FILE behind a union. Decoding goes by name, so it must still read.
constexpr const char* kForeignEntrySchema = R"({
  "type": "record", "name": "ForeignEntry",
  "fields": [
    {"name": "_UNKNOWN_TOP", "type": {"type": "map", "values": "long"}},
    {"name": "_FILE", "type": ["null", {"type": "record", "name": "F", "fields": [
      {"name": "_ROW_COUNT", "type": "long"},
      {"name": "_FILE_NAME", "type": "string"},
      {"name": "_FILE_SIZE", "type": "long"},
      {"name": "_VALUE_STATS", "type": {"type": "record", "name": "S", "fields": [
        {"name": "_MIN_VALUES", "type": "bytes"},
        {"name": "_MAX_VALUES", "type": "bytes"},
        {"name": "_NEW_STAT", "type": "double"}]}},
      {"name": "_KEY_STATS", "type": ["null", "S"]},
      {"name": "_MIN_SEQUENCE_NUMBER", "type": "long"},
      {"name": "_MAX_SEQUENCE_NUMBER", "type": "long"},
      {"name": "_SCHEMA_ID", "type": "long"},
      {"name": "_FIRST_ROW_ID", "type": ["null", "long"]},
      {"name": "_FUTURE", "type": {"type": "array", "items": "S"}}]}]},
    {"name": "_VERSION", "type": "int"},
    {"name": "_KIND", "type": "int"},
    {"name": "_PARTITION", "type": "bytes"},
    {"name": "_BUCKET", "type": "int"},
    {"name": "_TOTAL_BUCKETS", "type": "int"}
  ]})";

Value ForeignEntry(int32_t version, int32_t kind) {
  Value stats(Value::Record{
      {Value(EmptySerializedBinaryRow()), Value(EmptySerializedBinaryRow()), Value(0.5)}});
  Value::MapValue unknown;
  unknown.entries.emplace_back("x", Value(int64_t{1}));
  Value file(Value::Record{{Value(int64_t{42}), Value("data-x.parquet"), Value(int64_t{512}), stats,
                            Value::Null(), Value(int64_t{7}), Value(int64_t{8}), Value(int64_t{1}),
                            Value(int64_t{300}), Value(Value::Array{{stats, stats}})}});
  return Value(
      Value::Record{{Value(std::move(unknown)), file, Value(version), Value(kind),
                     Value(Partition("20240514")), Value(int32_t{0}), Value(int32_t{-1})}});
}

std::shared_ptr<arrow::Buffer> WriteForeign(const std::string& schema,
                                            const std::vector<Value>& records) {
  auto writer = *avro::FileWriter::Make(schema, "deflate");
  for (const auto& r : records) {
    Status st = writer->Append(r);
    EXPECT_OK(st);
  }
  return *writer->Finish();
}

TEST(ManifestDecodeTest, ForeignSchemaWithUnknownAndMissingFields) {
  auto decoded = DecodeManifest(WriteForeign(kForeignEntrySchema, {ForeignEntry(2, 1)}));
  ASSERT_OK(decoded);
  ASSERT_EQ(decoded->size(), 1u);
  const ManifestEntry& e = (*decoded)[0];
  EXPECT_EQ(e.kind, FileKind::kDelete);
  EXPECT_EQ(e.partition, Partition("20240514"));
  EXPECT_EQ(e.total_buckets, -1);
  EXPECT_EQ(e.file.file_name, "data-x.parquet");
  EXPECT_EQ(e.file.row_count, 42);
  EXPECT_EQ(e.file.file_size, 512);
  EXPECT_EQ(e.file.first_row_id, 300);
  EXPECT_EQ(e.file.last_row_id(), 341);
  EXPECT_EQ(e.file.min_key, EmptySerializedBinaryRow());
  EXPECT_EQ(e.file.key_stats, SimpleStats::Empty());  // null in the file
  EXPECT_FALSE(e.file.value_stats.null_counts.has_value());
  EXPECT_TRUE(e.file.extra_files.empty());
  EXPECT_FALSE(e.file.creation_time_millis.has_value());
  EXPECT_FALSE(e.file.file_source.has_value());
  EXPECT_FALSE(e.file.value_stats_cols.has_value());
  EXPECT_FALSE(e.file.write_cols.has_value());
  EXPECT_FALSE(e.file.write_cols_sequences.has_value());
}

TEST(ManifestDecodeTest, RejectsWrongVersionKindAndMissingRequiredFields) {
  auto bad_version = DecodeManifest(WriteForeign(kForeignEntrySchema, {ForeignEntry(1, 0)}));
  EXPECT_RAISES(Invalid, bad_version);
  auto bad_kind = DecodeManifest(WriteForeign(kForeignEntrySchema, {ForeignEntry(2, 2)}));
  EXPECT_RAISES(Invalid, bad_kind);

  // A manifest list without _VERSION or without _FILE_NAME.
  std::string no_version = R"({"type":"record","name":"m","fields":[
      {"name":"_FILE_NAME","type":"string"}]})";
  EXPECT_FALSE(
      DecodeManifestList(WriteForeign(no_version, {Value(Value::Record{{Value("m")}})})).ok());
  std::string no_name =
      R"({"type":"record","name":"m","fields":[{"name":"_VERSION","type":"int"}]})";
  auto missing =
      DecodeManifestList(WriteForeign(no_name, {Value(Value::Record{{Value(int32_t{2})}})}));
  EXPECT_RAISES(Invalid, missing);
  EXPECT_NE(missing.status().message().find("_FILE_NAME"), std::string::npos);
  // A top-level schema that is not a record.
  EXPECT_FALSE(DecodeManifest(WriteForeign(R"("long")", {Value(int64_t{1})})).ok());
  // Wrong field type: _FILE_SIZE as a string.
  std::string typed = R"({"type":"record","name":"m","fields":[{"name":"_VERSION","type":"int"},
      {"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"string"}]})";
  EXPECT_FALSE(
      DecodeManifestList(WriteForeign(typed, {Value(Value::Record{
                                                 {Value(int32_t{2}), Value("m"), Value("big")}})}))
          .ok());
}

TEST(ManifestDecodeTest, IndexManifest) {
  // pypaimon's writer schema, reduced to what we read plus one nullable extra.
  std::string schema = R"({"type":"record","name":"IndexManifestEntry","fields":[
      {"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},
      {"name":"_PARTITION","type":"bytes"},{"name":"_BUCKET","type":"int"},
      {"name":"_INDEX_TYPE","type":"string"},{"name":"_FILE_NAME","type":"string"},
      {"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},
      {"name":"_EXTERNAL_PATH","type":["null","string"],"default":null}]})";
  auto record = [](int32_t version) {
    return Value(
        Value::Record{{Value(version), Value(int32_t{0}), Value(EmptySerializedBinaryRow()),
                       Value(int32_t{0}), Value("DELETION_VECTORS"), Value("index-1"),
                       Value(int64_t{77}), Value(int64_t{3}), Value::Null()}});
  };
  auto decoded = DecodeIndexManifest(WriteForeign(schema, {record(1)}));
  ASSERT_OK(decoded);
  ASSERT_EQ(decoded->size(), 1u);
  EXPECT_EQ((*decoded)[0].index_type, "DELETION_VECTORS");
  EXPECT_EQ((*decoded)[0].file_size, 77);
  EXPECT_EQ((*decoded)[0].row_count, 3);
  EXPECT_FALSE(DecodeIndexManifest(WriteForeign(schema, {record(2)})).ok());
}

TEST(ManifestDecodeTest, GlobalIndexEntriesRoundTrip) {
  IndexManifestEntry btree;
  btree.partition = EmptySerializedBinaryRow();
  btree.index_type = "btree";
  btree.file_name = "btree-global-index-x.index";
  btree.file_size = 241;
  btree.row_count = 20;
  btree.global_index =
      GlobalIndexMeta{0, 19, 1, std::nullopt, std::string("meta\0bytes", 10), std::nullopt};
  IndexManifestEntry composite = btree;
  composite.file_name = "btree-global-index-y.index";
  composite.global_index->extra_field_ids = std::vector<int64_t>{2, 3};
  composite.global_index->row_range_start = 20;
  composite.global_index->row_range_end = 24;
  IndexManifestEntry dv;
  dv.index_type = kDeletionVectorsIndex;
  dv.file_name = "index-dv";
  for (const char* codec : {"null", "zstandard"}) {
    ASSERT_OK_AND_ASSIGN(auto bytes, EncodeIndexManifest({btree, composite, dv}, codec));
    ASSERT_OK_AND_ASSIGN(auto back, DecodeIndexManifest(bytes));
    ASSERT_EQ(back.size(), 3u);
    EXPECT_EQ(back[0], btree);
    EXPECT_EQ(back[1], composite);
    EXPECT_EQ(back[2], dv);
    EXPECT_FALSE(back[2].global_index.has_value());
  }
  IndexManifestEntry bad = btree;
  bad.global_index->row_range_end = -1;
  ASSERT_OK_AND_ASSIGN(auto bytes, EncodeIndexManifest({bad}, "null"));
  EXPECT_RAISES(Invalid, DecodeIndexManifest(bytes));
}

TEST(ManifestDecodeTest, CorruptFilesNeverCrash) {
  std::string bytes = (*EncodeManifest({SampleEntries()[1]}, "snappy"))->ToString();
  for (size_t len = 0; len < bytes.size(); ++len) {
    auto decoded = DecodeManifest(arrow::Buffer::FromString(bytes.substr(0, len)));
    if (decoded.ok()) EXPECT_TRUE(decoded->empty()) << len;  // only a header-only prefix reads
  }
  for (size_t bit = 0; bit < bytes.size() * 8; ++bit) {
    std::string flipped = bytes;
    flipped[bit / 8] ^= static_cast<char>(1 << (bit % 8));
    (void)DecodeManifest(arrow::Buffer::FromString(std::move(flipped)));
  }
}

// Row ids that the planner's last_row_id() would overflow on (fuzz/fuzz_manifest checks).
TEST(ManifestDecodeTest, RejectsRowIdRangesThatOverflow) {
  auto decode_with = [](std::optional<int64_t> first_row_id, int64_t row_count) {
    ManifestEntry e = SampleEntries()[0];
    e.file.first_row_id = first_row_id;
    e.file.row_count = row_count;
    return DecodeManifest(*EncodeManifest({e}, "null"));
  };
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_RAISES(Invalid, decode_with(kMax, 2));
  EXPECT_RAISES(Invalid, decode_with(kMax - 9, 11));
  EXPECT_RAISES(Invalid, decode_with(-5, 1));
  EXPECT_RAISES(Invalid, decode_with(0, -1));
  EXPECT_RAISES(Invalid, decode_with(std::nullopt, -1));
  auto edge = decode_with(kMax - 10, 10);
  ASSERT_OK(edge);
  EXPECT_EQ((*edge)[0].file.last_row_id(), kMax - 1);
  EXPECT_OK(decode_with(0, 0));
  EXPECT_OK(decode_with(std::nullopt, 0));
}

TEST(ManifestMiscTest, CodecNamesAndFileKinds) {
  EXPECT_EQ(*AvroCodecForCompression("zstd"), "zstandard");
  EXPECT_EQ(*AvroCodecForCompression("ZSTD"), "zstandard");
  EXPECT_EQ(*AvroCodecForCompression("none"), "null");
  EXPECT_EQ(*AvroCodecForCompression("null"), "null");
  EXPECT_EQ(*AvroCodecForCompression("uncompressed"), "null");
  EXPECT_EQ(*AvroCodecForCompression("deflate"), "deflate");
  EXPECT_EQ(*AvroCodecForCompression("snappy"), "snappy");
  EXPECT_RAISES(Invalid, AvroCodecForCompression("lz4"));
  EXPECT_RAISES(Invalid, AvroCodecForCompression("bzip2"));

  DataFileMeta f;
  f.file_name = "data-1-0.blob";
  EXPECT_TRUE(f.is_blob_file());
  EXPECT_FALSE(f.is_vector_file());
  f.file_name = "data-1-3.vector.vortex";
  EXPECT_FALSE(f.is_blob_file());
  EXPECT_TRUE(f.is_vector_file());
  f.file_name = "data-1-0.parquet";
  EXPECT_FALSE(f.is_blob_file());
  EXPECT_FALSE(f.is_vector_file());
  f.file_name = "blob";
  EXPECT_FALSE(f.is_blob_file());
}

// ---------------------------------------------------------------------------------------
// Compatibility with real files. Set PAIMON_ROWID_SAMPLE_WAREHOUSE to a warehouse written
// by another implementation (e.g. pypaimon); every manifest list, manifest and index
// manifest in it must decode, agree with each other, and survive our re-encoding. With
// PAIMON_ROWID_SAMPLE_OUT set, the re-encoded files are written there under their original
// names so that an external reader can check them.

std::shared_ptr<arrow::Buffer> ReadWholeFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return arrow::Buffer::FromString(ss.str());
}

void WriteWholeFile(const std::filesystem::path& path, const arrow::Buffer& data) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(data.data()), data.size());
}

TEST(ManifestSampleWarehouseTest, DecodesRealManifests) {
  const char* warehouse = std::getenv("PAIMON_ROWID_SAMPLE_WAREHOUSE");
  if (warehouse == nullptr) GTEST_SKIP() << "PAIMON_ROWID_SAMPLE_WAREHOUSE not set";
  const char* out_dir = std::getenv("PAIMON_ROWID_SAMPLE_OUT");
  namespace fs = std::filesystem;
  int lists = 0, manifests = 0, index_manifests = 0;
  for (const auto& item : fs::recursive_directory_iterator(warehouse)) {
    if (!item.is_regular_file() || item.path().parent_path().filename() != "manifest") continue;
    std::string name = item.path().filename().string();
    fs::path relative = fs::relative(item.path(), warehouse);
    auto data = ReadWholeFile(item.path());
    std::string codec = (*avro::FileReader::Open(data))->codec();
    std::shared_ptr<arrow::Buffer> reencoded;
    if (name.rfind("manifest-list-", 0) == 0) {
      auto metas = DecodeManifestList(data);
      ASSERT_OK(metas) << relative;
      for (const auto& m : *metas) {
        fs::path manifest_path = item.path().parent_path() / m.file_name;
        ASSERT_TRUE(fs::exists(manifest_path)) << m.file_name;
        EXPECT_EQ(static_cast<int64_t>(fs::file_size(manifest_path)), m.file_size);
        auto entries = DecodeManifest(ReadWholeFile(manifest_path));
        ASSERT_OK(entries) << m.file_name;
        int64_t added = 0, deleted = 0;
        for (const auto& e : *entries) (e.kind == FileKind::kAdd ? added : deleted)++;
        EXPECT_EQ(added, m.num_added_files) << m.file_name;
        EXPECT_EQ(deleted, m.num_deleted_files) << m.file_name;
      }
      auto again = EncodeManifestList(*metas, codec);
      ASSERT_OK(again);
      EXPECT_EQ(*DecodeManifestList(*again), *metas) << relative;
      reencoded = *again;
      ++lists;
    } else if (name.rfind("index-manifest-", 0) == 0) {
      auto entries = DecodeIndexManifest(data);
      ASSERT_OK(entries) << relative;
      ++index_manifests;
    } else if (name.rfind("manifest-", 0) == 0) {
      auto entries = DecodeManifest(data);
      ASSERT_OK(entries) << relative;
      for (const auto& e : *entries) {
        EXPECT_GE(*SerializedBinaryRowArity(e.partition), 0);
        EXPECT_TRUE(e.file.file_source.has_value()) << e.file.file_name;
        EXPECT_TRUE(e.file.first_row_id.has_value()) << e.file.file_name;
      }
      auto again = EncodeManifest(*entries, codec);
      ASSERT_OK(again);
      EXPECT_EQ(*DecodeManifest(*again), *entries) << relative;
      reencoded = *again;
      ++manifests;
    }
    if (out_dir != nullptr && reencoded != nullptr) {
      WriteWholeFile(fs::path(out_dir) / relative, *reencoded);
    }
  }
  EXPECT_GT(lists, 0);
  EXPECT_GT(manifests, 0);
  std::cout << "decoded " << lists << " manifest lists, " << manifests << " manifests, "
            << index_manifests << " index manifests\n";
}

}  // namespace
}  // namespace paimon_rowid
