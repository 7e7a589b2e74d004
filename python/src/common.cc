#include "common.h"

#include <nanobind/stl/string.h>

#include <map>

#include "arrow/array.h"
#include "arrow/c/bridge.h"
#include "arrow/chunked_array.h"

namespace paimon_rowid::python {
namespace {

std::map<std::string, nb::object>& ErrorClasses() {
  static auto* classes = new std::map<std::string, nb::object>();
  return *classes;
}

void ReleaseStreamCapsule(PyObject* capsule) {
  auto* stream =
      static_cast<ArrowArrayStream*>(PyCapsule_GetPointer(capsule, "arrow_array_stream"));
  if (stream == nullptr) {
    PyErr_Clear();
    return;
  }
  if (stream->release != nullptr) stream->release(stream);
  delete stream;
}

void ReleaseSchemaCapsule(PyObject* capsule) {
  auto* schema = static_cast<ArrowSchema*>(PyCapsule_GetPointer(capsule, "arrow_schema"));
  if (schema == nullptr) {
    PyErr_Clear();
    return;
  }
  if (schema->release != nullptr) schema->release(schema);
  delete schema;
}

void ReleaseArrayCapsule(PyObject* capsule) {
  auto* array = static_cast<ArrowArray*>(PyCapsule_GetPointer(capsule, "arrow_array"));
  if (array == nullptr) {
    PyErr_Clear();
    return;
  }
  if (array->release != nullptr) array->release(array);
  delete array;
}

// A stream whose first read fails with `status`: a failed drain replayed through the C stream.
class FailedReader : public arrow::RecordBatchReader {
 public:
  FailedReader(std::shared_ptr<arrow::Schema> schema, Status status)
      : schema_(std::move(schema)), status_(std::move(status)) {}
  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }
  Status ReadNext(std::shared_ptr<arrow::RecordBatch>*) override { return status_; }

 private:
  std::shared_ptr<arrow::Schema> schema_;
  Status status_;
};

template <typename T>
T* CapsulePointer(nb::handle capsule, const char* name) {
  void* ptr = PyCapsule_GetPointer(capsule.ptr(), name);
  if (ptr == nullptr) throw nb::python_error();
  return static_cast<T*>(ptr);
}

}  // namespace

void RegisterErrorClasses(nb::dict classes) {
  for (auto [key, value] : classes) {
    ErrorClasses()[nb::cast<std::string>(key)] = nb::borrow<nb::object>(value);
  }
}

nb::handle ErrorClass(ErrorKind kind) {
  auto it = ErrorClasses().find(ErrorKindName(kind));
  return it == ErrorClasses().end() ? nb::none() : nb::handle(it->second);
}

void RaiseStatus(const Status& status) {
  std::string message = status.message();
  if (const ErrorKind* kind = GetErrorKind(status)) {
    auto it = ErrorClasses().find(ErrorKindName(*kind));
    if (it != ErrorClasses().end()) {
      PyErr_SetString(it->second.ptr(), message.c_str());
      throw nb::python_error();
    }
  }
  PyObject* type = PyExc_RuntimeError;
  switch (status.code()) {
    case arrow::StatusCode::Invalid:
    case arrow::StatusCode::AlreadyExists:
      type = PyExc_ValueError;
      break;
    case arrow::StatusCode::TypeError:
      type = PyExc_TypeError;
      break;
    case arrow::StatusCode::KeyError:
      type = PyExc_KeyError;
      break;
    case arrow::StatusCode::IOError:
      type = PyExc_OSError;
      break;
    case arrow::StatusCode::NotImplemented:
      type = PyExc_NotImplementedError;
      break;
    case arrow::StatusCode::OutOfMemory:
      type = PyExc_MemoryError;
      break;
    case arrow::StatusCode::IndexError:
      type = PyExc_IndexError;
      break;
    default:
      break;
  }
  PyErr_SetString(type, message.c_str());
  throw nb::python_error();
}

nb::object ExportStreamCapsule(std::shared_ptr<arrow::RecordBatchReader> reader) {
  auto* stream = new ArrowArrayStream();
  Status st = arrow::ExportRecordBatchReader(std::move(reader), stream);
  if (!st.ok()) {
    delete stream;
    RaiseStatus(st);
  }
  return nb::steal(PyCapsule_New(stream, "arrow_array_stream", ReleaseStreamCapsule));
}

