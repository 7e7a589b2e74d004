"""``create_global_index`` on Ray (docs/global-index.md, "On Ray"): the driver plans the row
ranges the btree or bitmap index does not cover yet, cuts them into shards, Ray tasks sort and
write each shard's index files (pinned to the planned snapshot, read through the driver's
schema), and the driver commits every file in one snapshot. A failed build (a task or the
commit) deletes every file the build wrote.

The files and manifest entries are those of the embedded build, except that a range may be
cut into several shards (one manifest range each): the index holds the same keys and row ids,
and pypaimon reads either (its own builds cut ranges at its splits the same way).
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from .._internal._lib import native
from .._internal._time_travel import READ_SCHEMA_ID
from ..jobs import _job_checks as jobs
from ..table.global_index import (
    PartitionSpecs,
    _column,
    _native_filter,
    _partition_filter,
)
from ..table.predicate import Predicate
from ._runtime import innermost, require_ray

__all__ = ["create_global_index"]


def _build_shard(target: str, catalog_options: Dict[str, Any], column: str, index_type: str,
                 options: Dict[str, str], snapshot_id: int, schema_id: int, partition: bytes,
                 start: int, end: int) -> List[Dict[str, Any]]:
    """One shard, in a Ray task: its index files, written and not committed. The table is
    pinned to the planned snapshot through the driver's schema (a column renamed after that
    snapshot is still found by its new name)."""
    table = jobs.load_table(target, catalog_options)
    pinned = table.copy({"scan.snapshot-id": str(snapshot_id), READ_SCHEMA_ID: str(schema_id),
                         "scan.tag-name": None, "scan.timestamp-millis": None})
    files: List[Dict[str, Any]] = native().write_sorted_index_range(
        pinned._native, column, index_type, options, partition, start, end)
    return files


def _shards(ranges: Sequence[Any], num_tasks: int) -> List[Any]:
    """Each planned (partition, from, to) cut into pieces of at most total / num_tasks rows."""
    total = sum(to - start + 1 for _, start, to in ranges)
    size = max(1, -(-total // max(1, num_tasks)))
    out = []
    for partition, start, to in ranges:
        while start <= to:
            end = min(to, start + size - 1)
            out.append((partition, start, end))
            start = end + 1
    return out


def create_global_index(target: str, catalog_options: Mapping[str, Any],
                        index_column: Union[str, Sequence[str]], index_type: str = "btree",
                        partition_filter: Optional[Predicate] = None,
                        partitions: Optional[PartitionSpecs] = None,
                        options: Optional[Mapping[str, Any]] = None, *,
                        num_tasks: Optional[int] = None,
                        ray_remote_args: Optional[Dict[str, Any]] = None) -> int:
    """``Table.create_global_index`` with the sorting and writing in Ray tasks: returns the
    number of index files added (0 when nothing is left to index), committed in one snapshot.
    ``num_tasks`` (default: the cluster's CPUs) is how many shards the uncovered rows are cut
    into; ``ray_remote_args`` go to the tasks. ``btree`` and ``bitmap`` are built here.

    Raises what the embedded call raises (``ValueError``, ``NotImplementedError``) for the
    arguments, checked on the driver; a task's error is re-raised as it is. On any error
    nothing is committed and no index file is left behind."""
    ray = require_ray()
    table = jobs.load_table(target, catalog_options)
    column = _column(index_column)
    kind = str(index_type).lower().strip()
    if kind not in ("btree", "bitmap"):
        raise ValueError(f"global index type '{kind}' is not supported by "
                         "paimon_rowid.ray.create_global_index; it builds btree and bitmap "
                         "indexes")
    if not table.row_tracking_enabled:
        raise ValueError(f"Table '{target}' must enable 'row-tracking.enabled=true' before "
                         "creating global index.")
    if column not in table.field_names:
        raise ValueError(f"Column '{column}' does not exist in table '{target}'.")
    predicate = _partition_filter(table, partition_filter, partitions)
    overlay = {str(k): str(v) for k, v in (options or {}).items()}
    plan = native().external_index_plan(table._native, column, kind, _native_filter(predicate))
    if not plan["snapshot_id"] or not plan["ranges"]:
        return 0
    if num_tasks is None:
        num_tasks = max(1, int(ray.cluster_resources().get("CPU", 1)))
    build = ray.remote(_build_shard)
    if ray_remote_args:
        build = build.options(**ray_remote_args)
    options_out = {str(k): v for k, v in catalog_options.items()}
    refs = [build.remote(target, options_out, column, kind, overlay, plan["snapshot_id"],
                         table.table_schema.id, partition, start, end)
            for partition, start, end in _shards(plan["ranges"], int(num_tasks))]
    files: List[Dict[str, Any]] = []
    error: Optional[BaseException] = None
    for ref in refs:  # every task is waited for, so no file is written after the clean-up
        try:
            files.extend(ray.get(ref))
        except Exception as failure:  # noqa: BLE001 - the first one is re-raised below
            error = error or innermost(failure)
    if error is not None:
        native().delete_files(table._native, [f["path"] for f in files])
        raise error
    if not files:
        return 0
    native().commit_external_index_files(table._native, files)  # deletes them on failure
    return len(files)
