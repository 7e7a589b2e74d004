#include "paimon_rowid/meta/manifest.h"

#include <algorithm>
#include <cctype>
#include <limits>

#include "paimon_rowid/codec/avro_record.h"
#include "paimon_rowid/codec/binary_row.h"

namespace paimon_rowid {

namespace {

using avro::ArrayItemRecordNode;
using avro::DecodeRecords;
using avro::EncodeRecords;
using avro::Opt;
using avro::RecordReader;
using avro::Strings;
using avro::Value;

// _VERSION is a format identifier, not a schema version (docs/format.md §3.1).
constexpr int32_t kManifestVersion = 2;
constexpr int32_t kIndexManifestVersion = 1;

// ---------------------------------------------------------------------------------------
// Java's writer schemas (docs/format.md §3.2, §3.3). Java names nested records
// <parent>_<field>; the names do not matter to readers but keep files diffable with Java's.

constexpr const char* kNamespace = "org.apache.paimon.avro.generated";

std::string StatsSchema(const std::string& record_name) {
  return R"({"type":"record","name":")" + record_name +
         R"(","fields":[)"
         R"({"name":"_MIN_VALUES","type":"bytes"},)"
         R"({"name":"_MAX_VALUES","type":"bytes"},)"
         R"({"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],)"
         R"("default":null}]})";
}

std::string NullableField(const std::string& name, const std::string& type) {
  return R"({"name":")" + name + R"(","type":["null",)" + type + R"(],"default":null})";
}

std::string Field(const std::string& name, const std::string& type) {
  return R"({"name":")" + name + R"(","type":)" + type + "}";
}

const std::string& ManifestEntrySchema() {
  static const std::string* schema = [] {
    const std::string string_array = R"({"type":"array","items":"string"})";
    std::string file =
        R"({"type":"record","name":"record__FILE","fields":[)" +
        Field("_FILE_NAME", R"("string")") + "," + Field("_FILE_SIZE", R"("long")") + "," +
        Field("_ROW_COUNT", R"("long")") + "," + Field("_MIN_KEY", R"("bytes")") + "," +
        Field("_MAX_KEY", R"("bytes")") + "," +
        Field("_KEY_STATS", StatsSchema("record__FILE__KEY_STATS")) + "," +
        Field("_VALUE_STATS", StatsSchema("record__FILE__VALUE_STATS")) + "," +
        Field("_MIN_SEQUENCE_NUMBER", R"("long")") + "," +
        Field("_MAX_SEQUENCE_NUMBER", R"("long")") + "," + Field("_SCHEMA_ID", R"("long")") + "," +
        Field("_LEVEL", R"("int")") + "," + Field("_EXTRA_FILES", string_array) + "," +
        NullableField("_CREATION_TIME", R"({"type":"long","logicalType":"timestamp-millis"})") +
        "," + NullableField("_DELETE_ROW_COUNT", R"("long")") + "," +
        NullableField("_EMBEDDED_FILE_INDEX", R"("bytes")") + "," +
        NullableField("_FILE_SOURCE", R"("int")") + "," +
        NullableField("_VALUE_STATS_COLS", string_array) + "," +
        NullableField("_EXTERNAL_PATH", R"("string")") + "," +
        NullableField("_FIRST_ROW_ID", R"("long")") + "," +
        NullableField("_WRITE_COLS", string_array) + "," +
        NullableField("_WRITE_COLS_SEQUENCES", R"({"type":"array","items":"long"})") + "]}";
    return new std::string(
        R"({"type":"record","name":"record","namespace":")" + std::string(kNamespace) +
        R"(","fields":[)" + Field("_VERSION", R"("int")") + "," + Field("_KIND", R"("int")") + "," +
        Field("_PARTITION", R"("bytes")") + "," + Field("_BUCKET", R"("int")") + "," +
        Field("_TOTAL_BUCKETS", R"("int")") + "," + Field("_FILE", file) + "]}");
  }();
  return *schema;
}

