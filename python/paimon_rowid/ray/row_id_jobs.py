"""update_by_row_id / read_by_row_id on Ray.

Routing never goes through a Ray shuffle. A source on the driver (a pyarrow Table, a pandas
DataFrame, or a materialized Dataset of at most ``DRIVER_ROUTING_MAX_BYTES``, option
``driver_routing_max_bytes``) is routed on the driver with the native index (binary search,
one sort by bucket): each task gets its bucket of file groups directly. A larger Dataset is
routed by scatter tasks: each source block is routed in C++ to contiguous buckets of file
groups (binary search over the shipped index) by one task, with a cap on tasks in flight.

update_by_row_id runs one apply task per bucket (it gathers its parts and runs the C++ update
kernel). Metadata travels only in task return values; the driver commits through the
engine's one commit path (``_native.commit_update``, the C++ ``CommitWithRebase`` the
embedded update uses too): a commit that loses a conflict to a concurrent update of other
rows runs the pipeline again on the new snapshot (routing again), its tasks checking first
that none of its rows changed meanwhile.

Exactly once under task retries and node loss: every file an apply attempt writes is named
from the round's random job id and the file group (``ray/_job_files.py``), so an attempt that
dies after writing is re-run by Ray on the same rows and writes the same names over its
files. A round that fails waits for every apply task and deletes, by name, the file of each
group its rows were routed to. Files of other writers are never touched.

read_by_row_id is in row_id_reads.py; the routing both share is in _row_id_routing.py.
"""
from __future__ import annotations

import uuid
from typing import Any, Dict, List, Mapping, Optional, Tuple

import numpy as np
import pyarrow as pa

from .._internal._arrow import int64_row_ids
from .._internal._lib import native
from ..jobs import _job_checks as jobs
from . import _task_hooks
from ._job_files import new_job_id, with_file_stem
from ._row_id_routing import (
    _UPDATE_STALE,
    _bucket_ids,
    _bucket_of,
    _fetch,
    _index,
    _max_bytes,
    _resolve_partitions,
    _run_max_bytes,
    _source,
    _task_options,
)
from ._runtime import cluster_cpus, innermost, require_ray
from ._task_hooks import TaskHooks


def _scatter(block: pa.Table, index_bytes: bytes, columns: List[str], buckets: int):
    """Routes one source block: one table per bucket (possibly empty), then the groups its
    rows belong to (what a failed round deletes the files of)."""
    import pyarrow.compute as pc
    block = block.select(columns)
    ids = int64_row_ids(block.column(0))
    if ids.null_count:
        raise ValueError("_ROW_ID is null; " + _UPDATE_STALE)
    bucket, owners = _bucket_of(_index(index_bytes), ids, buckets, _UPDATE_STALE)
    groups = np.unique(owners).tolist()
    return [block.filter(pc.equal(bucket, b)) for b in range(buckets)] + [groups]


def _route_rows(index, block: pa.Table) -> pa.Array:
    """The owning group of each row of a driver-side update source (columns ``[_ROW_ID,
    *update_cols]``), with ``_scatter``'s checks and errors."""
    ids = int64_row_ids(block.column(0))
    if ids.null_count:
        raise ValueError("_ROW_ID is null; " + _UPDATE_STALE)
    return index.route(ids, _UPDATE_STALE)


def _split_rows(index, block: pa.Table, routed: pa.Array,
                buckets: int) -> List[pa.Table]:
    """The rows of each bucket that has any (own buffers, so a task ships only its rows),
    from their owning groups ``routed`` (``_route_rows``)."""
    owners = routed.to_numpy()
    bucket = _bucket_ids(owners, buckets, index.num_groups)
    order = np.argsort(bucket, kind="stable")
    bounds = np.searchsorted(bucket[order], np.arange(buckets + 1))
    return [block.take(order[lo:hi]) for lo, hi in zip(bounds[:-1], bounds[1:]) if hi > lo]


