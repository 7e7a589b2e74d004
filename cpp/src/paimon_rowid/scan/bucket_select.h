// Bucket pruning (Java's BucketSelectConverter): when a predicate pins every bucket-key
// column of a fixed-bucket table to a few values (`=`, IN, or an OR of them, ANDed with
// anything else), only the buckets those value combinations hash to can hold matching rows.
#pragma once

#include <cstdint>
#include <optional>
#include <set>

#include "paimon_rowid/catalog/bucket_spec.h"
#include "paimon_rowid/common/status.h"
#include "paimon_rowid/scan/predicate.h"

namespace paimon_rowid {

/// At most this many key-value combinations are hashed; more prune nothing.
inline constexpr int64_t kMaxBucketSelectCombinations = 1000;

/// The buckets of `spec` that rows matching `predicate` can be in, or nullopt when the
/// predicate does not pin the bucket key (or the table is not fixed-bucket). An empty set
/// means no row can match (e.g. `k = NULL`).
Result<std::optional<std::set<int32_t>>> SelectBuckets(const Predicate& predicate,
                                                       const BucketSpec& spec);

}  // namespace paimon_rowid