nb::object ExportColumns(std::shared_ptr<arrow::RecordBatchReader> reader) {
  std::shared_ptr<arrow::Schema> schema = reader->schema();
  if (schema->num_fields() == 0) return ExportStreamCapsule(std::move(reader));
  Result<arrow::RecordBatchVector> batches;
  {
    nb::gil_scoped_release release;
    batches = reader->ToRecordBatches();
    reader.reset();
  }
  if (!batches.ok()) {
    return ExportStreamCapsule(std::make_shared<FailedReader>(schema, batches.status()));
  }
  std::vector<arrow::ArrayVector> chunks(schema->num_fields());
  for (const auto& batch : *batches) {
    for (int i = 0; i < batch->num_columns(); ++i) chunks[i].push_back(batch->column(i));
  }
  batches->clear();  // from here on each column alone owns its arrays
  nb::list columns;
  for (int i = 0; i < schema->num_fields(); ++i) {
    auto column =
        std::make_shared<arrow::ChunkedArray>(std::move(chunks[i]), schema->field(i)->type());
    auto* stream = new ArrowArrayStream();
    Status st = arrow::ExportChunkedArray(std::move(column), stream);
    if (!st.ok()) {
      delete stream;
      RaiseStatus(st);
    }
    columns.append(nb::steal(PyCapsule_New(stream, "arrow_array_stream", ReleaseStreamCapsule)));
  }
  return nb::make_tuple(ExportSchemaCapsule(*schema), columns);
}

nb::object ExportSchemaCapsule(const arrow::Schema& schema) {
  auto* c_schema = new ArrowSchema();
  Status st = arrow::ExportSchema(schema, c_schema);
  if (!st.ok()) {
    delete c_schema;
    RaiseStatus(st);
  }
  return nb::steal(PyCapsule_New(c_schema, "arrow_schema", ReleaseSchemaCapsule));
}

nb::object ExportTypeCapsule(const arrow::DataType& type) {
  auto* c_schema = new ArrowSchema();
  Status st = arrow::ExportType(type, c_schema);
  if (!st.ok()) {
    delete c_schema;
    RaiseStatus(st);
  }
  return nb::steal(PyCapsule_New(c_schema, "arrow_schema", ReleaseSchemaCapsule));
}

std::shared_ptr<arrow::Array> ImportArrayFrom(nb::handle obj) {
  if (!nb::hasattr(obj, "__arrow_c_array__")) {
    throw nb::type_error("expected an object implementing __arrow_c_array__ (e.g. pyarrow.Array)");
  }
  nb::tuple capsules = nb::cast<nb::tuple>(obj.attr("__arrow_c_array__")());
  auto* schema = CapsulePointer<ArrowSchema>(capsules[0], "arrow_schema");
  auto* array = CapsulePointer<ArrowArray>(capsules[1], "arrow_array");
  // ImportArray moves out of both structs and marks them released, so the capsules'
  // destructors then have nothing left to free.
  return Unwrap(arrow::ImportArray(array, schema));
}

std::shared_ptr<arrow::RecordBatchReader> ImportStreamFrom(nb::handle obj) {
  if (!nb::hasattr(obj, "__arrow_c_stream__")) {
    throw nb::type_error("expected an object implementing __arrow_c_stream__");
  }
  nb::object capsule = obj.attr("__arrow_c_stream__")();
  auto* stream = CapsulePointer<ArrowArrayStream>(capsule, "arrow_array_stream");
  return Unwrap(arrow::ImportRecordBatchReader(stream));
}

nb::object ToPyArrow(const std::shared_ptr<arrow::Array>& array) {
  auto* c_schema = new ArrowSchema();
  auto* c_array = new ArrowArray();
  Status st = arrow::ExportArray(*array, c_array, c_schema);
  if (!st.ok()) {
    delete c_schema;
    delete c_array;
    RaiseStatus(st);
  }
  nb::object schema_capsule =
      nb::steal(PyCapsule_New(c_schema, "arrow_schema", ReleaseSchemaCapsule));
  nb::object array_capsule = nb::steal(PyCapsule_New(c_array, "arrow_array", ReleaseArrayCapsule));
  nb::object pa = nb::module_::import_("pyarrow");
  return pa.attr("Array").attr("_import_from_c_capsule")(schema_capsule, array_capsule);
}

}  // namespace paimon_rowid::python
