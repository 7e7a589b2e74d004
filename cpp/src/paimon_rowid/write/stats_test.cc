// Stats modes (Java's metadata.stats-mode / fields.<name>.stats-mode), string truncation with
// a rounded-up max, and what a written file's value stats hold under each mode.
#include "paimon_rowid/write/stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "arrow/api.h"
#include "arrow/compute/api_aggregate.h"
#include "arrow/compute/cast.h"
#include "paimon_rowid/codec/binary_row.h"
#include "paimon_rowid/exec/compute.h"
#include "paimon_rowid/scan/predicate.h"
#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/write/test_util.h"

namespace paimon_rowid {
namespace {

using testing::DeOptions;
using testing::WriteFixture;
using Kind = StatsMode::Kind;

constexpr const char* kAlphabet = "abcdefghijklmnopqrstuvwxyz";

std::shared_ptr<arrow::Array> Strings(const std::vector<std::optional<std::string>>& values) {
  arrow::StringBuilder b;
  for (const auto& v : values) EXPECT_OK(v ? b.Append(*v) : b.AppendNull());
  return b.Finish().ValueOrDie();
}

// The stats of one string column as (min, max, null count); "<null>" for a null bound.
struct Decoded {
  std::string min, max;
  std::optional<int64_t> nulls;
};

Decoded DecodeOne(const SimpleStats& stats, const std::shared_ptr<arrow::DataType>& type) {
  auto show = [](const std::shared_ptr<arrow::Scalar>& s) {
    return s->is_valid ? std::string(static_cast<const arrow::BaseBinaryScalar&>(*s).view())
                       : std::string("<null>");
  };
  auto mins = DecodeBinaryRow(stats.min_values, {type}).ValueOrDie();
  auto maxs = DecodeBinaryRow(stats.max_values, {type}).ValueOrDie();
  return {show(mins[0]), show(maxs[0]), (*stats.null_counts)[0]};
}

Decoded Collect(StatsMode mode, const std::vector<std::vector<std::optional<std::string>>>& chunks,
                const std::shared_ptr<arrow::DataType>& type = arrow::utf8()) {
  EXPECT_OK(EnsureComputeInitialized());
  StatsCollector collector({type}, {mode});
  for (const auto& chunk : chunks) {
    auto array = Strings(chunk);
    if (!type->Equals(*array->type())) array = *arrow::compute::Cast(*array, type);
    Status st = collector.Update({array});
    EXPECT_OK(st);
  }
  return DecodeOne(collector.Finish().ValueOrDie(), type);
}

Options Opts(std::map<std::string, std::string> values) { return Options(std::move(values)); }

std::string Repeat(std::string_view s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

TEST(StatsModeTest, ParsesJavaSpellings) {
  EXPECT_EQ(StatsMode::Parse("none").ValueOrDie(), StatsMode::None());
  EXPECT_EQ(StatsMode::Parse("Counts").ValueOrDie(), StatsMode::Counts());
  EXPECT_EQ(StatsMode::Parse("FULL").ValueOrDie(), StatsMode::Full());
  EXPECT_EQ(StatsMode::Parse("truncate(16)").ValueOrDie(), StatsMode::Truncate(16));
  EXPECT_EQ(StatsMode::Parse("TRUNCATE(2147483647)").ValueOrDie(), StatsMode::Truncate(2147483647));
  EXPECT_EQ(StatsMode::Truncate(7).ToString(), "truncate(7)");
  for (const char* bad :
       {"", "truncate(0)", "truncate()", "truncate(-1)", "truncate( 16)", "truncate(16) ", " full",
        "truncate(2147483648)", "truncate16", "truncate(1e3)", "partial"}) {
    EXPECT_FALSE(StatsMode::Parse(bad).ok()) << bad;
  }
}

TEST(StatsModeTest, ColumnModesFollowStatsCollectorFactories) {
  const std::vector<std::string> cols{"a", "b", "c", "d"};
  EXPECT_EQ(ColumnStatsModes(Options(), cols).ValueOrDie(),
            std::vector<StatsMode>(4, StatsMode::Truncate(16)));
  Options opts = Opts({{"metadata.stats-mode", "counts"}, {"fields.c.stats-mode", "full"}});
  EXPECT_EQ(ColumnStatsModes(opts, cols).ValueOrDie(),
            (std::vector<StatsMode>{StatsMode::Counts(), StatsMode::Counts(), StatsMode::Full(),
                                    StatsMode::Counts()}));
  // Past the first N counted columns the rest are none; a column with its own mode keeps it
  // and is counted.
  Options first = Opts({{"metadata.stats-keep-first-n-columns", "2"},
                        {"fields.a.stats-mode", "none"},
                        {"fields.d.stats-mode", "truncate(3)"}});
  EXPECT_EQ(ColumnStatsModes(first, cols).ValueOrDie(),
            (std::vector<StatsMode>{StatsMode::None(), StatsMode::Truncate(16), StatsMode::None(),
                                    StatsMode::Truncate(3)}));
  auto bad = ColumnStatsModes(Opts({{"fields.b.stats-mode", "truncate(0)"}}), cols);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("fields.b.stats-mode"), std::string::npos);
  EXPECT_FALSE(ColumnStatsModes(Opts({{"metadata.stats-mode", "some"}}), cols).ok());
}

TEST(StatsModeTest, BinaryColumnsOfParquetFilesKeepOnlyNullCounts) {
  auto varbinary = DataType::Char(TypeRoot::kVarBinary, DataType::kMaxLength);
  auto varchar = DataType::Char(TypeRoot::kVarChar, DataType::kMaxLength);
  EXPECT_EQ(ParquetColumnStatsMode(*varbinary, StatsMode::Full()), StatsMode::Counts());
  EXPECT_EQ(ParquetColumnStatsMode(*varbinary, StatsMode::Truncate(16)), StatsMode::Counts());
  EXPECT_EQ(ParquetColumnStatsMode(*varbinary, StatsMode::None()), StatsMode::None());
  EXPECT_EQ(ParquetColumnStatsMode(*varchar, StatsMode::Truncate(16)), StatsMode::Truncate(16));
}

TEST(TruncateTest, PrefixCountsCodePoints) {
  EXPECT_EQ(Utf8Prefix(kAlphabet, 16), "abcdefghijklmnop");
  EXPECT_EQ(Utf8Prefix("abc", 16), "abc");
  EXPECT_EQ(Utf8Prefix(Repeat("\u00e9", 20), 16), Repeat("\u00e9", 16));  // 2 bytes
  EXPECT_EQ(Utf8Prefix(Repeat("\u20ac", 3), 2), Repeat("\u20ac", 2));     // 3 bytes
  EXPECT_EQ(Utf8Prefix(Repeat("\U0001F600", 3), 1), "\U0001F600");        // 4 bytes
}

TEST(TruncateTest, UpperBoundIncrementsTheLastCodePoint) {
  EXPECT_EQ(Utf8UpperBound(kAlphabet, 16), "abcdefghijklmnoq");
  // Values of at most N code points are their own bound, even when longer in bytes.
  EXPECT_EQ(Utf8UpperBound(Repeat("\u00e9", 16), 16), Repeat("\u00e9", 16));
  EXPECT_EQ(Utf8UpperBound("short", 16), "short");
  EXPECT_EQ(Utf8UpperBound(Repeat("\u00e9", 17), 16), Repeat("\u00e9", 15) + "\u00ea");
  // Increments may change the encoded length.
  EXPECT_EQ(Utf8UpperBound("ab\x7fz", 3), "ab\u0080");
  EXPECT_EQ(Utf8UpperBound("a\uffffz", 2), "a\U00010000");
  // U+10FFFF cannot grow: the code point before it is incremented and the rest dropped.
  EXPECT_EQ(Utf8UpperBound("ab\U0010FFFF\U0010FFFFz", 4), "ac");
  EXPECT_EQ(Utf8UpperBound(Repeat("\U0010FFFF", 3) + "x", 3), std::nullopt);
  // U+D7FF + 1 would be a surrogate: the next scalar value is U+E000.
  EXPECT_EQ(Utf8UpperBound("a\ud7ffz", 2), "a\ue000");
  // Malformed UTF-8 gets no bound.
  EXPECT_EQ(Utf8UpperBound(std::string("a\xff"
                                       "bc",
                                       4),
                           2),
            std::nullopt);
  for (const std::string v : {std::string(kAlphabet), Repeat("\u00e9\u20ac\U0001F600", 9)}) {
    auto bound = Utf8UpperBound(v, 16);
    ASSERT_TRUE(bound);
    EXPECT_GT(*bound, v);  // byte order = code point order
    EXPECT_LE(std::string(Utf8Prefix(v, 16)), v);
  }
}

TEST(CollectorTest, TruncateModeBoundsEveryChunk) {
  auto d = Collect(StatsMode::Truncate(16), {{std::string("m") + kAlphabet, std::nullopt},
                                             {std::string(kAlphabet), "zz"},
                                             {std::string("zz") + kAlphabet}});
  EXPECT_EQ(d.min, "abcdefghijklmnop");
  EXPECT_EQ(d.max, "zzabcdefghijklmo");  // "zz" + 14 letters, the last one incremented
  EXPECT_EQ(d.nulls, 1);
  // Short values stay exact.
  d = Collect(StatsMode::Truncate(16), {{"b", "a"}, {"c"}});
  EXPECT_EQ(d.min, "a");
  EXPECT_EQ(d.max, "c");
}

TEST(CollectorTest, OtherModes) {
  const std::vector<std::vector<std::optional<std::string>>> chunks{
      {std::string(kAlphabet), std::nullopt}};
  auto full = Collect(StatsMode::Full(), chunks);
  EXPECT_EQ(full.min, kAlphabet);
  EXPECT_EQ(full.max, kAlphabet);
  EXPECT_EQ(full.nulls, 1);
  auto counts = Collect(StatsMode::Counts(), chunks);
  EXPECT_EQ(counts.min, "<null>");
  EXPECT_EQ(counts.max, "<null>");
  EXPECT_EQ(counts.nulls, 1);
  auto none = Collect(StatsMode::None(), chunks);
  EXPECT_EQ(none.min, "<null>");
  EXPECT_EQ(none.nulls, std::nullopt);
  // Java's truncate collector does not bound byte[] (it is not Comparable).
  auto binary = Collect(StatsMode::Truncate(16), chunks, arrow::binary());
  EXPECT_EQ(binary.min, "<null>");
  EXPECT_EQ(binary.nulls, 1);
  auto binary_full = Collect(StatsMode::Full(), chunks, arrow::binary());
  EXPECT_EQ(binary_full.max, kAlphabet);
}

TEST(CollectorTest, AMaxWithoutUpperBoundDropsBothBounds) {
  const std::string top = Repeat("\U0010FFFF", 17);
  auto d = Collect(StatsMode::Truncate(16), {{"a", std::nullopt}, {top}, {"b"}});
  EXPECT_EQ(d.min, "<null>");
  EXPECT_EQ(d.max, "<null>");
  EXPECT_EQ(d.nulls, 1);
  // Exactly 16 such code points need no increment.
  d = Collect(StatsMode::Truncate(16), {{"a", Repeat("\U0010FFFF", 16)}});
  EXPECT_EQ(d.max, Repeat("\U0010FFFF", 16));
}

// ---------------------------------------------------------------- written files and pruning

std::vector<ManifestEntry> LiveEntries(const Table& table) {
  auto snapshot = table.LatestSnapshot().ValueOrDie();
  return ReadLiveEntries(table, *snapshot, nullptr).ValueOrDie();
}

std::shared_ptr<arrow::RecordBatch> Rows(int64_t first, const std::vector<std::string>& names) {
  arrow::Int64Builder ids;
  arrow::StringBuilder name, dt;
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_OK(ids.Append(first + static_cast<int64_t>(i)));
    EXPECT_OK(name.Append(names[i]));
    EXPECT_OK(dt.Append(kAlphabet));
  }
  auto schema =
      arrow::schema({arrow::field("id", arrow::int64(), false), arrow::field("name", arrow::utf8()),
                     arrow::field("dt", arrow::utf8())});
  return arrow::RecordBatch::Make(
      schema, static_cast<int64_t>(names.size()),
      {ids.Finish().ValueOrDie(), name.Finish().ValueOrDie(), dt.Finish().ValueOrDie()});
}

TEST(WrittenStatsTest, DefaultIsTruncate16AndFieldModesOverrideIt) {
  WriteFixture fx(
      DeOptions({{"fields.dt.stats-mode", "none"}, {"fields.id.stats-mode", "counts"}}));
  fx.Append(Rows(0, {std::string("b") + kAlphabet, kAlphabet}));
  auto entries = LiveEntries(*fx.table());
  ASSERT_EQ(entries.size(), 1u);
  const DataFileMeta& f = entries[0].file;
  // `none` columns are left out (Java's dense store).
  EXPECT_EQ(f.value_stats_cols, (std::vector<std::string>{"id", "name"}));
  auto types = std::vector<std::shared_ptr<arrow::DataType>>{arrow::int64(), arrow::utf8()};
  auto mins = DecodeBinaryRow(f.value_stats.min_values, types).ValueOrDie();
  auto maxs = DecodeBinaryRow(f.value_stats.max_values, types).ValueOrDie();
  EXPECT_FALSE(mins[0]->is_valid);  // counts
  EXPECT_FALSE(maxs[0]->is_valid);
  EXPECT_EQ(mins[1]->ToString(), "abcdefghijklmnop");
  EXPECT_EQ(maxs[1]->ToString(), "babcdefghijklmnp");
  EXPECT_EQ(*f.value_stats.null_counts, (std::vector<std::optional<int64_t>>{0, 0}));
}

// create_table refuses the value (catalog/table_options.h); a table that holds it anyway (made
// by another engine, or given as a dynamic option) fails its writer by the same parser.
TEST(WrittenStatsTest, InvalidModeFailsTheWriter) {
  WriteFixture fx;
  ASSERT_OK_AND_ASSIGN(auto table, fx.table()->Copy({{"metadata.stats-mode", "truncate(0)"}}));
  auto writer = AppendWriter::Make(table, std::nullopt);
  ASSERT_FALSE(writer.ok());
  EXPECT_NE(writer.status().message().find("metadata.stats-mode"), std::string::npos);
}

// Files whose name values are longer than 16 characters: an equality predicate on the full
// value must keep the file, which a max truncated without rounding up ("abcdefghijklmnop" <
// the value) would prune.
TEST(WrittenStatsTest, PruningWithTruncatedStatsKeepsMatchingFiles) {
  WriteFixture fx;
  const std::string low = kAlphabet, high = std::string("zz") + kAlphabet;
  fx.Append(Rows(0, {low, low + "-2"}));  // file 1
  fx.Append(Rows(2, {high}));             // file 2
  auto entries = LiveEntries(*fx.table());
  ASSERT_EQ(entries.size(), 2u);
  auto types =
      std::vector<std::shared_ptr<arrow::DataType>>{arrow::int64(), arrow::utf8(), arrow::utf8()};
  auto maxs = DecodeBinaryRow(entries[0].file.value_stats.max_values, types).ValueOrDie();
  EXPECT_EQ(maxs[1]->ToString(), "abcdefghijklmnoq");
  auto plan = [&](Predicate::Op op, const std::string& value) {
    auto literal = arrow::MakeArrayFromScalar(arrow::StringScalar(value), 1).ValueOrDie();
    auto pred = Predicate::Leaf(op, "name", literal).ValueOrDie();
    int64_t rows = 0;
    for (const auto& s : ScanPlanner(fx.table()).WithPredicate(pred).Plan().ValueOrDie().splits) {
      rows += s.RowCount();
    }
    return rows;
  };
  EXPECT_EQ(plan(Predicate::Op::kEqual, low), 2);  // file 1 only
  EXPECT_EQ(plan(Predicate::Op::kEqual, low + "-2"), 2);
  EXPECT_EQ(plan(Predicate::Op::kEqual, high), 1);  // file 2 only
  EXPECT_EQ(plan(Predicate::Op::kGreaterOrEqual, low + "-2"), 3);
  EXPECT_EQ(plan(Predicate::Op::kLessOrEqual, high), 3);
  EXPECT_EQ(plan(Predicate::Op::kGreaterThan, "abcdefghijklmnoq"), 1);
  EXPECT_EQ(plan(Predicate::Op::kEqual, "m"), 0);
}

// Numeric bounds are computed in one pass of our own; they must be what Arrow's MinMax
// kernel gives, NaNs, infinities, nulls, signed zeros and sliced arrays included.
TEST(StatsCollectorTest, NumericBoundsEqualArrowsMinMax) {
  ASSERT_OK(EnsureComputeInitialized());
  std::mt19937_64 rng(7);
  const double specials[] = {std::numeric_limits<double>::quiet_NaN(),
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(), 0.0, -0.0};
  const std::vector<std::shared_ptr<arrow::DataType>> types = {
      arrow::int8(),    arrow::int16(),
      arrow::int32(),   arrow::int64(),
      arrow::float32(), arrow::float64(),
      arrow::date32(),  arrow::timestamp(arrow::TimeUnit::MICRO)};
  for (int trial = 0; trial < 200; ++trial) {
    const int64_t n = 1 + static_cast<int64_t>(rng() % 40);
    const int null_share = static_cast<int>(rng() % 3);  // none, some, most
    const int special_share = static_cast<int>(rng() % 3);
    arrow::DoubleBuilder b;
    for (int64_t i = 0; i < n + 3; ++i) {
      if (null_share > 0 && static_cast<int>(rng() % 4) < null_share * 2 - 1) {
        ASSERT_OK(b.AppendNull());
      } else if (special_share > 0 && static_cast<int>(rng() % 4) < special_share * 2 - 1) {
        ASSERT_OK(b.Append(specials[rng() % 5]));
      } else {
        ASSERT_OK(b.Append(static_cast<double>(static_cast<int64_t>(rng() % 200) - 100) / 4));
      }
    }
    ASSERT_OK_AND_ASSIGN(auto doubles, b.Finish());
    auto sliced = doubles->Slice(static_cast<int64_t>(rng() % 3), n);
    for (const auto& type : types) {
      std::shared_ptr<arrow::Array> array = sliced;
      if (!arrow::is_floating(type->id())) {
        // Integers: drop the specials (NaN/inf do not cast) and keep the integral values.
        arrow::Int64Builder ib;
        const auto& d = static_cast<const arrow::DoubleArray&>(*sliced);
        for (int64_t i = 0; i < d.length(); ++i) {
          ASSERT_OK(d.IsNull(i) || !std::isfinite(d.Value(i))
                        ? ib.AppendNull()
                        : ib.Append(static_cast<int64_t>(d.Value(i) * 4) % 100));
        }
        ASSERT_OK_AND_ASSIGN(array, ib.Finish());
        if (type->id() == arrow::Type::DATE32) {  // int64 does not cast to date32; int32 does
          ASSERT_OK_AND_ASSIGN(array, arrow::compute::Cast(*array, arrow::int32()));
        }
      }
      ASSERT_OK_AND_ASSIGN(array, arrow::compute::Cast(*array, type));
      if (array->null_count() == array->length()) continue;
      SCOPED_TRACE(type->ToString() + " " + array->ToString());
      StatsCollector collector({type});
      ASSERT_OK(collector.Update({array}));
      ASSERT_OK_AND_ASSIGN(auto stats, collector.Finish());
      ASSERT_OK_AND_ASSIGN(auto mm, arrow::compute::MinMax(array));
      const auto& pair = mm.scalar_as<arrow::StructScalar>();
      ASSERT_OK_AND_ASSIGN(auto min_row, EncodeBinaryRow({pair.value[0]}));
      ASSERT_OK_AND_ASSIGN(auto max_row, EncodeBinaryRow({pair.value[1]}));
      EXPECT_EQ(stats.min_values, min_row) << pair.value[0]->ToString();
      EXPECT_EQ(stats.max_values, max_row) << pair.value[1]->ToString();
    }
  }
}

}  // namespace
}  // namespace paimon_rowid
