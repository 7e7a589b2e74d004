"""What the embedded and the Ray ``bucket_join`` share (one implementation, two doors:
``jobs/joins.py`` joins the buckets on threads or lazily, ``ray/joins.py`` as Ray read tasks):
the checks, the plan, the join of one bucket, the packing of buckets into tasks and a task's
loop over its buckets. ``bucket_join`` joins two co-bucketed tables bucket by bucket, with no
shuffle.

Same key -> same bucket on both sides (both tables written with the same bucket count,
bucket-key and bucket function), so bucket *i* of the left table joins only bucket *i* of the
right. The checks, their order, exception types and messages are pypaimon 2.1.0's
(``pypaimon.ray.bucket_join``).

Cost: planning reads each side's manifests once (plus once more for the rescale guard). The
join then reads, per common bucket, the SMALLER side (by planned split row counts) into memory
and streams the other side through the C++ hash join batch by batch, so peak memory is the
smaller side of one bucket plus a batch, never a whole table. Nested payload columns (ARRAY,
MAP, ROW, VECTOR, BLOB) work; pypaimon's pyarrow join refuses them.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

import pyarrow as pa

from .._internal._arrow import CapsuleStream, stream_reader
from .._internal._lib import native
from .._internal._time_travel import READ_SCHEMA_ID
from ..catalog.catalog import CatalogFactory
from ..table.table import Table

OnSpec = Union[str, Sequence[str]]

# Removed before a side is pinned to its latest snapshot: time travel is ignored, as in
# pypaimon (join_common.pin_latest_snapshot).
_UNPIN_KEYS = ("scan.mode", "scan.snapshot-id", "scan.tag-name", "scan.watermark",
               "scan.timestamp", "scan.timestamp-millis", "incremental-between-timestamp",
               "scan.file-creation-time-millis", "scan.creation-time-millis")


def norm_on(on: OnSpec) -> List[str]:
    return [on] if isinstance(on, str) else list(on)


def _bucket_count(table: Table) -> Optional[int]:
    value = table.options.get("bucket")
    if value is None:
        return -1
    try:
        return int(value.strip())
    except ValueError:
        return None


def _bucket_keys(table: Table) -> List[str]:
    """The explicit ``bucket-key`` option (comma-split), else primary keys minus partition
    keys (pypaimon's ``TableSchema.bucket_keys``)."""
    schema = table.table_schema
    configured = schema.options.get("bucket-key")
    if configured and configured.strip():
        keys = [k.strip() for k in configured.split(",") if k.strip()]
        names = set(schema.field_names)
        missing = [k for k in keys if k not in names]
        if missing:
            raise ValueError(f"bucket-key references unknown columns: {missing}")
        return keys
    return [pk for pk in schema.primary_keys if pk not in schema.partition_keys]


def _bucketing(table: Table):
    return (_bucket_count(table), _bucket_keys(table),
            table.table_schema.options.get("bucket-function.type", "default"))


def _key_type(table: Table, column: str) -> str:
    by_name = {f.name: f for f in table.fields}
    return str(by_name[column].type).replace(" NOT NULL", "")


@dataclass
class BucketSide:
    """One side of the plan: the table pinned to its latest snapshot, its read fields, the
    schema id it was planned with, and its splits by bucket (native splits)."""
    identifier: str
    table: Table
    read_fields: List[str]
    schema_id: int
    by_bucket: Dict[int, List[Any]] = field(default_factory=dict)

    def rows(self, bucket: int) -> int:
        return sum(s.row_count for s in self.by_bucket.get(bucket, []))


@dataclass
class BucketJoinPlan:
    on: List[str]
    left: BucketSide
    right: BucketSide
    buckets: List[int]
    schema: pa.Schema  # the output schema


def _plan_side(identifier: str, catalog_options: Mapping[str, Any],
               projection: Optional[List[str]], expected_buckets: int) -> BucketSide:
    table = CatalogFactory.create(catalog_options).get_table(identifier)  # fresh, latest
    schema_id = table.table_schema.id
    read_fields = list(projection) if projection is not None else table.field_names
    side = BucketSide(identifier, table, read_fields, schema_id)
    snapshot = table.latest_snapshot()
    if snapshot is None:
        return side
    overrides: Dict[str, Optional[str]] = {k: None for k in _UNPIN_KEYS if k in table.options}
    overrides["scan.snapshot-id"] = str(snapshot.id)
    overrides[READ_SCHEMA_ID] = str(schema_id)  # the latest schema, even if newer than that
    pinned = table.copy(overrides)
    side.table = pinned
    stale = [t for t in native().live_total_buckets(pinned._native) if t != expected_buckets]
    if stale:
        raise ValueError(
            f"bucket_join needs {identifier} fully in bucket count {expected_buckets}, "
            f"but files exist under {sorted(stale)} (rescale in progress); rewrite first.")
    builder = pinned.new_read_builder()
    if projection is not None:
        builder = builder.with_projection(projection)
    for split in builder.new_scan().plan().splits():
        side.by_bucket.setdefault(split._native.bucket, []).append(split._native)
    return side


def plan_bucket_join(left: str, right: str, catalog_options: Mapping[str, Any], *,
                     on: OnSpec, left_projection: Optional[List[str]] = None,
                     right_projection: Optional[List[str]] = None,
                     join_type: str = "inner") -> BucketJoinPlan:
    """The driver side of bucket_join: pypaimon's checks in its order, then each side pinned
    to its own latest snapshot and planned into splits by bucket."""
    on_cols = norm_on(on)
    catalog = CatalogFactory.create(catalog_options)
    ltable, rtable = catalog.get_table(left), catalog.get_table(right)
    lcount, lkey, lfunc = _bucketing(ltable)
    rcount, rkey, rfunc = _bucketing(rtable)
    if ltable.partition_keys or rtable.partition_keys:
        raise ValueError(
            "bucket_join does not support partitioned tables yet; got partition keys "
            f"{left}={ltable.partition_keys}, {right}={rtable.partition_keys}.")
    if not lcount or lcount <= 0 or not rcount or rcount <= 0:
        raise ValueError(
            "bucket_join requires both tables to be fixed-bucket (bucket > 0); "
            f"got {left}={lcount}, {right}={rcount}.")
    if lcount != rcount:
        raise ValueError(
            f"bucket_join requires the same bucket count; {left}={lcount}, {right}={rcount}.")
    if lkey != rkey:
        raise ValueError(
            f"bucket_join requires the same bucket-key; {left}={lkey}, {right}={rkey}.")
    if lfunc != rfunc:
        raise ValueError(
            f"bucket_join requires the same bucket-function.type; {left}={lfunc}, {right}={rfunc}.")
    if on_cols != lkey:
        raise ValueError(
            f"bucket_join requires the join key to be the bucket-key {lkey}; got on={on_cols}. "
            "Equal keys only co-locate by bucket when joining on the bucket-key "
            "(the comparison is order-sensitive for composite keys).")
    mismatch = [(c, _key_type(ltable, c), _key_type(rtable, c)) for c in on_cols
                if _key_type(ltable, c) != _key_type(rtable, c)]
    if mismatch:
        raise ValueError(
            "bucket_join requires the bucket-key columns to have the same type on both "
            f"sides; mismatched (column, left, right): {mismatch}.")
    if join_type != "inner":
        raise ValueError(
            f"bucket_join currently supports only join_type='inner'; got {join_type!r}.")
    if left_projection is not None and not set(on_cols) <= set(left_projection):
        raise ValueError(
            f"left_projection must include the join key {on_cols}; got {left_projection}.")
    if right_projection is not None and not set(on_cols) <= set(right_projection):
        raise ValueError(
            f"right_projection must include the join key {on_cols}; got {right_projection}.")
    for side, table, projection in ((left, ltable, left_projection),
                                    (right, rtable, right_projection)):
        unknown = [c for c in projection or () if c not in table.field_names]
        if unknown:  # before the shared-column check, which would blame the other side
            raise ValueError(f"bucket_join projection of {side} names columns {unknown} that "
                             f"{side} does not have; its columns: {table.field_names}.")
    lcols = left_projection if left_projection is not None else ltable.field_names
    rcols = right_projection if right_projection is not None else rtable.field_names
    collisions = sorted((set(lcols) & set(rcols)) - set(on_cols))
    if collisions:
        raise ValueError(
            f"bucket_join sides must not share columns other than the join key {on_cols}; "
            f"both have {collisions}. Project or rename them away.")

    lside = _plan_side(left, catalog_options, left_projection, lcount)
    rside = _plan_side(right, catalog_options, right_projection, rcount)
    buckets = sorted(set(lside.by_bucket) & set(rside.by_bucket))
    lschema = lside.table.read_schema(lside.read_fields)
    rschema = rside.table.read_schema(rside.read_fields)
    fields = list(lschema) + [f for f in rschema if f.name not in on_cols]
    return BucketJoinPlan(on_cols, lside, rside, buckets, pa.schema(fields))


def check_schema(identifier: str, catalog_options: Mapping[str, Any], schema_id: int) -> None:
    """Fails when the table's schema moved after planning (pypaimon's worker check)."""
    table = CatalogFactory.create(catalog_options).get_table(identifier)
    if table.table_schema.id != schema_id:
        raise ValueError(f"{identifier} schema changed during bucket_join (planned {schema_id}, "
                         f"now {table.table_schema.id}); retry.")


def join_bucket(on: List[str], left_table: Any, left_fields: List[str], left_splits: List[Any],
                right_table: Any, right_fields: List[str], right_splits: List[Any],
                build: str) -> pa.RecordBatchReader:
    """One bucket: the ``build`` side ("left"/"right") read into memory, the other streamed
    through the native hash join. Tables and splits are native objects."""
    lcap = native().read(left_table, left_splits, left_fields, None, None)
    rcap = native().read(right_table, right_splits, right_fields, None, None)
    out = native().hash_join_inner(CapsuleStream(lcap), CapsuleStream(rcap), on, on, build)
    return stream_reader(out)


def build_side(plan: BucketJoinPlan, bucket: int) -> str:
    """The smaller side of a bucket by planned rows (ties: the left)."""
    return "right" if plan.right.rows(bucket) < plan.left.rows(bucket) else "left"


def check_schemas(plan: BucketJoinPlan, options: Mapping[str, Any]) -> None:
    """Both sides still have their planned schemas (ValueError otherwise)."""
    check_schema(plan.left.identifier, options, plan.left.schema_id)
    check_schema(plan.right.identifier, options, plan.right.schema_id)


def join_one(plan: BucketJoinPlan, bucket: int) -> pa.RecordBatchReader:
    """One bucket of ``plan`` in this process, through the planned table handles."""
    return join_bucket(plan.on, plan.left.table._native, plan.left.read_fields,
                       plan.left.by_bucket[bucket], plan.right.table._native,
                       plan.right.read_fields, plan.right.by_bucket[bucket],
                       build_side(plan, bucket))


def join_planned(plan: BucketJoinPlan, catalog_options: Mapping[str, Any]) -> pa.Table:
    """Every bucket of a checked plan joined in this process, on one thread per CPU."""
    check_schemas(plan, catalog_options)
    workers = max(1, min(len(plan.buckets), os.cpu_count() or 1))
    if workers <= 1:
        parts = [join_one(plan, b).read_all() for b in plan.buckets]
    else:
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="bucket-join") as pool:
            parts = list(pool.map(lambda b: join_one(plan, b).read_all(), plan.buckets))
    parts = [t for t in parts if t.num_rows]
    return pa.concat_tables(parts) if parts else plan.schema.empty_table()


