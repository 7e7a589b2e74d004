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

read_by_row_id stays lazy: its result is a Ray Data read whose read tasks each read one
bucket of ids with the C++ kernel, set semantics, one block per task. For a source on the
driver the tasks carry their ids; routing errors (null or foreign ids) are raised when the
result is consumed, by its one read task. A lazy Dataset runs when the result is consumed:
the read's planning routes its ids with the same kind of scatter tasks (only 8-byte ids
move).
"""
from __future__ import annotations

import atexit
import hashlib
import sys
import uuid
from typing import Any, Dict, List, Mapping, Optional, Tuple

import numpy as np
import pyarrow as pa

from .. import _job_checks as jobs
from .._arrow import stream_reader
from .._lib import native
from . import _task_hooks
from ._compat import read_datasource
from ._job_files import new_job_id, with_file_stem
from ._runtime import innermost, require_ray
from ._task_hooks import TaskHooks
from .blobs import BLOB_FS_OPTIONS_ATTR

# An id/update source that is a ``ray.data.Dataset`` is routed on the driver (no scatter
# tasks) when its Arrow bytes are at most this many; larger ones are routed by scatter tasks
# near their blocks. pyarrow Tables and pandas DataFrames are on the driver already and are
# always routed there. Overridden per call by ``driver_routing_max_bytes``.
DRIVER_ROUTING_MAX_BYTES = 256 * 1024 * 1024


class _Source:
    """A job's source: ``local`` (a pyarrow Table on the driver, reduced to the columns the
    job uses) or ``dataset`` (a ray.data.Dataset, routed by tasks), and the column names
    known without running anything (None when unknown)."""

    def __init__(self, local: Optional[pa.Table], dataset: Any,
                 names: Optional[List[str]]) -> None:
        self.local = local
        self.dataset = dataset
        self.names = names


def _max_bytes(driver_routing_max_bytes: Optional[int]) -> int:
    if driver_routing_max_bytes is None:
        return DRIVER_ROUTING_MAX_BYTES
    if isinstance(driver_routing_max_bytes, bool) or not isinstance(
            driver_routing_max_bytes, int) or driver_routing_max_bytes < 0:
        raise ValueError("driver_routing_max_bytes must be a non-negative integer, got "
                         f"{driver_routing_max_bytes!r}.")
    return driver_routing_max_bytes


def _columns_of(table: pa.Table, wanted: List[str]) -> pa.Table:
    return table.select([c for c in wanted if c in table.column_names])


def _fetch(ray, dataset, wanted: List[str]) -> Optional[pa.Table]:
    """The ``wanted`` columns (those it has) of a materialized Dataset as one driver-side
    table; None when it has no rows, or when its blocks with rows do not all have the same
    of those columns (left to the task path, which reports that as it always did)."""
    blocks = [b for b in ray.get(dataset.to_arrow_refs()) if b.num_rows]
    kinds = {tuple(c for c in wanted if c in b.column_names) for b in blocks}
    if len(kinds) != 1:
        return None
    names = list(kinds.pop())
    parts = [b.select(names) for b in blocks]
    return parts[0] if len(parts) == 1 else pa.concat_tables(parts, promote_options="permissive")


def _source(ray, source: Any, operation: str, what: str, wanted: List[str],
            max_bytes: int) -> _Source:
    """Classifies the source (the refusals of docs/pypaimon-compat.md §1.2 rows 9-10 / §2.2
    rows 7-8). Nothing runs here, except fetching a materialized Dataset of at most
    ``max_bytes`` to the driver."""
    if isinstance(source, str):
        raise ValueError(
            f"{operation} does not accept a table-name source; pass a ray.data.Dataset / "
            f"pyarrow.Table / pandas.DataFrame carrying {what}.")
    # The schema of a local table is known here even when it has no rows (Ray drops the
    # schema of empty blocks, so asking a Dataset would not tell).
    if isinstance(source, pa.Table):
        return _Source(_columns_of(source, wanted), None, list(source.schema.names))
    # Neither pandas nor ray.data is imported for a pyarrow source (~2 s for ray.data in a
    # fresh process): an object of theirs cannot exist before its module was imported.
    if "pandas" in sys.modules:
        import pandas as pd
        if isinstance(source, pd.DataFrame):
            names = [str(c) for c in source.columns]
            frame = source[[c for c in source.columns if str(c) in wanted]]
            # Ray's own conversion (what ray.data.from_pandas(...).to_arrow_refs() does).
            from ray.data.block import BlockAccessor
            local = BlockAccessor.for_block(frame).to_arrow()
            return _Source(_columns_of(local, wanted), None, names)
    if "ray.data" in sys.modules:
        import ray.data
        from ray.data.dataset import MaterializedDataset
        if isinstance(source, ray.data.Dataset):
            known = source.schema(fetch_if_missing=False)
            known_names = list(known.names) if known is not None else None
            if known_names is not None and isinstance(source, MaterializedDataset):
                size = source.size_bytes()  # from the blocks' metadata: nothing runs
                fetched = (_fetch(ray, source, wanted)
                           if size is not None and size <= max_bytes else None)
                if fetched is not None:
                    return _Source(fetched, None, known_names)
            return _Source(None, source, known_names)
    raise TypeError("source must be a ray.data.Dataset, a Paimon table identifier string, a "
                    f"pyarrow.Table, or a pandas.DataFrame; got {type(source).__name__}.")


# pypaimon spreads ray_remote_args into Ray Data's map_batches / map_groups, so callers may
# pass these map arguments too. The update runs plain tasks: ``concurrency`` caps the tasks
# in flight; the others only shape Ray Data batches and have nothing to shape here.
_MAP_ONLY_ARGS = {"batch_size", "batch_format", "zero_copy_batch", "compute", "fn_args",
                  "fn_kwargs", "fn_constructor_args", "fn_constructor_kwargs"}


def _task_options(ray_remote_args: Optional[Mapping[str, Any]]):
    """(Ray task options, cap on tasks in flight or None) from pypaimon-style remote args."""
    options = dict(ray_remote_args or {})
    concurrency = options.pop("concurrency", None)
    for key in _MAP_ONLY_ARGS:
        options.pop(key, None)
    if isinstance(concurrency, (tuple, list)):  # Ray Data's (min, max) actor-pool form
        concurrency = concurrency[-1]
    if concurrency is not None and (isinstance(concurrency, bool)
                                    or not isinstance(concurrency, int) or concurrency < 1):
        raise ValueError(f"concurrency must be a positive integer, got {concurrency!r}.")
    return options, concurrency


def _resolve_partitions(ray, num_partitions: Optional[int], num_groups: int) -> int:
    if num_partitions is None:
        try:
            num_partitions = int(ray.cluster_resources().get("CPU", 4)) * 2
        except Exception:  # noqa: BLE001 - Ray not initialised yet
            num_partitions = 4
    return max(1, min(int(num_partitions), max(1, num_groups)))


# ---------------------------------------------------------------------------- worker side

_INDEX_CACHE: Dict[bytes, Any] = {}
# Drop the cached native index before the interpreter tears the extension down (else
# nanobind reports the still-referenced instance as a leak at exit).
atexit.register(_INDEX_CACHE.clear)


def _index(index_bytes: bytes):
    """The deserialized index, cached per worker process for the tasks of one job. Keyed by a
    digest of the whole serialized index: it holds every group's directory, so two tables of
    the same shape (or the same table in two warehouses) differ only deep inside the bytes."""
    key = hashlib.blake2b(index_bytes, digest_size=32).digest()
    idx = _INDEX_CACHE.get(key)
    if idx is None:
        if len(_INDEX_CACHE) >= 4:  # a rebased round uses two indexes; older jobs' go
            _INDEX_CACHE.clear()
        idx = native().RowIdIndex.deserialize(index_bytes)
        _INDEX_CACHE[key] = idx
    return idx


_UPDATE_STALE = "planner snapshot is stale or matched rows come from a different table."
_READ_STALE = "the planner snapshot is stale or the row ids come from a different table."


def _bucket_ids(owners: np.ndarray, buckets: int, num_groups: int) -> np.ndarray:
    """The bucket of each owning group: contiguous groups per bucket (as ``_bucket_of``)."""
    bucket = owners.astype(np.int64) * buckets // max(1, num_groups)
    # int16 lets numpy's stable sort run as a radix sort.
    return bucket.astype(np.int16 if buckets < 2 ** 15 else np.int64)


def _bucket_of(index, ids: pa.Array, buckets: int, context: str):
    """(bucket of each id as a pyarrow Array, each id's owning group as a numpy array)."""
    owners = index.route(ids, context).to_numpy()
    bucket = pa.array((owners.astype("int64") * buckets // max(1, index.num_groups))
                      .astype("int32"))
    return bucket, owners


def _scatter(block: pa.Table, index_bytes: bytes, columns: List[str], buckets: int):
    """Routes one source block: one table per bucket (possibly empty), then the groups its
    rows belong to (what a failed round deletes the files of)."""
    import pyarrow.compute as pc
    block = block.select(columns)
    ids = block.column(0).combine_chunks()
    if ids.type != pa.int64():
        ids = ids.cast(pa.int64())
    if ids.null_count:
        raise ValueError("_ROW_ID is null; planner snapshot is stale or matched rows come from "
                         "a different table.")
    bucket, owners = _bucket_of(_index(index_bytes), ids, buckets,
                                "planner snapshot is stale or matched rows come from a "
                                "different table.")
    groups = np.unique(owners).tolist()
    return [block.filter(pc.equal(bucket, b)) for b in range(buckets)] + [groups]


def _split_rows(index, block: pa.Table, buckets: int) -> Tuple[List[pa.Table], List[int]]:
    """Routes a driver-side update source (columns ``[_ROW_ID, *update_cols]``) as
    ``_scatter`` routes a block, same checks and errors: the rows of each bucket that has
    any (own buffers, so a task ships only its rows), then the groups they belong to."""
    ids = block.column(0).combine_chunks()
    if ids.type != pa.int64():
        ids = ids.cast(pa.int64())
    if ids.null_count:
        raise ValueError("_ROW_ID is null; " + _UPDATE_STALE)
    owners = index.route(ids, _UPDATE_STALE).to_numpy()
    bucket = _bucket_ids(owners, buckets, index.num_groups)
    order = np.argsort(bucket, kind="stable")
    bounds = np.searchsorted(bucket[order], np.arange(buckets + 1))
    parts = [block.take(order[lo:hi]) for lo, hi in zip(bounds[:-1], bounds[1:]) if hi > lo]
    return parts, np.unique(owners).tolist()


def _apply(index_bytes: bytes, verify_bytes: Optional[bytes], catalog_options: Mapping[str, Any],
           target: str, columns: List[str], job_id: str, hooks: Optional[TaskHooks],
           *parts: pa.Table):
    """Runs the C++ update kernel on one bucket; returns (serialized messages, rows). Its
    files are named from ``job_id`` and their groups (ray/_job_files.py). ``verify_bytes`` (a
    rebased round): the index of the previous round's base; the kernel first checks that
    none of these rows changed since then. ``hooks``: the test seams (ray/_task_hooks.py)."""
    tables = [p for p in parts if p.num_rows]
    if not tables:
        return [], 0
    table = with_file_stem(jobs.load_table(target, catalog_options), job_id)
    data = pa.concat_tables(tables, promote_options="permissive")
    verify = _index(verify_bytes) if verify_bytes is not None else None
    messages, rows = native().update_by_row_id(table._native, data, columns[1:], target, 1,
                                               _index(index_bytes), verify)
    _task_hooks.after_apply(hooks)
    return [m.serialize() for m in messages], rows


# ---------------------------------------------------------------------------- update

def update_by_row_id(target: str, source: Any, catalog_options: Dict[str, str], *,
                     update_cols: List[str], num_partitions: Optional[int] = None,
                     ray_remote_args: Optional[Dict[str, Any]] = None,
                     snapshot_properties: Optional[Mapping[str, str]] = None,
                     driver_routing_max_bytes: Optional[int] = None,
                     _hooks: Optional[TaskHooks] = None) -> Dict[str, int]:
    """Overwrites ``update_cols`` of the rows addressed by the source's ``_ROW_ID`` with one
    commit. Blocking: runs the Ray pipeline, then commits. Returns ``{"num_updated": n}``.

    The commit is the embedded update's (one C++ commit path): when it loses a conflict only
    because another writer changed the same columns of the same file groups on *other* rows,
    the pipeline runs again on the new snapshot (its tasks first check that none of these rows
    changed) and commits again; if the other writer changed these rows,
    ``CommitConflictException`` is raised. ``snapshot_properties`` go into the snapshot made
    (default: the progress of the running ``process_row_id_ranges(resume_key=...)`` batch).

    Routing: a source on the driver (a pyarrow Table, a pandas DataFrame) and a Dataset of at
    most ``driver_routing_max_bytes`` Arrow bytes once materialized (default
    ``DRIVER_ROUTING_MAX_BYTES`` = 256 MiB; fetched to the driver) are routed to buckets of
    file groups on the driver, and one apply task per bucket gets its rows; a larger Dataset
    is routed by scatter tasks, one per block. ``num_partitions`` is the number of buckets
    (default: 2 per CPU, at most one per file group).
    ``_hooks`` is a test seam (ray/_task_hooks.py), not part of the API."""
    rows, _snapshot_id = update_and_commit(target, source, catalog_options,
                                           update_cols=update_cols,
                                           num_partitions=num_partitions,
                                           ray_remote_args=ray_remote_args,
                                           snapshot_properties=snapshot_properties,
                                           driver_routing_max_bytes=driver_routing_max_bytes,
                                           _hooks=_hooks)
    return {"num_updated": rows}


def update_and_commit(target: str, source: Any, catalog_options: Mapping[str, Any], *,
                      update_cols: List[str], num_partitions: Optional[int] = None,
                      ray_remote_args: Optional[Dict[str, Any]] = None,
                      snapshot_properties: Optional[Mapping[str, str]] = None,
                      driver_routing_max_bytes: Optional[int] = None,
                      _hooks: Optional[TaskHooks] = None) -> Tuple[int, Optional[int]]:
    """``update_by_row_id`` returning (rows updated, id of the snapshot made or None when
    nothing was committed); ``backfill`` records the snapshot ids it makes."""
    ray = require_ray()
    max_bytes = _max_bytes(driver_routing_max_bytes)
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
                               num_partitions, ray_remote_args, _hooks, local=local)
    base_index = native().RowIdIndex.build(table._native, snapshot.id)
    rounds: List[Any] = []  # the index ref of each round, for the next round's check

    def run_round(step):
        if step is None:
            index_ref = pipeline.run(base_index, None)
        else:
            index_ref = pipeline.run(step.latest_index, rounds[-1])
        rounds.append(index_ref)
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
                 local: Optional[pa.Table] = None) -> None:
        self._ray = ray
        self._hooks = hooks
        self._table = table
        self._target = target
        self._catalog_options = dict(catalog_options)
        self._columns = columns
        self._blocks = block_refs or []
        self._local = local  # the source's rows on the driver: routed there, no scatter task
        self._num_partitions = num_partitions
        remote_args, self._concurrency = _task_options(ray_remote_args)
        self._scatter = ray.remote(**remote_args)(_scatter) if remote_args else ray.remote(_scatter)
        self._apply = ray.remote(**remote_args)(_apply) if remote_args else ray.remote(_apply)
        self.messages: List[Any] = []
        self.rows = 0

    def run(self, index, verify_ref) -> Any:
        """Runs the round on ``index`` (checking against ``verify_ref``'s index when given);
        fills ``messages`` and ``rows``; returns the ref of the shipped index."""
        ray = self._ray
        buckets = _resolve_partitions(ray, self._num_partitions, index.num_groups)
        index_ref = ray.put(index.serialize())
        job_id = new_job_id()
        groups_refs: List[Any] = []  # per scatter task: the groups of its block's rows
        groups: List[int] = []  # driver-routed: the groups of the source's rows
        apply_refs: List[Any] = []
        try:
            if self._local is not None:
                parts, groups = _split_rows(index, self._local, buckets)
                parts_by_bucket: List[List[Any]] = [[part] for part in parts]
            else:
                parts_by_bucket = self._scatter_blocks(index_ref, buckets, groups_refs)
            pending: List[Any] = []
            for parts in parts_by_bucket:
                if self._concurrency and len(pending) >= self._concurrency:
                    _, pending = ray.wait(pending, num_returns=1)
                apply_refs.append(self._apply.remote(
                    index_ref, verify_ref, self._catalog_options, self._target, self._columns,
                    job_id, self._hooks, *parts))
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
        return index_ref

    def _scatter_blocks(self, index_ref, buckets: int, groups_refs: List[Any]) -> List[List[Any]]:
        """Scatters the source blocks, with a cap on tasks in flight (2 per CPU): per bucket,
        the refs of its part of every block; appends to ``groups_refs`` the ref of the
        groups each block's rows belong to."""
        ray = self._ray
        cap = self._concurrency or max(2, 2 * int(ray.cluster_resources().get("CPU", 2)))
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


