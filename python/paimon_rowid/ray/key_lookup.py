"""``lookup_row_ids`` on Ray (docs/global-index.md, "Key lookup"): the keys are cut into
shards and each Ray task runs the embedded lookup (jobs/key_lookup.py) on its shard, pinned to
the snapshot the driver resolved, so every shard sees the same rows.

Each task reads the index files its keys need and scans the rows the index does not cover
for its keys; with no usable index every task scans the table for its keys (pruned by value
stats), so fewer, larger shards cost less there.
"""
from __future__ import annotations

from typing import Any, Dict, Mapping, Optional

import pyarrow as pa

from .._internal._time_travel import READ_SCHEMA_ID, TIME_TRAVEL_KEYS
from ..jobs import _job_checks as jobs
from ..jobs.key_lookup import key_array, lookup_on, prepare
from ._runtime import require_ray

__all__ = ["lookup_row_ids"]


def _lookup_batch(batch: pa.Table, target: str, key_column: str,
                  catalog_options: Dict[str, Any], dynamic_options: Dict[str, str]) -> pa.Table:
    """One shard, in a Ray task: the embedded lookup at the driver's snapshot."""
    table, _snapshot, key_type = prepare(target, key_column, catalog_options, dynamic_options)
    keys = batch.column(key_column).combine_chunks()
    if not keys.type.equals(key_type):
        keys = keys.cast(key_type)
    result, _info = lookup_on(table, keys, key_column)
    return result


def lookup_row_ids(target: str, keys: Any, key_column: str,
                   catalog_options: Mapping[str, Any], *,
                   dynamic_options: Optional[Dict[str, str]] = None,
                   num_partitions: Optional[int] = None,
                   ray_remote_args: Optional[Dict[str, Any]] = None) -> Any:
    """``paimon_rowid.lookup_row_ids`` in Ray tasks: a ``ray.data.Dataset`` of
    ``(key_column, _ROW_ID)``, one row per matching row of ``target`` (lazy: the lookups run
    when it is consumed). ``keys`` is what the embedded call takes, or a ``ray.data.Dataset``
    carrying ``key_column`` (each of its blocks is one shard). Keys on the driver are cut into
    ``num_partitions`` shards (default 1: one task). ``ray_remote_args`` go to the tasks.

    The same errors as the embedded call, raised here for everything the driver can check
    (target, key column, keys on the driver); the keys of a Dataset are cast in the tasks."""
    ray = require_ray()
    table, snapshot, key_type = prepare(target, key_column, catalog_options, dynamic_options)
    out_schema = pa.schema([pa.field(key_column, key_type), pa.field(jobs.ROW_ID, pa.int64())])
    if isinstance(keys, ray.data.Dataset):
        dataset = keys.select_columns([key_column])
    else:
        array = key_array(keys, key_column, key_type)
        shards = max(1, min(int(num_partitions or 1), max(1, len(array))))
        step = -(-len(array) // shards) if len(array) else 1
        parts = [pa.table({key_column: array.slice(i, step)})
                 for i in range(0, max(1, len(array)), step)]
        dataset = ray.data.from_arrow(parts)
    if snapshot is None:
        return ray.data.from_arrow(out_schema.empty_table())
    options = {str(k): v for k, v in catalog_options.items()}
    pinned = {k: v for k, v in (dynamic_options or {}).items() if k not in TIME_TRAVEL_KEYS}
    pinned["scan.snapshot-id"] = str(snapshot.id)
    pinned[READ_SCHEMA_ID] = str(table.table_schema.id)
    return dataset.map_batches(
        _lookup_batch, batch_format="pyarrow", batch_size=None,
        fn_kwargs={"target": target, "key_column": key_column, "catalog_options": options,
                   "dynamic_options": pinned},
        **dict(ray_remote_args or {}))