const std::string& ManifestListSchema() {
  static const std::string* schema = new std::string(
      R"({"type":"record","name":"record","namespace":")" + std::string(kNamespace) +
      R"(","fields":[)" + Field("_VERSION", R"("int")") + "," + Field("_FILE_NAME", R"("string")") +
      "," + Field("_FILE_SIZE", R"("long")") + "," + Field("_NUM_ADDED_FILES", R"("long")") + "," +
      Field("_NUM_DELETED_FILES", R"("long")") + "," +
      Field("_PARTITION_STATS", StatsSchema("record__PARTITION_STATS")) + "," +
      Field("_SCHEMA_ID", R"("long")") + "," + NullableField("_MIN_BUCKET", R"("int")") + "," +
      NullableField("_MAX_BUCKET", R"("int")") + "," + NullableField("_MIN_LEVEL", R"("int")") +
      "," + NullableField("_MAX_LEVEL", R"("int")") + "," +
      NullableField("_MIN_ROW_ID", R"("long")") + "," + NullableField("_MAX_ROW_ID", R"("long")") +
      "]}");
  return *schema;
}

// pypaimon's and Java's index manifest schema (nested record names as pypaimon writes them).
const std::string& IndexManifestSchema() {
  static const std::string* schema = [] {
    std::string dv_meta = R"({"type":"record","name":"DeletionVectorMeta","fields":[)" +
                          Field("f0", R"("string")") + "," + Field("f1", R"("int")") + "," +
                          Field("f2", R"("int")") + "," +
                          NullableField("_CARDINALITY", R"("long")") + "]}";
    std::string global = R"({"type":"record","name":"GlobalIndexMeta","fields":[)" +
                         Field("_ROW_RANGE_START", R"("long")") + "," +
                         Field("_ROW_RANGE_END", R"("long")") + "," +
                         Field("_INDEX_FIELD_ID", R"("int")") + "," +
                         NullableField("_EXTRA_FIELD_IDS", R"({"type":"array","items":"int"})") +
                         "," + NullableField("_INDEX_META", R"("bytes")") + "," +
                         NullableField("_SOURCE_META", R"("bytes")") + "]}";
    return new std::string(
        R"({"type":"record","name":"IndexManifestEntry","fields":[)" +
        Field("_VERSION", R"("int")") + "," + Field("_KIND", R"("int")") + "," +
        Field("_PARTITION", R"("bytes")") + "," + Field("_BUCKET", R"("int")") + "," +
        Field("_INDEX_TYPE", R"("string")") + "," + Field("_FILE_NAME", R"("string")") + "," +
        Field("_FILE_SIZE", R"("long")") + "," + Field("_ROW_COUNT", R"("long")") + "," +
        NullableField("_DELETIONS_VECTORS_RANGES", R"({"type":"array","items":)" + dv_meta + "}") +
        "," + NullableField("_EXTERNAL_PATH", R"("string")") + "," +
        NullableField("_GLOBAL_INDEX", global) + "]}");
  }();
  return *schema;
}

// ---------------------------------------------------------------------------------------
// Decoding by field name

// Paimon's own record conventions on top of avro::RecordReader.
Status CheckVersion(const RecordReader& r, int32_t expected) {
  ARROW_ASSIGN_OR_RAISE(int32_t version, r.Int("_VERSION"));
  if (version != expected) {
    return Status::Invalid(r.what(), ": unsupported _VERSION ", version, ", expected ", expected);
  }
  return Status::OK();
}

Result<FileKind> DecodeKind(const RecordReader& r) {
  ARROW_ASSIGN_OR_RAISE(int32_t kind, r.Int("_KIND"));
  if (kind != 0 && kind != 1) return Status::Invalid(r.what(), ": bad _KIND ", kind);
  return static_cast<FileKind>(kind);
}

Result<SimpleStats> DecodeStats(const RecordReader& parent, const char* name) {
  ARROW_ASSIGN_OR_RAISE(RecordReader r, parent.Nested(name));
  SimpleStats stats;
  ARROW_ASSIGN_OR_RAISE(stats.min_values, r.Bytes("_MIN_VALUES"));
  ARROW_ASSIGN_OR_RAISE(stats.max_values, r.Bytes("_MAX_VALUES"));
  if (const Value* counts = r.Find("_NULL_COUNTS")) {
    ARROW_ASSIGN_OR_RAISE(const Value::Array* array, counts->AsArray());
    stats.null_counts.emplace();
    for (const Value& item : array->items) {
      if (item.is_null()) {
        stats.null_counts->push_back(std::nullopt);
      } else {
        ARROW_ASSIGN_OR_RAISE(int64_t count, item.AsLong());
        stats.null_counts->push_back(count);
      }
    }
  }
  return stats;
}

