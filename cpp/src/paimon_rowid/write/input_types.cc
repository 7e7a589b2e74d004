#include "paimon_rowid/write/input_types.h"

#include <cstring>
#include <limits>
#include <set>

#include "arrow/array.h"
#include "arrow/builder.h"
#include "arrow/compute/api_vector.h"
#include "arrow/compute/cast.h"
#include "arrow/compute/exec.h"
#include "arrow/util/bitmap_ops.h"

namespace paimon_rowid {

// Parquet C++ cannot write a null fixed_size_list slot ("Lists with non-zero length null
// components"), so VECTOR columns are written as the LIST they are in Parquet anyway (see
// docs/format.md §6.4), with null slots of length 0; readers cast them back to fixed_size_list.
std::shared_ptr<arrow::Field> VectorFieldAsList(const std::shared_ptr<arrow::Field>& field) {
  const auto& fsl = static_cast<const arrow::FixedSizeListType&>(*field->type());
  return arrow::field(field->name(), arrow::list(fsl.value_field()), field->nullable(),
                      field->metadata());
}

// The key types of MAP<K, BLOB> that have a serializer (codec/blob_file_nested.h).
bool IsMapBlobKeyType(const DataType& key) {
  switch (key.root()) {
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt:
    case TypeRoot::kBoolean:
    case TypeRoot::kDecimal:
    case TypeRoot::kDate:
    case TypeRoot::kTime:
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      return true;
    default:
      return false;
  }
}

// The Arrow type ARRAY<BLOB> / MAP<K, BLOB> input is cast to: the table's, with a nullable
// element / value field, so that nulls where the type says NOT NULL reach the blob writer
// and fail there as pypaimon's do (ValueError), not inside Arrow's cast.
std::shared_ptr<arrow::DataType> BlobInputType(const DataType& type) {
  auto arrow_type = type.ToArrow();
  if (type.root() == TypeRoot::kArray) {
    const auto& list = static_cast<const arrow::ListType&>(*arrow_type);
    return arrow::list(list.value_field()->WithNullable(true));
  }
  if (type.root() == TypeRoot::kMap) {
    const auto& map = static_cast<const arrow::MapType&>(*arrow_type);
    return arrow::map(map.key_type(), map.item_field()->WithNullable(true));
  }
  return arrow_type;
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out = "[";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out + "]";
}

namespace {

// Whether every element of the non-null vectors is non-null (`elements`: the vectors' slice of
// the child).
bool NoNullElementsInValidVectors(const arrow::FixedSizeListArray& vectors,
                                  const arrow::Array& elements) {
  if (elements.null_count() == 0) return true;
  if (vectors.null_count() == 0) return false;
  const int64_t size = vectors.value_length();
  const uint8_t* bits = elements.null_bitmap_data();
  for (int64_t i = 0; i < vectors.length(); ++i) {
    if (vectors.IsValid(i) &&
        arrow::internal::CountSetBits(bits, elements.offset() + i * size, size) != size) {
      return false;
    }
  }
  return true;
}

// The vectors' validity bitmap starting at their first row (the list built from them starts at
// offset 0): nullptr without NULLs, the bitmap itself when the vectors are not a slice, else
// a copy from the slice's first bit.
Result<std::shared_ptr<arrow::Buffer>> ValidityFromFirstRow(
    const arrow::FixedSizeListArray& vectors, arrow::MemoryPool* pool) {
  if (vectors.null_count() == 0) return nullptr;
  if (vectors.offset() == 0) return vectors.null_bitmap();
  return arrow::internal::CopyBitmap(pool, vectors.null_bitmap_data(), vectors.offset(),
                                     vectors.length());
}

Result<std::shared_ptr<arrow::Array>> VectorAsList(const arrow::Array& array,
                                                   arrow::MemoryPool* pool) {
  const auto& vectors = static_cast<const arrow::FixedSizeListArray&>(array);
  const int32_t size = vectors.value_length();
  auto list_type =
      arrow::list(static_cast<const arrow::FixedSizeListType&>(*vectors.type()).value_field());
  const auto& child = *vectors.values();
  const int byte_width = child.type()->byte_width();
  // Fixed-width elements: the offsets are i * size over the non-null vectors, and the elements
  // are the child's slice when no vector is null, else the non-null vectors' runs copied.
  const int64_t first = vectors.data()->offset * static_cast<int64_t>(size);
  const auto elements = child.Slice(first, vectors.length() * static_cast<int64_t>(size));
  ARROW_ASSIGN_OR_RAISE(auto validity, ValidityFromFirstRow(vectors, pool));
  if (byte_width > 0 && arrow::is_fixed_width(child.type_id()) &&
      child.data()->buffers.size() == 2 && NoNullElementsInValidVectors(vectors, *elements) &&
      vectors.length() * static_cast<int64_t>(size) <= std::numeric_limits<int32_t>::max()) {
    const int64_t n = vectors.length();
    ARROW_ASSIGN_OR_RAISE(auto offsets_buffer,
                          arrow::AllocateBuffer((n + 1) * sizeof(int32_t), pool));
    auto* offsets = reinterpret_cast<int32_t*>(offsets_buffer->mutable_data());
    std::shared_ptr<arrow::Array> values;
    if (vectors.null_count() == 0) {
      for (int64_t i = 0; i <= n; ++i) offsets[i] = static_cast<int32_t>(i * size);
      values = elements;
    } else {
      const int64_t row_bytes = static_cast<int64_t>(size) * byte_width;
      ARROW_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Buffer> data,
                            arrow::AllocateBuffer((n - vectors.null_count()) * row_bytes, pool));
      const uint8_t* src = child.data()->buffers[1]->data() + (child.offset() + first) * byte_width;
      uint8_t* dst = data->mutable_data();
      int32_t at = 0;
      for (int64_t i = 0; i < n; ++i) {
        offsets[i] = at;
        if (!vectors.IsValid(i)) continue;
        std::memcpy(dst + static_cast<int64_t>(at) * byte_width, src + i * row_bytes,
                    static_cast<size_t>(row_bytes));
        at += size;
      }
      offsets[n] = at;
      values = arrow::MakeArray(arrow::ArrayData::Make(
          child.type(), at, std::vector<std::shared_ptr<arrow::Buffer>>{nullptr, data}, 0));
    }
    return std::make_shared<arrow::ListArray>(list_type, n, std::move(offsets_buffer),
                                              std::move(values), std::move(validity),
                                              vectors.null_count(),
                                              /*offset=*/0);
  }
  arrow::Int32Builder offsets(pool);
  ARROW_RETURN_NOT_OK(offsets.Reserve(vectors.length() + 1));
  arrow::Int64Builder take(pool);
  int32_t offset = 0;
  offsets.UnsafeAppend(0);
  for (int64_t i = 0; i < vectors.length(); ++i) {
    if (vectors.IsValid(i)) {
      for (int32_t k = 0; k < size; ++k) {
        ARROW_RETURN_NOT_OK(take.Append(vectors.value_offset(i) + k));
      }
      offset += size;
    }
    offsets.UnsafeAppend(offset);
  }
  ARROW_ASSIGN_OR_RAISE(auto indices, take.Finish());
  arrow::compute::ExecContext ctx(pool);
  ARROW_ASSIGN_OR_RAISE(auto values,
                        arrow::compute::Take(*vectors.values(), *indices,
                                             arrow::compute::TakeOptions::Defaults(), &ctx));
  ARROW_ASSIGN_OR_RAISE(auto offset_array, offsets.Finish());
  return std::make_shared<arrow::ListArray>(list_type, vectors.length(),
                                            offset_array->data()->buffers[1], values,
                                            std::move(validity), vectors.null_count(),
                                            /*offset=*/0);
}

}  // namespace