def assign_buckets(plan: BucketJoinPlan, num_tasks: int) -> List[List[int]]:
    """The common buckets spread over at most ``num_tasks`` tasks, largest buckets first, each
    to the task with the fewest planned rows so far."""
    sizes = {b: plan.left.rows(b) + plan.right.rows(b) for b in plan.buckets}
    tasks: List[List[int]] = [[] for _ in range(max(1, min(num_tasks, len(plan.buckets))))]
    load = [0] * len(tasks)
    for bucket in sorted(plan.buckets, key=lambda b: (-sizes[b], b)):
        i = load.index(min(load))
        tasks[i].append(bucket)
        load[i] += sizes[bucket]
    return [sorted(t) for t in tasks if t]


def task_buckets(plan: BucketJoinPlan, buckets: List[int]) -> List[Any]:
    """A task's buckets as plain data: per bucket (left splits, right splits) serialized, and
    the build side."""
    return [([s.serialize() for s in plan.left.by_bucket[b]],
             [s.serialize() for s in plan.right.by_bucket[b]], build_side(plan, b))
            for b in buckets]


def task_sides(plan: BucketJoinPlan) -> Tuple[Tuple[Any, ...], Tuple[Any, ...]]:
    """What a task needs of each side, as plain data (no plan, no Python Table: a task
    closure stays small and picklable): (identifier, native table, read fields, schema id)."""
    return tuple((side.identifier, side.table._native, side.read_fields, side.schema_id)
                 for side in (plan.left, plan.right))  # type: ignore[return-value]


