#include "paimon_rowid/join/hash_join.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <utility>

#include "arrow/api.h"
#include "arrow/array/concatenate.h"
#include "arrow/compute/api_vector.h"
#include "arrow/compute/exec.h"
#include "arrow/util/hashing.h"
#include "paimon_rowid/exec/compute.h"

namespace paimon_rowid {
namespace {

using Side = HashJoinOptions::Build;

// murmur3's 64-bit finalizer: spreads the bits of a combined key hash over the table slots.
inline uint64_t Mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb93fe53b87ULL;
  h ^= h >> 33;
  return h;
}

inline uint64_t Combine(uint64_t seed, uint64_t h) {
  return seed ^ (h + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

inline uint64_t HashBytes(const void* data, int64_t length) {
  return arrow::internal::ComputeStringHash<0>(data, length);
}

// One key column of one side: hashes its rows column-at-a-time and compares a row with a row
// of the same key column type on the other side. The two sides of a key pair always have
// equal types, so Equal's `other` is always of the same concrete class.
class KeyColumn {
 public:
  explicit KeyColumn(std::shared_ptr<arrow::Array> array) : array_(std::move(array)) {}
  virtual ~KeyColumn() = default;
  /// hashes[i] = Combine(hashes[i], hash of row i), for every row (nulls included).
  virtual void CombineHashes(uint64_t* hashes) const = 0;
  virtual bool Equal(int64_t row, const KeyColumn& other, int64_t other_row) const = 0;
  const arrow::Array& array() const { return *array_; }

 protected:
  std::shared_ptr<arrow::Array> array_;
};

// Every fixed-width type but bool and floats: equal iff the value bytes are equal.
class FixedWidthKey final : public KeyColumn {
 public:
  FixedWidthKey(std::shared_ptr<arrow::Array> array, int width)
      : KeyColumn(std::move(array)), width_(width) {
    const auto& buffer = array_->data()->buffers[1];
    values_ = buffer ? buffer->data() + array_->offset() * width_ : nullptr;
  }
  void CombineHashes(uint64_t* hashes) const override {
    const int64_t n = array_->length();
    if (width_ <= 8) {
      for (int64_t i = 0; i < n; ++i) {
        uint64_t v = 0;
        std::memcpy(&v, values_ + i * width_, width_);
        hashes[i] = Combine(hashes[i], Mix(v ^ static_cast<uint64_t>(width_)));
      }
    } else {
      for (int64_t i = 0; i < n; ++i) {
        hashes[i] = Combine(hashes[i], HashBytes(values_ + i * width_, width_));
      }
    }
  }
  bool Equal(int64_t row, const KeyColumn& other, int64_t other_row) const override {
    const auto& o = static_cast<const FixedWidthKey&>(other);
    return std::memcmp(values_ + row * width_, o.values_ + other_row * width_, width_) == 0;
  }

 private:
  int width_;
  const uint8_t* values_;
};

// float / double: by value, -0.0 == 0.0, every NaN equal to every NaN.
template <typename T>
class FloatKey final : public KeyColumn {
 public:
  explicit FloatKey(std::shared_ptr<arrow::Array> array) : KeyColumn(std::move(array)) {
    const auto& buffer = array_->data()->buffers[1];
    values_ = buffer ? reinterpret_cast<const T*>(buffer->data()) + array_->offset() : nullptr;
  }
  static T Normalize(T v) {
    if (v == 0) return T(0);  // -0.0 -> +0.0
    if (std::isnan(v)) return std::numeric_limits<T>::quiet_NaN();
    return v;
  }
  void CombineHashes(uint64_t* hashes) const override {
    const int64_t n = array_->length();
    for (int64_t i = 0; i < n; ++i) {
      T v = Normalize(values_[i]);
      uint64_t bits = 0;
      std::memcpy(&bits, &v, sizeof(T));
      hashes[i] = Combine(hashes[i], Mix(bits));
    }
  }
  bool Equal(int64_t row, const KeyColumn& other, int64_t other_row) const override {
    T a = values_[row];
    T b = static_cast<const FloatKey&>(other).values_[other_row];
    return a == b || (std::isnan(a) && std::isnan(b));
  }

 private:
  const T* values_;
};

class BoolKey final : public KeyColumn {
 public:
  explicit BoolKey(std::shared_ptr<arrow::Array> array)
      : KeyColumn(array), bools_(std::static_pointer_cast<arrow::BooleanArray>(array)) {}
  void CombineHashes(uint64_t* hashes) const override {
    const int64_t n = array_->length();
    for (int64_t i = 0; i < n; ++i) {
      hashes[i] = Combine(hashes[i], Mix(bools_->Value(i) ? 0x51ULL : 0x17ULL));
    }
  }
  bool Equal(int64_t row, const KeyColumn& other, int64_t other_row) const override {
    return bools_->Value(row) == static_cast<const BoolKey&>(other).bools_->Value(other_row);
  }

 private:
  std::shared_ptr<arrow::BooleanArray> bools_;
};

// utf8 / binary and their large and view forms: by bytes.
template <typename ArrayType>
class BinaryKey final : public KeyColumn {
 public:
  explicit BinaryKey(std::shared_ptr<arrow::Array> array)
      : KeyColumn(array), typed_(std::static_pointer_cast<ArrayType>(array)) {}
  void CombineHashes(uint64_t* hashes) const override {
    const int64_t n = array_->length();
    for (int64_t i = 0; i < n; ++i) {
      std::string_view v = typed_->GetView(i);
      hashes[i] = Combine(hashes[i], HashBytes(v.data(), static_cast<int64_t>(v.size())));
    }
  }
  bool Equal(int64_t row, const KeyColumn& other, int64_t other_row) const override {
    return typed_->GetView(row) == static_cast<const BinaryKey&>(other).typed_->GetView(other_row);
  }

 private:
  std::shared_ptr<ArrayType> typed_;
};

Status CheckKeyType(const arrow::DataType& type, const std::string& name) {
  switch (type.id()) {
    case arrow::Type::BOOL:
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32:
    case arrow::Type::INT64:
    case arrow::Type::UINT8:
    case arrow::Type::UINT16:
    case arrow::Type::UINT32:
    case arrow::Type::UINT64:
    case arrow::Type::HALF_FLOAT:
    case arrow::Type::FLOAT:
    case arrow::Type::DOUBLE:
    case arrow::Type::STRING:
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_STRING:
    case arrow::Type::LARGE_BINARY:
    case arrow::Type::FIXED_SIZE_BINARY:
    case arrow::Type::DATE32:
    case arrow::Type::DATE64:
    case arrow::Type::TIME32:
    case arrow::Type::TIME64:
    case arrow::Type::TIMESTAMP:
    case arrow::Type::DURATION:
    case arrow::Type::DECIMAL32:
    case arrow::Type::DECIMAL64:
    case arrow::Type::DECIMAL128:
    case arrow::Type::DECIMAL256:
      return Status::OK();
    default:
      return Status::TypeError("hash join: key column '", name, "' has type ", type.ToString(),
                               ", which is not an atomic key type");
  }
}

Result<std::unique_ptr<KeyColumn>> MakeKeyColumn(std::shared_ptr<arrow::Array> array) {
  const auto& type = *array->type();
  switch (type.id()) {
    case arrow::Type::BOOL:
      return std::make_unique<BoolKey>(std::move(array));
    case arrow::Type::FLOAT:
      return std::make_unique<FloatKey<float>>(std::move(array));
    case arrow::Type::DOUBLE:
      return std::make_unique<FloatKey<double>>(std::move(array));
    case arrow::Type::STRING:
      return std::make_unique<BinaryKey<arrow::StringArray>>(std::move(array));
    case arrow::Type::BINARY:
      return std::make_unique<BinaryKey<arrow::BinaryArray>>(std::move(array));
    case arrow::Type::LARGE_STRING:
      return std::make_unique<BinaryKey<arrow::LargeStringArray>>(std::move(array));
    case arrow::Type::LARGE_BINARY:
      return std::make_unique<BinaryKey<arrow::LargeBinaryArray>>(std::move(array));
    default: {
      const auto* fixed = dynamic_cast<const arrow::FixedWidthType*>(&type);
      if (fixed == nullptr || fixed->bit_width() % 8 != 0 || fixed->bit_width() == 0) {
        return Status::TypeError("hash join: unsupported key type ", type.ToString());
      }
      int width = fixed->bit_width() / 8;
      return std::make_unique<FixedWidthKey>(std::move(array), width);
    }
  }
}

// The key columns of one batch (or of the concatenated build side): per-row hashes and the
// rows that have a NULL in some key column (which never match).
struct KeyedRows {
  std::vector<std::unique_ptr<KeyColumn>> keys;
  std::shared_ptr<arrow::Buffer> hashes;    // uint64 per row
  std::shared_ptr<arrow::Buffer> has_null;  // uint8 per row, or null when no key has nulls

  const uint64_t* hash_data() const { return reinterpret_cast<const uint64_t*>(hashes->data()); }
  bool IsNull(int64_t row) const { return has_null && has_null->data()[row] != 0; }
  bool Equal(int64_t row, const KeyedRows& other, int64_t other_row) const {
    for (size_t k = 0; k < keys.size(); ++k) {
      if (!keys[k]->Equal(row, *other.keys[k], other_row)) return false;
    }
    return true;
  }
};

Result<KeyedRows> HashKeys(const std::vector<std::shared_ptr<arrow::Array>>& columns,
                           const std::vector<int>& key_indices, int64_t num_rows,
                           arrow::MemoryPool* pool) {
  KeyedRows out;
  ARROW_ASSIGN_OR_RAISE(out.hashes, arrow::AllocateBuffer(num_rows * 8, pool));
  auto* hashes = reinterpret_cast<uint64_t*>(out.hashes->mutable_data());
  std::fill(hashes, hashes + num_rows, 0x2545F4914F6CDD1DULL);
  uint8_t* has_null = nullptr;
  for (int index : key_indices) {
    const auto& array = columns[index];
    ARROW_ASSIGN_OR_RAISE(auto key, MakeKeyColumn(array));
    key->CombineHashes(hashes);
    if (array->null_count() > 0) {
      if (has_null == nullptr) {
        ARROW_ASSIGN_OR_RAISE(out.has_null, arrow::AllocateBuffer(num_rows, pool));
        has_null = out.has_null->mutable_data();
        std::memset(has_null, 0, static_cast<size_t>(num_rows));
      }
      for (int64_t i = 0; i < num_rows; ++i) has_null[i] |= array->IsNull(i) ? 1 : 0;
    }
    out.keys.push_back(std::move(key));
  }
  for (int64_t i = 0; i < num_rows; ++i) hashes[i] = Mix(hashes[i]);
  return out;
}

Result<std::vector<int>> KeyIndices(const arrow::Schema& schema,
                                    const std::vector<std::string>& names, const char* side) {
  std::vector<int> out;
  for (const auto& name : names) {
    auto all = schema.GetAllFieldIndices(name);
    if (all.empty()) {
      return Status::Invalid("hash join: ", side, " key column '", name, "' is not in the ", side,
                             " schema ", schema.ToString());
    }
    if (all.size() > 1) {
      return Status::Invalid("hash join: ", side, " key column '", name, "' is ambiguous (",
                             all.size(), " columns have that name)");
    }
    out.push_back(all[0]);
  }
  return out;
}

// The build side, read completely: one array per column, its key hashes and a chained hash
// table (heads: slot -> first row or -1; next: row -> next row of the same slot or -1).
struct BuildTable {
  std::vector<std::shared_ptr<arrow::Array>> columns;
  int64_t num_rows = 0;
  KeyedRows keyed;
  std::shared_ptr<arrow::Buffer> heads;
  std::shared_ptr<arrow::Buffer> next;
  uint64_t mask = 0;

  const int64_t* head_data() const { return reinterpret_cast<const int64_t*>(heads->data()); }
  const int64_t* next_data() const { return reinterpret_cast<const int64_t*>(next->data()); }
};

Result<BuildTable> ReadBuildSide(arrow::RecordBatchReader* reader,
                                 const std::vector<int>& key_indices, arrow::MemoryPool* pool) {
  auto schema = reader->schema();
  std::vector<std::vector<std::shared_ptr<arrow::Array>>> chunks(schema->num_fields());
  BuildTable build;
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(reader->ReadNext(&batch));
    if (!batch) break;
    if (batch->num_rows() == 0) continue;
    for (int c = 0; c < schema->num_fields(); ++c) chunks[c].push_back(batch->column(c));
    build.num_rows += batch->num_rows();
  }
  for (int c = 0; c < schema->num_fields(); ++c) {
    if (chunks[c].empty()) {
      ARROW_ASSIGN_OR_RAISE(auto empty, arrow::MakeEmptyArray(schema->field(c)->type(), pool));
      build.columns.push_back(std::move(empty));
    } else if (chunks[c].size() == 1) {
      build.columns.push_back(std::move(chunks[c][0]));
    } else {
      ARROW_ASSIGN_OR_RAISE(auto joined, arrow::Concatenate(chunks[c], pool));
      build.columns.push_back(std::move(joined));
    }
    chunks[c].clear();
  }
  if (build.num_rows == 0) return build;
  ARROW_ASSIGN_OR_RAISE(build.keyed, HashKeys(build.columns, key_indices, build.num_rows, pool));

  uint64_t slots = 1;
  while (slots < static_cast<uint64_t>(build.num_rows) * 2) slots <<= 1;
  build.mask = slots - 1;
  ARROW_ASSIGN_OR_RAISE(build.heads, arrow::AllocateBuffer(static_cast<int64_t>(slots) * 8, pool));
  ARROW_ASSIGN_OR_RAISE(build.next, arrow::AllocateBuffer(build.num_rows * 8, pool));
  auto* heads = reinterpret_cast<int64_t*>(build.heads->mutable_data());
  auto* next = reinterpret_cast<int64_t*>(build.next->mutable_data());
  std::fill(heads, heads + slots, -1);
  const uint64_t* hashes = build.keyed.hash_data();
  // Rows are pushed in reverse, so each chain lists its rows in input order.
  for (int64_t row = build.num_rows - 1; row >= 0; --row) {
    next[row] = -1;
    if (build.keyed.IsNull(row)) continue;
    uint64_t slot = hashes[row] & build.mask;
    next[row] = heads[slot];
    heads[slot] = row;
  }
  return build;
}

// Where an output column comes from: the build or the probe side, and the column there.
struct OutputColumn {
  bool from_build;
  int index;
};

class ProbeReader final : public arrow::RecordBatchReader {
 public:
  ProbeReader(std::shared_ptr<arrow::Schema> schema, std::shared_ptr<BuildTable> build,
              std::shared_ptr<arrow::RecordBatchReader> probe, std::vector<int> probe_keys,
              std::vector<OutputColumn> layout, const HashJoinOptions& options)
      : schema_(std::move(schema)),
        build_(std::move(build)),
        probe_(std::move(probe)),
        probe_keys_(std::move(probe_keys)),
        layout_(std::move(layout)),
        pool_(options.pool),
        batch_rows_(options.batch_rows),
        ctx_(options.pool) {}

  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }

  Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    *out = nullptr;
    if (done_) return Status::OK();
    ARROW_ASSIGN_OR_RAISE(auto build_idx, arrow::AllocateResizableBuffer(batch_rows_ * 8, pool_));
    ARROW_ASSIGN_OR_RAISE(auto probe_idx, arrow::AllocateResizableBuffer(batch_rows_ * 8, pool_));
    auto* b = reinterpret_cast<int64_t*>(build_idx->mutable_data());
    auto* p = reinterpret_cast<int64_t*>(probe_idx->mutable_data());
    int64_t count = 0;
    const uint64_t* build_hashes = build_->keyed.hash_data();
    const int64_t* heads = build_->head_data();
    const int64_t* next = build_->next_data();
    while (count == 0) {
      if (!batch_) {
        ARROW_RETURN_NOT_OK(NextProbeBatch());
        if (!batch_) {
          done_ = true;
          return Status::OK();
        }
      }
      const uint64_t* hashes = keyed_.hash_data();
      const int64_t rows = batch_->num_rows();
      while (row_ < rows && count < batch_rows_) {
        if (chain_ == kChainStart) {
          if (keyed_.IsNull(row_)) {
            ++row_;
            continue;
          }
          chain_ = heads[hashes[row_] & build_->mask];
        }
        while (chain_ >= 0 && count < batch_rows_) {
          if (build_hashes[chain_] == hashes[row_] && build_->keyed.Equal(chain_, keyed_, row_)) {
            b[count] = chain_;
            p[count] = row_;
            ++count;
          }
          chain_ = next[chain_];
        }
        if (chain_ < 0) {
          ++row_;
          chain_ = kChainStart;
        }
      }
      if (count == 0) batch_.reset();  // this probe batch is done and matched nothing more
    }
    ARROW_RETURN_NOT_OK(build_idx->Resize(count * 8));
    ARROW_RETURN_NOT_OK(probe_idx->Resize(count * 8));
    auto build_indices = std::make_shared<arrow::Int64Array>(count, std::move(build_idx));
    auto probe_indices = std::make_shared<arrow::Int64Array>(count, std::move(probe_idx));
    std::vector<std::shared_ptr<arrow::Array>> columns;
    columns.reserve(layout_.size());
    auto take_options = arrow::compute::TakeOptions::NoBoundsCheck();
    for (const auto& col : layout_) {
      const auto& values = col.from_build ? build_->columns[col.index] : batch_->column(col.index);
      const auto& indices = col.from_build ? build_indices : probe_indices;
      ARROW_ASSIGN_OR_RAISE(auto taken, arrow::compute::Take(values, indices, take_options, &ctx_));
      columns.push_back(taken.make_array());
    }
    if (row_ >= batch_->num_rows()) batch_.reset();
    *out = arrow::RecordBatch::Make(schema_, count, std::move(columns));
    return Status::OK();
  }

