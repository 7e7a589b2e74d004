"""Validation and source handling shared by the embedded and the Ray row-id jobs.

Every check mirrors pypaimon's (same exception type, same condition, same order; behaviour
doc §1.2 and §2.2) so code written against pypaimon sees the same errors.
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence

import pyarrow as pa

from ._arrow import UserStream
from ._lib import native
from .catalog import CatalogFactory
from .table import Table

ROW_ID = "_ROW_ID"
INVARIANT_KEYS = ("data-evolution.enabled", "row-tracking.enabled", "deletion-vectors.enabled")
TIME_TRAVEL_KEYS = ["scan.snapshot-id", "scan.tag-name", "scan.watermark", "scan.timestamp",
                    "scan.timestamp-millis"]


def dedupe(columns: Sequence[str]) -> List[str]:
    """Order-keeping de-duplication."""
    seen: Dict[str, None] = {}
    for c in columns:
        seen.setdefault(c, None)
    return list(seen)


def load_table(target: str, catalog_options: Mapping[str, Any]) -> Table:
    return CatalogFactory.create(catalog_options).get_table(target)


def check_table(table: Table, target: str, operation: str) -> None:
    """Data evolution and row tracking on, deletion vectors off (persisted options)."""
    options = table.options
    if options.get("data-evolution.enabled", "false").lower() != "true":
        raise ValueError(f"{operation} requires 'data-evolution.enabled'='true' on '{target}'.")
    if options.get("row-tracking.enabled", "false").lower() != "true":
        raise ValueError(f"{operation} requires 'row-tracking.enabled'='true' on '{target}'.")
    if options.get("deletion-vectors.enabled", "false").lower() == "true":
        raise ValueError(
            f"{operation} does not support deletion-vectors-enabled tables yet: '{target}'.")


def source_reader(source: Any, operation: str, what: str,
                  allow_ray: bool = False) -> UserStream:
    """The source as one Arrow stream (``.reader``; ``.call`` keeps the user's exceptions).
    A table name is refused (its _ROW_ID is its own); other unsupported types are TypeError."""
    if isinstance(source, str):
        raise ValueError(
            f"{operation} does not accept a table-name source; pass a ray.data.Dataset / "
            f"pyarrow.Table / pandas.DataFrame carrying {what}.")
    if type(source).__module__.startswith("ray.data") and not allow_ray:
        # Iterating a Dataset would run the whole Ray pipeline only to fail on its rows.
        raise TypeError(
            f"{operation} (embedded) does not take a ray.data.Dataset; use "
            f"paimon_rowid.ray.{operation}, or pass a pyarrow.Table / pandas.DataFrame / "
            f"Arrow stream carrying {what}.")
    try:
        if isinstance(source, (list, tuple)) and not (
                source and all(isinstance(b, pa.RecordBatch) for b in source)):
            raise TypeError(type(source).__name__)  # only a list of record batches is a table
        return UserStream.of(source)
    except (TypeError, AttributeError):  # AttributeError: an iterable of non-batches
        raise TypeError(
            "source must be a ray.data.Dataset, a Paimon table identifier string, a "
            "pyarrow.Table, or a pandas.DataFrame (or any Arrow stream); got "
            f"{type(source).__name__}.") from None


def check_dynamic_options(dynamic_options: Optional[Mapping[str, Any]]) -> None:
    if not dynamic_options:
        return
    invariants = sorted(k for k in dynamic_options if k in INVARIANT_KEYS)
    if invariants:
        raise ValueError(f"dynamic_options cannot override table invariants {invariants}.")
    travel = [k for k in TIME_TRAVEL_KEYS if k in dynamic_options and dynamic_options[k] is not None]
    if len(travel) > 1:
        raise ValueError(f"dynamic_options may set at most one time-travel key {TIME_TRAVEL_KEYS}.")


def resolve_read_table(table: Table, target: str, projection: Sequence[str],
                       dynamic_options: Optional[Mapping[str, Any]]):
    """Applies dynamic options, resolves the snapshot and validates the projection. Returns
    (table pinned to the snapshot, snapshot dict or None)."""
    travelling = bool(dynamic_options) and any(
        dynamic_options.get(k) is not None for k in TIME_TRAVEL_KEYS)
    if dynamic_options:
        try:
            table = table.copy(dict(dynamic_options))
        except ValueError as error:
            if travelling:
                raise ValueError(f"could not resolve the time-travel snapshot from "
                                 f"dynamic_options: {error}") from error
            raise
    for col in projection:
        if col != ROW_ID and col not in table.field_names:
            raise ValueError(f"projection column {col!r} is not in target '{target}'.")
    snapshot = table.resolve_snapshot()
    if travelling:
        if snapshot is None:
            raise ValueError("could not resolve the time-travel snapshot from dynamic_options.")
        if not table.row_tracking_enabled:
            raise ValueError(f"the resolved snapshot ({snapshot.id}) predates row-tracking; "
                             "read_by_row_id needs it.")
    if snapshot is not None:
        # Pin the resolved snapshot: routing and reading both use it.
        overrides = {k: None for k in TIME_TRAVEL_KEYS if k in table.options}
        overrides["scan.snapshot-id"] = str(snapshot.id)
        table = table.copy(overrides)
    return table, snapshot


def table_is_empty(snapshot: Optional[Mapping[str, Any]]) -> bool:
    return snapshot is None or (snapshot.total_record_count or 0) == 0


def foreign_ids_error(target: str) -> ValueError:
    return ValueError(f"target '{target}' has no rows; every _ROW_ID in the source is foreign.")


def read_output_schema(table: Table, projection: Sequence[str]) -> pa.Schema:
    from ._arrow import capsule_schema
    return capsule_schema(native().read_by_row_id_schema(table._native, list(projection)))


def prepare_read(target: str, catalog_options: Mapping[str, Any], projection: Sequence[str],
                 row_id_col: Optional[str], dynamic_options: Optional[Mapping[str, Any]]):
    """The driver-side checks of read_by_row_id, in pypaimon's order, shared by the embedded
    and the Ray path. Returns (table pinned to the snapshot, snapshot or None, projection,
    row_id_col)."""
    if not projection:
        raise ValueError("projection must be non-empty.")
    projection = dedupe(projection)
    row_id_col = row_id_col or ROW_ID
    table = load_table(target, catalog_options)
    check_table(table, target, "read_by_row_id")
    check_dynamic_options(dynamic_options)
    table, snapshot = resolve_read_table(table, target, projection, dynamic_options)
    return table, snapshot, projection, row_id_col


def prepare_update(target: str, catalog_options: Mapping[str, Any],
                   update_cols: Sequence[str]):
    """The driver-side checks of update_by_row_id before the source is looked at, in
    pypaimon's order, shared by the embedded and the Ray path. Returns (table, columns)."""
    if not update_cols:
        raise ValueError("update_cols must be non-empty.")
    columns = dedupe(update_cols)
    table = load_table(target, catalog_options)
    columns = native().validate_update_columns(table._native, columns, target,
                                               "update_by_row_id")
    return table, columns
