"""What the embedded and the Ray ``range_join`` share (one implementation, two doors:
``jobs/range_join.py`` runs the ranges on threads, ``ray/range_join.py`` as Ray read tasks):
the checks, the plan, and the work of one range. ``range_join`` is an inner equi-join of two
tables clustered by the first join key, with no shuffle (pypaimon 2.1.0's
``pypaimon.ray.range_join`` contract; docs/range-join.md).

Planning is native (``join/range_plan.h``): each side is pinned to its latest snapshot and
planned into one split per file group with the range key's (lo, hi) from value stats, else
Parquet footers, else unknown; the key space is cut into half-open ranges weighted by rows,
with fewer ranges when unknown or wide splits would be re-read too often. Each range then
reads the splits of each side that overlap it, keeps ``lo <= key < hi`` and non-NULL keys,
and joins (``join_range``, whichever door reads the rows). A matching key lies in exactly one
range, so the result does not depend on ``num_ranges``.

Cost: one manifest read per side plus one Parquet footer per file without usable stats; each
range holds its overlapping splits of both sides (whole splits, all projected columns) and its
join output in memory.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import pyarrow as pa
import pyarrow.compute as pc

from .._internal._arrow import stream_reader
from .._internal._lib import native
from ..catalog.catalog import CatalogFactory
from ..table.predicate import PredicateBuilder
from ..table.scan import Split

OnSpec = Union[str, Sequence[str]]

_MAX_RANGES = 512
_NAME = "range_join"
# Time-travel and scan-mode keys dropped to pin a side to its latest snapshot (pypaimon's
# pin_latest_snapshot); time travel in the catalog or table options is ignored.
_TIME_TRAVEL_KEYS = ("scan.mode", "scan.snapshot-id", "scan.tag-name", "scan.watermark",
                     "scan.timestamp", "scan.timestamp-millis", "incremental-between-timestamp",
                     "scan.file-creation-time-millis", "scan.creation-time-millis")


def _norm_on(on: OnSpec) -> List[str]:
    return [on] if isinstance(on, str) else list(on)


def _key_type(table, column: str) -> str:
    # The logical type without nullability: a present key compares the same either way.
    field = next(f for f in table.fields if f.name == column)
    return str(field.type).replace(" NOT NULL", "")


def _normalize_keys(on: Optional[OnSpec], left_on: Optional[OnSpec],
                    right_on: Optional[OnSpec], join_type: str) -> Tuple[List[str], List[str]]:
    """Validations 2-5 of the contract (before any table is loaded)."""
    if (on is None) == (left_on is None and right_on is None):
        raise ValueError(f"{_NAME} requires exactly one of on= or left_on=/right_on=.")
    if on is not None:
        lkeys = rkeys = _norm_on(on)
    else:
        if left_on is None or right_on is None:
            raise ValueError(f"{_NAME} requires both left_on= and right_on=.")
        lkeys, rkeys = _norm_on(left_on), _norm_on(right_on)
    if len(lkeys) != len(rkeys) or not lkeys:
        raise ValueError(f"{_NAME} join keys must pair up non-empty; got left_on={lkeys}, "
                         f"right_on={rkeys}.")
    if join_type != "inner":
        raise ValueError(f"{_NAME} currently supports only join_type='inner'; got {join_type!r}.")
    return list(lkeys), list(rkeys)


def _validate_tables(ltable, rtable, lkeys: List[str], rkeys: List[str],
                     left_projection: Optional[List[str]], right_projection: Optional[List[str]],
                     left_partitions: Optional[Mapping[str, Any]],
                     right_partitions: Optional[Mapping[str, Any]]) -> None:
    """Validations 6-12, in pypaimon's order and words."""
    for name, table, parts in (("left_partitions", ltable, left_partitions),
                               ("right_partitions", rtable, right_partitions)):
        bad = sorted(set(parts) - set(table.partition_keys)) if parts else []
        if bad:
            raise ValueError(f"{_NAME} {name} keys {bad} are not partition columns; "
                             f"partition columns are {list(table.partition_keys)}.")
    lnames, rnames = set(ltable.field_names), set(rtable.field_names)
    missing = [c for c in lkeys if c not in lnames] + [c for c in rkeys if c not in rnames]
    if missing:
        raise ValueError(f"{_NAME} keys not found in table schema: {missing}.")
    mismatch = [(lc, rc, _key_type(ltable, lc), _key_type(rtable, rc))
                for lc, rc in zip(lkeys, rkeys)
                if _key_type(ltable, lc) != _key_type(rtable, rc)]
    if mismatch:
        raise ValueError(f"{_NAME} key columns must have the same type on both sides; "
                         f"mismatched (left, right, left type, right type): {mismatch}.")
    for column in lkeys:
        text = _key_type(ltable, column).upper()
        if "<" in text or text.startswith("VARIANT"):
            raise ValueError(f"{_NAME} join key {column!r} must not be a nested/complex type; "
                             f"got {text}.")
    range_type = _key_type(ltable, lkeys[0]).upper()
    reason = None
    if range_type.startswith(("FLOAT", "DOUBLE")):
        reason = "FLOAT/DOUBLE"  # NaN falls out of every range but matches in the join
    elif "LOCAL TIME ZONE" in range_type or "TIMESTAMP_LTZ" in range_type:
        reason = "TIMESTAMP WITH LOCAL TIME ZONE"
    if reason:
        raise ValueError(f"{_NAME} range key {lkeys[0]!r} must not be {reason}; "
                         "use an integer/string/date/timestamp key.")
    if left_projection is not None and not set(lkeys) <= set(left_projection):
        raise ValueError(f"left_projection must include the join keys {lkeys}; "
                         f"got {left_projection}.")
    if right_projection is not None and not set(rkeys) <= set(right_projection):
        raise ValueError(f"right_projection must include the join keys {rkeys}; "
                         f"got {right_projection}.")
    lcols = left_projection if left_projection is not None else ltable.field_names
    rcols = right_projection if right_projection is not None else rtable.field_names
    collisions = sorted(set(lcols) & (set(rcols) - set(rkeys)))
    if collisions:
        raise ValueError(f"{_NAME} output columns collide: {collisions}. The output keeps the "
                         "left key names and the right non-key columns; project or rename the "
                         "overlap away.")


