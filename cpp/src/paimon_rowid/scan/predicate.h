// Row predicates of the read API (pypaimon's PredicateBuilder methods). A predicate is used
// twice: to skip whole file groups from their value stats (MayMatch, failing open when stats
// are missing), and to filter rows exactly (ToExpression, evaluated with Arrow compute).
// Null semantics follow SQL: a comparison with a null value never matches.
#pragma once

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "arrow/compute/expression.h"
#include "arrow/type_fwd.h"
#include "paimon_rowid/common/status.h"

namespace paimon_rowid {

class Predicate {
 public:
  enum class Op {
    kAnd,
    kOr,
    kEqual,
    kNotEqual,
    kLessThan,
    kLessOrEqual,
    kGreaterThan,
    kGreaterOrEqual,
    kIsNull,
    kIsNotNull,
    kStartsWith,
    kEndsWith,
    kContains,
    kLike,
    kIn,
    kNotIn,
    kBetween,
    kNotBetween,
  };

  /// A leaf on `field`. `literals` holds the literal values typed as the field (1 value; 2 for
  /// between/not_between; any number for in/not_in; none for is_null/is_not_null).
  static Result<std::shared_ptr<Predicate>> Leaf(Op op, std::string field,
                                                 std::shared_ptr<arrow::Array> literals);
  static Result<std::shared_ptr<Predicate>> Compound(
      Op op, std::vector<std::shared_ptr<Predicate>> children);
  /// Parses a method name as pypaimon spells it ("equal", "is_in", "startswith", ...).
  static Result<Op> OpFromName(const std::string& name);

  Op op() const { return op_; }
  const std::string& field() const { return field_; }
  const std::shared_ptr<arrow::Array>& literals() const { return literals_; }
  const std::vector<std::shared_ptr<Predicate>>& children() const { return children_; }

  /// Field names the predicate reads.
  void CollectFields(std::set<std::string>* out) const;
  /// An unbound Arrow expression that is true exactly for matching rows (null -> no match).
  Result<arrow::compute::Expression> ToExpression() const;

  /// Stats of one column over a set of rows; null pointers mean "unknown".
  struct ColumnStats {
    std::shared_ptr<arrow::Scalar> min;
    std::shared_ptr<arrow::Scalar> max;
    std::optional<int64_t> null_count;
  };
  using StatsLookup = std::function<const ColumnStats*(const std::string& field)>;
  /// False only when the stats prove that none of `row_count` rows can match.
  bool MayMatch(const StatsLookup& stats, int64_t row_count) const;

 private:
  Predicate() = default;
  Op op_ = Op::kAnd;
  std::string field_;
  std::shared_ptr<arrow::Array> literals_;
  std::vector<std::shared_ptr<Predicate>> children_;
};

/// Row-id ranges implied by a predicate on `_ROW_ID` (equal, in, between, and ANDs of them),
/// or nullopt when the predicate does not restrict row ids that way.
std::optional<std::vector<struct RowRange>> RowRangesFromPredicate(const Predicate& predicate);

}  // namespace paimon_rowid
