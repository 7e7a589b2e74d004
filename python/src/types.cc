// The Arrow <-> Paimon type mapping for paimon_rowid.schema (types/data_type.h). Arrow types
// cross as "arrow_schema" capsules, except the schemas of Schema.from_pyarrow_schema, which
// arrive as an Arrow IPC schema message: the C data interface ends names at a NUL byte, and
// a name with a NUL must reach the catalog's validation intact (it is refused there).
// Paimon types cross as their schema-JSON text.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <nlohmann/json.hpp>

#include "arrow/buffer.h"
#include "arrow/io/memory.h"
#include "arrow/ipc/dictionary.h"
#include "arrow/ipc/reader.h"
#include "arrow/type.h"
#include "common.h"
#include "paimon_rowid/types/data_type.h"

namespace paimon_rowid::python {

void RegisterTypes(nb::module_& m) {
  m.def(
      "fields_from_arrow",
      [](nb::bytes ipc_schema) {
        arrow::io::BufferReader reader(
            std::make_shared<arrow::Buffer>(reinterpret_cast<const uint8_t*>(ipc_schema.c_str()),
                                            static_cast<int64_t>(ipc_schema.size())));
        arrow::ipc::DictionaryMemo dictionaries;
        auto arrow_schema = Unwrap(arrow::ipc::ReadSchema(&reader, &dictionaries));
        auto fields = Unwrap(FieldsFromArrow(*arrow_schema));
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        for (const auto& f : fields) out.push_back(f.ToOrderedJson());
        return out.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
      },
      nb::arg("ipc_schema"));

  m.def(
      "arrow_type_of",
      [](const std::string& type_json) {
        auto value = nlohmann::json::parse(type_json, nullptr, /*allow_exceptions=*/false);
        if (value.is_discarded()) throw nb::value_error("a Paimon type must be JSON text");
        auto type = Unwrap(DataType::FromJson(value));
        return ExportTypeCapsule(*type->ToArrow());
      },
      nb::arg("type_json"));
}

}  // namespace paimon_rowid::python