 private:
  static constexpr int64_t kChainStart = -2;

  Status NextProbeBatch() {
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      ARROW_RETURN_NOT_OK(probe_->ReadNext(&batch));
      if (!batch) return Status::OK();
      if (batch->num_rows() == 0) continue;
      ARROW_ASSIGN_OR_RAISE(keyed_,
                            HashKeys(batch->columns(), probe_keys_, batch->num_rows(), pool_));
      batch_ = std::move(batch);
      row_ = 0;
      chain_ = kChainStart;
      return Status::OK();
    }
  }

  std::shared_ptr<arrow::Schema> schema_;
  std::shared_ptr<BuildTable> build_;
  std::shared_ptr<arrow::RecordBatchReader> probe_;
  std::vector<int> probe_keys_;
  std::vector<OutputColumn> layout_;
  arrow::MemoryPool* pool_;
  int64_t batch_rows_;
  arrow::compute::ExecContext ctx_;

  // The probe batch being joined, its keys, and the cursor: the probe row and the build row
  // of its chain to look at next (kChainStart: the chain of row_ is not entered yet).
  std::shared_ptr<arrow::RecordBatch> batch_;
  KeyedRows keyed_;
  int64_t row_ = 0;
  int64_t chain_ = kChainStart;
  bool done_ = false;
};

