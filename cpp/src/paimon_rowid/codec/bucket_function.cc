#include "paimon_rowid/codec/bucket_function.h"

#include <bit>
#include <cctype>
#include <cstring>

#include "arrow/array.h"
#include "arrow/type.h"
#include "arrow/util/checked_cast.h"
#include "paimon_rowid/codec/binary_row.h"

namespace paimon_rowid {

namespace {

using arrow::internal::checked_cast;

constexpr uint32_t kC1 = 0xcc9e2d51;
constexpr uint32_t kC2 = 0x1b873593;
constexpr uint32_t kSeed = 42;

uint32_t MixK1(uint32_t k1) { return std::rotl(k1 * kC1, 15) * kC2; }
uint32_t MixH1(uint32_t h1, uint32_t k1) { return std::rotl(h1 ^ k1, 13) * 5 + 0xe6546b64; }
uint32_t Fmix(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6b;
  h ^= h >> 13;
  h *= 0xc2b2ae35;
  h ^= h >> 16;
  return h;
}

// Java's Math.abs(h % n) with int arithmetic (% truncates toward zero in both languages).
int32_t AbsMod(int32_t h, int32_t n) {
  int32_t r = h % n;
  return r < 0 ? -r : r;
}

int64_t FloorMod(int64_t a, int64_t n) {
  int64_t r = a % n;
  return r < 0 ? r + n : r;
}

// Hive's hash of one value (ObjectInspectorUtils.hashCode); nulls hash to 0.
Result<int32_t> HiveHash(const arrow::Array& a, int64_t i) {
  if (a.IsNull(i)) return 0;
  auto hash_long = [](int64_t v) {
    auto u = static_cast<uint64_t>(v);
    return static_cast<int32_t>(u ^ (u >> 32));
  };
  auto hash_bytes = [](std::string_view bytes) {
    uint32_t h = 0;
    for (char c : bytes) h = h * 31 + static_cast<uint32_t>(static_cast<int32_t>(c));
    return static_cast<int32_t>(h);
  };
  switch (a.type_id()) {
    case arrow::Type::BOOL:
      return checked_cast<const arrow::BooleanArray&>(a).Value(i) ? 1 : 0;
    case arrow::Type::INT8:
      return checked_cast<const arrow::Int8Array&>(a).Value(i);
    case arrow::Type::INT16:
      return checked_cast<const arrow::Int16Array&>(a).Value(i);
    case arrow::Type::INT32:
      return checked_cast<const arrow::Int32Array&>(a).Value(i);
    case arrow::Type::DATE32:
      return checked_cast<const arrow::Date32Array&>(a).Value(i);
    case arrow::Type::INT64:
      return hash_long(checked_cast<const arrow::Int64Array&>(a).Value(i));
    case arrow::Type::FLOAT: {
      float v = checked_cast<const arrow::FloatArray&>(a).Value(i);
      // Float.floatToIntBits: -0.0 hashes as 0.0 and every NaN as the canonical NaN.
      if (v == 0.0f) return 0;
      if (v != v) return 0x7fc00000;
      return std::bit_cast<int32_t>(v);
    }
    case arrow::Type::DOUBLE: {
      double v = checked_cast<const arrow::DoubleArray&>(a).Value(i);
      if (v == 0.0) return 0;
      if (v != v) return hash_long(0x7ff8000000000000LL);
      return hash_long(std::bit_cast<int64_t>(v));
    }
    case arrow::Type::STRING:
      return hash_bytes(checked_cast<const arrow::StringArray&>(a).GetView(i));
    case arrow::Type::LARGE_STRING:
      return hash_bytes(checked_cast<const arrow::LargeStringArray&>(a).GetView(i));
    case arrow::Type::BINARY:
      return hash_bytes(checked_cast<const arrow::BinaryArray&>(a).GetView(i));
    case arrow::Type::LARGE_BINARY:
      return hash_bytes(checked_cast<const arrow::LargeBinaryArray&>(a).GetView(i));
    default:
      return Status::Invalid("the hive bucket function does not support bucket-key type ",
                             a.type()->ToString());
  }
}

bool HiveSupports(arrow::Type::type id) {
  switch (id) {
    case arrow::Type::BOOL:
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32:
    case arrow::Type::DATE32:
    case arrow::Type::INT64:
    case arrow::Type::FLOAT:
    case arrow::Type::DOUBLE:
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_BINARY:
      return true;
    default:
      return false;
  }
}

}  // namespace

int32_t HashBytesByWords(std::string_view bytes) {
  uint32_t h1 = kSeed;
  for (size_t i = 0; i + 4 <= bytes.size(); i += 4) {
    uint32_t word;
    std::memcpy(&word, bytes.data() + i, 4);  // little-endian, as Java's MemorySegment.getInt
    h1 = MixH1(h1, MixK1(word));
  }
  return static_cast<int32_t>(Fmix(h1 ^ static_cast<uint32_t>(bytes.size())));
}

Result<BucketFunctionType> ParseBucketFunctionType(std::string_view value) {
  std::string lower;
  for (char c : value)
    lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (lower == "default") return BucketFunctionType::kDefault;
  if (lower == "mod") return BucketFunctionType::kMod;
  if (lower == "hive") return BucketFunctionType::kHive;
  return Status::Invalid("Could not parse value '", std::string(value),
                         "' for key 'bucket-function.type' (expected default, mod or hive)");
}

Result<std::shared_ptr<const BucketFunction>> BucketFunction::Make(
    BucketFunctionType type, const std::vector<std::shared_ptr<arrow::DataType>>& key_types) {
  if (key_types.empty()) return Status::Invalid("a bucket function needs at least one key");
  switch (type) {
    case BucketFunctionType::kDefault: {
      // Check each type has a BinaryRow layout now rather than on the first batch.
      std::vector<std::shared_ptr<arrow::Array>> empty;
      for (const auto& t : key_types) {
        ARROW_ASSIGN_OR_RAISE(auto a, arrow::MakeEmptyArray(t));
        empty.push_back(std::move(a));
      }
      ARROW_RETURN_NOT_OK(BinaryRowEncoder::Make(std::move(empty)).status());
      break;
    }
    case BucketFunctionType::kMod:
      if (key_types.size() != 1) {
        return Status::Invalid("bucket key must have exactly one field in mod bucket function");
      }
      if (key_types[0]->id() != arrow::Type::INT32 && key_types[0]->id() != arrow::Type::INT64) {
        return Status::Invalid(
            "bucket key type must be INT or BIGINT in mod bucket function, but got ",
            key_types[0]->ToString());
      }
      break;
    case BucketFunctionType::kHive:
      for (const auto& t : key_types) {
        if (!HiveSupports(t->id())) {
          return Status::Invalid("the hive bucket function does not support bucket-key type ",
                                 t->ToString());
        }
      }
      break;
  }
  return std::shared_ptr<const BucketFunction>(new BucketFunction(type));
}

Result<std::vector<int32_t>> BucketFunction::Buckets(
    const std::vector<std::shared_ptr<arrow::Array>>& keys, int32_t num_buckets) const {
  if (num_buckets <= 0) return Status::Invalid("the number of buckets must be positive");
  if (keys.empty()) return Status::Invalid("a bucket function needs at least one key");
  const int64_t n = keys.front()->length();
  std::vector<int32_t> out(static_cast<size_t>(n));
  switch (type_) {
    case BucketFunctionType::kDefault: {
      ARROW_ASSIGN_OR_RAISE(auto encoder, BinaryRowEncoder::Make(keys));
      for (int64_t i = 0; i < n; ++i) {
        ARROW_ASSIGN_OR_RAISE(std::string_view row, encoder.Row(i));
        out[i] = AbsMod(HashBytesByWords(row), num_buckets);
      }
      break;
    }
    case BucketFunctionType::kMod: {
      const arrow::Array& a = *keys[0];
      for (int64_t i = 0; i < n; ++i) {
        int64_t v = 0;  // a null reads as 0, like Java's getInt/getLong of a null slot
        if (!a.IsNull(i)) {
          v = a.type_id() == arrow::Type::INT32
                  ? checked_cast<const arrow::Int32Array&>(a).Value(i)
                  : checked_cast<const arrow::Int64Array&>(a).Value(i);
        }
        out[i] = static_cast<int32_t>(FloorMod(v, num_buckets));
      }
      break;
    }
    case BucketFunctionType::kHive: {
      for (int64_t i = 0; i < n; ++i) {
        uint32_t h = 0;
        for (const auto& k : keys) {
          ARROW_ASSIGN_OR_RAISE(int32_t field_hash, HiveHash(*k, i));
          h = 31 * h + static_cast<uint32_t>(field_hash);
        }
        out[i] = static_cast<int32_t>((h & 0x7fffffffu) % static_cast<uint32_t>(num_buckets));
      }
      break;
    }
  }
  return out;
}

}  // namespace paimon_rowid
