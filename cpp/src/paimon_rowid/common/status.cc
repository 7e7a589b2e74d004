#include "paimon_rowid/common/status.h"

namespace paimon_rowid {
namespace {

class KindDetail : public arrow::StatusDetail {
 public:
  explicit KindDetail(ErrorKind kind) : kind_(kind) {}
  const char* type_id() const override { return "paimon_rowid::KindDetail"; }
  std::string ToString() const override { return ErrorKindName(kind_); }
  const ErrorKind& kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

}  // namespace

const char* ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kDatabaseNotExist:
      return "DatabaseNotExist";
    case ErrorKind::kDatabaseAlreadyExist:
      return "DatabaseAlreadyExist";
    case ErrorKind::kTableNotExist:
      return "TableNotExist";
    case ErrorKind::kTableAlreadyExist:
      return "TableAlreadyExist";
    case ErrorKind::kCommitConflict:
      return "CommitConflict";
    case ErrorKind::kRowIdConflict:
      return "RowIdConflict";
    case ErrorKind::kColumnNotExist:
      return "ColumnNotExist";
    case ErrorKind::kColumnAlreadyExist:
      return "ColumnAlreadyExist";
    case ErrorKind::kBaseExpired:
      return "BaseExpired";
    case ErrorKind::kRestBadRequest:
      return "RestBadRequest";
    case ErrorKind::kRestNotAuthorized:
      return "RestNotAuthorized";
    case ErrorKind::kRestForbidden:
      return "RestForbidden";
    case ErrorKind::kRestNoSuchResource:
      return "RestNoSuchResource";
    case ErrorKind::kRestAlreadyExists:
      return "RestAlreadyExists";
    case ErrorKind::kRestServiceFailure:
      return "RestServiceFailure";
    case ErrorKind::kRestNotImplemented:
      return "RestNotImplemented";
    case ErrorKind::kRestServiceUnavailable:
      return "RestServiceUnavailable";
    case ErrorKind::kRestError:
      return "RestError";
    case ErrorKind::kDatabaseNoPermission:
      return "DatabaseNoPermission";
    case ErrorKind::kTableNoPermission:
      return "TableNoPermission";
    case ErrorKind::kCommitIO:
      return "CommitIO";
  }
  return "Unknown";
}

Status MakeKindError(arrow::StatusCode code, ErrorKind kind, std::string msg) {
  return Status(code, std::move(msg), std::make_shared<KindDetail>(kind));
}

const ErrorKind* GetErrorKind(const Status& st) {
  auto detail = st.detail();
  if (!detail || std::string(detail->type_id()) != "paimon_rowid::KindDetail") return nullptr;
  return &static_cast<const KindDetail*>(detail.get())->kind();
}

}  // namespace paimon_rowid