def _apply(index_bytes: bytes, verify_bytes: Optional[bytes], catalog_options: Mapping[str, Any],
           target: str, columns: List[str], job_id: str, hooks: Optional[TaskHooks],
           allow_blob: bool, *parts: pa.Table):
    """Runs the C++ update kernel on one bucket; returns (serialized messages, rows). Its
    files are named from ``job_id`` and their groups (ray/_job_files.py). ``verify_bytes`` (a
    rebased round): the index of the previous round's base; the kernel first checks that
    none of these rows changed since then. ``hooks``: the test seams (ray/_task_hooks.py).
    ``allow_blob``: BLOB columns may be set (merge_into's updates)."""
    tables = [p for p in parts if p.num_rows]
    if not tables:
        return [], 0
    _task_hooks.before_apply(hooks)
    table = with_file_stem(jobs.load_table(target, catalog_options), job_id)
    data = pa.concat_tables(tables, promote_options="permissive")
    verify = _index(verify_bytes) if verify_bytes is not None else None
    messages, rows = native().update_by_row_id(table._native, data, columns[1:], target, 1,
                                               _index(index_bytes), verify,
                                               allow_blob=allow_blob)
    _task_hooks.after_apply(hooks)
    return [m.serialize() for m in messages], rows


# ---------------------------------------------------------------------------- update

def update_by_row_id(target: str, source: Any, catalog_options: Dict[str, str], *,
                     update_cols: List[str], num_partitions: Optional[int] = None,
                     ray_remote_args: Optional[Dict[str, Any]] = None,
                     snapshot_properties: Optional[Mapping[str, str]] = None,
                     driver_routing_max_bytes: Optional[int] = None,
                     driver_max_bytes: Optional[int] = None,
                     _hooks: Optional[TaskHooks] = None) -> Dict[str, int]:
    """Overwrites ``update_cols`` of the rows addressed by the source's ``_ROW_ID`` with one
    commit. Blocking: runs the Ray pipeline, then commits. Returns ``{"num_updated": n}``.

    The commit is the embedded update's (one C++ commit path): when it loses a conflict only
    because another writer changed the same columns of the same file groups on *other* rows,
    the pipeline runs again on the new snapshot (its tasks first check that none of these rows
    changed) and commits again; if the other writer changed these rows,
    ``CommitConflictException`` is raised; a store that refuses the commit's requests (a
    revoked data token) raises ``CommitIOError``, no snapshot made. ``snapshot_properties``
    go into the snapshot made (default: the progress of the running
    ``process_row_id_ranges(resume_key=...)`` batch).

    Routing: a source on the driver (a pyarrow Table, a pandas DataFrame) and a Dataset of at
    most ``driver_routing_max_bytes`` Arrow bytes once materialized (default
    ``DRIVER_ROUTING_MAX_BYTES`` = 256 MiB; fetched to the driver) are routed to buckets of
    file groups on the driver, and one apply task per bucket gets its rows; a larger Dataset
    is routed by scatter tasks, one per block. ``num_partitions`` is the number of buckets
    (default: 2 per CPU, at most one per file group).
    Where it runs: without ``num_partitions``, a source on the driver whose update touches at
    most ``driver_max_bytes`` file bytes (``RowIdIndex.estimate_bytes`` of the updated
    columns; default ``DRIVER_RUN_MAX_BYTES`` = 256 MiB, 0 = never) is applied in the
    driver's process by the embedded kernel on all cores: no task could start faster.
    ``_hooks`` is a test seam (ray/_task_hooks.py), not part of the API."""
    rows, _snapshot_id = update_and_commit(target, source, catalog_options,
                                           update_cols=update_cols,
                                           num_partitions=num_partitions,
                                           ray_remote_args=ray_remote_args,
                                           snapshot_properties=snapshot_properties,
                                           driver_routing_max_bytes=driver_routing_max_bytes,
                                           driver_max_bytes=driver_max_bytes,
                                           _hooks=_hooks)
    return {"num_updated": rows}


