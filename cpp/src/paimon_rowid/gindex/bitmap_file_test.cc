#include "paimon_rowid/gindex/bitmap_file.h"

#include <arrow/buffer.h>
#include <arrow/io/memory.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <random>

#include "paimon_rowid/codec/crc32.h"
#include "paimon_rowid/codec/little_endian.h"
#include "paimon_rowid/testing/gtest_util.h"

namespace paimon_rowid {
namespace {

KeyCodec Codec(TypeRoot root) {
  auto type =
      root == TypeRoot::kVarChar ? DataType::Char(root, 2147483647) : DataType::Atomic(root);
  return *KeyCodec::Make(*type);
}

std::string IntKey(int32_t v) {
  std::string k;
  AppendLE<int32_t>(&k, v);
  return k;
}

std::string Hex(const std::string& bytes) {
  std::string out;
  char buf[3];
  for (unsigned char c : bytes) {
    std::snprintf(buf, sizeof(buf), "%02x", c);
    out += buf;
  }
  return out;
}

uint32_t Crc(const std::string& bytes) { return Crc32(0, bytes.data(), bytes.size()); }

// Rows (key, relative row id) in the build's order: by value, then row id; nulls first.
Result<BTreeFile> Build(const KeyCodec& codec,
                        std::vector<std::pair<std::optional<std::string>, int64_t>> rows,
                        int64_t block_size = 16 * 1024) {
  std::stable_sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
    if (!a.first || !b.first) return !a.first && b.first;
    const int c = codec.Compare(*a.first, *b.first);
    return c != 0 ? c < 0 : a.second < b.second;
  });
  BitmapFileWriter writer(codec, BitmapWriteOptions{block_size});
  for (const auto& [key, row] : rows) {
    if (key) {
      ARROW_RETURN_NOT_OK(writer.Add(*key, row));
    } else {
      ARROW_RETURN_NOT_OK(writer.AddNull(row));
    }
  }
  return writer.Finish();
}

// pypaimon 2.1.0's BitmapIndexWriter over `INT` rows i = 0..39 with key i % 7, null where
// i % 5 == 0 (written in row order): these exact 520 bytes.
TEST(BitmapFileTest, SmallIntFileIsPypaimonsBytes) {
  const KeyCodec codec = Codec(TypeRoot::kInt);
  std::vector<std::pair<std::optional<std::string>, int64_t>> rows;
  for (int i = 0; i < 40; ++i) {
    rows.push_back({i % 5 ? std::optional<std::string>(IntKey(i % 7)) : std::nullopt, i});
  }
  ASSERT_OK_AND_ASSIGN(BTreeFile file, Build(codec, rows));
  EXPECT_EQ(file.row_count, 40);
  EXPECT_EQ(Hex(file.meta.Serialize()), "04000000000000000400000006000000010100");
  ASSERT_EQ(file.bytes.size(), 520u);
  EXPECT_EQ(Crc(file.bytes), 1798235678u);
  EXPECT_EQ(file.bytes.substr(file.bytes.size() - 4), "BGIX");

  ASSERT_OK_AND_ASSIGN(auto reader,
                       BitmapFileReader::Open(arrow::Buffer::FromString(file.bytes), codec, "f"));
  EXPECT_EQ(reader->value_count(), 7);
  EXPECT_EQ(*reader->NullRows(), (std::vector<int64_t>{0, 5, 10, 15, 20, 25, 30, 35}));
  ASSERT_OK_AND_ASSIGN(auto non_null, reader->NonNullRows());
  EXPECT_EQ(non_null.size(), 32u);
  std::map<size_t, std::vector<int64_t>> found;
  const std::string k3 = IntKey(3), k9 = IntKey(9);
  ASSERT_OK(reader->LookupSorted({k3, k9}, [&](size_t i, std::vector<int64_t> ids) {
    found[i] = std::move(ids);
    return Status::OK();
  }));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0], (std::vector<int64_t>{3, 17, 24, 31, 38}));
  ASSERT_OK_AND_ASSIGN(auto range, reader->Range(IntKey(5), false, std::nullopt, true));
  ASSERT_EQ(range.size(), 1u);  // only 6
  EXPECT_EQ(range[0].key, IntKey(6));
  EXPECT_EQ(range[0].row_ids, (std::vector<int64_t>{6, 13, 27, 34}));
}

