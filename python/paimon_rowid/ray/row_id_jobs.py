"""update_by_row_id / read_by_row_id on Ray.

Routing avoids a sort-based shuffle of the source: each source block is routed in C++ to
contiguous buckets of file groups (binary search over the shipped index) by one scatter task,
and one apply task per bucket gathers its parts and runs the C++ update kernel. The number of
scatter tasks in flight is capped. Metadata travels only in task return values; the driver
commits through the engine's one commit path (``_native.commit_update``, the C++
``CommitWithRebase`` the embedded update uses too): a commit that loses a conflict to a
concurrent update of other rows runs the pipeline again on the new snapshot, its tasks
checking first that none of its rows changed meanwhile.

Exactly once under task retries and node loss: every file an apply attempt writes is named
from the round's random job id and the file group (``ray/_job_files.py``), so an attempt that
dies after writing is re-run by Ray on the same rows and writes the same names over its
files. A round that fails waits for every apply task and deletes, by name, the file of each
group its rows were routed to. Files of other writers are never touched.

read_by_row_id stays lazy (the source runs when the result is consumed): its result is a Ray
Data read whose planning routes the source's ids to buckets with the same kind of scatter
tasks (only 8-byte ids move, never through a Ray shuffle), and whose read tasks each read one
bucket with the C++ kernel, set semantics.
"""
from __future__ import annotations

import atexit
import hashlib
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


def _to_dataset(ray, source: Any, operation: str, what: str):
    """(Dataset, column names known without running anything, or None)."""
    import ray.data
    if isinstance(source, str):
        raise ValueError(
            f"{operation} does not accept a table-name source; pass a ray.data.Dataset / "
            f"pyarrow.Table / pandas.DataFrame carrying {what}.")
    if isinstance(source, ray.data.Dataset):
        known = source.schema(fetch_if_missing=False)
        return source, (list(known.names) if known is not None else None)
    # The schema of a local table is known here even when it has no rows (Ray drops the
    # schema of empty blocks, so asking the Dataset would not tell).
    if isinstance(source, pa.Table):
        return ray.data.from_arrow(source), list(source.schema.names)
    try:
        import pandas as pd
        if isinstance(source, pd.DataFrame):
            return ray.data.from_pandas(source), [str(c) for c in source.columns]
    except ImportError:  # pragma: no cover
        pass
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
                     _hooks: Optional[TaskHooks] = None) -> Dict[str, int]:
    """Overwrites ``update_cols`` of the rows addressed by the source's ``_ROW_ID`` with one
    commit. Blocking: runs the Ray pipeline, then commits. Returns ``{"num_updated": n}``.

    The commit is the embedded update's (one C++ commit path): when it loses a conflict only
    because another writer changed the same columns of the same file groups on *other* rows,
    the pipeline runs again on the new snapshot (its tasks first check that none of these rows
    changed) and commits again; if the other writer changed these rows,
    ``CommitConflictException`` is raised. ``snapshot_properties`` go into the snapshot made
    (default: the progress of the running ``process_row_id_ranges(resume_key=...)`` batch).
    ``_hooks`` is a test seam (ray/_task_hooks.py), not part of the API."""
    rows, _snapshot_id = update_and_commit(target, source, catalog_options,
                                           update_cols=update_cols,
                                           num_partitions=num_partitions,
                                           ray_remote_args=ray_remote_args,
                                           snapshot_properties=snapshot_properties,
                                           _hooks=_hooks)
    return {"num_updated": rows}