Result<DataFileMeta> DecodeDataFile(const RecordReader& r) {
  DataFileMeta f;
  ARROW_ASSIGN_OR_RAISE(f.file_name, r.Bytes("_FILE_NAME"));
  ARROW_ASSIGN_OR_RAISE(f.file_size, r.Long("_FILE_SIZE"));
  ARROW_ASSIGN_OR_RAISE(f.row_count, r.Long("_ROW_COUNT"));
  // Append tables carry empty keys; tolerate writers that leave them out.
  ARROW_ASSIGN_OR_RAISE(auto min_key, r.OptBytes("_MIN_KEY"));
  ARROW_ASSIGN_OR_RAISE(auto max_key, r.OptBytes("_MAX_KEY"));
  f.min_key = min_key.value_or(EmptySerializedBinaryRow());
  f.max_key = max_key.value_or(EmptySerializedBinaryRow());
  if (r.Find("_KEY_STATS") != nullptr) {
    ARROW_ASSIGN_OR_RAISE(f.key_stats, DecodeStats(r, "_KEY_STATS"));
  } else {
    f.key_stats = SimpleStats::Empty();
  }
  ARROW_ASSIGN_OR_RAISE(f.value_stats, DecodeStats(r, "_VALUE_STATS"));
  ARROW_ASSIGN_OR_RAISE(f.min_sequence_number, r.Long("_MIN_SEQUENCE_NUMBER"));
  ARROW_ASSIGN_OR_RAISE(f.max_sequence_number, r.Long("_MAX_SEQUENCE_NUMBER"));
  ARROW_ASSIGN_OR_RAISE(f.schema_id, r.Long("_SCHEMA_ID"));
  ARROW_ASSIGN_OR_RAISE(auto level, r.OptInt("_LEVEL"));
  f.level = level.value_or(0);
  ARROW_ASSIGN_OR_RAISE(auto extra_files, r.OptStrings("_EXTRA_FILES"));
  f.extra_files = std::move(extra_files).value_or(std::vector<std::string>{});
  ARROW_ASSIGN_OR_RAISE(f.creation_time_millis, r.OptLong("_CREATION_TIME"));
  ARROW_ASSIGN_OR_RAISE(f.delete_row_count, r.OptLong("_DELETE_ROW_COUNT"));
  ARROW_ASSIGN_OR_RAISE(f.embedded_file_index, r.OptBytes("_EMBEDDED_FILE_INDEX"));
  ARROW_ASSIGN_OR_RAISE(f.file_source, r.OptInt("_FILE_SOURCE"));
  ARROW_ASSIGN_OR_RAISE(f.value_stats_cols, r.OptStrings("_VALUE_STATS_COLS"));
  ARROW_ASSIGN_OR_RAISE(f.external_path, r.OptBytes("_EXTERNAL_PATH"));
  ARROW_ASSIGN_OR_RAISE(f.first_row_id, r.OptLong("_FIRST_ROW_ID"));
  // Planning computes last_row_id = first_row_id + row_count - 1 and sums row counts: values
  // no writer produces, and that would overflow there, are corrupt.
  if (f.row_count < 0) {
    return Status::Invalid("manifest: file ", f.file_name, " has a negative _ROW_COUNT ",
                           f.row_count);
  }
  if (f.first_row_id && (*f.first_row_id < 0 ||
                         *f.first_row_id > std::numeric_limits<int64_t>::max() - f.row_count)) {
    return Status::Invalid("manifest: file ", f.file_name, " has an invalid _FIRST_ROW_ID ",
                           *f.first_row_id, " for ", f.row_count, " rows");
  }
  ARROW_ASSIGN_OR_RAISE(f.write_cols, r.OptStrings("_WRITE_COLS"));
  ARROW_ASSIGN_OR_RAISE(f.write_cols_sequences, r.OptLongs("_WRITE_COLS_SEQUENCES"));
  return f;
}

// ---------------------------------------------------------------------------------------
// Encoding

Value EncodeStats(const SimpleStats& stats) {
  Value null_counts;
  if (stats.null_counts) {
    Value::Array array;
    for (const auto& count : *stats.null_counts) array.items.push_back(Opt(count));
    null_counts = Value(std::move(array));
  }
  return Value(Value::Record{{Value(stats.min_values), Value(stats.max_values), null_counts}});
}

