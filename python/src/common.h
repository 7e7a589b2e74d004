// Shared pieces of the native module: the one place C++ Status becomes a Python exception,
// and Arrow C data interface capsules (the only way data crosses into Python).
#pragma once

#include <nanobind/nanobind.h>

#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "arrow/c/abi.h"
#include "arrow/record_batch.h"
#include "paimon_rowid/common/status.h"
#include "paimon_rowid/scan/predicate.h"

namespace paimon_rowid::python {
namespace nb = nanobind;

/// Raises the Python exception for a non-OK status (never returns then).
void RaiseStatus(const Status& status);

template <typename T>
T Unwrap(Result<T> result) {
  if (!result.ok()) RaiseStatus(result.status());
  return std::move(result).ValueUnsafe();
}

inline void Check(const Status& status) {
  if (!status.ok()) RaiseStatus(status);
}

/// Runs `fn` (returning Status or Result<T>) without the GIL; raises on error, returns T.
template <typename Fn>
auto WithoutGil(Fn&& fn) {
  using R = decltype(fn());
  std::optional<R> result;
  {
    nb::gil_scoped_release release;
    result.emplace(fn());
  }
  if constexpr (std::is_same_v<R, Status>) {
    Check(*result);
  } else {
    return Unwrap(std::move(*result));
  }
}

/// Registers the Python classes raised for ErrorKinds (name -> class).
void RegisterErrorClasses(nb::dict classes);
/// The Python class registered for `kind` (None before registration).
nb::handle ErrorClass(ErrorKind kind);

/// An "arrow_array_stream" capsule owning a stream exported from `reader`.
nb::object ExportStreamCapsule(std::shared_ptr<arrow::RecordBatchReader> reader);
/// A whole result for Python, column by column: drains `reader` without the GIL and returns
/// (schema capsule, [one "arrow_array_stream" capsule per column, a ChunkedArray]). Each
/// column is exported on its own so that its memory is freed as soon as Python drops that
/// column: an imported stream ties all the columns of a batch to one release, so a caller
/// keeping only `_ROW_ID` of a result would keep its BLOB payloads alive. When reading fails,
/// or the result has no columns, returns a stream capsule instead (ExportStreamCapsule) that
/// replays the error or the rows, so errors reach Python exactly as through a stream.
nb::object ExportColumns(std::shared_ptr<arrow::RecordBatchReader> reader);
/// An "arrow_schema" capsule.
nb::object ExportSchemaCapsule(const arrow::Schema& schema);
/// An "arrow_schema" capsule describing one data type (pyarrow: pa.field(obj).type).
nb::object ExportTypeCapsule(const arrow::DataType& type);
/// Imports an array from any object with __arrow_c_array__ (consuming its capsules).
std::shared_ptr<arrow::Array> ImportArrayFrom(nb::handle obj);
/// Imports a record batch stream from any object with __arrow_c_stream__.
std::shared_ptr<arrow::RecordBatchReader> ImportStreamFrom(nb::handle obj);
/// A pyarrow Array built from a C++ array (through the C data interface).
nb::object ToPyArrow(const std::shared_ptr<arrow::Array>& array);

/// The native predicate of a Python Predicate's ``to_native()`` tuple (module.cc).
std::shared_ptr<Predicate> ConvertPredicateTuple(nb::handle obj);

}  // namespace paimon_rowid::python
