"""Search indexes on Ray (docs/search.md): ``create_search_index`` builds the shards of a
vector or full-text index in Ray tasks and commits once on the driver; ``batch_vector_search``
splits many query vectors over Ray tasks.

Each task builds its shards as the embedded build does (pypaimon's per-shard training, so the
files are byte-identical with an embedded or pypaimon build of the same rows) and returns the
written files' manifest entries; the driver plans, commits once, and deletes every file the
job wrote when any task fails. paimon-vindex 0.5's Python API cannot hand a trained model to
another process, so training is not shared between tasks.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

import numpy as np

from .._internal._lib import native
from .._internal._progress import JobProgress, ProgressReporter, check_progress_args
from .._internal._time_travel import pin_snapshot_id
from ..jobs import _job_checks as jobs
from ..table._search_options import SEARCH_INDEX_TYPES
from ..table.global_index import _column, _partition_filter
from ..table.predicate import Predicate
from ..table.search import BatchVectorSearchBuilder, SearchResult
from ..table.search_index import Shard, ShardJob, build_search_index
from ._progress import ray_bar
from ._runtime import cluster_cpus, innermost, require_ray


def _build_task(catalog_options: Mapping[str, Any], target: str, snapshot_id: int,
                job: Dict[str, Any], shards: List[Shard]) -> List[Dict[str, Any]]:
    table = jobs.load_table(target, catalog_options)
    pinned = pin_snapshot_id(table, snapshot_id, job["schema_id"])
    shard_job = ShardJob(pinned, snapshot_id=snapshot_id, **job)
    written: List[Dict[str, Any]] = []
    try:
        for shard in shards:
            found = shard_job.build(shard)
            if found is not None:
                written.append(found)
    except BaseException:
        native().delete_files(pinned._native, [f["path"] for f in written])
        raise
    return written


def create_search_index(target: str, catalog_options: Mapping[str, Any], index_column: Any,
                        index_type: str = "ivf-flat",
                        partition_filter: Optional[Predicate] = None,
                        partitions: Any = None, options: Optional[Mapping[str, Any]] = None, *,
                        num_tasks: Optional[int] = None,
                        ray_remote_args: Optional[Dict[str, Any]] = None,
                        progress: Any = False,
                        on_progress: Optional[Callable[[JobProgress], Any]] = None) -> int:
    """``table.create_global_index`` for a search index type with the shards built by Ray
    tasks (``num_tasks``, default one per shard up to the cluster's CPUs) and one commit on the
    driver; returns the number of index files added. Same arguments and errors as the
    embedded call; ``ray_remote_args`` go to the tasks. ``progress`` / ``on_progress``: the
    jobs' progress interface on the driver (unit rows, counted as each task returns); a hook
    that raises stops the build before its commit and every file written is deleted."""
    ray = require_ray()
    check_progress_args(progress, on_progress)
    table = jobs.load_table(target, catalog_options)
    column = _column(index_column)
    kind = str(index_type).lower().strip()
    if kind not in SEARCH_INDEX_TYPES:
        raise ValueError(f"create_search_index builds {list(SEARCH_INDEX_TYPES)}, got "
                         f"'{index_type}'")
    predicate = _partition_filter(table, partition_filter, partitions)
    remote = ray.remote(**ray_remote_args)(_build_task) if ray_remote_args else \
        ray.remote(_build_task)

    def run_shards(job: ShardJob, shards: Sequence[Shard],
                   reporter: ProgressReporter) -> List[Dict[str, Any]]:
        tasks = num_tasks or max(1, int(cluster_cpus(ray, 1)))
        tasks = max(1, min(int(tasks), len(shards)))
        chunks = [list(shards[i::tasks]) for i in range(tasks)]
        snapshot_id = job.snapshot_id
        spec = {"column": job.column, "index_type": job.index_type, "field_id": job.field_id,
                "native_options": job.native_options, "sample_ratio": job.sample_ratio,
                "schema_id": job.schema_id}
        refs = [remote.remote(dict(catalog_options), target, snapshot_id, spec, chunk)
                for chunk in chunks]
        rows = {ref: sum(s.end - s.start + 1 for s in chunk) for ref, chunk in zip(refs, chunks)}
        found: List[Dict[str, Any]] = []
        pending = list(refs)
        try:
            while pending:
                ready, pending = ray.wait(pending, num_returns=1)
                for ref in ready:
                    found.extend(ray.get(ref))
                    reporter.advance(rows[ref])
        except BaseException as error:  # nothing may stay behind: delete what tasks wrote
            native().delete_files(table._native, [f["path"] for f in found])
            if pending:
                done, _ = ray.wait(pending, num_returns=len(pending))
                for ref in done:
                    try:
                        files = ray.get(ref)
                    except BaseException:  # noqa: S112 - its task cleaned up after itself
                        continue
                    native().delete_files(table._native, [f["path"] for f in files])
            inner = innermost(error)
            if inner is error:
                raise
            raise inner from error
        return sorted(found, key=lambda f: f["from"])

    return build_search_index(table, column, kind, predicate, dict(options or {}), run_shards,
                              progress=progress, on_progress=on_progress, draw=ray_bar)


def _search_task(catalog_options: Mapping[str, Any], target: str, snapshot_id: int,
                 schema_id: int, column: str, queries: np.ndarray, limit: int,
                 predicate: Optional[Predicate], partition_filter: Optional[Predicate],
                 options: Dict[str, str]) -> List[Any]:
    table = pin_snapshot_id(jobs.load_table(target, catalog_options), snapshot_id, schema_id)
    builder = (BatchVectorSearchBuilder(table).with_vector_column(column)
               .with_query_vectors(queries).with_limit(limit).with_options(options)
               .with_filter(predicate))
    if partition_filter is not None:
        builder.with_partition_filter(partition_filter)
    return [list(r) for r in builder.execute_batch_local()]


def batch_vector_search(target: str, catalog_options: Mapping[str, Any], column: str,
                        queries: Any, limit: int, *, filter: Optional[Predicate] = None,
                        partition_filter: Optional[Predicate] = None,
                        options: Optional[Mapping[str, Any]] = None,
                        num_tasks: Optional[int] = None,
                        ray_remote_args: Optional[Dict[str, Any]] = None) -> List[SearchResult]:
    """``new_batch_vector_search_builder()`` with the queries split over Ray tasks (default
    one per cluster CPU), all at the table's snapshot when called; one ``SearchResult`` per
    query, in order. Each task loads the index files once for its queries."""
    ray = require_ray()
    table = jobs.load_table(target, catalog_options)
    matrix = np.ascontiguousarray(np.asarray(queries, dtype=np.float32))
    if matrix.ndim != 2 or matrix.shape[0] == 0:
        raise ValueError("queries must be a non-empty two-dimensional array of vectors")
    BatchVectorSearchBuilder(table).with_vector_column(column).with_limit(limit)._check(
        matrix, "Query vectors")
    snapshot = table.resolve_snapshot()
    if snapshot is None:
        return [SearchResult([]) for _ in range(matrix.shape[0])]
    tasks = num_tasks or max(1, int(cluster_cpus(ray, 1)))
    tasks = max(1, min(int(tasks), matrix.shape[0]))
    remote = ray.remote(**ray_remote_args)(_search_task) if ray_remote_args else \
        ray.remote(_search_task)
    bounds = np.linspace(0, matrix.shape[0], tasks + 1).astype(int)
    refs = [remote.remote(dict(catalog_options), target, snapshot.id, table.table_schema.id,
                          column, matrix[lo:hi], int(limit), filter, partition_filter,
                          {str(k): str(v) for k, v in (options or {}).items()})
            for lo, hi in zip(bounds[:-1], bounds[1:]) if hi > lo]
    try:
        chunks = ray.get(refs)
    except BaseException as error:
        inner = innermost(error)
        if inner is error:
            raise
        raise inner from error
    return [SearchResult(ranked) for chunk in chunks for ranked in chunk]
