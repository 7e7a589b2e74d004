// Status and Result are Arrow's (STYLE habit 1). This header adds the catalog error kinds
// that the Python layer maps to pypaimon's exception classes, carried as a StatusDetail so
// they survive propagation through ARROW_RETURN_NOT_OK unchanged.
#pragma once

#include <memory>
#include <string>

#include "arrow/result.h"
#include "arrow/status.h"

namespace paimon_rowid {

using arrow::Result;
using arrow::Status;

/// A catalog-level error kind, for errors a caller is expected to branch on.
enum class ErrorKind {
  kDatabaseNotExist,
  kDatabaseAlreadyExist,
  kTableNotExist,
  kTableAlreadyExist,
  kCommitConflict,
  /// A data-evolution conflict of an update with a concurrent commit on the same file groups
  /// (docs/format.md §5.6): rebasable when the concurrent commit did not change the same rows.
  kRowIdConflict,
  /// ALTER TABLE names a column that is absent / already present (pypaimon's
  /// ColumnNotExistException / ColumnAlreadyExistException).
  kColumnNotExist,
  kColumnAlreadyExist,
  /// A running update's base snapshot was expired under it (a file of the base is gone): the
  /// update wrote nothing that stays and moves onto the latest snapshot, as after a lost
  /// row-id conflict (CommitWithRebase). Callers who see it (every move used up) see a
  /// commit conflict (Python: a CommitConflictException subclass).
  kBaseExpired,
  /// A REST catalog server's error answers (catalog/rest_catalog.h), as pypaimon's
  /// pypaimon.api.rest_exception classes: 400, 401, 403, 404, 409, 500, 501, 503, other.
  kRestBadRequest,
  kRestNotAuthorized,
  kRestForbidden,
  kRestNoSuchResource,
  kRestAlreadyExists,
  kRestServiceFailure,
  kRestNotImplemented,
  kRestServiceUnavailable,
  kRestError,
  /// A REST catalog refused access to a database / table (403 on it).
  kDatabaseNoPermission,
  kTableNoPermission,
  /// A commit the file system or object store refused (an I/O error, e.g. a revoked data
  /// token) before anything of it was committed: no snapshot (Committer::Commit). Python:
  /// CommitIOError, a RuntimeError as pypaimon's "Failed to prepare snapshot" and an OSError.
  kCommitIO,
};

/// Returns the name used by the Python error map ("TableNotExist", ...).
const char* ErrorKindName(ErrorKind kind);

/// Builds a Status with code `code`, message `msg` and the given kind attached.
Status MakeKindError(arrow::StatusCode code, ErrorKind kind, std::string msg);

/// The kind attached to `st`, or nullptr when it has none.
const ErrorKind* GetErrorKind(const Status& st);

}  // namespace paimon_rowid