Value EncodeDataFile(const DataFileMeta& f) {
  return Value(Value::Record{{
      Value(f.file_name),
      Value(f.file_size),
      Value(f.row_count),
      Value(f.min_key),
      Value(f.max_key),
      EncodeStats(f.key_stats),
      EncodeStats(f.value_stats),
      Value(f.min_sequence_number),
      Value(f.max_sequence_number),
      Value(f.schema_id),
      Value(f.level),
      Strings(f.extra_files),
      Opt(f.creation_time_millis),
      Opt(f.delete_row_count),
      Opt(f.embedded_file_index),
      Opt(f.file_source),
      Opt(f.value_stats_cols),
      Opt(f.external_path),
      Opt(f.first_row_id),
      Opt(f.write_cols),
      Opt(f.write_cols_sequences),
  }});
}

}  // namespace

SimpleStats SimpleStats::Empty() {
  SimpleStats stats;
  stats.min_values = EmptySerializedBinaryRow();
  stats.max_values = EmptySerializedBinaryRow();
  stats.null_counts.emplace();
  return stats;
}

bool DataFileMeta::is_blob_file() const {
  constexpr std::string_view kSuffix = ".blob";
  return file_name.size() >= kSuffix.size() &&
         std::string_view(file_name).substr(file_name.size() - kSuffix.size()) == kSuffix;
}

bool DataFileMeta::is_vector_file() const {
  return file_name.find(".vector.") != std::string::npos;
}

Result<std::string> AvroCodecForCompression(const std::string& compression) {
  std::string c = compression;
  std::transform(c.begin(), c.end(), c.begin(), [](unsigned char ch) { return std::tolower(ch); });
  if (c == "zstd" || c == "zstandard") return std::string("zstandard");
  if (c == "none" || c == "null" || c == "uncompressed") return std::string("null");
  if (c == "deflate" || c == "snappy") return c;
  return Status::Invalid("manifest.compression '", compression,
                         "' has no supported Avro codec (zstd, deflate, snappy, none)");
}

Result<std::vector<ManifestFileMeta>> DecodeManifestList(std::shared_ptr<arrow::Buffer> data) {
  return DecodeRecords<ManifestFileMeta>(
      std::move(data), "manifest list", [](const RecordReader& r) -> Result<ManifestFileMeta> {
        ARROW_RETURN_NOT_OK(CheckVersion(r, kManifestVersion));
        ManifestFileMeta m;
        ARROW_ASSIGN_OR_RAISE(m.file_name, r.Bytes("_FILE_NAME"));
        ARROW_ASSIGN_OR_RAISE(m.file_size, r.Long("_FILE_SIZE"));
        ARROW_ASSIGN_OR_RAISE(m.num_added_files, r.Long("_NUM_ADDED_FILES"));
        ARROW_ASSIGN_OR_RAISE(m.num_deleted_files, r.Long("_NUM_DELETED_FILES"));
        ARROW_ASSIGN_OR_RAISE(m.partition_stats, DecodeStats(r, "_PARTITION_STATS"));
        ARROW_ASSIGN_OR_RAISE(m.schema_id, r.Long("_SCHEMA_ID"));
        ARROW_ASSIGN_OR_RAISE(m.min_bucket, r.OptInt("_MIN_BUCKET"));
        ARROW_ASSIGN_OR_RAISE(m.max_bucket, r.OptInt("_MAX_BUCKET"));
        ARROW_ASSIGN_OR_RAISE(m.min_level, r.OptInt("_MIN_LEVEL"));
        ARROW_ASSIGN_OR_RAISE(m.max_level, r.OptInt("_MAX_LEVEL"));
        ARROW_ASSIGN_OR_RAISE(m.min_row_id, r.OptLong("_MIN_ROW_ID"));
        ARROW_ASSIGN_OR_RAISE(m.max_row_id, r.OptLong("_MAX_ROW_ID"));
        return m;
      });
}