# ---------------------------------------------------------------------------- read

def _route_ids(block: pa.Table, index_bytes: bytes, row_id_col: str, buckets: int):
    """Routes the ids of one source block: (ids per bucket, then each bucket's distinct ids,
    ascending). A block without rows has nothing to check or route (Ray may hand over empty
    blocks without their columns)."""
    import pyarrow.compute as pc
    empty = pa.array([], pa.int64())
    if block.num_rows == 0:
        parts = [empty] * buckets
    else:
        if row_id_col not in block.column_names:
            raise ValueError(f"row_ids source is missing the {row_id_col!r} column.")
        ids = block.column(row_id_col).combine_chunks()
        if ids.type != pa.int64():
            ids = ids.cast(pa.int64())
        if ids.null_count:
            raise ValueError("_ROW_ID is null; the planner snapshot is stale or the row ids "
                             "come from a different table.")
        index = _index(index_bytes)
        bucket, _ = _bucket_of(index, ids, buckets, "the planner snapshot is stale or the "
                               "row ids come from a different table.")
        parts = [pc.unique(ids.filter(pc.equal(bucket, b))).sort() for b in range(buckets)]
    return [[len(p) for p in parts]] + parts


# Without num_partitions, a driver-routed read makes no more tasks than one per this many
# ids: a task costs ~30 ms of Ray Data overhead, about what reading this many ids takes
# (10k ids on 1M rows, 2 CPUs: one task 0.16 s, four 0.25 s).
_MIN_IDS_PER_READ_TASK = 16384
# A read task carries its ids in itself up to this size; a bigger bucket's ids go through
# the object store (Ray warns about read tasks over 1 MiB).
_INLINE_IDS_BYTES = 256 * 1024


