"""``backfill(..., column_type=...)``: the column a backfill fills is added to the table (as a
nullable column, one ``alter_table``) when it is missing, before anything is read.

A rerun finds the column and adds nothing; two backfills racing to add the same column add
it once (the loser's ``alter_table`` finds it already there and goes on), as long as both
ask for the same type. Shared by ``paimon_rowid.backfill`` and ``paimon_rowid.ray.backfill``.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional

from .._internal.exceptions import ColumnAlreadyExistException
from ..catalog.catalog import CatalogFactory
from ..schema import DataType
from ..schema.schema_change import SchemaChange, type_json

__all__ = ["add_missing_column"]


def _paimon_type(column_type: Any) -> DataType:
    try:
        return DataType(type_json(column_type))
    except TypeError:
        raise TypeError(f"column_type must be a pyarrow type or a Paimon type, got "
                        f"{type(column_type).__name__}.") from None


def add_missing_column(target: str, catalog_options: Mapping[str, Any], column: Any,
                       column_type: Optional[Any]) -> None:
    """Adds ``column`` of ``column_type`` (nullable) to ``target`` unless it exists. A
    column that exists with another type is a ValueError (nothing is changed). Cost: one
    schema read, plus one schema write when the column is added."""
    if column_type is None or not isinstance(column, str) or not column:
        return  # the backfill's own checks report a bad column
    wanted = _paimon_type(column_type)
    if not wanted.nullable:
        raise ValueError(f"column_type of {column!r} must be nullable (null marks a row not "
                         "computed yet).")
    catalog = CatalogFactory.create(catalog_options)
    table = catalog.get_table(target)
    if column not in table.field_names:
        try:
            catalog.alter_table(target, [SchemaChange.add_column(column, wanted)])
        except RuntimeError as error:
            # A concurrent backfill added it first: use it if it has the same type.
            if not isinstance(error.__cause__, ColumnAlreadyExistException):
                raise
        table = catalog.get_table(target)
    existing = next(f for f in table.fields if f.name == column)
    if existing.type.to_arrow() != wanted.to_arrow():
        raise ValueError(f"column {column!r} of '{target}' is {existing.type}, not the "
                         f"column_type {wanted}.")
