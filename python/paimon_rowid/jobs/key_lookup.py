"""Key -> row id without a locator table: ``lookup_row_ids`` (docs/global-index.md, "Key
lookup"), embedded (``paimon_rowid.ray.lookup_row_ids`` runs it in Ray tasks).

The result, a pyarrow Table ``(key_column, _ROW_ID)`` with one row per matching table row, is
what ``read_by_row_id(..., row_id_col="_ROW_ID")`` and ``update_by_row_id`` take; joined back
to the incoming rows on the key it replaces the seed's locator table and ``bucket_join``.

Costs: where a live btree global index of ``key_column`` covers rows, the keys are looked up in
its files (files whose first/last keys exclude every key are not read) and the ids found are
checked against the snapshot's live rows without decoding a data page; the rows the index does
not cover (appended after the build), or every row when there is no usable index, are scanned:
``key_column IN keys``, pruned by value stats, reading only that column. The index is not
trusted (so not used) under ``global-index.column-update-action=IGNORE``, where an update may
have left it stale, nor with ``global-index.enabled=false``. The GIL is released throughout.
"""
from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Tuple

import pyarrow as pa

from .._internal._arrow import whole_table
from .._internal._lib import native
from . import _job_checks as jobs

__all__ = ["lookup_row_ids"]


def key_array(keys: Any, key_column: str, key_type: pa.DataType) -> pa.Array:
    """``keys`` as one Arrow array of the column's type: a list / tuple / numpy array / pyarrow
    Array or ChunkedArray of keys, or a table (pyarrow Table or RecordBatch, pandas DataFrame,
    mapping of columns) carrying ``key_column``. ValueError when the keys cannot be the
    column's type, or a table lacks the column; TypeError for other inputs."""
    if isinstance(keys, Mapping):
        keys = pa.table({str(k): v for k, v in keys.items()})
    elif type(keys).__name__ == "DataFrame" and hasattr(keys, "columns"):
        keys = pa.Table.from_pandas(keys, preserve_index=False)
    if isinstance(keys, (pa.Table, pa.RecordBatch)):
        if key_column not in keys.schema.names:
            raise ValueError(f"keys table is missing the key column {key_column!r}.")
        keys = keys.column(key_column)
    if isinstance(keys, (str, bytes)) or not (
            isinstance(keys, (list, tuple, pa.Array, pa.ChunkedArray))
            or type(keys).__name__ == "ndarray"):
        raise TypeError("keys must be a list / tuple / numpy array / pyarrow Array of keys or a "
                        f"table carrying {key_column!r}; got {type(keys).__name__}.")
    try:
        array = keys if isinstance(keys, (pa.Array, pa.ChunkedArray)) else pa.array(keys)
        if isinstance(array, pa.ChunkedArray):
            array = array.combine_chunks()
        if not array.type.equals(key_type):
            array = array.cast(key_type)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as error:
        raise ValueError(f"keys cannot be values of column {key_column!r} ({key_type}): "
                         f"{error}") from error
    return array


def prepare(target: str, key_column: str, catalog_options: Mapping[str, Any],
            dynamic_options: Optional[Mapping[str, Any]]) -> Tuple[Any, Any, pa.DataType]:
    """The driver-side checks, shared with the Ray path. Returns (table pinned to the snapshot
    read, that snapshot or None, the key column's Arrow type)."""
    if not isinstance(key_column, str) or not key_column:
        raise ValueError("key_column must be a column name.")
    table = jobs.load_table(target, catalog_options)
    jobs.check_table(table, target, "lookup_row_ids")
    jobs.check_dynamic_options(dynamic_options)
    if key_column not in table.field_names:  # system columns (_ROW_ID, ...) included
        raise ValueError(f"key column {key_column!r} is not a column of target '{target}'.")
    table, snapshot = jobs.resolve_read_table(table, target, [key_column], dynamic_options)
    key_type = table.read_schema([key_column]).field(0).type
    return table, snapshot, key_type


def lookup_on(table: Any, array: pa.Array, key_column: str) -> Tuple[pa.Table, Dict[str, Any]]:
    """The native lookup on a prepared table: (result, what it did: ``index_used``,
    ``index_files_read``, ``index_rows``, ``scanned_ranges`` (-1: the whole table),
    ``scanned_rows``)."""
    capsule, info = native().lookup_row_ids(table._native, array, key_column)
    return whole_table(capsule), dict(info)


def lookup_row_ids(target: str, keys: Any, key_column: str,
                   catalog_options: Mapping[str, Any], *,
                   dynamic_options: Optional[Dict[str, str]] = None) -> pa.Table:
    """The row ids of the rows of ``target`` whose ``key_column`` holds one of ``keys``: a
    pyarrow Table ``(key_column, _ROW_ID)``, one row per matching row (a key held by several
    rows appears once per row; keys held by none are absent; null keys match nothing),
    ascending by ``_ROW_ID``, at the snapshot ``dynamic_options`` select (default the latest).

    Raises ``ValueError`` for a target without data evolution and row tracking, a key column
    that is not a column of the target, or keys that cannot be values of that column;
    ``TypeError`` for keys of an unsupported kind. Reads only; commits nothing."""
    table, snapshot, key_type = prepare(target, key_column, catalog_options, dynamic_options)
    array = key_array(keys, key_column, key_type)
    if snapshot is None:
        return pa.schema([pa.field(key_column, key_type), pa.field(jobs.ROW_ID, pa.int64())]
                         ).empty_table()
    result, _info = lookup_on(table, array, key_column)
    return result