def _split_ids(index, source: pa.Table, row_id_col: str, buckets: int) -> List[pa.Array]:
    """Routes the ids of a driver-side source as ``_route_ids`` routes a block, same checks
    and errors: each bucket's distinct ids, ascending, for the buckets that have any."""
    if source.num_rows == 0:
        return []
    ids = source.column(row_id_col).combine_chunks()
    if ids.type != pa.int64():
        ids = ids.cast(pa.int64())
    if ids.null_count:
        raise ValueError("_ROW_ID is null; " + _READ_STALE)
    unique = np.unique(ids.to_numpy())
    try:
        owners = index.route(pa.array(unique), _READ_STALE).to_numpy()
    except Exception:
        index.route(ids, _READ_STALE)  # names the first foreign id in source order, as a task
        raise
    bucket = _bucket_ids(owners, buckets, index.num_groups)  # ascending: the ids are
    bounds = np.searchsorted(bucket, np.arange(buckets + 1))
    return [pa.array(unique[lo:hi]) for lo, hi in zip(bounds[:-1], bounds[1:]) if hi > lo]


class _ReadBucket:
    """Reads one bucket's ids with the C++ kernel (set semantics, ascending row ids)."""

    def __init__(self, index_ref, catalog_options, target, dynamic_options, projection):
        self._index_ref = index_ref
        self._catalog_options = dict(catalog_options)
        self._target = target
        self._dynamic = dict(dynamic_options or {})
        self._projection = list(projection)

    def __call__(self, ids: pa.Array) -> pa.Table:
        import ray
        table = jobs.load_table(self._target, self._catalog_options)
        if self._dynamic:
            table = table.copy(self._dynamic)
        index = _index(ray.get(self._index_ref))
        # One thread: Ray already runs one such task per CPU it grants.
        capsule = native().read_by_row_id(table._native, pa.table({jobs.ROW_ID: ids}),
                                          jobs.ROW_ID, self._projection, index, 1)
        return stream_reader(capsule).read_all()


