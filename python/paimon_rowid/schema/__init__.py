"""Paimon schemas: ``Schema`` (what a user declares), ``TableSchema`` (what a table holds),
``DataField`` / ``DataType`` and the Arrow <-> Paimon type mapping.

Types are kept in the JSON form Java Paimon writes into ``schema/schema-N`` (docs/format.md §1.4):
atomic types are SQL strings (``"BIGINT NOT NULL"``, ``"DECIMAL(10, 2)"``,
``"TIMESTAMP(6) WITH LOCAL TIME ZONE"``), nested types are objects (``{"type": "ARRAY",
"element": ...}``, ``{"type": "MAP", "key": ..., "value": ...}``, ``{"type": "ROW", "fields":
[...]}``, ``{"type": "VECTOR", "element": "FLOAT", "length": n}``).

The Arrow <-> Paimon type mapping is the native core's (``types/data_type.h``: it follows
pypaimon's ``PyarrowFieldParser.to_paimon_type`` / ``from_paimon_type``, so a schema declared
through either library produces the same table, and it is the mapping the reader and writer
use). Arrow types cross as Arrow C schema capsules. Everything here costs O(number of fields).
"""
from __future__ import annotations

import copy
import json
import re
import time
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

import pyarrow as pa

from .._internal._arrow import CapsuleSchema
from .._internal._lib import native

__all__ = ["DataType", "DataField", "Schema", "TableSchema", "ROW_ID", "SEQUENCE_NUMBER",
           "SYSTEM_FIELD_NAMES", "normalize_options"]

TypeJson = Union[str, Dict[str, Any]]

SCHEMA_VERSION = 3
_SYSTEM_FIELD_ID_START = 2147483647 // 2  # ids >= this are system ids (not counted as highest)
_NOT_NULL = " NOT NULL"


# ---------------------------------------------------------------------------------------------
# DataType: a thin immutable wrapper over the JSON form
# ---------------------------------------------------------------------------------------------

class DataType:
    """A Paimon data type in its Java JSON form. Immutable; equality compares the JSON form."""

    __slots__ = ("_json",)

    def __init__(self, json_form: TypeJson) -> None:
        if not isinstance(json_form, (str, dict)):
            raise TypeError(f"a Paimon type is a string or an object, got {json_form!r}")
        if isinstance(json_form, dict) and "type" not in json_form:
            raise ValueError(f"Missing 'type' field in type JSON: {json_form!r}")
        self._json = json_form

    @property
    def json(self) -> TypeJson:
        return self._json

    def to_json(self) -> TypeJson:
        return copy.deepcopy(self._json)

    @property
    def root(self) -> str:
        """The type name without parameters and nullability: ``BIGINT``, ``DECIMAL``,
        ``TIMESTAMP``, ``TIMESTAMP_LTZ``, ``ARRAY``, ``MAP``, ``ROW``, ``VECTOR`` ..."""
        text = _strip_not_null(self._json if isinstance(self._json, str) else self._json["type"])
        text = text.upper()
        if "WITH LOCAL TIME ZONE" in text or text.startswith("TIMESTAMP_LTZ"):
            return "TIMESTAMP_LTZ"
        return re.split(r"[ (<]", text, maxsplit=1)[0]

    @property
    def nullable(self) -> bool:
        head = self._json if isinstance(self._json, str) else self._json["type"]
        return not head.upper().rstrip().endswith(_NOT_NULL)

    @property
    def fields(self) -> List[DataField]:
        """Nested fields of a ROW type (empty for other types)."""
        if isinstance(self._json, dict) and self.root == "ROW":
            return [DataField.from_json(f) for f in self._json.get("fields", [])]
        return []

    def copy(self, nullable: bool) -> DataType:
        return DataType(_with_nullability(self._json, nullable))

    def to_arrow(self) -> pa.DataType:
        """The Arrow type pypaimon (and our reader) uses for this Paimon type; ValueError
        ``Unsupported data type: ...`` when the JSON form is not a valid type."""
        try:
            capsule = native().arrow_type_of(json.dumps(self._json))
        except ValueError as error:
            raise ValueError(f"Unsupported data type: {self._json!r}") from error
        return pa.field(CapsuleSchema(capsule)).type

    def __str__(self) -> str:
        return _sql_string(self._json)

    def __repr__(self) -> str:
        return f"DataType({self._json!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DataType):
            return self._json == other._json
        if isinstance(other, (str, dict)):
            return self._json == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(json.dumps(self._json, sort_keys=True))