def update_and_commit(target: str, source: Any, catalog_options: Mapping[str, Any], *,
                      update_cols: List[str], num_partitions: Optional[int] = None,
                      ray_remote_args: Optional[Dict[str, Any]] = None,
                      snapshot_properties: Optional[Mapping[str, str]] = None,
                      driver_routing_max_bytes: Optional[int] = None,
                      driver_max_bytes: Optional[int] = None,
                      _hooks: Optional[TaskHooks] = None) -> Tuple[int, Optional[int]]:
    """``update_by_row_id`` returning (rows updated, id of the snapshot made or None when
    nothing was committed); ``backfill`` records the snapshot ids it makes."""
    ray = require_ray()
    max_bytes = _max_bytes(driver_routing_max_bytes)
    run_max_bytes = _run_max_bytes(driver_max_bytes)
    table, update_cols = jobs.prepare_update(target, catalog_options, update_cols)
    columns = [jobs.ROW_ID] + update_cols
    src = _source(ray, source, "update_by_row_id", "the target _ROW_ID", columns, max_bytes)
    names, local = src.names, src.local
    materialized: Any = None
    if local is None:
        # Execute the source exactly once: its schema, row count and blocks all come from
        # the materialized result (probing a lazy pipeline with schema()/limit() would run
        # it twice, and trips Ray's executor on actor-pool pipelines). An empty lazy source
        # has no schema after it ran: there is nothing to check, and nothing to update.
        materialized = src.dataset.materialize()
        if names is None:
            schema = materialized.schema()
            names = list(schema.names) if schema is not None else None
    missing = [c for c in columns if c not in (names or [])]
    if names is not None and missing:
        raise ValueError(f"source is missing columns {missing}; it must carry _ROW_ID and "
                         f"{update_cols}.")
    snapshot = table.latest_snapshot()
    num_rows = local.num_rows if local is not None else materialized.count()
    if num_rows == 0:
        return 0, None
    if jobs.table_is_empty(snapshot):
        raise jobs.foreign_ids_error(target)
    if local is None:
        size = materialized.size_bytes()
        if size is not None and size <= max_bytes:
            local = _fetch(ray, materialized, columns)
    pipeline = _UpdatePipeline(ray, table, target, catalog_options, columns,
                               None if local is not None else materialized.to_arrow_refs(),
                               num_partitions, ray_remote_args, _hooks, local=local,
                               run_max_bytes=run_max_bytes)
    base_index = native().RowIdIndex.build(table._native, snapshot.id)
    rounds: List[Any] = []  # the index of each round, for the next round's check

    def run_round(step):
        index = base_index if step is None else step.latest_index
        verify = rounds[-1] if rounds else None
        # Kept before the round runs: a round whose base is expired under it fails
        # (BaseSnapshotExpiredException), and the next one, on the latest snapshot, checks
        # these rows against this round's base as after a lost race.
        rounds.append(index)
        pipeline.run(index, verify)
        return pipeline.messages

    properties = jobs.snapshot_properties(target, snapshot_properties)
    snapshot_id, _rebases = native().commit_update(table._native, run_round, num_rows,
                                                   str(uuid.uuid4()), properties,
                                                   jobs.MAX_REBASES)
    return int(pipeline.rows), (None if snapshot_id is None else int(snapshot_id))