def _make_local_read_source(parts: List[pa.Array], error: Optional[BaseException],
                            reader: Optional[_ReadBucket], out_schema: pa.Schema):
    """A Ray Data datasource whose read tasks each carry one bucket of ids routed on the
    driver (``_split_ids``): no routing task and no shuffle run when it is consumed. A
    routing error is raised by its one read task when the result is consumed (where a lazy
    source's routing task raises it); no ids give one task yielding the typed empty table."""
    import ray
    from ray.data.block import BlockMetadata
    from ray.data.datasource import Datasource, ReadTask

    payloads = [ray.put(p) if p.nbytes > _INLINE_IDS_BYTES else p for p in parts]

    class RowIdReadSource(Datasource):
        def estimate_inmemory_data_size(self) -> Optional[int]:
            return None

        # Ray 2.60 added a ``data_context`` keyword (and may add more): accepted, unused.
        def get_read_tasks(  # type: ignore[override]  # its signature moves between Rays
                self, parallelism: int, per_task_row_limit: Optional[int] = None, **_: Any):
            meta = BlockMetadata(num_rows=None, size_bytes=None, exec_stats=None,
                                 input_files=None)
            if error is not None:
                def refuse():
                    raise error
                return [ReadTask(refuse, meta, schema=out_schema,
                                 per_task_row_limit=per_task_row_limit)]
            tasks = []
            for payload in payloads:
                def read_fn(payload=payload):
                    yield reader(payload if isinstance(payload, pa.Array) else ray.get(payload))
                tasks.append(ReadTask(read_fn, meta, schema=out_schema,
                                      per_task_row_limit=per_task_row_limit))
            if not tasks:
                def read_nothing():
                    yield out_schema.empty_table()
                tasks.append(ReadTask(read_nothing, BlockMetadata(
                    num_rows=0, size_bytes=0, exec_stats=None, input_files=None),
                    schema=out_schema, per_task_row_limit=per_task_row_limit))
            return tasks

    return RowIdReadSource()


