"""Driver-side checks shared by the embedded and the Ray row-id jobs, and the snapshot
properties an update commits.

Every check mirrors pypaimon's (same exception type, same condition, same order; see
docs/python-api.md, "Row-id jobs") so code written against pypaimon sees the same errors.
"""
from __future__ import annotations

import contextlib
import contextvars
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

import pyarrow as pa

from .._internal._arrow import capsule_schema
from .._internal._lib import native
from .._internal._time_travel import TIME_TRAVEL_KEYS, pin_snapshot
from ..catalog.catalog import CatalogFactory
from ..table.table import Table

ROW_ID = "_ROW_ID"
INVARIANT_KEYS = ("data-evolution.enabled", "row-tracking.enabled", "deletion-vectors.enabled")
# An update that loses a data-evolution conflict only because a concurrent commit changed
# OTHER rows of the same groups/columns is re-planned on the new snapshot this many times.
MAX_REBASES = 5

# (target, snapshot properties) of the resumable process_row_id_ranges batch that runs now.
_BATCH_PROPERTIES: contextvars.ContextVar[Optional[Tuple[str, Dict[str, str]]]] = \
    contextvars.ContextVar("paimon_rowid_batch_properties", default=None)


@contextlib.contextmanager
def batch_properties(target: str, properties: Dict[str, str]) -> Iterator[None]:
    """While the block runs, updates of ``target`` that are not given snapshot properties
    record ``properties`` (process_row_id_ranges' progress, so the seed's processor, which
    knows nothing of it, records it)."""
    token = _BATCH_PROPERTIES.set((target, dict(properties)))
    try:
        yield
    finally:
        _BATCH_PROPERTIES.reset(token)


def snapshot_properties(target: str, explicit: Optional[Mapping[str, Any]]) -> Dict[str, str]:
    """The properties an update of ``target`` commits: ``explicit`` when given, else those of
    the running resumable batch of ``target`` (``batch_properties``), else none."""
    if explicit is not None:
        if not isinstance(explicit, Mapping) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in explicit.items()):
            raise TypeError("snapshot_properties must be a mapping of str to str.")
        return dict(explicit)
    active = _BATCH_PROPERTIES.get()
    if active is None or active[0] != target:
        return {}
    return dict(active[1])


def dedupe(columns: Sequence[str]) -> List[str]:
    """Order-keeping de-duplication."""
    seen: Dict[str, None] = {}
    for c in columns:
        seen.setdefault(c, None)
    return list(seen)


def load_table(target: str, catalog_options: Mapping[str, Any]) -> Table:
    return CatalogFactory.create(catalog_options).get_table(target)


def check_table(table: Table, target: str, operation: str) -> None:
    """Data evolution and row tracking on (persisted options). Deletion-vector tables are
    fine: deleted rows are invisible to reads and refused by updates."""
    options = table.options
    if options.get("data-evolution.enabled", "false").lower() != "true":
        if options.get("row-tracking.enabled", "false").lower() != "true":
            # Name both: naming one sends the user to fix it and then meet the other.
            raise ValueError(f"{operation} requires 'data-evolution.enabled'='true' and "
                             f"'row-tracking.enabled'='true' on '{target}' (both are set when "
                             "the table is created).")
        raise ValueError(f"{operation} requires 'data-evolution.enabled'='true' on '{target}'.")
    if options.get("row-tracking.enabled", "false").lower() != "true":
        raise ValueError(f"{operation} requires 'row-tracking.enabled'='true' on '{target}'.")


def check_dynamic_options(dynamic_options: Optional[Mapping[str, Any]]) -> None:
    if not dynamic_options:
        return
    invariants = sorted(k for k in dynamic_options if k in INVARIANT_KEYS)
    if invariants:
        raise ValueError(f"dynamic_options cannot override table invariants {invariants}.")
    travel = [k for k in TIME_TRAVEL_KEYS
              if k in dynamic_options and dynamic_options[k] is not None]
    if len(travel) > 1:
        raise ValueError(f"dynamic_options may set at most one time-travel key {TIME_TRAVEL_KEYS}.")


def resolve_read_table(table: Table, target: str, projection: Sequence[str],
                       dynamic_options: Optional[Mapping[str, Any]]):
    """Applies dynamic options, resolves the snapshot and validates the projection. Returns
    (table pinned to the snapshot, snapshot dict or None)."""
    travelling = dynamic_options is not None and any(
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
        table = pin_snapshot(table, snapshot)  # routing and reading both use it
    return table, snapshot



def table_is_empty(snapshot: Any) -> bool:
    """No snapshot, or a snapshot (the native ``Snapshot``) without rows."""
    return snapshot is None or (snapshot.total_record_count or 0) == 0


def foreign_ids_error(target: str) -> ValueError:
    return ValueError(f"target '{target}' has no rows; every _ROW_ID in the source is foreign.")


def read_output_schema(table: Table, projection: Sequence[str]) -> pa.Schema:
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
