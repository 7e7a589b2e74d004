"""read_by_row_id on Ray (routing shared with the update: _row_id_routing.py).

A small job whose ids are on the driver is read in the driver's process and returned
materialized (``driver_max_bytes``). Otherwise read_by_row_id stays lazy: its result is a
Ray Data read whose read tasks each read one bucket of ids with the C++ kernel, set
semantics, one block per task. For a source on the driver the tasks carry their ids;
routing errors (null or foreign ids) are raised when the result is consumed, by its one
read task. A lazy Dataset runs when the result is consumed: the read's planning routes its
ids with the same kind of scatter tasks (only 8-byte ids move).
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

import numpy as np
import pyarrow as pa

from .._internal._arrow import int64_row_ids, whole_table
from .._internal._lib import native
from .._internal._time_travel import READ_SCHEMA_ID
from ..jobs import _job_checks as jobs
from ..table.blob import blob_files
from ._compat import read_datasource
from ._row_id_routing import (
    _READ_STALE,
    _bucket_ids,
    _bucket_of,
    _index,
    _max_bytes,
    _resolve_partitions,
    _run_max_bytes,
    _source,
    _task_options,
)
from ._runtime import cluster_cpus, require_ray
from .blobs import BLOB_FILES_ATTR


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
        ids = int64_row_ids(block.column(row_id_col), row_id_col)
        if ids.null_count:
            raise ValueError("_ROW_ID is null; " + _READ_STALE)
        index = _index(index_bytes)
        bucket, _ = _bucket_of(index, ids, buckets, _READ_STALE)
        parts = [pc.unique(ids.filter(pc.equal(bucket, b))).sort() for b in range(buckets)]
    return [[len(p) for p in parts]] + parts


# Without num_partitions, a driver-routed read makes no more tasks than one per this many
# ids: a task costs ~30 ms of Ray Data overhead, about what reading this many ids takes
# (10k ids on 1M rows, 2 CPUs: one task 0.16 s, four 0.25 s).
_MIN_IDS_PER_READ_TASK = 16384
# A read task carries its ids in itself up to this size; a bigger bucket's ids go through
# the object store (Ray warns about read tasks over 1 MiB).
_INLINE_IDS_BYTES = 256 * 1024


def _route_local(index, source: pa.Table, row_id_col: str):
    """The distinct ids of a driver-side source, ascending, and the owning group of each,
    with ``_route_ids``'s checks and errors."""
    ids = int64_row_ids(source.column(row_id_col), row_id_col)
    if ids.null_count:
        raise ValueError("_ROW_ID is null; " + _READ_STALE)
    unique = np.unique(ids.to_numpy())
    try:
        owners = index.route(pa.array(unique), _READ_STALE)
    except Exception:
        index.route(ids, _READ_STALE)  # names the first foreign id in source order, as a task
        raise
    return unique, owners


def _split_ids(unique: np.ndarray, owners: pa.Array, buckets: int,
               num_groups: int) -> List[pa.Array]:
    """Each bucket's share of the routed ids (``_route_local``), for the buckets that have
    any: contiguous file groups per bucket, ascending."""
    bucket = _bucket_ids(owners.to_numpy(), buckets, num_groups)  # ascending: the ids are
    bounds = np.searchsorted(bucket, np.arange(buckets + 1))
    return [pa.array(unique[lo:hi]) for lo, hi in zip(bounds[:-1], bounds[1:]) if hi > lo]


class _ReadBucket:
    """Reads one bucket's ids with the C++ kernel (set semantics, ascending row ids)."""

    def __init__(self, index, catalog_options, target, dynamic_options, projection,
                 out_schema: pa.Schema):
        self._index = index  # the driver's own (not pickled into tasks)
        self._index_ref = None  # its serialized form in the object store, once shipped
        self._catalog_options = dict(catalog_options)
        self._target = target
        self._dynamic = dict(dynamic_options or {})
        self._projection = list(projection)
        self.out_schema = out_schema

    def index_ref(self):
        """The serialized index in the object store, put there on first use (on the
        driver): a read that runs in the driver's process ships nothing."""
        if self._index_ref is None:
            import ray
            self._index_ref = ray.put(self._index.serialize())
        return self._index_ref

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_index_ref"] = self.index_ref()
        state["_index"] = None
        return state

    def __call__(self, ids: pa.Array) -> pa.Table:
        import ray
        # One thread: Ray already runs one such task per CPU it grants.
        return self._read(ids, _index(ray.get(self.index_ref())), 1)

    def read_here(self, ids: pa.Array) -> pa.Table:
        """The same read in the driver's process, on all cores."""
        return self._read(ids, self._index, 0)

    def _read(self, ids: pa.Array, index, threads: int) -> pa.Table:
        table = jobs.load_table(self._target, self._catalog_options)
        if self._dynamic:
            table = table.copy(self._dynamic)
        capsule = native().read_by_row_id(table._native, pa.table({jobs.ROW_ID: ids}),
                                          jobs.ROW_ID, self._projection, index, threads)
        return whole_table(capsule)


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
            cap = max(2, 2 * int(cluster_cpus(ray, 2)))
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