// Many dictionary blocks (256-byte blocks, 1000 string keys) and a large INT file with bitmap
// containers: sizes and CRC-32s of pypaimon's files for the same rows.
TEST(BitmapFileTest, MultiBlockFilesArePypaimonsBytes) {
  {
    const KeyCodec codec = Codec(TypeRoot::kVarChar);
    std::vector<std::pair<std::optional<std::string>, int64_t>> rows;
    char buf[16];
    for (int i = 0; i < 3000; ++i) {
      std::snprintf(buf, sizeof(buf), "k%05d", i / 3);
      rows.push_back({std::string(buf), i});
    }
    ASSERT_OK_AND_ASSIGN(BTreeFile file, Build(codec, rows, 256));
    EXPECT_EQ(file.bytes.size(), 51618u);
    EXPECT_EQ(Crc(file.bytes), 1607024706u);
    ASSERT_OK_AND_ASSIGN(auto reader,
                         BitmapFileReader::Open(arrow::Buffer::FromString(file.bytes), codec, "s"));
    std::vector<std::string> keys = {"k00000", "k00500", "k00999", "k01000"};
    std::vector<std::string_view> views(keys.begin(), keys.end());
    std::map<size_t, std::vector<int64_t>> found;
    ASSERT_OK(reader->LookupSorted(views, [&](size_t i, std::vector<int64_t> ids) {
      found[i] = std::move(ids);
      return Status::OK();
    }));
    EXPECT_EQ(found.size(), 3u);
    EXPECT_EQ(found[1], (std::vector<int64_t>{1500, 1501, 1502}));
    EXPECT_EQ(found[2], (std::vector<int64_t>{2997, 2998, 2999}));
  }
  {
    const KeyCodec codec = Codec(TypeRoot::kInt);
    std::vector<std::pair<std::optional<std::string>, int64_t>> rows;
    for (int i = 0; i < 70000; ++i) rows.push_back({IntKey(i), int64_t{i} * 3});
    ASSERT_OK_AND_ASSIGN(BTreeFile file, Build(codec, rows));
    EXPECT_EQ(file.bytes.size(), 2780602u);
    EXPECT_EQ(Crc(file.bytes), 2399705936u);
  }
}

// A random round trip: lookups and ranges equal a map built from the same rows; -0.0 and 0.0
// are separate entries that a lookup of either finds together.
TEST(BitmapFileTest, RandomRoundTripAndZeros) {
  std::mt19937_64 rng(7);
  const KeyCodec codec = Codec(TypeRoot::kInt);
  std::map<int32_t, std::vector<int64_t>> truth;
  std::vector<std::pair<std::optional<std::string>, int64_t>> rows;
  for (int64_t r = 0; r < 5000; ++r) {
    if (rng() % 10 == 0) {
      rows.push_back({std::nullopt, r});
      continue;
    }
    const auto v = static_cast<int32_t>(static_cast<int64_t>(rng() % 2000) - 1000);
    truth[v].push_back(r);
    rows.push_back({IntKey(v), r});
  }
  ASSERT_OK_AND_ASSIGN(BTreeFile file, Build(codec, rows, 300));
  ASSERT_OK_AND_ASSIGN(auto reader,
                       BitmapFileReader::Open(arrow::Buffer::FromString(file.bytes), codec, "r"));
  EXPECT_EQ(reader->value_count(), static_cast<int32_t>(truth.size()));
  std::vector<std::string> keys;
  for (int v = -1010; v <= 1010; v += 3) keys.push_back(IntKey(v));
  std::vector<std::string_view> views(keys.begin(), keys.end());
  std::map<size_t, std::vector<int64_t>> found;
  ASSERT_OK(reader->LookupSorted(views, [&](size_t i, std::vector<int64_t> ids) {
    found[i] = std::move(ids);
    return Status::OK();
  }));
  size_t expected = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    const int32_t v = -1010 + static_cast<int32_t>(i) * 3;
    auto it = truth.find(v);
    if (it == truth.end()) {
      EXPECT_EQ(found.count(i), 0u) << v;
      continue;
    }
    ++expected;
    EXPECT_EQ(found[i], it->second) << v;
  }
  EXPECT_EQ(found.size(), expected);
  ASSERT_OK_AND_ASSIGN(auto range, reader->Range(IntKey(-10), true, IntKey(10), false));
  std::map<int32_t, std::vector<int64_t>> got;
  for (auto& e : range) got[LoadLE<int32_t>(e.key.data())] = e.row_ids;
  std::map<int32_t, std::vector<int64_t>> want(truth.lower_bound(-10), truth.lower_bound(10));
  EXPECT_EQ(got, want);

  const KeyCodec dc = Codec(TypeRoot::kDouble);
  std::string pos, neg;
  AppendLE<uint64_t>(&pos, 0);
  AppendLE<uint64_t>(&neg, uint64_t{1} << 63);  // -0.0
  BitmapFileWriter w(dc, {});
  ASSERT_OK(w.Add(neg, 0));
  ASSERT_OK(w.Add(pos, 1));
  ASSERT_OK(w.Add(neg, 2));
  ASSERT_OK_AND_ASSIGN(BTreeFile zeros, w.Finish());
  ASSERT_OK_AND_ASSIGN(auto zr,
                       BitmapFileReader::Open(arrow::Buffer::FromString(zeros.bytes), dc, "z"));
  EXPECT_EQ(zr->value_count(), 2);
  std::vector<int64_t> ids;
  ASSERT_OK(zr->LookupSorted({pos}, [&](size_t, std::vector<int64_t> v) {
    ids = std::move(v);
    return Status::OK();
  }));
  EXPECT_EQ(ids, (std::vector<int64_t>{0, 1, 2}));
}