def _check_num_ranges(num_ranges: Any, left_splits: int, right_splits: int) -> int:
    """Validation 13 (only reached when both sides have splits) and the [1, 512] cap."""
    if num_ranges is None:
        num_ranges = max(left_splits, right_splits)
    elif not isinstance(num_ranges, int) or num_ranges < 1:  # True passes, as 1
        raise ValueError(f"num_ranges must be an int >= 1; got {num_ranges!r}.")
    return max(1, min(_MAX_RANGES, int(num_ranges)))


@dataclass
class _Side:
    """One side, pinned: the table handle the plan and every read use, its read fields, its
    join keys and (after planning) its splits."""

    table: Any  # paimon_rowid.Table with time-travel options removed
    schema_id: int
    fields: List[str]
    keys: List[str]
    native_side: Any = None  # _native.RangeSide
    splits: List[Split] = field(default_factory=list)

    def read(self, splits: Sequence[Split]) -> pa.Table:
        read = self.table.new_read_builder().with_projection(self.fields).new_read()
        return read.to_arrow_batch_reader(splits).read_all()


def _pinned(catalog, identifier: str, projection: Optional[List[str]], keys: List[str]) -> _Side:
    # Dropping the time-travel keys makes the plan use the latest snapshot, and the read the
    # latest schema (pypaimon pins scan.snapshot-id = latest on a latest-schema handle).
    table = catalog.get_table(identifier)
    table = table.copy({key: None for key in _TIME_TRAVEL_KEYS})
    fields = list(projection) if projection is not None else table.field_names
    return _Side(table, table.table_schema.id, fields, keys)


def _partition_filter(side: _Side, partitions: Optional[Mapping[str, Any]]):
    if not partitions:
        return None
    fields = side.table.fields
    builder = PredicateBuilder(fields, [f.type.to_arrow() for f in fields])
    predicate = PredicateBuilder.and_predicates(
        [builder.is_null(c) if v is None else builder.equal(c, v) for c, v in partitions.items()])
    return None if predicate is None else predicate.to_native()


def _plan_side(side: _Side, partitions: Optional[Mapping[str, Any]]) -> None:
    native_table = side.table._native
    side.native_side = native().plan_range_side(native_table, side.keys[0],
                                                _partition_filter(side, partitions))
    side.splits = [Split(s, native_table) for s in side.native_side.splits()]


@dataclass
class _RangePlan:
    left: _Side
    right: _Side
    # (lo, hi, left split indices, right split indices); lo/hi are pyarrow scalars or None.
    tasks: List[Tuple[Any, Any, List[int], List[int]]]


def plan_range_join(left: str, right: str, catalog_options: Dict[str, str], *, on, left_on,
                    right_on, num_ranges, left_projection, right_projection, left_partitions,
                    right_partitions, join_type) -> _RangePlan:
    """Validates (contract rows 2-13) and plans; nothing is read yet."""
    lkeys, rkeys = _normalize_keys(on, left_on, right_on, join_type)
    catalog = CatalogFactory.create(catalog_options)
    lside = _pinned(catalog, left, left_projection, lkeys)
    rside = _pinned(catalog, right, right_projection, rkeys)
    _validate_tables(lside.table, rside.table, lkeys, rkeys, left_projection, right_projection,
                     left_partitions, right_partitions)
    _plan_side(lside, left_partitions)
    _plan_side(rside, right_partitions)
    if not lside.splits or not rside.splits:  # inner join: one empty side, empty result
        return _RangePlan(lside, rside, [])
    count = _check_num_ranges(num_ranges, len(lside.splits), len(rside.splits))
    tasks = native().plan_range_tasks(lside.native_side, rside.native_side, count)
    return _RangePlan(lside, rside, [(lo, hi, list(li), list(ri)) for lo, hi, li, ri in tasks])