def _make_read_source(ds, index_ref, buckets: int, row_id_col: str, reader: _ReadBucket,
                      out_schema: pa.Schema):
    """A Ray Data datasource whose read tasks each read one bucket of routed ids.

    Nothing runs until the result is consumed: Ray plans a read by asking for its read tasks,
    and that is when the source runs and its blocks are routed by plain tasks (one per block,
    one return per bucket, no Ray shuffle). The routing is kept for later plans of the same
    result. A source without ids gives one read task that yields the typed empty table, so an
    empty source never reaches any shuffle, on every Ray version.

    ``ray.data.read_datasource`` itself asks for the read tasks once, for its statistics,
    before it returns: until ``arm()`` is called the source answers with one unrouted
    placeholder task per bucket (never executed), so creating the result runs nothing."""
    import ray
    from ray.data.block import BlockMetadata
    from ray.data.datasource import Datasource, ReadTask

    route = ray.remote(_route_ids)

    class RowIdReadSource(Datasource):
        def __init__(self) -> None:
            self._parts: Optional[List[List[Any]]] = None
            self._armed = False

        def arm(self) -> None:
            self._armed = True

        def estimate_inmemory_data_size(self) -> Optional[int]:
            return None

        def _route(self) -> List[List[Any]]:
            if self._parts is not None:
                return self._parts
            parts: List[List[Any]] = [[] for _ in range(buckets)]
            counts: List[Any] = []
            cap = max(2, 2 * int(ray.cluster_resources().get("CPU", 2)))
            in_flight: List[Any] = []
            for block in ds.to_arrow_refs():
                out: Any = route.options(num_returns=buckets + 1).remote(block, index_ref,
                                                                         row_id_col, buckets)
                counts.append(out[0])
                for b in range(buckets):
                    parts[b].append(out[1 + b])
                in_flight.append(out[0])
                if len(in_flight) >= cap:
                    _, in_flight = ray.wait(in_flight, num_returns=1)
            per_block = ray.get(counts)  # raises the first routing error
            # Per bucket, only the parts that hold ids; buckets without any get no read task.
            routed = [[ref for ref, n in zip(parts[b], per_block) if n[b]]
                      for b in range(buckets)]
            self._parts = [refs for refs in routed if refs]
            return self._parts

        # Ray 2.60 added a ``data_context`` keyword (and may add more): accepted, unused.
        def get_read_tasks(  # type: ignore[override]  # its signature moves between Rays
                self, parallelism: int, per_task_row_limit: Optional[int] = None, **_: Any):
            tasks = []
            if not self._armed:
                def placeholder():
                    raise RuntimeError("paimon_rowid: a planning-only read task was executed")
                meta = BlockMetadata(num_rows=None, size_bytes=None, exec_stats=None,
                                     input_files=None)
                return [ReadTask(placeholder, meta, schema=out_schema) for _ in range(buckets)]
            for refs in self._route():
                def read_fn(refs=refs):
                    import pyarrow.compute as pc
                    chunks = ray.get(refs)
                    ids = chunks[0] if len(chunks) == 1 else pc.unique(
                        pa.chunked_array(chunks).combine_chunks()).sort()
                    yield reader(ids)
                meta = BlockMetadata(num_rows=None, size_bytes=None, exec_stats=None,
                                     input_files=None)
                tasks.append(ReadTask(read_fn, meta, schema=out_schema,
                                      per_task_row_limit=per_task_row_limit))
            if not tasks:
                def read_nothing():
                    yield out_schema.empty_table()
                meta = BlockMetadata(num_rows=0, size_bytes=0, exec_stats=None,
                                     input_files=None)
                tasks.append(ReadTask(read_nothing, meta, schema=out_schema,
                                      per_task_row_limit=per_task_row_limit))
            return tasks

    return RowIdReadSource()