TEST(BitmapFileTest, RefusesBadInputAndFiles) {
  const KeyCodec codec = Codec(TypeRoot::kInt);
  BitmapFileWriter empty(codec, {});
  EXPECT_TRUE(empty.Finish().status().IsInvalid());
  BitmapFileWriter descending(codec, {});
  ASSERT_OK(descending.Add(IntKey(5), 0));
  EXPECT_TRUE(descending.Add(IntKey(4), 1).IsInvalid());

  BitmapFileWriter w(codec, {});
  ASSERT_OK(w.Add(IntKey(1), 0));
  ASSERT_OK_AND_ASSIGN(BTreeFile file, w.Finish());
  std::string bad_magic = file.bytes;
  bad_magic.back() ^= 1;
  // Another layout (Java 1.4's file-index bitmap has no BGIX footer): NotImplemented, so a
  // planner can scan instead.
  EXPECT_TRUE(BitmapFileReader::Open(arrow::Buffer::FromString(bad_magic), codec, "x")
                  .status()
                  .IsNotImplemented());
  std::string damaged = file.bytes;
  // The index block's CRC is the 4 bytes before the footer.
  damaged[damaged.size() - kBitmapFooterSize - 1] ^= 1;
  EXPECT_TRUE(
      BitmapFileReader::Open(arrow::Buffer::FromString(damaged), codec, "x").status().IsIOError());
  EXPECT_TRUE(
      BitmapFileReader::Open(arrow::Buffer::FromString("short"), codec, "x").status().IsInvalid());
  auto buffer = arrow::Buffer::FromString(file.bytes);
  EXPECT_TRUE(OpenSortedIndexReader("lumina", std::make_shared<arrow::io::BufferReader>(buffer),
                                    buffer->size(), codec, "x")
                  .status()
                  .IsInvalid());
}

