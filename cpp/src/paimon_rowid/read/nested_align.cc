#include "paimon_rowid/read/nested_align.h"

#include <vector>

namespace paimon_rowid {
namespace {

// True when some ROW in `table` (at any depth) differs from `file`'s in field ids, names or
// order, so the column needs rebuilding.
bool NeedsAlign(const DataType& file, const DataType& table) {
  if (file.root() != table.root()) return false;  // a type change: the cast handles it
  switch (table.root()) {
    case TypeRoot::kRow: {
      const auto& ff = file.fields();
      const auto& tf = table.fields();
      if (ff.size() != tf.size()) return true;
      for (size_t i = 0; i < tf.size(); ++i) {
        if (ff[i].id != tf[i].id || ff[i].name != tf[i].name) return true;
        if (NeedsAlign(*ff[i].type, *tf[i].type)) return true;
      }
      return false;
    }
    case TypeRoot::kArray:
    case TypeRoot::kMultiset:
      return NeedsAlign(*file.element(), *table.element());
    case TypeRoot::kMap:
      return NeedsAlign(*file.value(), *table.value());
    default:
      return false;
  }
}

Result<std::shared_ptr<arrow::ArrayData>> Align(const std::shared_ptr<arrow::ArrayData>& data,
                                                const DataType& file, const DataType& table,
                                                arrow::MemoryPool* pool) {
  if (!NeedsAlign(file, table)) return data;
  const arrow::DataType& arrow_type = *data->type;
  switch (table.root()) {
    case TypeRoot::kRow: {
      if (arrow_type.id() != arrow::Type::STRUCT) return data;
      const auto& struct_type = static_cast<const arrow::StructType&>(arrow_type);
      // Children are not sliced by the struct's offset: they span offset + length slots.
      const int64_t child_length = data->offset + data->length;
      arrow::FieldVector fields;
      std::vector<std::shared_ptr<arrow::ArrayData>> children;
      for (const DataField& tf : table.fields()) {
        const DataField* ff = nullptr;
        for (const DataField& candidate : file.fields()) {
          if (candidate.id == tf.id) ff = &candidate;
        }
        const int index = ff == nullptr ? -1 : struct_type.GetFieldIndex(ff->name);
        std::shared_ptr<arrow::ArrayData> child;
        if (index < 0) {
          ARROW_ASSIGN_OR_RAISE(auto nulls,
                                arrow::MakeArrayOfNull(tf.type->ToArrow(), child_length, pool));
          child = nulls->data();
        } else {
          ARROW_ASSIGN_OR_RAISE(child, Align(data->child_data[index], *ff->type, *tf.type, pool));
        }
        fields.push_back(arrow::field(tf.name, child->type, tf.type->nullable()));
        children.push_back(std::move(child));
      }
      auto out = data->Copy();
      out->type = arrow::struct_(std::move(fields));
      out->child_data = std::move(children);
      return out;
    }
    case TypeRoot::kArray:
    case TypeRoot::kMultiset: {
      if (arrow_type.id() != arrow::Type::LIST && arrow_type.id() != arrow::Type::LARGE_LIST) {
        return data;
      }
      const auto& list_type = static_cast<const arrow::BaseListType&>(arrow_type);
      ARROW_ASSIGN_OR_RAISE(auto element,
                            Align(data->child_data[0], *file.element(), *table.element(), pool));
      auto value_field = list_type.value_field()->WithType(element->type);
      auto out = data->Copy();
      out->type = arrow_type.id() == arrow::Type::LIST ? arrow::list(value_field)
                                                       : arrow::large_list(value_field);
      out->child_data = {std::move(element)};
      return out;
    }
    case TypeRoot::kMap: {
      if (arrow_type.id() != arrow::Type::MAP) return data;
      const auto& map_type = static_cast<const arrow::MapType&>(arrow_type);
      const auto& entries = data->child_data[0];  // struct<key, value>
      ARROW_ASSIGN_OR_RAISE(auto value,
                            Align(entries->child_data[1], *file.value(), *table.value(), pool));
      auto item_field = map_type.item_field()->WithType(value->type);
      auto new_type = std::make_shared<arrow::MapType>(map_type.key_field(), item_field,
                                                       map_type.keys_sorted());
      auto new_entries = entries->Copy();
      new_entries->type = new_type->value_type();
      new_entries->child_data = {entries->child_data[0], std::move(value)};
      auto out = data->Copy();
      out->type = new_type;
      out->child_data = {std::move(new_entries)};
      return out;
    }
    default:
      return data;
  }
}

}  // namespace

Result<std::shared_ptr<arrow::ChunkedArray>> AlignNestedById(
    const std::shared_ptr<arrow::ChunkedArray>& column, const DataType& file_type,
    const DataType& table_type, arrow::MemoryPool* pool) {
  if (!NeedsAlign(file_type, table_type)) return column;
  arrow::ArrayVector chunks;
  for (const auto& chunk : column->chunks()) {
    ARROW_ASSIGN_OR_RAISE(auto aligned, Align(chunk->data(), file_type, table_type, pool));
    chunks.push_back(arrow::MakeArray(aligned));
  }
  if (chunks.empty()) {
    // No chunk to take the type from: the table's (the caller's cast is then a no-op).
    return std::make_shared<arrow::ChunkedArray>(chunks, table_type.ToArrow());
  }
  auto type = chunks.front()->type();
  return std::make_shared<arrow::ChunkedArray>(std::move(chunks), std::move(type));
}

}  // namespace paimon_rowid
