// ReadBlobBunch over files of several sequence numbers: newer .blob files that cover only a
// prefix of the group (a row-id update's layout, rowid/blob_update_internal.h), with
// placeholders inside the prefix and nothing past it. Both fall through to older files.
#include "paimon_rowid/read/blob_reader.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "paimon_rowid/codec/blob_file.h"
#include "paimon_rowid/fs/file_io.h"
#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/testing/temp_dir.h"

namespace paimon_rowid {
namespace {

// One row of a hand-written .blob file.
struct Row {
  enum Kind { kValue, kNull, kPlaceholder } kind;
  std::string payload;
};
Row V(std::string payload) { return {Row::kValue, std::move(payload)}; }
const Row kNull{Row::kNull, ""};
const Row kHole{Row::kPlaceholder, ""};

class Bunch {
 public:
  // Writes `rows` into a new .blob file starting at `first_row_id` with sequence number `seq`.
  void Add(int64_t first_row_id, int64_t seq, const std::vector<Row>& rows) {
    auto meta = std::make_unique<DataFileMeta>();
    meta->file_name = "f" + std::to_string(metas_.size()) + ".blob";
    const std::string path = dir_.path() + "/" + meta->file_name;
    auto sink = io_->OpenOutput(path).ValueOrDie();
    BlobFileWriter writer(sink);
    for (const auto& row : rows) {
      if (row.kind == Row::kValue) {
        ASSERT_OK(writer.AddValue(row.payload));
      } else if (row.kind == Row::kNull) {
        writer.AddNull();
      } else {
        writer.AddPlaceholder();
      }
    }
    ASSERT_OK(writer.Close());
    meta->file_size = io_->FileSize(path).ValueOrDie();
    meta->row_count = static_cast<int64_t>(rows.size());
    meta->first_row_id = first_row_id;
    meta->min_sequence_number = meta->max_sequence_number = seq;
    metas_.push_back(std::move(meta));
    paths_.push_back(path);
  }

  // The payloads of `row_ids` (nullopt for null), reading the files in `order` (indices of
  // Add calls: the reader must not depend on the order it is given).
  std::vector<std::optional<std::string>> Read(const std::vector<int64_t>& row_ids,
                                               const std::vector<size_t>& order) const {
    std::vector<BlobBunchFile> files;
    for (size_t i : order) files.push_back({metas_[i].get(), paths_[i]});
    auto values = ReadBlobBunch(*io_, files, row_ids, *DataType::Atomic(TypeRoot::kBlob),
                                /*as_descriptor=*/false)
                      .ValueOrDie();
    const auto& bytes = static_cast<const arrow::LargeBinaryArray&>(*values);
    std::vector<std::optional<std::string>> out;
    for (int64_t i = 0; i < bytes.length(); ++i) {
      out.push_back(bytes.IsNull(i) ? std::nullopt : std::optional(bytes.GetString(i)));
    }
    return out;
  }

 private:
  testing::TempDir dir_;
  std::shared_ptr<FileIO> io_ = FileIO::Local();
  std::vector<std::unique_ptr<DataFileMeta>> metas_;
  std::vector<std::string> paths_;
};

TEST(BlobReaderTest, NewerPrefixFilesFallThroughToOlderOnes) {
  Bunch bunch;
  // The group's rows 100..109 as appended (sequence 1, rolled into two files).
  bunch.Add(100, 1, {V("o0"), V("o1"), V("o2"), V("o3"), V("o4"), V("o5")});
  bunch.Add(106, 1, {V("o6"), kNull, V("o8"), V("o9")});
  // An update of rows 101, 103 (to NULL) and 104: files up to row 104 only (rolled too).
  bunch.Add(100, 2, {kHole, V("u1"), kHole});
  bunch.Add(103, 2, {kNull, V("u4")});
  // A later update of row 101 only: one file over rows 100..101.
  bunch.Add(100, 3, {kHole, V("w1")});
  const std::vector<std::optional<std::string>> want{"o0", "w1", "o2",         std::nullopt, "u4",
                                                     "o5", "o6", std::nullopt, "o8",         "o9"};
  std::vector<int64_t> all{100, 101, 102, 103, 104, 105, 106, 107, 108, 109};
  EXPECT_EQ(bunch.Read(all, {0, 1, 2, 3, 4}), want);
  EXPECT_EQ(bunch.Read(all, {4, 3, 2, 1, 0}), want);
  EXPECT_EQ(bunch.Read(all, {2, 0, 4, 1, 3}), want);
  // Single rows: inside the newest prefix, past every prefix, and a placeholder chain.
  EXPECT_EQ(bunch.Read({101}, {0, 1, 2, 3, 4}), (std::vector<std::optional<std::string>>{"w1"}));
  EXPECT_EQ(bunch.Read({108, 109}, {0, 1, 2, 3, 4}),
            (std::vector<std::optional<std::string>>{"o8", "o9"}));
  EXPECT_EQ(bunch.Read({100, 102}, {0, 1, 2, 3, 4}),
            (std::vector<std::optional<std::string>>{"o0", "o2"}));
}

// A placeholder with nothing older to fall back to reads as NULL (never an error).
TEST(BlobReaderTest, UnresolvedPlaceholderReadsAsNull) {
  Bunch bunch;
  bunch.Add(0, 5, {kHole, V("x")});
  EXPECT_EQ(bunch.Read({0, 1}, {0}), (std::vector<std::optional<std::string>>{std::nullopt, "x"}));
}

}  // namespace
}  // namespace paimon_rowid