// An `=`/`IN` lookup reads the footer and the index block when the file is opened, then only
// the dictionary blocks that can hold its keys and the bitmaps of the keys found; the null
// and non-null bitmaps only when asked for. Counted against the bytes each part occupies.
TEST(BitmapFileTest, LookupReadsOnlyTheBlocksAndBitmapsItNeeds) {
  const KeyCodec codec = Codec(TypeRoot::kInt);
  std::vector<std::pair<std::optional<std::string>, int64_t>> rows;
  for (int64_t r = 0; r < 60000; ++r) {
    rows.push_back({r % 50 == 0 ? std::nullopt : std::optional<std::string>(IntKey(r % 2000)), r});
  }
  constexpr int64_t kBlockSize = 512;
  ASSERT_OK_AND_ASSIGN(BTreeFile file, Build(codec, rows, kBlockSize));
  const auto size = static_cast<int64_t>(file.bytes.size());
  ASSERT_OK_AND_ASSIGN(auto reader,
                       BitmapFileReader::Open(arrow::Buffer::FromString(file.bytes), codec, "f"));
  const int64_t opened = reader->bytes_read();
  // Footer and index block: 2000 keys in ~512-byte blocks make an index of ~100 first keys.
  EXPECT_LT(opened, size / 20);
  EXPECT_GE(opened, kBitmapFooterSize);

  // One key: one dictionary block (and trailer) and its bitmap (30 rows: a small array
  // container), nothing else.
  std::vector<int64_t> ids;
  const std::string k777 = IntKey(777);
  ASSERT_OK(reader->LookupSorted({k777}, [&](size_t, std::vector<int64_t> v) {
    ids = std::move(v);
    return Status::OK();
  }));
  ASSERT_EQ(ids.size(), 30u);
  EXPECT_EQ(ids.front(), 777);
  const int64_t one = reader->bytes_read() - opened;
  EXPECT_GT(one, 0);
  EXPECT_LE(one, kBlockSize + 64 + 128);  // a block, its trailer, a ~100-byte bitmap

  // An absent key between two present ones reads its block but no bitmap; a key below the
  // first in byte order reads nothing (0 is only ever null; the first key is 256, `00 01 00
  // 00`).
  int64_t before = reader->bytes_read();
  const std::string absent = IntKey(5000), below = IntKey(0);
  ASSERT_OK(reader->LookupSorted({below}, [](size_t, std::vector<int64_t>) {
    ADD_FAILURE() << "found a key the file does not hold";
    return Status::OK();
  }));
  EXPECT_EQ(reader->bytes_read(), before);
  ASSERT_OK(reader->LookupSorted({absent}, [](size_t, std::vector<int64_t>) {
    ADD_FAILURE() << "found a key the file does not hold";
    return Status::OK();
  }));
  EXPECT_LE(reader->bytes_read() - before, kBlockSize + 64);

  // IN over 10 keys (byte order puts them in one or two blocks) reads each block once.
  before = reader->bytes_read();
  std::vector<std::string> in_keys;
  for (int v = 101; v <= 110; ++v) in_keys.push_back(IntKey(v));
  std::vector<std::string_view> in_views(in_keys.begin(), in_keys.end());
  size_t hits = 0;
  ASSERT_OK(reader->LookupSorted(in_views, [&](size_t, std::vector<int64_t> v) {
    hits += v.size();
    return Status::OK();
  }));
  EXPECT_EQ(hits, 300u);
  EXPECT_LE(reader->bytes_read() - before, 2 * (kBlockSize + 64) + 10 * 128);
  // Every key: about the whole file, and never more than the file plus the index.
  std::vector<std::string> all;
  for (int v = 0; v < 2000; ++v) all.push_back(IntKey(v));
  std::vector<std::string_view> all_views(all.begin(), all.end());
  before = reader->bytes_read();
  ASSERT_OK(
      reader->LookupSorted(all_views, [](size_t, std::vector<int64_t>) { return Status::OK(); }));
  EXPECT_LT(reader->bytes_read() - before, size);
  EXPECT_GT(reader->bytes_read() - before, size / 2);

  // The null bitmap only when asked for.
  before = reader->bytes_read();
  ASSERT_OK_AND_ASSIGN(auto nulls, reader->NullRows());
  EXPECT_EQ(nulls.size(), 1200u);
  EXPECT_GT(reader->bytes_read(), before);
}

// A file whose handles point outside it is refused when a lookup reaches them, not read past.
TEST(BitmapFileTest, HandlesOutsideTheFileAreRefused) {
  const KeyCodec codec = Codec(TypeRoot::kInt);
  BitmapFileWriter w(codec, {});
  ASSERT_OK(w.Add(IntKey(1), 0));
  ASSERT_OK_AND_ASSIGN(BTreeFile file, w.Finish());
  std::string bad = file.bytes;
  // The footer's null-rows length (bytes 8..11 of the footer, big-endian) beyond the file.
  bad[bad.size() - kBitmapFooterSize + 8] = 0x7f;
  EXPECT_RAISES(Invalid, BitmapFileReader::Open(arrow::Buffer::FromString(bad), codec, "x"));
}

}  // namespace
}  // namespace paimon_rowid