class EmptyReader final : public arrow::RecordBatchReader {
 public:
  explicit EmptyReader(std::shared_ptr<arrow::Schema> schema) : schema_(std::move(schema)) {}
  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }
  Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    *out = nullptr;
    return Status::OK();
  }

 private:
  std::shared_ptr<arrow::Schema> schema_;
};

}  // namespace

Result<std::shared_ptr<arrow::RecordBatchReader>> HashJoinInner(
    std::shared_ptr<arrow::RecordBatchReader> left, std::shared_ptr<arrow::RecordBatchReader> right,
    std::vector<std::string> left_keys, std::vector<std::string> right_keys,
    const HashJoinOptions& options) {
  ARROW_RETURN_NOT_OK(EnsureComputeInitialized());
  if (!left || !right) return Status::Invalid("hash join: an input reader is null");
  if (left_keys.empty()) return Status::Invalid("hash join: the key lists must not be empty");
  if (left_keys.size() != right_keys.size()) {
    return Status::Invalid("hash join: ", left_keys.size(), " left keys but ", right_keys.size(),
                           " right keys");
  }
  if (options.batch_rows <= 0) {
    return Status::Invalid("hash join: batch_rows must be positive, got ", options.batch_rows);
  }
  arrow::MemoryPool* pool = options.pool ? options.pool : arrow::default_memory_pool();
  auto left_schema = left->schema();
  auto right_schema = right->schema();
  ARROW_ASSIGN_OR_RAISE(auto left_idx, KeyIndices(*left_schema, left_keys, "left"));
  ARROW_ASSIGN_OR_RAISE(auto right_idx, KeyIndices(*right_schema, right_keys, "right"));
  for (size_t k = 0; k < left_idx.size(); ++k) {
    const auto& lt = left_schema->field(left_idx[k])->type();
    const auto& rt = right_schema->field(right_idx[k])->type();
    ARROW_RETURN_NOT_OK(CheckKeyType(*lt, left_keys[k]));
    if (!lt->Equals(*rt)) {
      return Status::TypeError("hash join: key '", left_keys[k], "' has type ", lt->ToString(),
                               " on the left but key '", right_keys[k], "' has type ",
                               rt->ToString(), " on the right");
    }
  }

  // Output: left fields, then right fields that are not keys.
  const bool build_left = options.build != Side::kRight;
  std::set<int> right_key_set(right_idx.begin(), right_idx.end());
  arrow::FieldVector fields;
  std::vector<OutputColumn> layout;
  for (int c = 0; c < left_schema->num_fields(); ++c) {
    fields.push_back(left_schema->field(c));
    layout.push_back({build_left, c});
  }
  for (int c = 0; c < right_schema->num_fields(); ++c) {
    if (right_key_set.count(c)) continue;
    fields.push_back(right_schema->field(c));
    layout.push_back({!build_left, c});
  }
  auto schema = arrow::schema(std::move(fields));

  auto& build_reader = build_left ? left : right;
  auto& probe_reader = build_left ? right : left;
  ARROW_ASSIGN_OR_RAISE(auto build,
                        ReadBuildSide(build_reader.get(), build_left ? left_idx : right_idx, pool));
  if (build.num_rows == 0) {
    return std::make_shared<EmptyReader>(std::move(schema));
  }
  HashJoinOptions resolved = options;
  resolved.pool = pool;
  return std::make_shared<ProbeReader>(
      std::move(schema), std::make_shared<BuildTable>(std::move(build)), std::move(probe_reader),
      build_left ? right_idx : left_idx, std::move(layout), resolved);
}

}  // namespace paimon_rowid
