#include "paimon_rowid/catalog/bucket_spec.h"

#include <limits>
#include <set>

#include "paimon_rowid/common/options.h"

namespace paimon_rowid {

namespace {

std::string JoinList(const std::vector<std::string>& names) {
  std::string out = "[";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out + "]";
}

}  // namespace

std::vector<std::string> BucketSpec::BucketKeys(const TableSchema& schema) {
  Options opts = schema.table_options();
  if (auto explicit_keys = opts.Get(kBucketKeyOption)) {
    auto keys = SplitOptionList(*explicit_keys);
    if (!keys.empty()) return keys;
  }
  std::vector<std::string> keys;
  for (const auto& pk : schema.primary_keys) {
    if (!schema.IsPartitionKey(pk)) keys.push_back(pk);
  }
  return keys;
}

Result<BucketSpec> BucketSpec::Of(const TableSchema& schema) {
  Options opts = schema.table_options();
  BucketSpec spec;
  ARROW_ASSIGN_OR_RAISE(int64_t bucket, opts.GetInt(options::kBucket, -1));
  spec.function_name = opts.GetOr(kBucketFunctionTypeOption, "default");
  if (bucket == -1) {
    if (opts.Contains(kBucketKeyOption)) {
      return Status::Invalid(
          "Cannot define 'bucket-key' with bucket = -1, please remove the 'bucket-key' setting "
          "or specify a bucket number.");
    }
    return spec;
  }
  if (bucket == -2) {
    return Status::NotImplemented(
        "postpone-bucket tables (bucket = -2) are not supported by paimon-rowid");
  }
  if (bucket < 1 || bucket > std::numeric_limits<int32_t>::max()) {
    return Status::Invalid("The number of buckets needs to be greater than 0.");
  }
  spec.num_buckets = static_cast<int32_t>(bucket);
  spec.keys = BucketKeys(schema);
  if (spec.keys.empty()) {
    return Status::Invalid("You should define a 'bucket-key' for bucketed append mode.");
  }
  std::set<std::string> seen;
  std::vector<std::shared_ptr<arrow::DataType>>& key_types = spec.key_types;
  for (const auto& key : spec.keys) {
    const DataField* f = schema.FieldByName(key);
    if (f == nullptr) {
      return Status::Invalid("Field names ", JoinList(schema.field_names()),
                             " should contains all bucket keys ", JoinList(spec.keys), ".");
    }
    if (schema.IsPartitionKey(key)) {
      return Status::Invalid("Bucket keys ", JoinList(spec.keys), " should not in partition keys ",
                             JoinList(schema.partition_keys), ".");
    }
    if (!seen.insert(key).second) {
      return Status::Invalid("bucket key '", key, "' is listed twice in ", JoinList(spec.keys));
    }
    if (f->type->is_nested() || f->type->holds_blob() || f->type->root() == TypeRoot::kVariant) {
      return Status::Invalid("bucket key '", key, "' must be of an atomic, non-BLOB type; got ",
                             f->type->ToString());
    }
    key_types.push_back(f->type->ToArrow());
  }
  ARROW_ASSIGN_OR_RAISE(auto type, ParseBucketFunctionType(spec.function_name));
  ARROW_ASSIGN_OR_RAISE(spec.function, BucketFunction::Make(type, key_types));
  return spec;
}

}  // namespace paimon_rowid
