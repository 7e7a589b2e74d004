#include "paimon_rowid/commit/stamping.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "paimon_rowid/testing/gtest_util.h"

namespace paimon_rowid {
namespace {

ManifestEntry File(std::string name, int64_t rows, std::string partition = "p0",
                   FileSource source = FileSource::kAppend) {
  ManifestEntry e;
  e.partition = std::move(partition);
  e.file.file_name = std::move(name);
  e.file.row_count = rows;
  e.file.file_source = static_cast<int32_t>(source);
  return e;
}

ManifestEntry Blob(std::string name, int64_t rows, std::string field) {
  ManifestEntry e = File(std::move(name), rows);
  e.file.write_cols = std::vector<std::string>{std::move(field)};
  return e;
}

std::vector<std::optional<int64_t>> FirstRowIds(const std::vector<ManifestEntry>& entries) {
  std::vector<std::optional<int64_t>> out;
  for (const auto& e : entries) out.push_back(e.file.first_row_id);
  return out;
}

TEST(StampingTest, SequenceNumbersGoToNewFilesOnly) {
  std::vector<ManifestEntry> entries = {File("new.parquet", 1), File("half.parquet", 1),
                                        File("old.parquet", 1), File("gone.parquet", 1)};
  entries[1].file.min_sequence_number = 4;  // a min without a max
  entries[2].file.min_sequence_number = 2;
  entries[2].file.max_sequence_number = 3;
  entries[3].kind = FileKind::kDelete;  // named as listed, even with zero sequence numbers
  StampSequenceNumbers(&entries, 9);
  EXPECT_EQ(entries[0].file.min_sequence_number, 9);
  EXPECT_EQ(entries[0].file.max_sequence_number, 9);
  EXPECT_EQ(entries[1].file.min_sequence_number, 4);
  EXPECT_EQ(entries[1].file.max_sequence_number, 9);
  EXPECT_EQ(entries[2].file.min_sequence_number, 2);
  EXPECT_EQ(entries[2].file.max_sequence_number, 3);
  EXPECT_EQ(entries[3].file.min_sequence_number, 0);
  EXPECT_EQ(entries[3].file.max_sequence_number, 0);
}

TEST(StampingTest, GroupByPartitionKeepsFirstSeenOrder) {
  std::vector<ManifestEntry> entries = {File("a1", 1, "b"), File("b1", 1, "a"), File("a2", 1, "b"),
                                        File("c1", 1, "c"), File("b2", 1, "a")};
  std::vector<std::string> names;
  for (const auto& e : GroupByPartition(std::move(entries))) names.push_back(e.file.file_name);
  EXPECT_EQ(names, (std::vector<std::string>{"a1", "a2", "b1", "b2", "c1"}));
  EXPECT_TRUE(GroupByPartition({}).empty());
}

TEST(StampingTest, RowIdsForNormalBlobAndVectorFiles) {
  std::vector<ManifestEntry> entries = {
      File("d1.parquet", 10),           Blob("d1-img-0.blob", 6, "img"),
      Blob("d1-img-1.blob", 4, "img"),   // continues img from 106
      Blob("d1-doc-0.blob", 10, "doc"),  // another field starts at the file's first row again
      File("d1.vector.lance", 10),      File("d2.parquet", 5),
      Blob("d2-img-0.blob", 5, "img"),  // a new normal file resets the blob starts
      File("d2.vector.lance", 5),       // vector files run on from the first new row
  };
  ASSERT_OK_AND_ASSIGN(int64_t next, AssignRowIds(&entries, 100));
  EXPECT_EQ(next, 115);
  EXPECT_EQ(FirstRowIds(entries),
            (std::vector<std::optional<int64_t>>{100, 100, 106, 100, 100, 110, 110, 110}));
}

TEST(StampingTest, RowIdsLeaveAssignedCompactedAndRowIdWritingFilesAlone) {
  std::vector<ManifestEntry> entries = {
      File("assigned.parquet", 3), File("c.parquet", 4, "p0", FileSource::kCompact),
      File("update.parquet", 5), File("gone.parquet", 6), File("new.parquet", 7)};
  entries[0].file.first_row_id = 42;
  entries[2].file.write_cols = std::vector<std::string>{"x", "_ROW_ID"};
  entries[3].kind = FileKind::kDelete;
  ASSERT_OK_AND_ASSIGN(int64_t next, AssignRowIds(&entries, 0));
  EXPECT_EQ(next, 7);
  EXPECT_EQ(FirstRowIds(entries),
            (std::vector<std::optional<int64_t>>{42, std::nullopt, std::nullopt, std::nullopt, 0}));
  std::vector<ManifestEntry> none;
  ASSERT_OK_AND_ASSIGN(next, AssignRowIds(&none, 12));
  EXPECT_EQ(next, 12);
}

TEST(StampingTest, RowIdsRefuseFilesThatCannotBePlaced) {
  auto error_of = [](std::vector<ManifestEntry> entries) {
    auto result = AssignRowIds(&entries, 50);
    EXPECT_RAISES(Invalid, result);
    return result.ok() ? std::string() : result.status().message();
  };
  ManifestEntry no_source = File("x.parquet", 1);
  no_source.file.file_source.reset();
  EXPECT_NE(error_of({no_source}).find("file source"), std::string::npos);
  ManifestEntry no_cols = File("x.blob", 1);
  EXPECT_NE(error_of({File("a.parquet", 1), no_cols}).find("no write columns"), std::string::npos);
  EXPECT_NE(error_of({Blob("x.blob", 1, "img")}).find("does not follow"), std::string::npos);
  EXPECT_NE(error_of({File("a.parquet", 2), Blob("x.blob", 2, "img"), Blob("y.blob", 1, "img")})
                .find("'y.blob' does not follow"),
            std::string::npos);
  EXPECT_NE(error_of({File("v.vector.lance", 1)}).find("does not follow"), std::string::npos);
}

}  // namespace
}  // namespace paimon_rowid
