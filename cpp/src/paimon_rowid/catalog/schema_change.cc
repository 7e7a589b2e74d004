#include "paimon_rowid/catalog/schema_change.h"

#include <algorithm>
#include <functional>
#include <set>

#include "arrow/compute/cast.h"
#include "paimon_rowid/catalog/schema_validation.h"

namespace paimon_rowid {
namespace {

// pypaimon's CoreOptions.IMMUTABLE_OPTIONS (Java: @Immutable on CoreOptions): fixed once the
// table holds a snapshot.
const std::set<std::string>& ImmutableOptions() {
  static const std::set<std::string> keys = {"type",
                                             "bucket-key",
                                             "bucket-function.type",
                                             "data-file.path-directory",
                                             "merge-engine",
                                             "sequence.snapshot-ordering",
                                             "aggregation.remove-record-on-delete",
                                             "partial-update.remove-record-on-delete",
                                             "partial-update.remove-record-on-sequence-group",
                                             "rowkind.field",
                                             "primary-key",
                                             "primary-key.nullable",
                                             "partition",
                                             "dynamic-bucket.initial-buckets",
                                             "force-lookup",
                                             options::kRowTrackingEnabled,
                                             options::kDataEvolutionEnabled,
                                             "index-file-in-data-file-dir",
                                             options::kBlobField,
                                             "video-frame-field",
                                             options::kBlobDescriptorField,
                                             "blob-view-field",
                                             "pk-clustering-override"};
  return keys;
}

Status ColumnNotExist(const std::string& name) {
  return MakeKindError(arrow::StatusCode::KeyError, ErrorKind::kColumnNotExist,
                       "Column " + name + " does not exist");
}

Status ColumnAlreadyExist(const std::string& name) {
  return MakeKindError(arrow::StatusCode::AlreadyExists, ErrorKind::kColumnAlreadyExist,
                       "Column " + name + " already exists");
}

std::string DottedPath(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ".") + n;
  return out;
}

int FindField(const std::vector<DataField>& fields, const std::string& name) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

// The type an ARRAY / MAP wraps (its element / its value).
DataTypePtr Unwrap(const DataType& wrapper) {
  return wrapper.root() == TypeRoot::kMap ? wrapper.value() : wrapper.element();
}

// `wrapper` (an ARRAY or MAP) around `inner` instead of its element / value.
DataTypePtr Rewrap(const DataType& wrapper, DataTypePtr inner) {
  if (wrapper.root() == TypeRoot::kMap) {
    return DataType::Map(wrapper.key(), std::move(inner), wrapper.nullable());
  }
  return DataType::Array(std::move(inner), wrapper.nullable());
}

bool IsWrapper(const DataType& type) {
  return type.root() == TypeRoot::kArray || type.root() == TypeRoot::kMap;
}

// Runs `fn` on the field list that directly holds the last name of `path` (the top level,
// or the fields of nested ROW types), rebuilding the ROW types on the way back up. As in
// pypaimon and Java, an ARRAY or MAP on the way is stepped through with the path token
// `element` / `value` (["a", "element", "x"]: field x of the ROWs in ARRAY a). A path
// ending in such tokens (["a", "element"]) runs `fn` on the field owning the wrappers, with
// `unwrap` = the number of tokens (0 otherwise): the change is then to the wrapped type.
using ListFn =
    std::function<Status(std::vector<DataField>*, const std::string& last, size_t unwrap)>;
Status ModifyNested(std::vector<DataField>* fields, const std::vector<std::string>& path,
                    size_t depth, const ListFn& fn) {
  if (path.empty()) return Status::Invalid("a column change needs a field name");
  if (depth == path.size() - 1) return fn(fields, path[depth], 0);
  int index = FindField(*fields, path[depth]);
  if (index < 0) return ColumnNotExist(DottedPath({path.begin(), path.begin() + depth + 1}));
  DataField& parent = (*fields)[index];
  size_t pos = depth + 1;
  std::vector<DataTypePtr> wrappers;
  DataTypePtr inner = parent.type;
  while (IsWrapper(*inner) && pos < path.size()) {
    if (path[pos] != (inner->root() == TypeRoot::kMap ? "value" : "element")) {
      return ColumnNotExist(DottedPath(path));
    }
    wrappers.push_back(inner);
    inner = Unwrap(*inner);
    ++pos;
  }
  if (pos >= path.size()) return fn(fields, path[depth], wrappers.size());
  if (inner->root() != TypeRoot::kRow) {
    return ColumnNotExist(DottedPath({path.begin(), path.begin() + depth + 1}));
  }
  std::vector<DataField> nested = inner->fields();
  ARROW_RETURN_NOT_OK(ModifyNested(&nested, path, pos, fn));
  DataTypePtr rebuilt = DataType::Row(std::move(nested), inner->nullable());
  for (auto it = wrappers.rbegin(); it != wrappers.rend(); ++it) {
    rebuilt = Rewrap(**it, std::move(rebuilt));
  }
  parent.type = std::move(rebuilt);
  return Status::OK();
}

// Runs `fn` on the field `path` names (ColumnNotExist naming the whole path when absent).
// For a path ending in `element` / `value` tokens, `fn` sees the owning field with the
// wrapped type (its comment and default value are the owner's) and the new type is put back
// inside the wrappers.
Status UpdateField(std::vector<DataField>* fields, const std::vector<std::string>& path,
                   const std::function<Status(DataField*)>& fn) {
  return ModifyNested(fields, path, 0,
                      [&](std::vector<DataField>* list, const std::string& name, size_t unwrap) {
                        int index = FindField(*list, name);
                        if (index < 0) return ColumnNotExist(DottedPath(path));
                        DataField& field = (*list)[index];
                        if (unwrap == 0) return fn(&field);
                        std::vector<DataTypePtr> wrappers;
                        DataField inner = field;
                        for (size_t i = 0; i < unwrap; ++i) {
                          wrappers.push_back(inner.type);
                          inner.type = Unwrap(*inner.type);
                        }
                        ARROW_RETURN_NOT_OK(fn(&inner));
                        DataTypePtr rebuilt = inner.type;
                        for (auto it = wrappers.rbegin(); it != wrappers.rend(); ++it) {
                          rebuilt = Rewrap(**it, std::move(rebuilt));
                        }
                        field.type = std::move(rebuilt);
                        field.description = inner.description;
                        field.default_value = inner.default_value;
                        return Status::OK();
                      });
}

Status ApplyMove(std::vector<DataField>* fields, std::optional<DataField> new_field,
                 const ColumnMove& move) {
  if (!new_field) {
    int index = FindField(*fields, move.field_name);
    if (index < 0) return ColumnNotExist(move.field_name);
    if (move.reference_field_name && *move.reference_field_name == move.field_name &&
        move.type != ColumnMove::Type::kFirst && move.type != ColumnMove::Type::kLast) {
      return Status::Invalid("Cannot move itself for column ", move.field_name);
    }
    new_field = (*fields)[index];
    fields->erase(fields->begin() + index);
  }
  auto reference = [&]() -> Result<int> {
    int index = move.reference_field_name ? FindField(*fields, *move.reference_field_name) : -1;
    if (index < 0) return ColumnNotExist(move.reference_field_name.value_or(""));
    return index;
  };
  switch (move.type) {
    case ColumnMove::Type::kFirst:
      fields->insert(fields->begin(), std::move(*new_field));
      return Status::OK();
    case ColumnMove::Type::kLast:
      fields->push_back(std::move(*new_field));
      return Status::OK();
    case ColumnMove::Type::kAfter: {
      ARROW_ASSIGN_OR_RAISE(int index, reference());
      fields->insert(fields->begin() + index + 1, std::move(*new_field));
      return Status::OK();
    }
    case ColumnMove::Type::kBefore: {
      ARROW_ASSIGN_OR_RAISE(int index, reference());
      fields->insert(fields->begin() + index, std::move(*new_field));
      return Status::OK();
    }
  }
  return Status::Invalid("Unsupported move type");
}

bool IsInteger(TypeRoot r) {
  return r == TypeRoot::kTinyInt || r == TypeRoot::kSmallInt || r == TypeRoot::kInt ||
         r == TypeRoot::kBigInt;
}
bool IsNumeric(TypeRoot r) {
  return IsInteger(r) || r == TypeRoot::kFloat || r == TypeRoot::kDouble || r == TypeRoot::kDecimal;
}
bool IsCharacter(TypeRoot r) { return r == TypeRoot::kChar || r == TypeRoot::kVarChar; }
bool IsTimestamp(TypeRoot r) { return r == TypeRoot::kTimestamp || r == TypeRoot::kTimestampLtz; }
bool IsConstructed(TypeRoot r) {
  return r == TypeRoot::kArray || r == TypeRoot::kMap || r == TypeRoot::kRow ||
         r == TypeRoot::kMultiset || r == TypeRoot::kVector;
}
int IntegerRank(TypeRoot r) {
  switch (r) {
    case TypeRoot::kTinyInt:
      return 0;
    case TypeRoot::kSmallInt:
      return 1;
    case TypeRoot::kInt:
      return 2;
    default:
      return 3;
  }
}

// Java's DataTypeCasts: implicit (safe) casts, then the explicit ones the default options allow.
bool RuleAllowsCast(TypeRoot from, TypeRoot to, bool implicit_only) {
  if (from == to) return true;
  bool implicit = false;
  bool explicit_ok = false;
  switch (to) {
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      implicit = IsCharacter(from);
      explicit_ok = from != TypeRoot::kMultiset && from != TypeRoot::kVector &&
                    from != TypeRoot::kBlob && from != TypeRoot::kVariant;
      break;
    case TypeRoot::kBoolean:
      explicit_ok = IsCharacter(from) || IsInteger(from);
      break;
    case TypeRoot::kBinary:
      explicit_ok = IsCharacter(from) || from == TypeRoot::kVarBinary;
      break;
    case TypeRoot::kVarBinary:
      implicit = from == TypeRoot::kBinary;
      explicit_ok = IsCharacter(from);
      break;
    case TypeRoot::kDecimal:
      implicit = IsNumeric(from);
      explicit_ok = IsCharacter(from) || from == TypeRoot::kBoolean || IsTimestamp(from);
      break;
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt:
      implicit = IsInteger(from) && IntegerRank(from) < IntegerRank(to);
      explicit_ok =
          IsNumeric(from) || IsCharacter(from) || from == TypeRoot::kBoolean || IsTimestamp(from);
      break;
    case TypeRoot::kFloat:
      implicit = IsInteger(from) || from == TypeRoot::kDecimal;
      explicit_ok =
          IsNumeric(from) || IsCharacter(from) || from == TypeRoot::kBoolean || IsTimestamp(from);
      break;
    case TypeRoot::kDouble:
      implicit = IsNumeric(from);
      explicit_ok = IsCharacter(from) || from == TypeRoot::kBoolean || IsTimestamp(from);
      break;
    case TypeRoot::kDate:
      implicit = from == TypeRoot::kTimestamp;
      explicit_ok = from == TypeRoot::kTimestampLtz || IsCharacter(from);
      break;
    case TypeRoot::kTime:
      implicit = from == TypeRoot::kTimestamp;
      explicit_ok = from == TypeRoot::kTimestampLtz || IsCharacter(from);
      break;
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
      implicit = IsTimestamp(from);
      explicit_ok = from == TypeRoot::kDate || from == TypeRoot::kTime || IsCharacter(from) ||
                    IsNumeric(from);
      break;
    default:
      break;
  }
  return implicit || (!implicit_only && explicit_ok);
}

// Constructed types keep their shape (a ROW is reshaped through its sub-field paths).
bool SameShape(const DataType& a, const DataType& b) {
  return a.WithNullable(true)->Equals(*b.WithNullable(true));
}

Status ApplySetOption(const TableSchema& old, const SchemaChange& c, bool has_snapshot,
                      std::map<std::string, std::string>* options) {
  auto it = options->find(c.key);
  if (it != options->end() && it->second == c.value) return Status::OK();
  if (it == options->end()) {
    // Values whose canonical home is elsewhere are no change when replayed (Java's
    // isUnchangedNormalizedKey).
    auto joined = [](const std::vector<std::string>& keys) {
      std::string s;
      for (const auto& k : keys) s += (s.empty() ? "" : ",") + k;
      return s;
    };
    std::string compact;
    for (char ch : c.value) {
      if (ch != ' ') compact += ch;
    }
    if ((c.key == "partition" && compact == joined(old.partition_keys)) ||
        (c.key == "primary-key" && compact == joined(old.primary_keys)) ||
        (c.key == "type" && c.value == "table")) {
      return Status::OK();
    }
  }
  if (c.key == "type") return Status::Invalid("Change 'type' is not supported yet.");
  if (has_snapshot && ImmutableOptions().count(c.key)) {
    return Status::Invalid("Change '", c.key, "' is not supported yet.");
  }
  if (has_snapshot && c.key == options::kBucket) {
    // Java's checkAlterTableOption; a fixed-bucket table would need a rescale of its data,
    // which this engine does not do, so any change of the number is refused.
    ARROW_ASSIGN_OR_RAISE(int64_t old_bucket, old.table_options().GetInt(options::kBucket, -1));
    Options probe(std::map<std::string, std::string>{{options::kBucket, c.value}});
    ARROW_ASSIGN_OR_RAISE(int64_t new_bucket, probe.GetInt(options::kBucket, -1));
    if (old_bucket != new_bucket) {
      if (old_bucket == -1) return Status::Invalid("Cannot change bucket when it is -1.");
      if (new_bucket == -1) return Status::Invalid("Cannot change bucket to -1.");
      return Status::Invalid("Cannot change bucket number");
    }
  }
  if (c.key == "target-file-row-num") {
    Options probe(std::map<std::string, std::string>{{c.key, c.value}});
    ARROW_ASSIGN_OR_RAISE(int64_t rows, probe.GetInt(c.key, 1));
    if (rows < 1) return Status::Invalid("target-file-row-num should be at least 1");
  }
  (*options)[c.key] = c.value;
  return Status::OK();
}

Status ApplyRemoveOption(const SchemaChange& c, bool has_snapshot,
                         std::map<std::string, std::string>* options) {
  if (c.key == "type") return Status::Invalid("Change 'type' is not supported yet.");
  if (has_snapshot && ImmutableOptions().count(c.key)) {
    return Status::Invalid("Change '", c.key, "' is not supported yet.");
  }
  if (has_snapshot && c.key == options::kBucket && options->count(c.key)) {
    return Status::Invalid("Cannot reset bucket.");
  }
  options->erase(c.key);
  return Status::OK();
}

// Option values that name columns follow a top-level rename (Java renames these too).
void RenameInOptions(const std::string& from, const std::string& to,
                     std::map<std::string, std::string>* options) {
  for (const char* key : {"bucket-key", "sequence.field", options::kBlobDescriptorField,
                          "blob.stored-descriptor-fields"}) {
    auto it = options->find(key);
    if (it == options->end()) continue;
    std::string out;
    for (const auto& name : SplitOptionList(it->second)) {
      out += (out.empty() ? "" : ",") + (name == from ? to : name);
    }
    it->second = out;
  }
  const std::string prefix = "fields." + from + ".";
  std::map<std::string, std::string> renamed;
  for (auto it = options->begin(); it != options->end();) {
    if (it->first.rfind(prefix, 0) == 0) {
      renamed["fields." + to + "." + it->first.substr(prefix.size())] = it->second;
      it = options->erase(it);
    } else {
      ++it;
    }
  }
  options->insert(renamed.begin(), renamed.end());
}

// A dropped column leaves the option lists that name it.
void DropFromOptions(const std::string& name, std::map<std::string, std::string>* options) {
  for (const char* key : {options::kBlobDescriptorField, "blob.stored-descriptor-fields"}) {
    auto it = options->find(key);
    if (it == options->end()) continue;
    std::string out;
    for (const auto& n : SplitOptionList(it->second)) {
      if (n != name) out += (out.empty() ? "" : ",") + n;
    }
    if (out.empty()) {
      options->erase(it);
    } else {
      it->second = out;
    }
  }
}

Status AssertNullabilityChange(bool old_nullable, bool new_nullable, const std::string& path,
                               bool disable_null_to_not_null) {
  if (disable_null_to_not_null && old_nullable && !new_nullable) {
    return Status::Invalid(
        "Cannot update column type from nullable to non nullable for ", path,
        ". You can set table configuration option 'alter-column-null-to-not-null.disabled' = "
        "'false' to allow converting null columns to not null");
  }
  return Status::OK();
}

bool IsBucketKey(const TableSchema& schema, const std::string& name) {
  auto keys = schema.options.find("bucket-key");
  if (keys == schema.options.end()) return false;
  for (const auto& k : SplitOptionList(keys->second)) {
    if (k == name) return true;
  }
  return false;
}

}  // namespace

