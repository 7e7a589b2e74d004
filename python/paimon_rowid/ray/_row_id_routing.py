"""The routing pieces the Ray row-id jobs share (row_id_jobs.py: updates; row_id_reads.py:
reads): classifying a source (on the driver, or a Dataset routed by tasks), task options,
partition counts, and the per-worker cache of the shipped native index."""
from __future__ import annotations

import atexit
import hashlib
import sys
from typing import Any, Dict, List, Mapping, Optional

import numpy as np
import pyarrow as pa

from .._internal._arrow import columns_source, ids_source, int64_row_ids, unsupported_source
from .._internal._lib import native
from ..jobs._backfill_core import _positive_int
from ._runtime import cluster_cpus

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


# A row-id job whose source is on the driver runs in the driver's process, with the embedded
# kernels (all cores, no Ray task), when the file bytes it touches (RowIdIndex.estimate_bytes:
# each touched group's Parquet bytes of its columns, the routed rows' share of its .blob
# files) are at most this many: below it the work takes less than a Ray task's start-up (a
# first task ~1 s, a warm one ~0.1 s) and the cluster cannot win. Overridden per call by
# ``driver_max_bytes`` (0: always on tasks).
DRIVER_RUN_MAX_BYTES = 256 * 1024 * 1024


def non_negative_bytes(name: str, value: Optional[int], default: int) -> int:
    """``value`` checked as a non-negative integer, or ``default`` when None."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}.")
    return value


def _max_bytes(driver_routing_max_bytes: Optional[int]) -> int:
    return non_negative_bytes("driver_routing_max_bytes", driver_routing_max_bytes,
                              DRIVER_ROUTING_MAX_BYTES)


def _run_max_bytes(driver_max_bytes: Optional[int]) -> int:
    return non_negative_bytes("driver_max_bytes", driver_max_bytes, DRIVER_RUN_MAX_BYTES)


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
    if operation == "read_by_row_id":
        source = ids_source(source, wanted[0])  # ids alone: a list, Array or numpy array
    source = columns_source(source, wanted[0])
    if isinstance(source, pa.Table):
        # Row ids are integers: refused here, before anything runs (the routing checks again).
        if wanted[0] in source.column_names:
            int64_row_ids(source.column(wanted[0]).slice(0, 0), wanted[0])
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
    raise unsupported_source(operation, source)


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
    if concurrency is not None:
        _positive_int("concurrency", concurrency)
    return options, concurrency


def _resolve_partitions(ray, num_partitions: Optional[int], num_groups: int) -> int:
    if num_partitions is None:
        num_partitions = int(cluster_cpus(ray, 4)) * 2
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


# What a null or unknown id's error adds (the C++ kStaleRowIdContext): where valid ids come from.
_UPDATE_STALE = ("row ids must name rows of this table at the planned snapshot: take them "
                 "from its _ROW_ID column (ids of another table, of rows an overwrite dropped, "
                 "or past the last row name no row).")
_READ_STALE = _UPDATE_STALE


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
