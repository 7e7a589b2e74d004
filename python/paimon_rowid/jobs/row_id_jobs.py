"""The row-id jobs, embedded: no Ray, no cluster, one process and a C++ thread pool.

``update_by_row_id`` and ``read_by_row_id`` take the same arguments as
``pypaimon.ray.update_by_row_id`` / ``read_by_row_id`` (``num_partitions`` sets the number of
threads; ``ray_remote_args`` is accepted and ignored) and raise the same errors. Sources may
be a pyarrow Table / RecordBatch / RecordBatchReader, a pandas DataFrame, a mapping of column
name to values, or any object with ``__arrow_c_stream__`` (polars, DuckDB, ...);
``read_by_row_id`` also takes the ids alone: a list, a pyarrow Array / ChunkedArray or a numpy
integer array. Row ids are integers: a bool, float, string or decimal id (or id column) is a
TypeError, never cast.

Costs: one manifest read of the pinned snapshot to build the row-id index; routing is a
binary search per id in C++; an update reads only the update columns of the touched groups
(nothing when a group is fully rewritten) and writes one partial-column file per group; a
read decodes only the row groups holding wanted ids, only the projected columns.
"""
from __future__ import annotations

import uuid
from typing import Any, Dict, List, Mapping, Optional, Tuple

import pyarrow as pa

from .._internal._arrow import columns_source, ids_source, source_stream, whole_table
from .._internal._lib import native
from . import _job_checks as jobs

__all__ = ["update_by_row_id", "read_by_row_id"]


def _threads(num_partitions: Optional[int]) -> int:
    if num_partitions is None:
        return 0  # the C++ default: one worker per core
    return max(1, int(num_partitions))


# Catalog options with this prefix tune the update itself (see docs/python-api.md, "Row-id jobs"):
#   paimon-rowid.update.memory-budget  bytes of routed source rows held in memory before
#                                      spilling to Arrow IPC files (default "256 mb"; "0": never)
#   paimon-rowid.update.spill-dir      where the spill files go (default: the temp directory)
UPDATE_OPTION_PREFIX = "paimon-rowid.update."


def _with_update_options(table, catalog_options: Mapping[str, Any]):
    tuning = {k: str(v) for k, v in catalog_options.items()
              if isinstance(k, str) and k.startswith(UPDATE_OPTION_PREFIX)}
    return table.copy(tuning) if tuning else table


def update_by_row_id(target: str, source: Any, catalog_options: Mapping[str, Any], *,
                     update_cols: List[str], num_partitions: Optional[int] = None,
                     ray_remote_args: Optional[Dict[str, Any]] = None,
                     snapshot_properties: Optional[Mapping[str, str]] = None) -> Dict[str, int]:
    """Overwrites ``update_cols`` of the rows whose ``_ROW_ID`` the source carries and makes
    exactly one commit, whose snapshot carries ``snapshot_properties`` (default: the progress
    of the running ``process_row_id_ranges(resume_key=...)`` batch). Returns
    ``{"num_updated": n}`` (source rows). An empty source makes no commit. Failed updates
    leave no files behind, but for a store that refuses the commit's requests (a revoked
    data token): ``CommitIOError``, no snapshot, the job's data files left as orphans for
    ``remove_orphan_files``.

    Beyond pypaimon: when the commit loses a conflict only because another writer changed the
    same columns of the same file groups on *other* rows, the update is re-planned on the new
    snapshot and committed again (both writers' rows are kept); if the other writer changed
    any of *these* rows' update columns, ``CommitConflictException`` is raised.

    Memory: the routed source is held up to ``paimon-rowid.update.memory-budget`` (a catalog
    option, default 256 mb) and spilled to disk beyond it, so a streamed source (a
    RecordBatchReader or ``__arrow_c_stream__`` object) larger than memory can be applied."""
    rows, _snapshot_id = update_and_commit(target, source, catalog_options,
                                           update_cols=update_cols,
                                           num_partitions=num_partitions,
                                           snapshot_properties=snapshot_properties)
    return {"num_updated": rows}


def update_and_commit(target: str, source: Any, catalog_options: Mapping[str, Any], *,
                      update_cols: List[str], num_partitions: Optional[int] = None,
                      snapshot_properties: Optional[Mapping[str, str]] = None
                      ) -> Tuple[int, Optional[int]]:
    """``update_by_row_id`` returning (rows updated, id of the snapshot made or None when
    nothing was committed); ``backfill`` records the snapshot ids it makes."""
    table, update_cols = jobs.prepare_update(target, catalog_options, update_cols)
    table = _with_update_options(table, catalog_options)
    stream = source_stream(columns_source(source), "update_by_row_id", "the target _ROW_ID")
    properties = jobs.snapshot_properties(target, snapshot_properties)
    rows, snapshot_id, _rebases = stream.call(lambda reader: native().update_by_row_id_commit(
        table._native, reader, update_cols, target, str(uuid.uuid4()), _threads(num_partitions),
        jobs.MAX_REBASES, properties))
    return int(rows), (None if snapshot_id is None else int(snapshot_id))


def read_by_row_id(target: str, row_ids: Any, catalog_options: Mapping[str, Any], *,
                   projection: List[str], row_id_col: Optional[str] = None,
                   dynamic_options: Optional[Dict[str, str]] = None,
                   num_partitions: Optional[int] = None,
                   ray_remote_args: Optional[Dict[str, Any]] = None) -> pa.Table:
    """Reads ``projection`` for the distinct row ids in ``row_ids[row_id_col]`` (default
    ``_ROW_ID``), or in ``row_ids`` itself when it is a list / Array / numpy array, and
    returns a pyarrow Table of ``(*projection, _ROW_ID)``: one row per distinct id, grouped by
    file group, ascending within a group. Typed and empty when the source is empty."""
    table, snapshot, projection, row_id_col = jobs.prepare_read(
        target, catalog_options, projection, row_id_col, dynamic_options)
    row_ids = columns_source(ids_source(row_ids, row_id_col), row_id_col)
    stream = source_stream(row_ids, "read_by_row_id", "the target row ids")
    reader = stream.reader
    if row_id_col not in reader.schema.names:
        raise ValueError(f"row_ids source is missing the {row_id_col!r} column.")
    schema = jobs.read_output_schema(table, projection)
    if jobs.table_is_empty(snapshot):
        if any(batch.num_rows for batch in reader):
            raise jobs.foreign_ids_error(target)
        return schema.empty_table()
    index = native().RowIdIndex.build(table._native, snapshot.id)
    capsule = stream.call(lambda reader: native().read_by_row_id(
        table._native, reader, row_id_col, projection, index, _threads(num_partitions)))
    result = stream.call(lambda _: whole_table(capsule))
    return result if result.num_rows else schema.empty_table()