def update_and_commit(target: str, source: Any, catalog_options: Mapping[str, Any], *,
                      update_cols: List[str], num_partitions: Optional[int] = None,
                      ray_remote_args: Optional[Dict[str, Any]] = None,
                      snapshot_properties: Optional[Mapping[str, str]] = None,
                      _hooks: Optional[TaskHooks] = None) -> Tuple[int, Optional[int]]:
    """``update_by_row_id`` returning (rows updated, id of the snapshot made or None when
    nothing was committed); ``backfill`` records the snapshot ids it makes."""
    ray = require_ray()
    table, update_cols = jobs.prepare_update(target, catalog_options, update_cols)
    ds, names = _to_dataset(ray, source, "update_by_row_id", "the target _ROW_ID")
    # Execute the source exactly once: its schema, row count and blocks all come from the
    # materialized result (probing a lazy pipeline with schema()/limit() would run it twice,
    # and trips Ray's executor on actor-pool pipelines). An empty lazy source has no schema
    # after it ran: there is nothing to check, and nothing to update.
    materialized = ds.materialize()
    if names is None:
        schema = materialized.schema()
        names = list(schema.names) if schema is not None else None
    missing = [c for c in [jobs.ROW_ID] + update_cols if c not in (names or [])]
    if names is not None and missing:
        raise ValueError(f"source is missing columns {missing}; it must carry _ROW_ID and "
                         f"{update_cols}.")
    snapshot = table.latest_snapshot()
    num_rows = materialized.count()
    if num_rows == 0:
        return 0, None
    if jobs.table_is_empty(snapshot):
        raise jobs.foreign_ids_error(target)
    pipeline = _UpdatePipeline(ray, table, target, catalog_options, [jobs.ROW_ID] + update_cols,
                               materialized.to_arrow_refs(), num_partitions, ray_remote_args,
                               _hooks)
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
    """One round of a Ray update: scatter the source blocks to buckets of file groups with an
    index, apply each bucket with the C++ kernel, collect the commit messages. Every round has
    its own job id: the files of a round the commit did not take are deleted by the
    committer, those of task attempts that died by the round itself."""

    def __init__(self, ray, table, target: str, catalog_options: Mapping[str, Any],
                 columns: List[str], block_refs: List[Any], num_partitions: Optional[int],
                 ray_remote_args: Optional[Mapping[str, Any]],
                 hooks: Optional[TaskHooks] = None) -> None:
        self._ray = ray
        self._hooks = hooks
        self._table = table
        self._target = target
        self._catalog_options = dict(catalog_options)
        self._columns = columns
        self._blocks = block_refs
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
        groups_refs: List[Any] = []
        apply_refs: List[Any] = []
        try:
            # Scatter with a cap on tasks in flight (2 per CPU): one output per bucket, then
            # the groups the block's rows belong to.
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
            self._abort(index, job_id, groups_refs, apply_refs)
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

    def _abort(self, index, job_id: str, groups_refs: List[Any], apply_refs: List[Any]) -> None:
        """After a failure: waits until no apply task of the round runs any more (each ends
        in a result or an error, retries included), then deletes, by name, the file of every
        group the scatter tasks routed rows to (those of tasks that succeeded, and those of
        attempts that died); missing ones are fine."""
        ray = self._ray
        if apply_refs:
            ray.wait(apply_refs, num_returns=len(apply_refs))
        groups = set()
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
                   ray_remote_args: Optional[Dict[str, Any]] = None):
    """A lazy ``ray.data.Dataset`` of ``(*projection, _ROW_ID)`` for the distinct ids of
    ``row_ids[row_id_col]``. Only planning runs here; the source runs when the result is
    consumed (except for the empty-target check)."""
    ray = require_ray()
    table, snapshot, projection, row_id_col = jobs.prepare_read(
        target, catalog_options, projection, row_id_col, dynamic_options)
    ds, known = _to_dataset(ray, row_ids, "read_by_row_id", "the target row ids")
    if known is not None and row_id_col not in known:
        raise ValueError(f"row_ids source is missing the {row_id_col!r} column.")
    out_schema = jobs.read_output_schema(table, projection)
    if jobs.table_is_empty(snapshot):
        if ds.limit(1).count() > 0:
            raise jobs.foreign_ids_error(target)
        return ray.data.from_arrow(out_schema.empty_table())
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
    source = _make_read_source(ds, index_ref, buckets, row_id_col, reader, out_schema)
    remote_args, concurrency = _task_options(ray_remote_args)
    # One block per read task: left to itself, Ray asks for 200 blocks and cuts the output
    # of each of our few read tasks into ~50 (an object and a round trip each: ~1 s a task
    # on 2 CPUs, where the read itself takes ~0.05 s).
    kwargs: Dict[str, Any] = {"override_num_blocks": buckets}
    if concurrency is not None:
        kwargs["concurrency"] = concurrency
    result = read_datasource(source, ray_remote_args=remote_args, **kwargs)
    source.arm()
    # For map_with_blobs over descriptors read here: the payloads live on the same filesystem.
    setattr(result, BLOB_FS_OPTIONS_ATTR, table.file_io_options)
    return result