@dataclass(frozen=True)
class DataField:
    """A named, id-carrying column (top-level or nested in a ROW)."""

    id: int
    name: str
    type: DataType
    description: Optional[str] = None
    default_value: Optional[str] = None

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> DataField:
        for key in ("id", "name", "type"):
            if key not in data:
                raise ValueError(f"Missing '{key}' in field JSON: {data!r}")
        return DataField(int(data["id"]), str(data["name"]), DataType(data["type"]),
                         data.get("description"), data.get("defaultValue"))

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"id": self.id, "name": self.name, "type": self.type.to_json()}
        if self.description is not None:
            out["description"] = self.description
        if self.default_value is not None:
            out["defaultValue"] = self.default_value
        return out

    @property
    def nullable(self) -> bool:
        return self.type.nullable

    def to_arrow(self) -> pa.Field:
        metadata = {b"description": self.description.encode()} if self.description else None
        return pa.field(self.name, self.type.to_arrow(), nullable=self.type.nullable,
                        metadata=metadata)


ROW_ID = DataField(2147483642, "_ROW_ID", DataType("BIGINT NOT NULL"))
SEQUENCE_NUMBER = DataField(2147483646, "_SEQUENCE_NUMBER", DataType("BIGINT NOT NULL"))
SYSTEM_FIELD_NAMES = (ROW_ID.name, SEQUENCE_NUMBER.name)


# ---------------------------------------------------------------------------------------------
# Schema (user declaration) and TableSchema (persisted form)
# ---------------------------------------------------------------------------------------------

def normalize_options(options: Optional[Mapping[str, Any]]) -> Dict[str, str]:
    """Table/catalog options as ``str -> str`` (bools become ``true``/``false``)."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise TypeError(f"options must be a dict, got {type(options).__name__}")
    out: Dict[str, str] = {}
    for key, value in options.items():
        if not isinstance(key, str):
            raise TypeError(f"option keys must be strings, got {key!r}")
        if value is None:
            raise ValueError(f"option '{key}' has no value")
        out[key] = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return out


@dataclass
class Schema:
    """A table declaration: fields (with ids), partition and primary keys, options, comment."""

    fields: List[DataField] = dc_field(default_factory=list)
    partition_keys: List[str] = dc_field(default_factory=list)
    primary_keys: List[str] = dc_field(default_factory=list)
    options: Dict[str, str] = dc_field(default_factory=dict)
    comment: Optional[str] = None

    def __post_init__(self) -> None:
        self.fields = list(self.fields or [])
        self.partition_keys = list(self.partition_keys or [])
        self.primary_keys = list(self.primary_keys or [])
        self.options = normalize_options(self.options)
        names = [f.name for f in self.fields]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"Table column {names} must not contain duplicate fields. "
                             f"Found: {duplicates}")
        for kind, keys in (("partition", self.partition_keys), ("primary", self.primary_keys)):
            missing = [k for k in keys if k not in names]
            if missing:
                raise ValueError(f"Table column {names} should include all {kind} key "
                                 f"fields {keys}; missing {missing}.")

    @staticmethod
    def from_pyarrow_schema(pa_schema: pa.Schema, partition_keys: Optional[List[str]] = None,
                            primary_keys: Optional[List[str]] = None,
                            options: Optional[Dict[str, Any]] = None,
                            comment: Optional[str] = None) -> Schema:
        """Converts an Arrow schema; field ids are assigned as pypaimon/Java do: a running
        counter from 0, each top-level column takes the next id, then the fields nested in its
        type are numbered depth-first (a ROW field after its own nested fields)."""
        if not isinstance(pa_schema, pa.Schema):
            raise TypeError(f"pa_schema must be a pyarrow.Schema, got {type(pa_schema).__name__}")
        # As an IPC schema message, not a C schema capsule: names keep any NUL byte.
        ipc_schema = pa_schema.serialize().to_pybytes()
        fields = [DataField.from_json(f)
                  for f in json.loads(native().fields_from_arrow(ipc_schema))]
        return Schema(fields, list(partition_keys or []), list(primary_keys or []),
                      dict(options or {}), comment)

    @property
    def field_names(self) -> List[str]:
        return [f.name for f in self.fields]

    def to_arrow(self) -> pa.Schema:
        return pa.schema([f.to_arrow() for f in self.fields])

    def to_table_schema(self, schema_id: int = 0,
                        time_millis: Optional[int] = None) -> TableSchema:
        return TableSchema(schema_id, list(self.fields), list(self.partition_keys),
                           list(self.primary_keys), dict(self.options), self.comment,
                           highest_field_id(self.fields),
                           int(time.time() * 1000) if time_millis is None else time_millis)

    def to_table_schema_json(self) -> str:
        """The ``schema-0`` JSON handed to the native catalog's ``create_table``."""
        return self.to_table_schema().to_json()


