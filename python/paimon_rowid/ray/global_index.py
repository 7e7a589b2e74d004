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

from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

from .._internal._lib import native
from .._internal._progress import JobProgress, ProgressReporter, check_progress_args
from .._internal._time_travel import READ_SCHEMA_ID
from ..jobs import _job_checks as jobs
from ..table.global_index import (
    PartitionSpecs,
    _column,
    _native_filter,
    _partition_filter,
)
from ..table.predicate import Predicate
from ._progress import gather_with_progress, ray_bar
from ._runtime import cluster_cpus, require_ray

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
                        ray_remote_args: Optional[Dict[str, Any]] = None,
                        progress: Any = False,
                        on_progress: Optional[Callable[[JobProgress], Any]] = None) -> int:
    """``Table.create_global_index`` with the sorting and writing in Ray tasks: returns the
    number of index files added (0 when nothing is left to index), committed in one snapshot.
    ``num_tasks`` (default: the cluster's CPUs) is how many shards the uncovered rows are cut
    into; ``ray_remote_args`` go to the tasks. ``btree`` and ``bitmap`` are built here.

    ``progress`` / ``on_progress``: the embedded call's (unit: rows, ``total`` the row ids to
    index); the driver advances them by a shard's rows as each task completes, and
    ``progress=True`` is drawn by Ray's ``tqdm_ray``. An ``on_progress`` that raises stops the
    build: the running tasks are waited for, their files deleted, nothing committed.

    Raises what the embedded call raises (``ValueError``, ``NotImplementedError``,
    ``TypeError`` for the progress arguments) for the arguments, checked on the driver; a
    task's error is re-raised as it is. On any error nothing is committed and no index file
    is left behind."""
    check_progress_args(progress, on_progress)
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
    shards = _shards(plan["ranges"], _num_tasks(ray, num_tasks)) if plan["snapshot_id"] else []
    reporter = ProgressReporter("create_global_index", "rows", progress, on_progress,
                                total=sum(end - start + 1 for _, start, end in shards),
                                draw=ray_bar)
    try:
        reporter.start()  # a hook that raises here stops the build before any task
        files = _build_shards(ray, table, target, catalog_options, column, kind, overlay,
                              plan["snapshot_id"], shards, ray_remote_args, reporter)
        if files:
            native().commit_external_index_files(table._native, files)  # deletes on failure
        reporter.finish()
    finally:
        reporter.close()
    return len(files)


def _num_tasks(ray: Any, num_tasks: Optional[int]) -> int:
    if num_tasks is None:
        return max(1, int(cluster_cpus(ray, 1)))
    return int(num_tasks)


def _build_shards(ray: Any, table: Any, target: str, catalog_options: Mapping[str, Any],
                  column: str, kind: str, overlay: Dict[str, str], snapshot_id: int,
                  shards: List[Any], ray_remote_args: Optional[Dict[str, Any]],
                  reporter: ProgressReporter) -> List[Dict[str, Any]]:
    """Every shard as a Ray task; their files (not committed). On a task's failure, or a
    hook that raises, every task is waited for and every file they wrote deleted."""
    if not shards:
        return []
    build = ray.remote(_build_shard)
    if ray_remote_args:
        build = build.options(**ray_remote_args)
    options_out = {str(k): v for k, v in catalog_options.items()}
    refs = [build.remote(target, options_out, column, kind, overlay, snapshot_id,
                         table.table_schema.id, partition, start, end)
            for partition, start, end in shards]
    results, error = gather_with_progress(ray, refs, [end - start + 1 for _, start, end in shards],
                                          reporter)
    files = [f for shard_files in results if shard_files for f in shard_files]
    if error is not None:
        native().delete_files(table._native, [f["path"] for f in files])
        raise error
    return files