Result<std::shared_ptr<arrow::Buffer>> EncodeManifestList(
    const std::vector<ManifestFileMeta>& metas, const std::string& avro_codec, int level) {
  return EncodeRecords(ManifestListSchema(), metas, avro_codec, level,
                       [](const ManifestFileMeta& m) {
                         return Value(Value::Record{{
                             Value(kManifestVersion),
                             Value(m.file_name),
                             Value(m.file_size),
                             Value(m.num_added_files),
                             Value(m.num_deleted_files),
                             EncodeStats(m.partition_stats),
                             Value(m.schema_id),
                             Opt(m.min_bucket),
                             Opt(m.max_bucket),
                             Opt(m.min_level),
                             Opt(m.max_level),
                             Opt(m.min_row_id),
                             Opt(m.max_row_id),
                         }});
                       });
}

Result<std::vector<ManifestEntry>> DecodeManifest(std::shared_ptr<arrow::Buffer> data) {
  return DecodeRecords<ManifestEntry>(
      std::move(data), "manifest", [](const RecordReader& r) -> Result<ManifestEntry> {
        ARROW_RETURN_NOT_OK(CheckVersion(r, kManifestVersion));
        ManifestEntry e;
        ARROW_ASSIGN_OR_RAISE(e.kind, DecodeKind(r));
        ARROW_ASSIGN_OR_RAISE(e.partition, r.Bytes("_PARTITION"));
        ARROW_ASSIGN_OR_RAISE(e.bucket, r.Int("_BUCKET"));
        ARROW_ASSIGN_OR_RAISE(e.total_buckets, r.Int("_TOTAL_BUCKETS"));
        ARROW_ASSIGN_OR_RAISE(RecordReader file, r.Nested("_FILE"));
        ARROW_ASSIGN_OR_RAISE(e.file, DecodeDataFile(file));
        return e;
      });
}

Result<std::shared_ptr<arrow::Buffer>> EncodeManifest(const std::vector<ManifestEntry>& entries,
                                                      const std::string& avro_codec, int level) {
  return EncodeRecords(ManifestEntrySchema(), entries, avro_codec, level,
                       [](const ManifestEntry& e) {
                         return Value(Value::Record{{
                             Value(kManifestVersion),
                             Value(static_cast<int32_t>(e.kind)),
                             Value(e.partition),
                             Value(e.bucket),
                             Value(e.total_buckets),
                             EncodeDataFile(e.file),
                         }});
                       });
}

namespace {
Value EncodeGlobalIndex(const std::optional<GlobalIndexMeta>& g) {
  if (!g) return Value::Null();
  Value extra = Value::Null();
  if (g->extra_field_ids) {
    Value::Array array;
    for (int64_t id : *g->extra_field_ids) array.items.emplace_back(static_cast<int32_t>(id));
    extra = Value(std::move(array));
  }
  return Value(Value::Record{{
      Value(g->row_range_start),
      Value(g->row_range_end),
      Value(g->index_field_id),
      extra,
      Opt(g->index_meta),
      Opt(g->source_meta),
  }});
}
}  // namespace

