#include "paimon_rowid/scan/predicate.h"

#include "arrow/array.h"
#include "arrow/compute/api.h"
#include "arrow/scalar.h"
#include "paimon_rowid/common/row_range.h"
#include "paimon_rowid/types/data_type.h"

namespace paimon_rowid {
namespace cp = arrow::compute;

namespace {

size_t ExpectedLiterals(Predicate::Op op) {
  switch (op) {
    case Predicate::Op::kIsNull:
    case Predicate::Op::kIsNotNull:
      return 0;
    case Predicate::Op::kBetween:
    case Predicate::Op::kNotBetween:
      return 2;
    case Predicate::Op::kIn:
    case Predicate::Op::kNotIn:
      return SIZE_MAX;  // any
    default:
      return 1;
  }
}

Result<std::shared_ptr<arrow::Scalar>> Literal(const arrow::Array& literals, int64_t i) {
  return literals.GetScalar(i);
}

// Three-valued compare of two scalars via Arrow compute; nullopt when incomparable.
std::optional<bool> Compare(const char* fn, const std::shared_ptr<arrow::Scalar>& a,
                            const std::shared_ptr<arrow::Scalar>& b) {
  if (!a || !b || !a->is_valid || !b->is_valid) return std::nullopt;
  std::shared_ptr<arrow::Scalar> rhs = b;
  if (!a->type->Equals(*b->type)) {
    auto cast = b->CastTo(a->type);
    if (!cast.ok()) return std::nullopt;
    rhs = *cast;
  }
  auto out = cp::CallFunction(fn, {a, rhs});
  if (!out.ok() || !out->is_scalar()) return std::nullopt;
  const auto& s = out->scalar_as<arrow::BooleanScalar>();
  if (!s.is_valid) return std::nullopt;
  return s.value;
}

}  // namespace

Result<Predicate::Op> Predicate::OpFromName(const std::string& name) {
  static const std::pair<const char*, Op> kNames[] = {{"and", Op::kAnd},
                                                      {"or", Op::kOr},
                                                      {"equal", Op::kEqual},
                                                      {"not_equal", Op::kNotEqual},
                                                      {"less_than", Op::kLessThan},
                                                      {"less_or_equal", Op::kLessOrEqual},
                                                      {"greater_than", Op::kGreaterThan},
                                                      {"greater_or_equal", Op::kGreaterOrEqual},
                                                      {"is_null", Op::kIsNull},
                                                      {"is_not_null", Op::kIsNotNull},
                                                      {"startswith", Op::kStartsWith},
                                                      {"endswith", Op::kEndsWith},
                                                      {"contains", Op::kContains},
                                                      {"like", Op::kLike},
                                                      {"is_in", Op::kIn},
                                                      {"is_not_in", Op::kNotIn},
                                                      {"between", Op::kBetween},
                                                      {"not_between", Op::kNotBetween}};
  for (const auto& [n, op] : kNames) {
    if (name == n) return op;
  }
  return Status::Invalid("unknown predicate method '", name, "'");
}

Result<std::shared_ptr<Predicate>> Predicate::Leaf(Op op, std::string field,
                                                   std::shared_ptr<arrow::Array> literals) {
  if (op == Op::kAnd || op == Op::kOr) return Status::Invalid("and/or is not a leaf predicate");
  size_t expected = ExpectedLiterals(op);
  size_t got = literals ? static_cast<size_t>(literals->length()) : 0;
  if (expected != SIZE_MAX && got != expected) {
    return Status::Invalid("predicate on '", field, "' expects ", expected, " literal(s), got ",
                           got);
  }
  if (expected != 0 && !literals)
    return Status::Invalid("predicate on '", field, "' has no literals");
  std::shared_ptr<Predicate> p(new Predicate());
  p->op_ = op;
  p->field_ = std::move(field);
  p->literals_ = std::move(literals);
  return p;
}

Result<std::shared_ptr<Predicate>> Predicate::Compound(
    Op op, std::vector<std::shared_ptr<Predicate>> children) {
  if (op != Op::kAnd && op != Op::kOr) return Status::Invalid("compound predicate must be and/or");
  if (children.empty()) return Status::Invalid("compound predicate without children");
  std::shared_ptr<Predicate> p(new Predicate());
  p->op_ = op;
  p->children_ = std::move(children);
  return p;
}

void Predicate::CollectFields(std::set<std::string>* out) const {
  if (op_ == Op::kAnd || op_ == Op::kOr) {
    for (const auto& c : children_) c->CollectFields(out);
  } else {
    out->insert(field_);
  }
}

Result<cp::Expression> Predicate::ToExpression() const {
  if (op_ == Op::kAnd || op_ == Op::kOr) {
    std::vector<cp::Expression> parts;
    for (const auto& c : children_) {
      ARROW_ASSIGN_OR_RAISE(auto e, c->ToExpression());
      parts.push_back(std::move(e));
    }
    return op_ == Op::kAnd ? cp::and_(parts) : cp::or_(parts);
  }
  cp::Expression ref = cp::field_ref(field_);
  auto lit = [&](int64_t i) -> Result<cp::Expression> {
    ARROW_ASSIGN_OR_RAISE(auto s, Literal(*literals_, i));
    return cp::literal(std::move(s));
  };
  auto string_literal = [&]() -> Result<std::string> {
    ARROW_ASSIGN_OR_RAISE(auto s, Literal(*literals_, 0));
    if (!s->is_valid)
      return Status::Invalid("string predicate on '", field_, "' with a null pattern");
    auto* bin = dynamic_cast<arrow::BaseBinaryScalar*>(s.get());
    if (!bin) return Status::TypeError("string predicate on non-string field '", field_, "'");
    return std::string(bin->view());
  };
  switch (op_) {
    case Op::kEqual: {
      ARROW_ASSIGN_OR_RAISE(auto l, lit(0));
      return cp::equal(ref, l);
    }
    case Op::kNotEqual: {
      ARROW_ASSIGN_OR_RAISE(auto l, lit(0));
      return cp::not_equal(ref, l);
    }
    case Op::kLessThan: {
      ARROW_ASSIGN_OR_RAISE(auto l, lit(0));
      return cp::less(ref, l);
    }
    case Op::kLessOrEqual: {
      ARROW_ASSIGN_OR_RAISE(auto l, lit(0));
      return cp::less_equal(ref, l);
    }
    case Op::kGreaterThan: {
      ARROW_ASSIGN_OR_RAISE(auto l, lit(0));
      return cp::greater(ref, l);
    }
    case Op::kGreaterOrEqual: {
      ARROW_ASSIGN_OR_RAISE(auto l, lit(0));
      return cp::greater_equal(ref, l);
    }
    case Op::kIsNull:
      return cp::is_null(ref);
    case Op::kIsNotNull:
      return cp::is_valid(ref);
    case Op::kBetween: {
      ARROW_ASSIGN_OR_RAISE(auto lo, lit(0));
      ARROW_ASSIGN_OR_RAISE(auto hi, lit(1));
      return cp::and_(cp::greater_equal(ref, lo), cp::less_equal(ref, hi));
    }
    case Op::kNotBetween: {
      ARROW_ASSIGN_OR_RAISE(auto lo, lit(0));
      ARROW_ASSIGN_OR_RAISE(auto hi, lit(1));
      return cp::or_(cp::less(ref, lo), cp::greater(ref, hi));
    }
    case Op::kIn:
    case Op::kNotIn: {
      // Null literals never match (SQL IN); a null row value never matches either.
      cp::SetLookupOptions opts(literals_, cp::SetLookupOptions::SKIP);
      cp::Expression in = cp::call("is_in", {ref}, opts);
      if (op_ == Op::kIn) return in;
      return cp::and_(cp::is_valid(ref), cp::not_(in));
    }
    case Op::kStartsWith: {
      ARROW_ASSIGN_OR_RAISE(auto pat, string_literal());
      return cp::call("starts_with", {ref}, cp::MatchSubstringOptions(pat));
    }
    case Op::kEndsWith: {
      ARROW_ASSIGN_OR_RAISE(auto pat, string_literal());
      return cp::call("ends_with", {ref}, cp::MatchSubstringOptions(pat));
    }
    case Op::kContains: {
      ARROW_ASSIGN_OR_RAISE(auto pat, string_literal());
      return cp::call("match_substring", {ref}, cp::MatchSubstringOptions(pat));
    }
    case Op::kLike: {
      ARROW_ASSIGN_OR_RAISE(auto pat, string_literal());
      return cp::call("match_like", {ref}, cp::MatchSubstringOptions(pat));
    }
    default:
      return Status::Invalid("unexpected predicate op");
  }
}

bool Predicate::MayMatch(const StatsLookup& stats, int64_t row_count) const {
  if (op_ == Op::kAnd) {
    for (const auto& c : children_) {
      if (!c->MayMatch(stats, row_count)) return false;
    }
    return true;
  }
  if (op_ == Op::kOr) {
    for (const auto& c : children_) {
      if (c->MayMatch(stats, row_count)) return true;
    }
    return false;
  }
  const ColumnStats* s = stats(field_);
  if (s == nullptr) return true;
  const bool all_null = s->null_count && *s->null_count == row_count;
  switch (op_) {
    case Op::kIsNull:
      return !s->null_count || *s->null_count > 0;
    case Op::kIsNotNull:
      return !all_null;
    default:
      break;
  }
  if (all_null && row_count > 0) return false;  // every other op needs a non-null value
  auto lit = [&](int64_t i) -> std::shared_ptr<arrow::Scalar> {
    auto r = literals_->GetScalar(i);
    return r.ok() ? *r : nullptr;
  };
  auto not_false = [](std::optional<bool> v) { return !v.has_value() || *v; };
  switch (op_) {
    case Op::kEqual: {
      auto v = lit(0);
      return not_false(Compare("less_equal", s->min, v)) &&
             not_false(Compare("greater_equal", s->max, v));
    }
    case Op::kLessThan:
      return not_false(Compare("less", s->min, lit(0)));
    case Op::kLessOrEqual:
      return not_false(Compare("less_equal", s->min, lit(0)));
    case Op::kGreaterThan:
      return not_false(Compare("greater", s->max, lit(0)));
    case Op::kGreaterOrEqual:
      return not_false(Compare("greater_equal", s->max, lit(0)));
    case Op::kBetween:
      return not_false(Compare("less_equal", s->min, lit(1))) &&
             not_false(Compare("greater_equal", s->max, lit(0)));
    case Op::kIn: {
      for (int64_t i = 0; i < literals_->length(); ++i) {
        auto v = lit(i);
        if (!v || !v->is_valid) continue;
        if (not_false(Compare("less_equal", s->min, v)) &&
            not_false(Compare("greater_equal", s->max, v))) {
          return true;
        }
      }
      return false;
    }
    default:
      return true;  // not_equal, not_in, string ops: no cheap proof
  }
}

std::optional<std::vector<RowRange>> RowRangesFromPredicate(const Predicate& p) {
  using Op = Predicate::Op;
  if (p.op() == Op::kAnd) {
    std::optional<std::vector<RowRange>> acc;
    for (const auto& c : p.children()) {
      auto r = RowRangesFromPredicate(*c);
      if (!r) continue;
      if (!acc) {
        acc = std::move(r);
        continue;
      }
      std::vector<RowRange> next;
      for (const auto& a : *acc) {
        for (const auto& piece : IntersectRanges(*r, a.from, a.to)) next.push_back(piece);
      }
      acc = SortAndMerge(std::move(next));
    }
    return acc;
  }
  if (p.op() == Op::kOr) {
    std::vector<RowRange> all;
    for (const auto& c : p.children()) {
      auto r = RowRangesFromPredicate(*c);
      if (!r) return std::nullopt;
      all.insert(all.end(), r->begin(), r->end());
    }
    return SortAndMerge(std::move(all));
  }
  if (p.field() != system_fields::kRowId) return std::nullopt;
  auto value = [&](int64_t i) -> std::optional<int64_t> {
    auto s = p.literals()->GetScalar(i);
    if (!s.ok() || !(*s)->is_valid) return std::nullopt;
    auto cast = (*s)->CastTo(arrow::int64());
    if (!cast.ok()) return std::nullopt;
    return std::static_pointer_cast<arrow::Int64Scalar>(*cast)->value;
  };
  std::vector<RowRange> out;
  switch (p.op()) {
    case Op::kEqual: {
      auto v = value(0);
      if (v) out.push_back({*v, *v});
      return out;
    }
    case Op::kIn:
      for (int64_t i = 0; i < p.literals()->length(); ++i) {
        auto v = value(i);
        if (v) out.push_back({*v, *v});
      }
      return SortAndMerge(std::move(out));
    case Op::kBetween: {
      auto lo = value(0), hi = value(1);
      if (lo && hi && *lo <= *hi) out.push_back({*lo, *hi});
      return out;
    }
    default:
      return std::nullopt;
  }
}

}  // namespace paimon_rowid
