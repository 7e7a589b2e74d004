"""``SchemaChange`` and ``Move``: the changes ``Catalog.alter_table`` applies, with pypaimon
2.1.0's names, factories and arguments (``pypaimon.schema.schema_change``).

A change is a small dataclass; ``to_json()`` gives the JSON form pypaimon and Java write
(``{"action": "addColumn", "fieldNames": [...], ...}``), which is what the native engine
parses and applies (``catalog/schema_change.h``). Types are accepted as a
``paimon_rowid.DataType``, a pypaimon ``DataType`` (anything with ``to_dict()``), a Paimon SQL
type string (``"BIGINT"``), a type JSON object, or a ``pyarrow.DataType`` (mapped as
``Schema.from_pyarrow_schema`` maps it, nullable).
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Dict, List, Optional, Union

import pyarrow as pa

from . import DataType, Schema, TypeJson

__all__ = ["SchemaChange", "Move", "MoveType", "SetOption", "RemoveOption", "UpdateComment",
           "AddColumn", "RenameColumn", "DropColumn", "UpdateColumnType",
           "UpdateColumnNullability", "UpdateColumnComment", "UpdateColumnDefaultValue",
           "UpdateColumnPosition"]

FieldNames = Union[str, List[str]]


def _names(field_name: FieldNames) -> List[str]:
    if isinstance(field_name, str):
        return [field_name]
    names = list(field_name)
    if not names or not all(isinstance(n, str) for n in names):
        raise TypeError(f"a column is a name or a non-empty list of names, got {field_name!r}")
    return names


def type_json(data_type: Any) -> TypeJson:
    """The schema-JSON form of any accepted type value (see the module docstring)."""
    if isinstance(data_type, DataType):
        return data_type.to_json()
    if isinstance(data_type, pa.DataType):
        return Schema.from_pyarrow_schema(pa.schema([pa.field("c", data_type)])).fields[0] \
            .type.to_json()
    if isinstance(data_type, (str, dict)):
        return DataType(data_type).to_json()
    if hasattr(data_type, "to_dict"):
        return DataType(data_type.to_dict()).to_json()
    raise TypeError(f"a column type is a paimon_rowid.DataType, a type string, a pyarrow type "
                    f"or a pypaimon DataType, got {type(data_type).__name__}")


class MoveType(Enum):
    FIRST = "FIRST"
    AFTER = "AFTER"
    BEFORE = "BEFORE"
    LAST = "LAST"


@dataclass
class Move:
    """Where ``add_column`` puts a column or ``update_column_position`` moves one."""

    field_name: str
    reference_field_name: Optional[str]
    type: MoveType

    @staticmethod
    def first(field_name: str) -> Move:
        return Move(field_name, None, MoveType.FIRST)

    @staticmethod
    def after(field_name: str, reference_field_name: str) -> Move:
        return Move(field_name, reference_field_name, MoveType.AFTER)

    @staticmethod
    def before(field_name: str, reference_field_name: str) -> Move:
        return Move(field_name, reference_field_name, MoveType.BEFORE)

    @staticmethod
    def last(field_name: str) -> Move:
        return Move(field_name, None, MoveType.LAST)

    def to_json(self) -> Dict[str, Any]:
        return {"fieldName": self.field_name, "referenceFieldName": self.reference_field_name,
                "type": MoveType(self.type).value}


class SchemaChange:
    """Factories of the change kinds (pypaimon's static methods, same arguments)."""

    def to_json(self) -> Dict[str, Any]:  # pragma: no cover - every subclass defines it
        raise NotImplementedError(f"Unsupported change: {type(self)}")

    @staticmethod
    def set_option(key: str, value: str) -> SetOption:
        return SetOption(key, value)

    @staticmethod
    def remove_option(key: str) -> RemoveOption:
        return RemoveOption(key)

    @staticmethod
    def update_comment(comment: Optional[str]) -> UpdateComment:
        return UpdateComment(comment)

    @staticmethod
    def add_column(field_name: FieldNames, data_type: Any, comment: Optional[str] = None,
                   move: Optional[Move] = None) -> AddColumn:
        return AddColumn(_names(field_name), data_type, comment, move)

    @staticmethod
    def rename_column(field_name: FieldNames, new_name: str) -> RenameColumn:
        return RenameColumn(_names(field_name), new_name)

    @staticmethod
    def drop_column(field_name: FieldNames) -> DropColumn:
        return DropColumn(_names(field_name))

    @staticmethod
    def update_column_type(field_name: FieldNames, new_data_type: Any,
                           keep_nullability: bool = False) -> UpdateColumnType:
        return UpdateColumnType(_names(field_name), new_data_type, keep_nullability)

    @staticmethod
    def update_column_nullability(field_name: FieldNames,
                                  new_nullability: bool) -> UpdateColumnNullability:
        return UpdateColumnNullability(_names(field_name), new_nullability)

    @staticmethod
    def update_column_comment(field_name: FieldNames, comment: str) -> UpdateColumnComment:
        return UpdateColumnComment(_names(field_name), comment)

    @staticmethod
    def update_column_default_value(field_names: FieldNames,
                                    default_value: str) -> UpdateColumnDefaultValue:
        return UpdateColumnDefaultValue(_names(field_names), default_value)

    @staticmethod
    def update_column_position(move: Move) -> UpdateColumnPosition:
        return UpdateColumnPosition(move)


@dataclass
class SetOption(SchemaChange):
    key: str
    value: str

    def to_json(self) -> Dict[str, Any]:
        return {"action": "setOption", "key": self.key, "value": _option_value(self.value)}


@dataclass
class RemoveOption(SchemaChange):
    key: str

    def to_json(self) -> Dict[str, Any]:
        return {"action": "removeOption", "key": self.key}


@dataclass
class UpdateComment(SchemaChange):
    comment: Optional[str]

    def to_json(self) -> Dict[str, Any]:
        return {"action": "updateComment", "comment": self.comment}


@dataclass
class AddColumn(SchemaChange):
    field_names: List[str]
    data_type: Any
    comment: Optional[str] = None
    move: Optional[Move] = None

    def to_json(self) -> Dict[str, Any]:
        return {"action": "addColumn", "fieldNames": list(self.field_names),
                "dataType": type_json(self.data_type), "comment": self.comment,
                "move": self.move.to_json() if self.move is not None else None}


@dataclass
class RenameColumn(SchemaChange):
    field_names: List[str]
    new_name: str

    def to_json(self) -> Dict[str, Any]:
        return {"action": "renameColumn", "fieldNames": list(self.field_names),
                "newName": self.new_name}


@dataclass
class DropColumn(SchemaChange):
    field_names: List[str]

    def to_json(self) -> Dict[str, Any]:
        return {"action": "dropColumn", "fieldNames": list(self.field_names)}


@dataclass
class UpdateColumnType(SchemaChange):
    field_names: List[str]
    new_data_type: Any
    keep_nullability: bool = False

    def to_json(self) -> Dict[str, Any]:
        return {"action": "updateColumnType", "fieldNames": list(self.field_names),
                "newDataType": type_json(self.new_data_type),
                "keepNullability": bool(self.keep_nullability)}


@dataclass
class UpdateColumnNullability(SchemaChange):
    field_names: List[str]
    new_nullability: bool

    def to_json(self) -> Dict[str, Any]:
        return {"action": "updateColumnNullability", "fieldNames": list(self.field_names),
                "newNullability": bool(self.new_nullability)}


@dataclass
class UpdateColumnComment(SchemaChange):
    field_names: List[str]
    new_comment: Optional[str]

    def to_json(self) -> Dict[str, Any]:
        return {"action": "updateColumnComment", "fieldNames": list(self.field_names),
                "newComment": self.new_comment}


@dataclass
class UpdateColumnDefaultValue(SchemaChange):
    field_names: List[str]
    new_default_value: Optional[str]

    def to_json(self) -> Dict[str, Any]:
        return {"action": "updateColumnDefaultValue", "fieldNames": list(self.field_names),
                "newDefaultValue": self.new_default_value}


@dataclass
class UpdateColumnPosition(SchemaChange):
    move: Move

    def to_json(self) -> Dict[str, Any]:
        if not isinstance(self.move, Move):
            raise TypeError(f"update_column_position needs a Move, got {self.move!r}")
        return {"action": "updateColumnPosition", "move": self.move.to_json()}


def _option_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def changes_json(changes: Any) -> List[Dict[str, Any]]:
    """The JSON form of a change list (TypeError naming anything that is not a change)."""
    if isinstance(changes, SchemaChange):
        changes = [changes]
    out = []
    for change in changes:
        if not isinstance(change, SchemaChange):
            raise TypeError(f"alter_table takes SchemaChange objects "
                            f"(paimon_rowid.schema.schema_change), got {type(change).__name__}")
        out.append(change.to_json())
    return out