Result<std::vector<IndexManifestEntry>> DecodeIndexManifest(std::shared_ptr<arrow::Buffer> data) {
  return DecodeRecords<IndexManifestEntry>(
      std::move(data), "index manifest", [](const RecordReader& r) -> Result<IndexManifestEntry> {
        ARROW_RETURN_NOT_OK(CheckVersion(r, kIndexManifestVersion));
        IndexManifestEntry e;
        ARROW_ASSIGN_OR_RAISE(e.kind, DecodeKind(r));
        ARROW_ASSIGN_OR_RAISE(e.partition, r.Bytes("_PARTITION"));
        ARROW_ASSIGN_OR_RAISE(e.bucket, r.Int("_BUCKET"));
        ARROW_ASSIGN_OR_RAISE(e.index_type, r.Bytes("_INDEX_TYPE"));
        ARROW_ASSIGN_OR_RAISE(e.file_name, r.Bytes("_FILE_NAME"));
        ARROW_ASSIGN_OR_RAISE(e.file_size, r.Long("_FILE_SIZE"));
        ARROW_ASSIGN_OR_RAISE(e.row_count, r.Long("_ROW_COUNT"));
        if (const Value* ranges = r.Find("_DELETIONS_VECTORS_RANGES")) {
          ARROW_ASSIGN_OR_RAISE(const Value::Array* array, ranges->AsArray());
          const avro::Node* item_node =
              ArrayItemRecordNode(r.FieldNode("_DELETIONS_VECTORS_RANGES"));
          e.dv_ranges.emplace();
          for (const Value& item : array->items) {
            ARROW_ASSIGN_OR_RAISE(RecordReader dv,
                                  RecordReader::Make(item, item_node, "deletion vector range"));
            DeletionVectorRange range;
            ARROW_ASSIGN_OR_RAISE(range.data_file, dv.Bytes("f0"));
            ARROW_ASSIGN_OR_RAISE(range.offset, dv.Long("f1"));
            ARROW_ASSIGN_OR_RAISE(range.length, dv.Long("f2"));
            ARROW_ASSIGN_OR_RAISE(range.cardinality, dv.OptLong("_CARDINALITY"));
            if (range.offset < 0 || range.length < 0) {
              return Status::Invalid("index manifest: deletion vector range of '", range.data_file,
                                     "' in '", e.file_name, "' is negative");
            }
            e.dv_ranges->push_back(std::move(range));
          }
        }
        ARROW_ASSIGN_OR_RAISE(e.external_path, r.OptBytes("_EXTERNAL_PATH"));
        if (r.Find("_GLOBAL_INDEX") != nullptr) {
          ARROW_ASSIGN_OR_RAISE(RecordReader g, r.Nested("_GLOBAL_INDEX"));
          GlobalIndexMeta meta;
          ARROW_ASSIGN_OR_RAISE(meta.row_range_start, g.Long("_ROW_RANGE_START"));
          ARROW_ASSIGN_OR_RAISE(meta.row_range_end, g.Long("_ROW_RANGE_END"));
          ARROW_ASSIGN_OR_RAISE(meta.index_field_id, g.Int("_INDEX_FIELD_ID"));
          ARROW_ASSIGN_OR_RAISE(meta.extra_field_ids, g.OptLongs("_EXTRA_FIELD_IDS"));
          ARROW_ASSIGN_OR_RAISE(meta.index_meta, g.OptBytes("_INDEX_META"));
          ARROW_ASSIGN_OR_RAISE(meta.source_meta, g.OptBytes("_SOURCE_META"));
          if (meta.row_range_start < 0 || meta.row_range_end < meta.row_range_start) {
            return Status::Invalid("index manifest: global index '", e.file_name,
                                   "' has the row range [", meta.row_range_start, ", ",
                                   meta.row_range_end, "]");
          }
          e.global_index = std::move(meta);
        }
        return e;
      });
}

Result<std::shared_ptr<arrow::Buffer>> EncodeIndexManifest(
    const std::vector<IndexManifestEntry>& entries, const std::string& avro_codec, int level) {
  return EncodeRecords(IndexManifestSchema(), entries, avro_codec, level,
                       [](const IndexManifestEntry& e) {
                         Value ranges;
                         if (e.dv_ranges) {
                           Value::Array array;
                           for (const auto& r : *e.dv_ranges) {
                             array.items.emplace_back(Value::Record{{
                                 Value(r.data_file),
                                 Value(static_cast<int32_t>(r.offset)),
                                 Value(static_cast<int32_t>(r.length)),
                                 Opt(r.cardinality),
                             }});
                           }
                           ranges = Value(std::move(array));
                         }
                         return Value(Value::Record{{
                             Value(kIndexManifestVersion),
                             Value(static_cast<int32_t>(e.kind)),
                             Value(e.partition),
                             Value(e.bucket),
                             Value(e.index_type),
                             Value(e.file_name),
                             Value(e.file_size),
                             Value(e.row_count),
                             ranges,
                             Opt(e.external_path),
                             EncodeGlobalIndex(e.global_index),
                         }});
                       });
}

std::string FileIdentifier(const ManifestEntry& e) {
  std::string key = e.partition;
  key += '\x1f';
  key += std::to_string(e.bucket);
  key += '\x1f';
  key += std::to_string(e.file.level);
  key += '\x1f';
  key += e.file.file_name;
  for (const auto& extra : e.file.extra_files) {
    key += '\x1e';
    key += extra;
  }
  key += '\x1f';
  key += e.file.embedded_file_index.value_or("");
  key += '\x1f';
  key += e.file.external_path.value_or("");
  return key;
}

}  // namespace paimon_rowid
