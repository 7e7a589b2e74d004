// The mapping between DataType/DataField and Arrow types/fields (ToArrow*, FromArrow,
// FieldsFromArrow), with pypaimon's choices for types Arrow and Paimon name differently.
#include "arrow/type.h"
#include "arrow/util/key_value_metadata.h"
#include "paimon_rowid/types/data_type.h"
#include "paimon_rowid/types/data_type_internal.h"

namespace paimon_rowid {
namespace {

using data_type_internal::CheckPrecision;
using data_type_internal::CheckVector;

arrow::TimeUnit::type UnitForPrecision(int32_t precision) {
  if (precision == 0) return arrow::TimeUnit::SECOND;
  if (precision <= 3) return arrow::TimeUnit::MILLI;
  if (precision <= 6) return arrow::TimeUnit::MICRO;
  return arrow::TimeUnit::NANO;
}

int32_t PrecisionForUnit(arrow::TimeUnit::type unit) {
  switch (unit) {
    case arrow::TimeUnit::SECOND:
      return 0;
    case arrow::TimeUnit::MILLI:
      return 3;
    case arrow::TimeUnit::MICRO:
      return 6;
    case arrow::TimeUnit::NANO:
      return 9;
  }
  return 6;
}

std::shared_ptr<arrow::KeyValueMetadata> FieldMetadata(const DataField& field, bool with_id) {
  std::vector<std::string> keys, values;
  if (with_id) {
    keys.push_back("PARQUET:field_id");
    values.push_back(std::to_string(field.id));
  }
  if (field.description && !field.description->empty()) {
    keys.push_back("description");
    values.push_back(*field.description);
  }
  if (keys.empty()) return nullptr;
  return arrow::key_value_metadata(std::move(keys), std::move(values));
}

std::shared_ptr<arrow::DataType> ToArrowImpl(const DataType& type, bool with_ids);

std::shared_ptr<arrow::Field> FieldToArrow(const DataField& field, bool with_ids, bool top_level) {
  // Nested ROW fields carry no description metadata (pypaimon only sets it at top level).
  DataField meta_source = field;
  if (!top_level) meta_source.description.reset();
  return arrow::field(field.name, ToArrowImpl(*field.type, with_ids), field.type->nullable(),
                      FieldMetadata(meta_source, with_ids));
}

std::shared_ptr<arrow::DataType> ToArrowImpl(const DataType& type, bool with_ids) {
  switch (type.root()) {
    case TypeRoot::kBoolean:
      return arrow::boolean();
    case TypeRoot::kTinyInt:
      return arrow::int8();
    case TypeRoot::kSmallInt:
      return arrow::int16();
    case TypeRoot::kInt:
      return arrow::int32();
    case TypeRoot::kBigInt:
      return arrow::int64();
    case TypeRoot::kFloat:
      return arrow::float32();
    case TypeRoot::kDouble:
      return arrow::float64();
    case TypeRoot::kDecimal:
      return arrow::decimal128(type.precision(), type.scale());
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      return arrow::utf8();
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      return arrow::binary();
    case TypeRoot::kBlob:
      return arrow::large_binary();
    case TypeRoot::kDate:
      return arrow::date32();
    case TypeRoot::kTime:
      return arrow::time32(arrow::TimeUnit::MILLI);
    case TypeRoot::kTimestamp:
      return arrow::timestamp(UnitForPrecision(type.precision()));
    case TypeRoot::kTimestampLtz:
      return arrow::timestamp(UnitForPrecision(type.precision()), "UTC");
    case TypeRoot::kVariant:
      return arrow::struct_({arrow::field("value", arrow::binary(), /*nullable=*/false),
                             arrow::field("metadata", arrow::binary(), /*nullable=*/false)});
    case TypeRoot::kArray:
      return arrow::list(
          arrow::field("item", ToArrowImpl(*type.element(), with_ids), type.element()->nullable()));
    case TypeRoot::kMultiset:
      return arrow::map(ToArrowImpl(*type.element(), with_ids),
                        arrow::field("value", arrow::int32(), /*nullable=*/false));
    case TypeRoot::kMap:
      return std::make_shared<arrow::MapType>(
          arrow::field("key", ToArrowImpl(*type.key(), with_ids), /*nullable=*/false),
          arrow::field("value", ToArrowImpl(*type.value(), with_ids), type.value()->nullable()));
    case TypeRoot::kRow: {
      arrow::FieldVector children;
      for (const auto& f : type.fields()) {
        children.push_back(FieldToArrow(f, with_ids, /*top_level=*/false));
      }
      return arrow::struct_(std::move(children));
    }
    case TypeRoot::kVector:
      // pyarrow.list_(T, n): the element field is "item", always nullable.
      return arrow::fixed_size_list(ToArrowImpl(*type.element(), with_ids), type.length());
  }
  return arrow::null();
}

bool IsVariantStruct(const arrow::StructType& type) {
  if (type.num_fields() != 2) return false;
  for (const char* name : {"value", "metadata"}) {
    auto f = type.GetFieldByName(name);
    if (!f || f->type()->id() != arrow::Type::BINARY || f->nullable()) return false;
  }
  return true;
}

// pypaimon's wording, which the Python API shows for Arrow types without a Paimon type.
Status UnsupportedArrowType(const std::string& type_name) {
  return Status::Invalid("Unsupported pyarrow type: ", type_name);
}

// An extension type whose C++ class is not registered (e.g. one defined in Python) reaches
// C++ through the C data interface as its storage type plus this metadata on its field.
// pypaimon refuses every extension type, so the storage type must not be mapped instead.
Status CheckNotExtension(const arrow::Field& field) {
  if (field.type()->id() == arrow::Type::EXTENSION) {
    return UnsupportedArrowType(field.type()->ToString());
  }
  const auto& metadata = field.metadata();
  if (metadata == nullptr) return Status::OK();
  const int index = metadata->FindKey("ARROW:extension:name");
  if (index < 0) return Status::OK();
  return UnsupportedArrowType("extension<" + metadata->value(index) + ">");
}

}  // namespace

Result<DataTypePtr> DataType::FromArrow(const arrow::DataType& type, bool nullable,
                                        int32_t* next_field_id) {
  switch (type.id()) {
    case arrow::Type::INT8:
      return Atomic(TypeRoot::kTinyInt, nullable);
    case arrow::Type::INT16:
      return Atomic(TypeRoot::kSmallInt, nullable);
    case arrow::Type::INT32:
      return Atomic(TypeRoot::kInt, nullable);
    case arrow::Type::INT64:
      return Atomic(TypeRoot::kBigInt, nullable);
    case arrow::Type::FLOAT:
      return Atomic(TypeRoot::kFloat, nullable);
    case arrow::Type::DOUBLE:
      return Atomic(TypeRoot::kDouble, nullable);
    case arrow::Type::BOOL:
      return Atomic(TypeRoot::kBoolean, nullable);
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
      return Char(TypeRoot::kVarChar, kMaxLength, nullable);
    case arrow::Type::FIXED_SIZE_BINARY:
      return Char(TypeRoot::kBinary,
                  static_cast<const arrow::FixedSizeBinaryType&>(type).byte_width(), nullable);
    case arrow::Type::BINARY:
      return Char(TypeRoot::kVarBinary, kMaxLength, nullable);
    case arrow::Type::LARGE_BINARY:
      return Atomic(TypeRoot::kBlob, nullable);
    case arrow::Type::DECIMAL32:
    case arrow::Type::DECIMAL64:
    case arrow::Type::DECIMAL128:
    case arrow::Type::DECIMAL256: {
      const auto& dec = static_cast<const arrow::DecimalType&>(type);
      ARROW_RETURN_NOT_OK(CheckPrecision(TypeRoot::kDecimal, dec.precision(), dec.scale()));
      return Decimal(dec.precision(), dec.scale(), nullable);
    }
    case arrow::Type::TIMESTAMP: {
      const auto& ts = static_cast<const arrow::TimestampType&>(type);
      return Temporal(ts.timezone().empty() ? TypeRoot::kTimestamp : TypeRoot::kTimestampLtz,
                      PrecisionForUnit(ts.unit()), nullable);
    }
    case arrow::Type::DATE32:
      return Atomic(TypeRoot::kDate, nullable);
    case arrow::Type::TIME32:
    case arrow::Type::TIME64:
      return Temporal(TypeRoot::kTime, 0, nullable);
    case arrow::Type::FIXED_SIZE_LIST: {
      const auto& list = static_cast<const arrow::FixedSizeListType&>(type);
      ARROW_RETURN_NOT_OK(CheckNotExtension(*list.value_field()));
      ARROW_ASSIGN_OR_RAISE(auto element, FromArrow(*list.value_type(),
                                                    list.value_field()->nullable(), next_field_id));
      ARROW_RETURN_NOT_OK(CheckVector(element, list.list_size()));
      return Vector(element, list.list_size(), nullable);
    }
    case arrow::Type::LIST:
    case arrow::Type::LARGE_LIST: {
      const auto& list = static_cast<const arrow::BaseListType&>(type);
      ARROW_RETURN_NOT_OK(CheckNotExtension(*list.value_field()));
      ARROW_ASSIGN_OR_RAISE(auto element, FromArrow(*list.value_type(),
                                                    list.value_field()->nullable(), next_field_id));
      return Array(element, nullable);
    }
    case arrow::Type::MAP: {
      const auto& map = static_cast<const arrow::MapType&>(type);
      ARROW_RETURN_NOT_OK(CheckNotExtension(*map.key_field()));
      ARROW_RETURN_NOT_OK(CheckNotExtension(*map.item_field()));
      ARROW_ASSIGN_OR_RAISE(auto key,
                            FromArrow(*map.key_type(), map.key_field()->nullable(), next_field_id));
      ARROW_ASSIGN_OR_RAISE(
          auto value, FromArrow(*map.item_type(), map.item_field()->nullable(), next_field_id));
      return Map(key, value, nullable);
    }
    case arrow::Type::STRUCT: {
      const auto& st = static_cast<const arrow::StructType&>(type);
      if (IsVariantStruct(st)) return Atomic(TypeRoot::kVariant, nullable);
      std::vector<DataField> fields;
      for (int i = 0; i < st.num_fields(); ++i) {
        const auto& child = st.field(i);
        ARROW_RETURN_NOT_OK(CheckNotExtension(*child));
        DataField field;
        field.name = child->name();
        // Children first, then the field itself (Java's ReassignFieldId order).
        ARROW_ASSIGN_OR_RAISE(field.type,
                              FromArrow(*child->type(), child->nullable(), next_field_id));
        field.id = next_field_id ? (*next_field_id)++ : i;
        fields.push_back(std::move(field));
      }
      return Row(std::move(fields), nullable);
    }
    default:
      return UnsupportedArrowType(type.ToString());
  }
}

std::shared_ptr<arrow::DataType> DataType::ToArrow() const {
  return ToArrowImpl(*this, /*with_ids=*/false);
}

std::shared_ptr<arrow::DataType> DataType::ToArrowWithFieldIds() const {
  return ToArrowImpl(*this, /*with_ids=*/true);
}

std::shared_ptr<arrow::Field> DataField::ToArrow() const {
  return FieldToArrow(*this, /*with_ids=*/false, /*top_level=*/true);
}

std::shared_ptr<arrow::Field> DataField::ToArrowWithFieldIds() const {
  return FieldToArrow(*this, /*with_ids=*/true, /*top_level=*/true);
}

Result<std::vector<DataField>> FieldsFromArrow(const arrow::Schema& schema) {
  std::vector<DataField> fields;
  int32_t next_id = 0;
  for (const auto& af : schema.fields()) {
    ARROW_RETURN_NOT_OK(CheckNotExtension(*af));
    DataField field;
    field.id = next_id++;
    field.name = af->name();
    ARROW_ASSIGN_OR_RAISE(field.type, DataType::FromArrow(*af->type(), af->nullable(), &next_id));
    if (af->metadata()) {
      int index = af->metadata()->FindKey("description");
      if (index >= 0) field.description = af->metadata()->value(index);
    }
    fields.push_back(std::move(field));
  }
  return fields;
}

}  // namespace paimon_rowid
