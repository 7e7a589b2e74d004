#include "paimon_rowid/scan/bucket_select.h"

#include <map>
#include <vector>

#include "arrow/array.h"
#include "arrow/array/concatenate.h"
#include "arrow/builder.h"
#include "arrow/compute/api_vector.h"
#include "arrow/compute/cast.h"

namespace paimon_rowid {

namespace {

using ArrayPtr = std::shared_ptr<arrow::Array>;

// The literal values a conjunct allows for its column, when it is `=`, IN, or an OR of those
// on one column; nullptr otherwise.
ArrayPtr AllowedValues(const Predicate& p, std::string* column) {
  switch (p.op()) {
    case Predicate::Op::kEqual:
    case Predicate::Op::kIn:
      *column = p.field();
      return p.literals();
    case Predicate::Op::kOr: {
      std::vector<ArrayPtr> parts;
      std::string first;
      for (const auto& child : p.children()) {
        std::string c;
        ArrayPtr values = AllowedValues(*child, &c);
        if (!values || (!first.empty() && c != first)) return nullptr;
        first = c;
        parts.push_back(values);
      }
      if (parts.empty()) return nullptr;
      auto joined = arrow::Concatenate(parts);
      if (!joined.ok()) return nullptr;
      *column = first;
      return *joined;
    }
    default:
      return nullptr;
  }
}

void Conjuncts(const Predicate& p, std::vector<const Predicate*>* out) {
  if (p.op() == Predicate::Op::kAnd) {
    for (const auto& child : p.children()) Conjuncts(*child, out);
  } else {
    out->push_back(&p);
  }
}

}  // namespace

Result<std::optional<std::set<int32_t>>> SelectBuckets(const Predicate& predicate,
                                                       const BucketSpec& spec) {
  if (!spec.fixed() || !spec.function) return std::nullopt;
  std::vector<const Predicate*> conjuncts;
  Conjuncts(predicate, &conjuncts);
  // The smallest allowed set per key column (every conjunct must hold, so any one is sound).
  std::map<std::string, ArrayPtr> allowed;
  for (const Predicate* c : conjuncts) {
    std::string column;
    ArrayPtr values = AllowedValues(*c, &column);
    if (!values) continue;
    auto it = allowed.find(column);
    if (it == allowed.end() || values->length() < it->second->length()) allowed[column] = values;
  }
  std::vector<ArrayPtr> per_key;
  int64_t combinations = 1;
  for (const auto& key : spec.keys) {
    auto it = allowed.find(key);
    if (it == allowed.end()) return std::nullopt;
    // Nulls never compare equal; drop them.
    ARROW_ASSIGN_OR_RAISE(arrow::Datum dropped, arrow::compute::DropNull(it->second));
    ArrayPtr valid = dropped.make_array();
    per_key.push_back(valid);
    combinations *= valid->length();
    if (combinations == 0) return std::set<int32_t>{};
    if (combinations > kMaxBucketSelectCombinations) return std::nullopt;
  }
  // Every combination as one row: key i repeats with the stride of the keys after it.
  std::vector<ArrayPtr> columns;
  int64_t stride = combinations;
  for (const auto& values : per_key) {
    stride /= values->length();
    arrow::Int64Builder idx;
    ARROW_RETURN_NOT_OK(idx.Reserve(combinations));
    for (int64_t r = 0; r < combinations; ++r) idx.UnsafeAppend((r / stride) % values->length());
    ARROW_ASSIGN_OR_RAISE(auto indices, idx.Finish());
    ARROW_ASSIGN_OR_RAISE(arrow::Datum taken, arrow::compute::Take(values, indices));
    columns.push_back(taken.make_array());
  }
  // Literals are typed as their fields already; cast defensively to the key types the
  // writer hashes (a no-op when equal).
  const auto& function_types = spec.key_types;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (!columns[i]->type()->Equals(*function_types[i])) {
      ARROW_ASSIGN_OR_RAISE(arrow::Datum cast, arrow::compute::Cast(columns[i], function_types[i]));
      columns[i] = cast.make_array();
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto buckets, spec.function->Buckets(columns, spec.num_buckets));
  return std::set<int32_t>(buckets.begin(), buckets.end());
}

}  // namespace paimon_rowid