def read_by_row_id(target: str, row_ids: Any, catalog_options: Dict[str, str], *,
                   projection: List[str], row_id_col: Optional[str] = None,
                   dynamic_options: Optional[Dict[str, str]] = None,
                   num_partitions: Optional[int] = None,
                   ray_remote_args: Optional[Dict[str, Any]] = None,
                   driver_routing_max_bytes: Optional[int] = None):
    """A lazy ``ray.data.Dataset`` of ``(*projection, _ROW_ID)`` for the distinct ids of
    ``row_ids[row_id_col]``. Nothing is read here; the ids are read when the result is
    consumed, and bad ids are refused then.

    Routing: the ids of a source on the driver (a pyarrow Table, a pandas DataFrame, or a
    materialized ``ray.data.Dataset`` of at most ``driver_routing_max_bytes`` Arrow bytes,
    default ``DRIVER_ROUTING_MAX_BYTES`` = 256 MiB, fetched to the driver) are routed to
    buckets of file groups here, on the driver, and each read task carries its bucket's ids.
    Any other Dataset stays lazy: it runs when the result is consumed, and routing tasks
    (one per block, ids only, no Ray shuffle) hand each read task its ids. ``num_partitions``
    is the number of buckets (default: 2 per CPU, at most one per file group, and for ids
    routed on the driver at most one per 16,384 ids)."""
    ray = require_ray()
    max_bytes = _max_bytes(driver_routing_max_bytes)
    table, snapshot, projection, row_id_col = jobs.prepare_read(
        target, catalog_options, projection, row_id_col, dynamic_options)
    src = _source(ray, row_ids, "read_by_row_id", "the target row ids", [row_id_col],
                  max_bytes)
    known = src.names
    if known is not None and row_id_col not in known:
        raise ValueError(f"row_ids source is missing the {row_id_col!r} column.")
    out_schema = jobs.read_output_schema(table, projection)
    remote_args, concurrency = _task_options(ray_remote_args)
    # One block per read task: left to itself, Ray asks for 200 blocks and cuts the output
    # of each of our few read tasks into ~50 (an object and a round trip each: ~1 s a task
    # on 2 CPUs, where the read itself takes ~0.05 s).
    kwargs: Dict[str, Any] = {}
    if concurrency is not None:
        kwargs["concurrency"] = concurrency
    if jobs.table_is_empty(snapshot):
        has_rows = (src.local.num_rows > 0 if src.local is not None
                    else src.dataset.limit(1).count() > 0)
        if has_rows:
            raise jobs.foreign_ids_error(target)
        return read_datasource(_make_local_read_source([], None, None, out_schema),
                               override_num_blocks=1)
    index = native().RowIdIndex.build(table._native, snapshot.id)
    buckets = _resolve_partitions(ray, num_partitions, index.num_groups)
    index_ref = ray.put(index.serialize())
    pinned: Dict[str, Optional[str]] = {"scan.snapshot-id": str(snapshot.id)}
    for key in jobs.TIME_TRAVEL_KEYS:
        if key != "scan.snapshot-id" and dynamic_options and key in dynamic_options:
            pinned[key] = None
    extra = {k: v for k, v in (dynamic_options or {}).items() if k not in jobs.TIME_TRAVEL_KEYS}
    extra.update({k: v for k, v in pinned.items() if v is not None})
    reader = _ReadBucket(index_ref, catalog_options, target, extra, projection)
    if src.local is not None:
        if num_partitions is None:  # a read task per _MIN_IDS_PER_READ_TASK ids at least
            buckets = max(1, min(buckets, -(-src.local.num_rows // _MIN_IDS_PER_READ_TASK)))
        parts: List[pa.Array] = []
        error: Optional[BaseException] = None
        try:
            parts = _split_ids(index, src.local, row_id_col, buckets)
        except Exception as refused:  # noqa: BLE001 - raised when the result is consumed
            error = refused
        source: Any = _make_local_read_source(parts, error, reader, out_schema)
        kwargs["override_num_blocks"] = max(1, len(parts))
    else:
        source = _make_read_source(src.dataset, index_ref, buckets, row_id_col, reader,
                                   out_schema)
        kwargs["override_num_blocks"] = buckets
    result = read_datasource(source, ray_remote_args=remote_args, **kwargs)
    if src.local is None:
        source.arm()
    # For map_with_blobs over descriptors read here: the payloads live on the same filesystem.
    setattr(result, BLOB_FS_OPTIONS_ATTR, table.file_io_options)
    return result