bool SupportsColumnTypeChange(const DataType& from, const DataType& to, bool implicit_only) {
  if (from.root() == TypeRoot::kBlob || to.root() == TypeRoot::kBlob) {
    return from.root() == to.root() && SameShape(from, to);
  }
  if (IsConstructed(to.root())) return SameShape(from, to);
  if (!RuleAllowsCast(from.root(), to.root(), implicit_only)) return false;
  if (from.root() == to.root()) return true;
  // The read path casts old files with Arrow's kernels: a rule without one cannot be read.
  return arrow::compute::CanCast(*from.ToArrow(), *to.ToArrow());
}

Result<TableSchema> ApplySchemaChanges(const TableSchema& current,
                                       const std::vector<SchemaChange>& changes,
                                       bool has_snapshot) {
  TableSchema next = current;
  next.id = current.id + 1;
  const Options old_options = current.table_options();
  ARROW_ASSIGN_OR_RAISE(bool add_before_partition,
                        old_options.GetBool("add-column-before-partition", false));
  ARROW_ASSIGN_OR_RAISE(bool disable_null_to_not_null,
                        old_options.GetBool("alter-column-null-to-not-null.disabled", true));
  ARROW_ASSIGN_OR_RAISE(bool implicit_only,
                        old_options.GetBool("disable-explicit-type-casting", false));
  auto top_level_partition = [&](const std::vector<std::string>& path, const char* operation) {
    if (path.size() == 1 && current.IsPartitionKey(path[0])) {
      return Status::Invalid("Cannot ", operation, " partition column: [", path[0], "]");
    }
    return Status::OK();
  };

  for (const auto& c : changes) {
    using A = SchemaChange::Action;
    switch (c.action) {
      case A::kSetOption:
        ARROW_RETURN_NOT_OK(ApplySetOption(current, c, has_snapshot, &next.options));
        break;
      case A::kRemoveOption:
        ARROW_RETURN_NOT_OK(ApplyRemoveOption(c, has_snapshot, &next.options));
        break;
      case A::kUpdateComment:
        next.comment = c.comment;
        break;
      case A::kAddColumn: {
        const std::string path = DottedPath(c.field_names);
        if (!c.type->nullable()) {
          return Status::Invalid("Column ", path, " cannot specify NOT NULL in the table.");
        }
        DataField added{-1, c.field_names.back(), c.type, c.comment, std::nullopt};
        added = AssignFieldIds({added}, next.highest_field_id + 1).front();
        next.highest_field_id = std::max(next.highest_field_id + 1, HighestFieldId({added}));
        ARROW_RETURN_NOT_OK(ModifyNested(
            &next.fields, c.field_names, 0,
            [&](std::vector<DataField>* list, const std::string& name, size_t) -> Status {
              if (FindField(*list, name) >= 0) return ColumnAlreadyExist(name);
              if (c.move) return ApplyMove(list, added, *c.move);
              if (add_before_partition && c.field_names.size() == 1 &&
                  !current.partition_keys.empty()) {
                auto pos = std::find_if(list->begin(), list->end(), [&](const DataField& f) {
                  return current.IsPartitionKey(f.name);
                });
                list->insert(pos, added);
              } else {
                list->push_back(added);
              }
              return Status::OK();
            }));
        break;
      }
      case A::kRenameColumn: {
        ARROW_RETURN_NOT_OK(top_level_partition(c.field_names, "rename"));
        ARROW_RETURN_NOT_OK(ModifyNested(
            &next.fields, c.field_names, 0,
            [&](std::vector<DataField>* list, const std::string& name, size_t) -> Status {
              int index = FindField(*list, name);
              if (index < 0) return ColumnNotExist(name);
              if (FindField(*list, c.new_name) >= 0) return ColumnAlreadyExist(c.new_name);
              if ((*list)[index].type->holds_blob()) {
                return Status::Invalid("Cannot rename BLOB, ARRAY<BLOB> or MAP<X, BLOB> column: [",
                                       name, "]");
              }
              (*list)[index].name = c.new_name;
              return Status::OK();
            }));
        if (c.field_names.size() == 1) {
          RenameInOptions(c.field_names[0], c.new_name, &next.options);
          for (auto& k : next.primary_keys) {
            if (k == c.field_names[0]) k = c.new_name;
          }
        }
        break;
      }
      case A::kDropColumn: {
        if (c.field_names.size() == 1 &&
            (current.IsPartitionKey(c.field_names[0]) ||
             std::count(current.primary_keys.begin(), current.primary_keys.end(),
                        c.field_names[0]))) {
          return Status::Invalid("Cannot drop partition key or primary key: [", c.field_names[0],
                                 "]");
        }
        if (c.field_names.size() == 1 && IsBucketKey(next, c.field_names[0])) {
          return Status::Invalid("Cannot drop bucket key column: [", c.field_names[0], "]");
        }
        ARROW_RETURN_NOT_OK(ModifyNested(
            &next.fields, c.field_names, 0,
            [&](std::vector<DataField>* list, const std::string& name, size_t) -> Status {
              int index = FindField(*list, name);
              if (index < 0) return ColumnNotExist(name);
              list->erase(list->begin() + index);
              if (list->empty()) return Status::Invalid("Cannot drop all fields in table");
              return Status::OK();
            }));
        if (c.field_names.size() == 1) DropFromOptions(c.field_names[0], &next.options);
        break;
      }
      case A::kUpdateColumnType: {
        ARROW_RETURN_NOT_OK(top_level_partition(c.field_names, "update"));
        if (c.field_names.size() == 1 && IsBucketKey(next, c.field_names[0])) {
          // The bucket of a row is a hash of the key's binary form: a new type would file
          // new rows under other buckets than old ones.
          return Status::Invalid("Cannot update bucket key column: [", c.field_names[0], "]");
        }
        const std::string path = DottedPath(c.field_names);
        ARROW_RETURN_NOT_OK(UpdateField(&next.fields, c.field_names, [&](DataField* f) -> Status {
          DataTypePtr target = c.type;
          if (c.keep_nullability) {
            target = target->WithNullable(f->type->nullable());
          } else {
            ARROW_RETURN_NOT_OK(AssertNullabilityChange(f->type->nullable(), target->nullable(),
                                                        path, disable_null_to_not_null));
          }
          if (f->type->holds_blob() || target->contains_blob()) {
            if (!f->type->WithNullable(true)->Equals(*target->WithNullable(true))) {
              return Status::Invalid("Cannot update BLOB column type: [", path, "]");
            }
          }
          if (!SupportsColumnTypeChange(*f->type, *target, implicit_only)) {
            return Status::Invalid("Column type ", f->name, "[", f->type->ToString(),
                                   "] cannot be converted to ", target->ToString(),
                                   " without losing information.");
          }
          if (target->root() == TypeRoot::kRow) {
            // Same shape: keep the nested ids.
            target = DataType::Row(f->type->fields(), target->nullable());
          }
          f->type = target;
          return Status::OK();
        }));
        break;
      }
      case A::kUpdateColumnNullability: {
        const std::string path = DottedPath(c.field_names);
        ARROW_RETURN_NOT_OK(UpdateField(&next.fields, c.field_names, [&](DataField* f) -> Status {
          ARROW_RETURN_NOT_OK(AssertNullabilityChange(f->type->nullable(), c.nullable, path,
                                                      disable_null_to_not_null));
          f->type = f->type->WithNullable(c.nullable);
          return Status::OK();
        }));
        break;
      }
      case A::kUpdateColumnComment:
        ARROW_RETURN_NOT_OK(UpdateField(&next.fields, c.field_names, [&](DataField* f) {
          f->description = c.comment;
          return Status::OK();
        }));
        break;
      case A::kUpdateColumnDefaultValue:
        ARROW_RETURN_NOT_OK(UpdateField(&next.fields, c.field_names, [&](DataField* f) -> Status {
          if (c.default_value) {
            // Java's DefaultValueUtils: the text must convert to the column's type.
            if (f->type->is_nested() || f->type->holds_blob()) {
              return Status::Invalid("Unsupported default value for column type ",
                                     f->type->ToString());
            }
            auto scalar = arrow::MakeScalar(*c.default_value);
            auto cast = arrow::compute::Cast(arrow::Datum(scalar), f->type->ToArrow());
            if (!cast.ok()) {
              return Status::Invalid("Unsupported default value '", *c.default_value,
                                     "' for column ", f->name, " of type ", f->type->ToString());
            }
          }
          f->default_value = c.default_value;
          return Status::OK();
        }));
        break;
      case A::kUpdateColumnPosition:
        ARROW_RETURN_NOT_OK(ApplyMove(&next.fields, std::nullopt, *c.move));
        break;
    }
  }
  next.highest_field_id = std::max(next.highest_field_id, HighestFieldId(next.fields));
  ARROW_RETURN_NOT_OK(ValidateTableSchema(next));
  return next;
}

}  // namespace paimon_rowid