Result<std::shared_ptr<arrow::RecordBatch>> ConformInput(
    const arrow::RecordBatch& batch, const std::vector<DataField>& write_fields,
    const std::shared_ptr<arrow::Schema>& input_schema, const std::string& table_name,
    arrow::MemoryPool* pool) {
  arrow::compute::ExecContext ctx(pool);
  const auto& in = *batch.schema();
  std::set<std::string> wanted;
  for (const auto& f : write_fields) wanted.insert(f.name);
  std::vector<std::string> write_names;
  for (const auto& f : write_fields) write_names.push_back(f.name);
  for (const auto& f : in.fields()) {
    if (!wanted.count(f->name())) {
      return Status::Invalid("Input column '", f->name(), "' is not in the write type ",
                             JoinNames(write_names), " of table '", table_name, "'");
    }
  }
  arrow::ArrayVector columns;
  for (size_t i = 0; i < write_fields.size(); ++i) {
    const DataField& f = write_fields[i];
    auto indices = in.GetAllFieldIndices(f.name);
    if (indices.empty()) {
      return Status::Invalid("Input is missing column '", f.name, "' of the write type ",
                             JoinNames(write_names));
    }
    if (indices.size() > 1) return Status::Invalid("Input has column '", f.name, "' twice");
    std::shared_ptr<arrow::Array> column = batch.column(indices[0]);
    const auto& target = input_schema->field(static_cast<int>(i))->type();
    if (!column->type()->Equals(*target)) {
      auto cast = arrow::compute::Cast(*column, target, arrow::compute::CastOptions::Safe(), &ctx);
      if (!cast.ok() && f.type->holds_blob() && !f.type->is_blob()) {
        // pypaimon rejects any other input type for these columns with a ValueError.
        return Status::Invalid("Cannot cast column '", f.name, "' from ",
                               column->type()->ToString(), " to ", target->ToString(), " (Paimon ",
                               f.type->ToString(), "): ", cast.status().message());
      }
      if (!cast.ok()) {
        return Status::TypeError("Cannot cast column '", f.name, "' from ",
                                 column->type()->ToString(), " to ", target->ToString(),
                                 " (Paimon ", f.type->ToString(), "): ", cast.status().message());
      }
      column = *cast;
    }
    if (!f.type->nullable() && column->null_count() > 0) {
      return Status::Invalid("Column '", f.name, "' is NOT NULL (", f.type->ToString(),
                             ") but the input has ", column->null_count(), " null value(s)");
    }
    if (f.type->root() == TypeRoot::kVector) {
      // A non-null vector has no null elements (docs/format.md §6.4).
      const auto& vectors = static_cast<const arrow::FixedSizeListArray&>(*column);
      ARROW_ASSIGN_OR_RAISE(auto elements, vectors.Flatten());
      if (elements->null_count() > 0) {
        return Status::Invalid("Column '", f.name, "' (", f.type->ToString(), ") has ",
                               elements->null_count(), " null element(s) inside non-null vectors");
      }
    }
    columns.push_back(std::move(column));
  }
  return arrow::RecordBatch::Make(input_schema, batch.num_rows(), std::move(columns));
}

Result<std::shared_ptr<arrow::RecordBatch>> VectorsAsLists(
    const arrow::RecordBatch& batch, const std::shared_ptr<arrow::Schema>& file_schema,
    arrow::MemoryPool* pool) {
  bool has_vector = false;
  for (int i = 0; i < batch.num_columns(); ++i) {
    has_vector |= batch.column(i)->type_id() == arrow::Type::FIXED_SIZE_LIST;
  }
  if (!has_vector) return arrow::RecordBatch::Make(file_schema, batch.num_rows(), batch.columns());
  arrow::ArrayVector columns;
  for (int i = 0; i < batch.num_columns(); ++i) {
    if (batch.column(i)->type_id() == arrow::Type::FIXED_SIZE_LIST) {
      ARROW_ASSIGN_OR_RAISE(auto list, VectorAsList(*batch.column(i), pool));
      columns.push_back(std::move(list));
    } else {
      columns.push_back(batch.column(i));
    }
  }
  return arrow::RecordBatch::Make(file_schema, batch.num_rows(), std::move(columns));
}

}  // namespace paimon_rowid