def _read_on_driver(ray, reader: _ReadBucket, ids: pa.Array, table):
    """Reads ``ids`` (distinct, ascending) in this process as one read task would, on all
    cores; an error is raised when the result is consumed, as from a read task."""
    import ray.data
    try:
        result = reader.read_here(ids)
    except Exception as refused:  # noqa: BLE001 - raised when the result is consumed
        return read_datasource(_make_local_read_source([], refused, None, reader.out_schema),
                               override_num_blocks=1)
    dataset = ray.data.from_arrow(result)
    setattr(dataset, BLOB_FILES_ATTR, blob_files(table))
    return dataset


def read_by_row_id(target: str, row_ids: Any, catalog_options: Dict[str, str], *,
                   projection: List[str], row_id_col: Optional[str] = None,
                   dynamic_options: Optional[Dict[str, str]] = None,
                   num_partitions: Optional[int] = None,
                   ray_remote_args: Optional[Dict[str, Any]] = None,
                   driver_routing_max_bytes: Optional[int] = None,
                   driver_max_bytes: Optional[int] = None) -> Any:
    """A ``ray.data.Dataset`` of ``(*projection, _ROW_ID)`` for the distinct ids of
    ``row_ids[row_id_col]``, lazy: the ids are read when the result is consumed, and bad ids
    are refused then (a small job on the driver, below, is read here but still refuses then).

    Routing: the ids of a source on the driver (a pyarrow Table, a pandas DataFrame, or a
    materialized ``ray.data.Dataset`` of at most ``driver_routing_max_bytes`` Arrow bytes,
    default ``DRIVER_ROUTING_MAX_BYTES`` = 256 MiB, fetched to the driver) are routed to
    buckets of file groups here, on the driver, and each read task carries its bucket's ids.
    Any other Dataset stays lazy: it runs when the result is consumed, and routing tasks
    (one per block, ids only, no Ray shuffle) hand each read task its ids. ``num_partitions``
    is the number of buckets (default: 2 per CPU, at most one per file group, and for ids
    routed on the driver at most one per 16,384 ids).

    Where it runs: without ``num_partitions``, a source on the driver whose read touches at
    most ``driver_max_bytes`` file bytes (``RowIdIndex.estimate_bytes``; default
    ``DRIVER_RUN_MAX_BYTES`` = 256 MiB, 0 = never) is read right here by the embedded kernel
    on all cores, where no Ray task could start faster; the result is then a materialized
    Dataset (its blocks in the object store), and an error is still raised only when it is
    consumed."""
    ray = require_ray()
    max_bytes = _max_bytes(driver_routing_max_bytes)
    run_max_bytes = _run_max_bytes(driver_max_bytes)
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
    # The tasks read the snapshot routed here, with the schema the driver checked (an alter
    # after that snapshot keeps its columns).
    pinned: Dict[str, Optional[str]] = {"scan.snapshot-id": str(snapshot.id),
                                        READ_SCHEMA_ID: str(table.table_schema.id)}
    for key in jobs.TIME_TRAVEL_KEYS:
        if key != "scan.snapshot-id" and dynamic_options and key in dynamic_options:
            pinned[key] = None
    extra = {k: v for k, v in (dynamic_options or {}).items() if k not in jobs.TIME_TRAVEL_KEYS}
    extra.update({k: v for k, v in pinned.items() if v is not None})
    reader = _ReadBucket(index, catalog_options, target, extra, projection, out_schema)
    if src.local is not None:
        parts: List[pa.Array] = []
        error: Optional[BaseException] = None
        try:
            if src.local.num_rows:
                unique, owners = _route_local(index, src.local, row_id_col)
                if num_partitions is None and index.estimate_bytes(
                        table._native, owners, projection) <= run_max_bytes:
                    return _read_on_driver(ray, reader, pa.array(unique), table)
                if num_partitions is None:  # a read task per _MIN_IDS_PER_READ_TASK ids
                    buckets = max(1, min(buckets, -(-len(unique) // _MIN_IDS_PER_READ_TASK)))
                parts = _split_ids(unique, owners, buckets, index.num_groups)
        except Exception as refused:  # noqa: BLE001 - raised when the result is consumed
            error = refused
        source: Any = _make_local_read_source(parts, error, reader, out_schema)
        kwargs["override_num_blocks"] = max(1, len(parts))
    else:
        source = _make_read_source(src.dataset, reader.index_ref(), buckets, row_id_col,
                                   reader, out_schema)
        kwargs["override_num_blocks"] = buckets
    result = read_datasource(source, ray_remote_args=remote_args, **kwargs)
    if src.local is None:
        source.arm()
    # For map_with_blobs over descriptors read here: the payloads are the table's files.
    setattr(result, BLOB_FILES_ATTR, blob_files(table))
    return result