def _restrict_to_range(table: pa.Table, column: str, lo: Any, hi: Any) -> pa.Table:
    """Rows with ``lo <= key < hi`` (a None end is unbounded); NULL keys always dropped (an
    inner join never matches them). Vectorised with Arrow compute."""
    key = table[column]
    mask = pc.is_valid(key)
    if lo is not None:
        mask = pc.and_(mask, pc.greater_equal(key, lo.cast(key.type)))
    if hi is not None:
        mask = pc.and_(mask, pc.less(key, hi.cast(key.type)))
    return table.filter(mask)


def _join_range(left_table: pa.Table, right_table: pa.Table, left_keys: List[str],
                right_keys: List[str]) -> pa.Table:
    """The inner equi-join of one range's rows, by the C++ hash join (join/hash_join.h):
    left columns in order, then the right non-key columns (right keys dropped even when
    named differently), NULL keys never matching, order unspecified. The smaller side is
    built; any payload type works (pyarrow's Table.join, which pypaimon uses, refuses nested
    non-key columns)."""
    build = "right" if right_table.num_rows < left_table.num_rows else "left"
    out = native().hash_join_inner(left_table, right_table, list(left_keys), list(right_keys),
                                   build)
    return stream_reader(out).read_all()


def join_range(lo: Any, hi: Any, left_keys: List[str], right_keys: List[str],
               left_rows: pa.Table, right_rows: pa.Table) -> pa.Table:
    """The work of one range, given the rows each side read from its overlapping splits: keep
    ``lo <= key < hi`` (non-NULL) on both sides, then the inner join. Both doors call it."""
    lt = _restrict_to_range(left_rows, left_keys[0], lo, hi)
    rt = _restrict_to_range(right_rows, right_keys[0], lo, hi)
    return _join_range(lt, rt, left_keys, right_keys)


def run_planned_range(plan: _RangePlan, task) -> pa.Table:
    """One range of ``plan`` in this process, read through the pinned sides (the embedded
    door)."""
    lo, hi, left_idx, right_idx = task
    return join_range(lo, hi, plan.left.keys, plan.right.keys,
                      plan.left.read([plan.left.splits[i] for i in left_idx]),
                      plan.right.read([plan.right.splits[i] for i in right_idx]))


def read_planned_side(catalog_options: Dict[str, str], identifier: str, schema_id: int,
                      fields: List[str], payload: List[bytes]) -> pa.Table:
    """One side's rows of a range where the plan's table handles are not at hand (a Ray
    worker): the table is reloaded, must still have the planned schema (pypaimon's "schema
    changed" error otherwise), and reads the serialized splits."""
    table = CatalogFactory.create(catalog_options).get_table(identifier)
    if table.table_schema.id != schema_id:
        # The plan's splits and projection belong to the planned schema: fail fast.
        raise ValueError(f"{identifier} schema changed during range_join (planned "
                         f"{schema_id}, now {table.table_schema.id}); retry.")
    table = table.copy({key: None for key in _TIME_TRAVEL_KEYS})
    splits = [Split.deserialize(b) for b in payload]
    read = table.new_read_builder().with_projection(fields).new_read()
    return read.to_arrow_batch_reader(splits).read_all()


def range_specs(plan: _RangePlan, left: str, right: str,
                catalog_options: Dict[str, str]) -> List[Dict[str, Any]]:
    """Each range of ``plan`` as plain data (picklable: serialized splits, names, schema ids)
    for ``run_range_spec`` on another process."""
    options = dict(catalog_options)
    specs = []
    for lo, hi, left_idx, right_idx in plan.tasks:
        specs.append({
            "lo": lo, "hi": hi, "left_keys": plan.left.keys, "right_keys": plan.right.keys,
            "left": {"catalog_options": options, "identifier": left,
                     "schema_id": plan.left.schema_id, "fields": plan.left.fields,
                     "payload": [plan.left.splits[i].serialize() for i in left_idx]},
            "right": {"catalog_options": options, "identifier": right,
                      "schema_id": plan.right.schema_id, "fields": plan.right.fields,
                      "payload": [plan.right.splits[i].serialize() for i in right_idx]},
        })
    return specs


def run_range_spec(spec: Dict[str, Any]) -> pa.Table:
    """One range from its ``range_specs`` entry (the Ray door's read task)."""
    return join_range(spec["lo"], spec["hi"], spec["left_keys"], spec["right_keys"],
                      read_planned_side(**spec["left"]), read_planned_side(**spec["right"]))


def empty_result(plan: _RangePlan) -> pa.Table:
    """The typed empty join of two empty reads (pypaimon's shape for 'nothing can match')."""
    return _join_range(plan.left.read([]), plan.right.read([]), plan.left.keys,
                       plan.right.keys)