class _UpdatePipeline:
    """One round of a Ray update: route the source rows to buckets of file groups with an
    index (on the driver for a ``local`` source, else by scatter tasks over the source
    blocks), apply each bucket with the C++ kernel, collect the commit messages. Every round has
    its own job id: the files of a round the commit did not take are deleted by the
    committer, those of task attempts that died by the round itself."""

    def __init__(self, ray, table, target: str, catalog_options: Mapping[str, Any],
                 columns: List[str], block_refs: Optional[List[Any]],
                 num_partitions: Optional[int],
                 ray_remote_args: Optional[Mapping[str, Any]],
                 hooks: Optional[TaskHooks] = None, *,
                 local: Optional[pa.Table] = None, allow_blob: bool = False,
                 run_max_bytes: int = 0) -> None:
        self._ray = ray
        self._hooks = hooks
        self._table = table
        self._target = target
        self._catalog_options = dict(catalog_options)
        self._columns = columns
        self._allow_blob = allow_blob  # merge_into may set BLOB columns, update_by_row_id not
        self._blocks = block_refs or []
        self._local = local  # the source's rows on the driver: routed there, no scatter task
        self._num_partitions = num_partitions
        self._run_max_bytes = run_max_bytes  # a local source this small runs on the driver
        remote_args, self._concurrency = _task_options(ray_remote_args)
        self._scatter = ray.remote(**remote_args)(_scatter) if remote_args else ray.remote(_scatter)
        self._apply = ray.remote(**remote_args)(_apply) if remote_args else ray.remote(_apply)
        self.messages: List[Any] = []
        self.rows = 0

    def run(self, index, verify) -> None:
        """Runs the round on ``index`` (checking against the ``verify`` index, the previous
        round's, when given); fills ``messages`` and ``rows``."""
        ray = self._ray
        job_id = new_job_id()
        groups_refs: List[Any] = []  # per scatter task: the groups of its block's rows
        groups: List[int] = []  # driver-routed: the groups of the source's rows
        apply_refs: List[Any] = []
        try:
            if self._local is not None:
                routed = _route_rows(index, self._local)
                groups = np.unique(routed.to_numpy()).tolist()
                if self._runs_here(index, routed):
                    return self._apply_here(index, verify, job_id)  # no Ray needed
            # Sized after the driver-run check: the default reads the cluster's CPUs,
            # which starts Ray when the caller has not.
            buckets = _resolve_partitions(ray, self._num_partitions, index.num_groups)
            if self._local is not None:
                parts_by_bucket: List[List[Any]] = [
                    [part] for part in _split_rows(index, self._local, routed, buckets)]
            index_ref = ray.put(index.serialize())
            verify_ref = None if verify is None else ray.put(verify.serialize())
            if self._local is None:
                parts_by_bucket = self._scatter_blocks(index_ref, buckets, groups_refs)
            pending: List[Any] = []
            for parts in parts_by_bucket:
                if self._concurrency and len(pending) >= self._concurrency:
                    _, pending = ray.wait(pending, num_returns=1)
                apply_refs.append(self._apply.remote(
                    index_ref, verify_ref, self._catalog_options, self._target, self._columns,
                    job_id, self._hooks, self._allow_blob, *parts))
                pending.append(apply_refs[-1])
            results = ray.get(apply_refs)
        except BaseException as error:  # KeyboardInterrupt too: nothing may stay behind
            self._abort(index, job_id, groups, groups_refs, apply_refs)
            inner = innermost(error)
            if inner is error:
                raise
            raise inner from error
        # Attempts that died after writing were re-run on the same rows by Ray and wrote the
        # same names: every file of this round is named by a message.
        self.messages = [native().CommitMessage.deserialize(m)
                         for serialized, _ in results for m in serialized]
        self.rows = sum(n for _, n in results)

    def _runs_here(self, index, routed: pa.Array) -> bool:
        """Whether the round runs in the driver's process (``DRIVER_RUN_MAX_BYTES``): a
        driver-side source, no ``num_partitions`` and no test hooks (a task seam), and the
        touched groups' bytes of the updated columns within ``driver_max_bytes``."""
        if self._num_partitions is not None or self._hooks is not None:
            return False
        return index.estimate_bytes(self._table._native, routed,
                                    self._columns[1:]) <= self._run_max_bytes

    def _apply_here(self, index, verify, job_id: str) -> None:
        """The round's apply kernel on the driver, on all cores; its files are named from
        ``job_id`` as the tasks' are (a failure deletes them the same way, in ``run``)."""
        table = with_file_stem(self._table, job_id)
        messages, rows = native().update_by_row_id(table._native, self._local,
                                                   self._columns[1:], self._target, 0, index,
                                                   verify, allow_blob=self._allow_blob)
        self.messages = list(messages)
        self.rows = rows

    def _scatter_blocks(self, index_ref, buckets: int, groups_refs: List[Any]) -> List[List[Any]]:
        """Scatters the source blocks, with a cap on tasks in flight (2 per CPU): per bucket,
        the refs of its part of every block; appends to ``groups_refs`` the ref of the
        groups each block's rows belong to."""
        ray = self._ray
        cap = self._concurrency or max(2, 2 * int(cluster_cpus(ray, 2)))
        parts_by_bucket: List[List[Any]] = [[] for _ in range(buckets)]
        in_flight: List[Any] = []
        for ref in self._blocks:
            outs = self._scatter.options(num_returns=buckets + 1).remote(
                ref, index_ref, self._columns, buckets)
            for b in range(buckets):
                parts_by_bucket[b].append(outs[b])
            groups_refs.append(outs[buckets])
            in_flight.append(outs[buckets])
            if len(in_flight) >= cap:
                _, in_flight = ray.wait(in_flight, num_returns=1)
        return parts_by_bucket

    def _abort(self, index, job_id: str, known_groups: List[int], groups_refs: List[Any],
               apply_refs: List[Any]) -> None:
        """After a failure: waits until no apply task of the round runs any more (each ends
        in a result or an error, retries included), then deletes, by name, the file of every
        group the rows were routed to (those of tasks that succeeded, and those of attempts
        that died); missing ones are fine."""
        ray = self._ray
        if apply_refs:
            ray.wait(apply_refs, num_returns=len(apply_refs))
        groups = set(known_groups)
        for ref in groups_refs:
            try:
                groups.update(ray.get(ref))
            except Exception:  # noqa: BLE001 - a failed scatter routed nothing anywhere
                continue
        if not groups:
            return
        table = with_file_stem(self._table, job_id)
        paths = native().update_file_paths(table._native, self._columns[1:], index,
                                           sorted(groups))
        native().delete_files(table._native, paths)