def check_task_schemas(sides: Tuple[Tuple[Any, ...], Tuple[Any, ...]],
                       catalog_options: Mapping[str, Any]) -> None:
    """``check_schemas`` from ``task_sides``."""
    for identifier, _table, _fields, schema_id in sides:
        check_schema(identifier, catalog_options, schema_id)


def join_task_buckets(on: List[str], sides: Tuple[Tuple[Any, ...], Tuple[Any, ...]],
                      schema: pa.Schema, catalog_options: Mapping[str, Any],
                      buckets: List[Any], block_rows: int) -> Iterator[pa.Table]:
    """A task's loop (``task_buckets`` entries, on a worker): both schemas checked again, then
    each bucket joined as ``join_one`` does, the output gathered into tables of at least
    ``block_rows`` rows (the last may be smaller)."""
    check_task_schemas(sides, catalog_options)
    (_, left_table, left_fields, _), (_, right_table, right_fields, _) = sides
    pending: List[pa.RecordBatch] = []
    rows = 0
    for left_bytes, right_bytes, build in buckets:
        left_splits = [native().Split.deserialize(b) for b in left_bytes]
        right_splits = [native().Split.deserialize(b) for b in right_bytes]
        reader = join_bucket(on, left_table, left_fields, left_splits, right_table,
                             right_fields, right_splits, build)
        for batch in reader:
            if batch.num_rows:
                pending.append(batch)
                rows += batch.num_rows
            if rows >= block_rows:
                yield pa.Table.from_batches(pending, schema=schema)
                pending, rows = [], 0
    yield pa.Table.from_batches(pending, schema=schema)
