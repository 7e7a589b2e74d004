"""A Ray Data datasource over planned splits: ``TableRead.to_ray``.

The driver plans (one manifest read); each read task receives a bin of serialized splits
(packed greedily by row count) and streams them through the native reader, so workers never
read manifests.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

import pyarrow as pa

from .._internal._arrow import stream_reader
from .._internal._lib import native
from .._internal._ray_door import SPLITS_TO_RAY, register
from ..jobs._backfill_core import _positive_int
from ._compat import read_datasource


def _bins(sizes: Sequence[int], count: int) -> List[List[int]]:
    """Greedy knapsack: biggest first into the lightest bin."""
    count = max(1, min(count, len(sizes)))
    bins: List[List[int]] = [[] for _ in range(count)]
    loads = [0] * count
    for i in sorted(range(len(sizes)), key=lambda k: -sizes[k]):
        b = loads.index(min(loads))
        bins[b].append(i)
        loads[b] += max(1, sizes[i])
    return [sorted(b) for b in bins if b]


def _make_datasource(native_table: Any, read_fields: List[str], predicate: Any,
                     limit: Optional[int], splits: List[Any], schema: pa.Schema):
    from ray.data.block import BlockMetadata
    from ray.data.datasource import Datasource, ReadTask

    class PaimonSplitsDatasource(Datasource):
        def estimate_inmemory_data_size(self) -> Optional[int]:
            return None

        # Ray 2.60 added a ``data_context`` keyword (and may add more): accepted, unused
        # (see _compat.py).
        def get_read_tasks(  # type: ignore[override]  # its signature moves between Rays
                self, parallelism: int, per_task_row_limit: Optional[int] = None, **_: Any):
            sizes = [s.row_count for s in splits]
            tasks = []
            for members in _bins(sizes, parallelism):
                payload = [splits[i].serialize() for i in members]
                rows = sum(sizes[i] for i in members)

                def read_fn(payload=payload):
                    natives = [native().Split.deserialize(b) for b in payload]
                    capsule = native().read(native_table, natives, read_fields, predicate, limit)
                    for batch in stream_reader(capsule):
                        if batch.num_rows:
                            yield pa.Table.from_batches([batch])

                meta = BlockMetadata(num_rows=None if predicate is not None else rows,
                                     size_bytes=None, exec_stats=None, input_files=None)
                tasks.append(ReadTask(read_fn, meta, schema=schema,
                                      per_task_row_limit=per_task_row_limit))
            return tasks

    return PaimonSplitsDatasource()


def splits_to_ray(table_read: Any, splits: Sequence[Any], *,
                  ray_remote_args: Optional[Dict[str, Any]] = None,
                  concurrency: Optional[int] = None,
                  override_num_blocks: Optional[int] = None, **read_args: Any) -> Any:
    """See ``TableRead.to_ray``."""
    import ray.data
    if override_num_blocks is not None and override_num_blocks < 1:
        raise ValueError(f"override_num_blocks must be at least 1, got {override_num_blocks}")
    # Checked here, not left to Ray: Ray 2.50 accepts concurrency=0 and reads anyway, 2.60
    # refuses it; one answer on every Ray we support.
    if concurrency is not None:
        _positive_int("concurrency", concurrency)
    schema = table_read.output_schema()
    native_splits = table_read._native_splits(splits)
    if not native_splits:
        return ray.data.from_arrow(schema.empty_table())
    predicate = None if table_read._predicate is None else table_read._predicate.to_native()
    source = _make_datasource(table_read._table._native, table_read._read_fields, predicate,
                              table_read._limit, native_splits, schema)
    kwargs: Dict[str, Any] = dict(read_args)
    # Without a block count Ray asks for ~200 read tasks and, given fewer, cuts each task's
    # output into many blocks (SplitBlocks), which costs more than the read: by default one
    # read task, and one block, per split (pypaimon's default leaves it to Ray).
    kwargs["override_num_blocks"] = (override_num_blocks if override_num_blocks is not None
                                     else len(native_splits))
    if concurrency is not None:
        # No more tasks in flight than there are read tasks (_bins makes one per block, at
        # most one per split): a larger cap changes nothing but makes Ray warn that it
        # cannot be reached.
        tasks = min(kwargs["override_num_blocks"], len(native_splits))
        kwargs["concurrency"] = min(concurrency, tasks)
    ds = read_datasource(source, ray_remote_args=ray_remote_args, **kwargs)
    if table_read._limit is not None:
        ds = ds.limit(table_read._limit)
    return ds


register(SPLITS_TO_RAY, splits_to_ray)  # TableRead.to_ray (the table layer: no import)