@dataclass
class TableSchema:
    """The persisted schema of a table (``schema/schema-<id>``)."""

    id: int
    fields: List[DataField]
    partition_keys: List[str]
    primary_keys: List[str]
    options: Dict[str, str]
    comment: Optional[str]
    highest_field_id: int
    time_millis: int = 0
    version: int = SCHEMA_VERSION

    @staticmethod
    def from_json(json_str: Union[str, bytes]) -> TableSchema:
        try:
            data = json.loads(json_str)
        except ValueError as error:
            raise ValueError(f"Invalid table schema JSON: {error}") from None
        if not isinstance(data, dict):
            raise ValueError("Invalid table schema JSON: not an object")
        try:
            fields = [DataField.from_json(f) for f in data["fields"]]
            return TableSchema(
                id=int(data.get("id", 0)), fields=fields,
                partition_keys=list(data.get("partitionKeys") or []),
                primary_keys=list(data.get("primaryKeys") or []),
                options={str(k): str(v) for k, v in (data.get("options") or {}).items()},
                comment=data.get("comment"),
                highest_field_id=int(data.get("highestFieldId", highest_field_id(fields))),
                time_millis=int(data.get("timeMillis") or 0),
                version=int(data.get("version", 1)))
        except (KeyError, TypeError, AttributeError) as error:
            raise ValueError(f"Invalid table schema JSON: {error!r}") from None

    def to_json(self) -> str:
        out: Dict[str, Any] = {
            "version": self.version,
            "id": self.id,
            "fields": [f.to_json() for f in self.fields],
            "highestFieldId": self.highest_field_id,
            "partitionKeys": list(self.partition_keys),
            "primaryKeys": list(self.primary_keys),
            "options": dict(self.options),
        }
        if self.comment is not None:
            out["comment"] = self.comment
        out["timeMillis"] = self.time_millis
        return json.dumps(out, indent=2, ensure_ascii=False)

    @property
    def field_names(self) -> List[str]:
        return [f.name for f in self.fields]

    def to_schema(self) -> Schema:
        return Schema(list(self.fields), list(self.partition_keys), list(self.primary_keys),
                      dict(self.options), self.comment)


def highest_field_id(fields: Sequence[DataField]) -> int:
    """Max user field id over all (nested) fields; -1 when there is none."""
    ids: List[int] = []

    def walk_type(type_json: TypeJson) -> None:
        if not isinstance(type_json, dict):
            return
        for nested in type_json.get("fields", []) or []:
            ids.append(int(nested["id"]))
            walk_type(nested["type"])
        for key in ("element", "key", "value"):
            if key in type_json:
                walk_type(type_json[key])

    for f in fields:
        ids.append(f.id)
        walk_type(f.type.json)
    user_ids = [i for i in ids if i < _SYSTEM_FIELD_ID_START]
    return max(user_ids) if user_ids else -1


# ---------------------------------------------------------------------------------------------
# JSON-form helpers and SQL strings
# ---------------------------------------------------------------------------------------------

def _strip_not_null(text: str) -> str:
    stripped = text.strip()
    upper = stripped.upper()
    if upper.endswith(_NOT_NULL):
        return stripped[: -len(_NOT_NULL)].rstrip()
    if upper.endswith(" NULL"):
        return stripped[: -len(" NULL")].rstrip()
    return stripped


def _with_not_null(name: str, nullable: bool) -> str:
    return name if nullable else name + _NOT_NULL


def _with_nullability(type_json: TypeJson, nullable: bool) -> TypeJson:
    if isinstance(type_json, str):
        return _with_not_null(_strip_not_null(type_json), nullable)
    out = dict(type_json)
    out["type"] = _with_not_null(_strip_not_null(out["type"]).split("<")[0], nullable)
    out.pop("nullable", None)
    return out


def _sql_string(type_json: TypeJson) -> str:
    if isinstance(type_json, str):
        return type_json
    head = type_json["type"].strip()
    not_null = head.upper().endswith(_NOT_NULL)
    root = _strip_not_null(head).split("<")[0].upper()
    suffix = _NOT_NULL if not_null else ""
    if root == "ARRAY" or root == "MULTISET":
        return f"{root}<{_sql_string(type_json['element'])}>{suffix}"
    if root == "VECTOR":
        return f"VECTOR<{_sql_string(type_json['element'])}, {type_json['length']}>{suffix}"
    if root == "MAP":
        return f"MAP<{_sql_string(type_json['key'])}, {_sql_string(type_json['value'])}>{suffix}"
    if root == "ROW":
        inner = ", ".join(f"{f['name']} {_sql_string(f['type'])}"
                          for f in type_json.get("fields", []))
        return f"ROW<{inner}>{suffix}"
    return head
