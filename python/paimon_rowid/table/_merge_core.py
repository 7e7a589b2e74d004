"""The engine of ``merge_into`` (embedded and local), shared by ``paimon_rowid.merge_into``,
``BatchTableUpdate.merge_into`` and the Ray driver: one *round*, which matches the source
against one snapshot of the target (``_merge_plan`` says what to match and write) and writes
the round's files (commit messages), committing nothing. docs/merge-into.md.

A round of the generic path:
  1. the target's key columns and ``_ROW_ID`` are read (pruned by the source's key range, or by
     its row ids when the key is ``_ROW_ID``) and joined with the source's keys, once (one join
     feeds the update, delete and insert branches; the source is read once);
  2. the target columns the clauses need are fetched for the matched rows only, by row id;
  3. clause conditions are evaluated in order (DataFusion; first TRUE wins, NULL falls through);
  4. updates go through the row-id update kernel (one partial-column file per touched file
     group), deletes through deletion vectors, inserts through the append writer.
The self-merge (source == target, on ``_ROW_ID``) streams the target instead: no join, batch by
batch into the update kernel, callables allowed.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._internal._arrow import UserStream, whole_table
from .._internal._lib import native
from .._internal._time_travel import pin_snapshot
from . import _merge_condition as conditions
from ._merge_plan import (
    DEDUPLICATE,
    MergePlan,
    check_source_columns,
    join_key,
    prepare_plan,
    self_merge_source_names,
)
from .merge_clauses import (
    ROW_ID,
    Clause,
    LiteralValue,
    SourceColumnRef,
    TargetColumnRef,
    WhenMatched,
    WhenNotMatched,
    check_clause_order,
    normalize_on,
)
from .write import BatchTableWrite

__all__ = ["DEDUPLICATE", "MergePlan", "RoundResult", "check_source_columns", "join_key",
           "prepare_plan",
           "self_merge_source_names", "run_round", "local_merge_into", "assign_clauses",
           "update_rows", "delete_ids", "insert_rows"]


# ------------------------------------------------------------------------------ one round


@dataclass
class RoundResult:
    messages: List[Any]  # native CommitMessages, updates first
    deferred_deletes: Optional[np.ndarray] = None  # ids left to the caller to delete
    num_updated: int = 0
    num_deleted: int = 0
    num_inserted: int = 0


def value_array(value: Any, frame: pa.Table, rows: np.ndarray, data_type: pa.DataType,
                 read_columns: Sequence[str]) -> pa.Array:
    """One SET value for ``rows`` of ``frame`` (``s.*``/``t.*`` columns), in the column's type
    (a safe cast, as pypaimon's)."""
    n = len(rows)
    if isinstance(value, SourceColumnRef):
        array = frame.column("s." + value.column).take(rows)
    elif isinstance(value, TargetColumnRef):
        array = frame.column("t." + value.column).take(rows)
    elif isinstance(value, LiteralValue):
        literal = value.value
        if isinstance(literal, pa.Scalar):
            literal = literal.as_py()
        array = pa.nulls(n, data_type) if literal is None else \
            pa.repeat(pa.scalar(literal, type=data_type), n)
    else:  # a callable (self-merge): the matched rows' read_columns + _ROW_ID
        arg = pa.table([frame.column("t." + c).take(rows) for c in read_columns] +
                       [frame.column("t." + ROW_ID).take(rows)],
                       names=list(read_columns) + [ROW_ID])
        array = value(arg)
        if not isinstance(array, (pa.Array, pa.ChunkedArray)):
            raise ValueError(
                "Callable SET values must return a pyarrow.Array or pyarrow.ChunkedArray.")
        if len(array) != n:
            raise ValueError(f"Callable SET result length must match matched row count: "
                             f"{len(array)} != {n}.")
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    return array if array.type == data_type else array.cast(data_type, safe=True)


def assign_clauses(clauses: Sequence[Clause], frame: pa.Table,
                    evaluator: conditions.ConditionEvaluator) -> np.ndarray:
    """The clause each row of ``frame`` takes (-1: none): in order, first TRUE wins; each
    condition is evaluated only on the rows no earlier clause took."""
    action = np.full(frame.num_rows, -1, dtype=np.int64)
    remaining = np.arange(frame.num_rows)
    for i, clause in enumerate(clauses):
        if not len(remaining):
            break
        if clause.condition is None:
            hit = remaining
        else:
            mask = evaluator.true_mask(frame.take(remaining), clause.condition)
            hit = remaining[mask.to_numpy(zero_copy_only=False)]
        action[hit] = i
        remaining = np.setdiff1d(remaining, hit, assume_unique=True)
    return action


def _clause_rows(action: np.ndarray, clauses: Sequence[Clause], delete: bool):
    for i, clause in enumerate(clauses):
        if clause.delete == delete:
            rows = np.nonzero(action == i)[0]
            if len(rows):
                yield clause, rows


def update_rows(plan: MergePlan, frame: pa.Table, action: np.ndarray,
                  types: Dict[str, pa.DataType]) -> Optional[pa.Table]:
    parts = []
    for clause, rows in _clause_rows(action, plan.matched, delete=False):
        arrays = [frame.column("t." + ROW_ID).take(rows)]
        for col in plan.union:
            value = clause.spec.get(col, TargetColumnRef(col))
            arrays.append(value_array(value, frame, rows, types[col], plan.read_columns))
        parts.append(pa.table(arrays, names=[ROW_ID] + plan.union))
    return pa.concat_tables(parts) if parts else None


def delete_ids(plan: MergePlan, frame: pa.Table, action: np.ndarray) -> np.ndarray:
    ids = [frame.column("t." + ROW_ID).take(rows).to_numpy()
           for _, rows in _clause_rows(action, plan.matched, delete=True)]
    return np.concatenate(ids) if ids else np.empty(0, np.int64)


def insert_rows(plan: MergePlan, frame: pa.Table, action: np.ndarray,
                  schema: pa.Schema) -> Optional[pa.Table]:
    """The rows the insert clauses write, in ``frame``'s row order whatever clause took them
    (row ``i`` of the result is ``frame`` row ``np.nonzero(action >= 0)[0][i]``): inserted
    rows take new row ids in the source's order, as in pypaimon."""
    parts = []
    taken = []
    for i, clause in enumerate(plan.not_matched):
        rows = np.nonzero(action == i)[0]
        if not len(rows):
            continue
        arrays = []
        for f in schema:
            value = clause.spec.get(f.name)
            arrays.append(pa.nulls(len(rows), f.type) if value is None else
                          value_array(value, frame, rows, f.type, ()))
        parts.append(pa.table(arrays, schema=schema))
        taken.append(rows)
    if not parts:
        return None
    out = pa.concat_tables(parts)
    if len(parts) > 1:
        out = out.take(np.argsort(np.concatenate(taken), kind="stable"))
    return out


class _Writes:
    """The files a round writes, deleted again if the round fails."""

    def __init__(self, table: Any, defer_deletes: bool = False) -> None:
        self.table = table
        self.defer_deletes = defer_deletes
        self.result = RoundResult([])

    def update(self, pinned: Any, rows: Any, plan: MergePlan) -> None:
        # MERGE may set BLOB columns (pypaimon's can; its update_by_row_id cannot): they go to
        # .blob files over each touched group beside the partial Parquet file.
        cols = native().validate_update_columns(pinned._native, plan.union,
                                                pinned.identifier, "merge_into", allow_blob=True)
        stream = UserStream.of(rows)
        written, count = stream.call(lambda reader: native().update_by_row_id(
            pinned._native, reader, cols, pinned.identifier, reject_deleted=False,
            allow_blob=True))
        self.result.messages[:0] = list(written)  # update messages first (the rebase base)
        self.result.num_updated += int(count)

    def delete(self, pinned: Any, ids: np.ndarray) -> None:
        if self.defer_deletes:
            self.result.deferred_deletes = ids
            self.result.num_deleted += len(ids)
        elif len(ids):
            self.result.messages.extend(native().delete_by_row_id(
                pinned._native, [int(i) for i in np.unique(ids)]))
            self.result.num_deleted += len(ids)

    def insert(self, rows: pa.Table) -> None:
        write = BatchTableWrite(self.table)
        write.write_arrow(rows)
        self.result.messages.extend(m._native for m in write.prepare_commit())
        self.result.num_inserted += rows.num_rows

    def abort(self) -> None:
        if self.result.messages:
            native().Committer(self.table._native, "merge_into-abort", None).abort(
                self.result.messages)
            self.result.messages = []


def run_round(plan: MergePlan, table: Any, snapshot: Any, source: Optional[pa.Table],
              evaluator: conditions.ConditionEvaluator, *,
              row_ranges: Optional[List[Tuple[int, int]]] = None,
              defer_deletes: bool = False) -> RoundResult:
    """Matches ``source`` (None for a self-merge) against ``snapshot`` of ``table`` (None: no
    snapshot) and writes the round's files. A self-merge may be limited to ``row_ranges``
    (whole file groups: a Ray task's share) and leave its deletes to the caller
    (``defer_deletes``: one index file per bucket must hold all of them). On error the files
    written are deleted."""
    writes = _Writes(table, defer_deletes)
    try:
        if plan.self_merge:
            if snapshot is not None and (snapshot.total_record_count or 0) > 0:
                _self_merge(plan, pin_snapshot(table, snapshot), writes, evaluator, row_ranges)
        else:
            _generic_merge(plan, table, snapshot, source, writes, evaluator)
    except BaseException:
        writes.abort()
        raise
    return writes.result


def _check_distinct(ids: np.ndarray) -> None:
    if len(ids) and len(np.unique(ids)) != len(ids):
        raise ValueError(DEDUPLICATE)


def _generic_merge(plan: MergePlan, table: Any, snapshot: Any, source: pa.Table,
                   writes: _Writes, evaluator: conditions.ConditionEvaluator) -> None:
    if source.num_rows == 0:
        return
    schema = table.arrow_schema
    types = {f.name: f.type for f in schema}
    types[ROW_ID] = pa.int64()
    empty_target = snapshot is None or (
        not plan.cardinality_first and (snapshot.total_record_count or 0) == 0)
    if empty_target:
        unmatched = np.arange(source.num_rows)
    else:
        pinned = pin_snapshot(table, snapshot)
        s_pos, t_ids, unmatched = _join(plan, pinned, source, types)
        if len(t_ids):
            _matched_branch(plan, pinned, source, s_pos, t_ids, writes, evaluator, types)
    if plan.not_matched and len(unmatched):
        names = plan.source_columns()
        frame = pa.table([source.column(c).take(unmatched) for c in names],
                         names=["s." + c for c in names])
        action = assign_clauses(plan.not_matched, frame, evaluator)
        rows = insert_rows(plan, frame, action, schema)
        if rows is not None:
            writes.insert(rows)


def key_bounds(values: Any) -> Optional[Tuple[Any, Any]]:
    """(min, max) of the non-NULL ``values`` (an Arrow array or chunked array) as Python
    values, or None when the type has no order worth pruning by or every value is NULL."""
    if not (pa.types.is_integer(values.type) or pa.types.is_string(values.type)
            or pa.types.is_large_string(values.type) or pa.types.is_date(values.type)):
        return None
    bounds = pc.min_max(values)
    low, high = bounds["min"].as_py(), bounds["max"].as_py()
    return None if low is None else (low, high)


def prune_target_scan(pinned: Any, builder: Any, key: str,
                      bounds: Optional[Tuple[Any, Any]]) -> Tuple[Any, Any]:
    """(read builder, scan) of the target limited to the rows whose single key ``key`` lies
    within the source's ``bounds``: a row-id range for ``_ROW_ID`` (only the owning file
    groups are read), else ``key BETWEEN min AND max`` (files pruned by their statistics).
    Rows outside the bounds cannot match, so the join's result is the same."""
    if bounds is not None:
        if key == ROW_ID:
            low, high = max(int(bounds[0]), 0), int(bounds[1])
            return builder, builder.new_scan().with_row_ranges(
                [(low, high)] if low <= high else [])
        builder = builder.with_filter(
            pinned.new_read_builder().new_predicate_builder().between(key, *bounds))
    return builder, builder.new_scan()


def _row_ranges(ids: np.ndarray) -> List[Tuple[int, int]]:
    ids = np.unique(ids[ids >= 0])
    if not len(ids):
        return []
    cuts = np.nonzero(np.diff(ids) != 1)[0]
    starts = np.concatenate(([ids[0]], ids[cuts + 1]))
    ends = np.concatenate((ids[cuts], [ids[-1]]))
    return list(zip(starts.tolist(), ends.tolist()))


def _join(plan: MergePlan, pinned: Any, source: pa.Table, types: Dict[str, pa.DataType]):
    """(source positions, target row ids) of every matching pair, ordered by source position,
    and the source positions without a match. NULL keys never match."""
    keys = [f"__k{i}" for i in range(len(plan.target_keys))]
    left_cols = []
    for s_key, t_key in zip(plan.source_keys, plan.target_keys):
        left_cols.append(join_key(source.column(s_key), types[t_key], s_key, t_key))
    left = pa.table(left_cols + [pa.array(np.arange(source.num_rows))],
                    names=keys + ["__s"])
    builder = pinned.new_read_builder().with_projection(
        list(dict.fromkeys([k for k in plan.target_keys] + [ROW_ID])))
    scan = builder.new_scan()
    if plan.target_keys == [ROW_ID]:
        ids = left.column(keys[0]).to_numpy(zero_copy_only=False)
        ids = ids[~np.isnan(ids)] if ids.dtype.kind == "f" else ids
        scan = scan.with_row_ranges(_row_ranges(np.asarray(ids, dtype=np.int64)))
    elif len(plan.target_keys) == 1:
        builder, scan = prune_target_scan(pinned, builder, plan.target_keys[0],
                                          key_bounds(left.column(keys[0])))
    target = builder.new_read().to_arrow(scan.plan().splits())
    right = pa.table([target.column(k) for k in plan.target_keys] + [target.column(ROW_ID)],
                     names=keys + ["__t"])
    if right.num_rows > 2 * left.num_rows:
        # A semi-join first: each target key is probed against a hash set of the source's keys
        # (one vectorised pass), so the join builds its table on the few candidates rather
        # than on the whole target (3-5x less time for 100k keys into 1M rows).
        mask = None
        for k in keys:
            hit = pc.is_in(right.column(k), value_set=pc.unique(left.column(k)).drop_null())
            mask = hit if mask is None else pc.and_(mask, hit)
        right = right.filter(mask)
    joined = left.join(right, keys=keys, join_type="left outer", use_threads=False)
    joined = joined.sort_by([("__s", "ascending"), ("__t", "ascending")])
    t_ids = joined.column("__t")
    hit = pc.is_valid(t_ids)
    s_pos = joined.column("__s").filter(hit).to_numpy()
    unmatched = joined.column("__s").filter(pc.invert(hit)).to_numpy()
    return s_pos, t_ids.filter(hit).to_numpy(), unmatched


def _fetch_target(pinned: Any, ids: np.ndarray, columns: List[str]) -> pa.Table:
    """``columns`` of the rows ``ids`` (any order, repeats allowed), aligned with ``ids``:
    read by row id, touching only the row groups holding them."""
    wanted = np.unique(ids)
    snapshot = pinned.resolve_snapshot()
    index = native().RowIdIndex.build(pinned._native, snapshot.id)
    capsule = native().read_by_row_id(pinned._native, pa.table({ROW_ID: wanted}).to_reader(),
                                      ROW_ID, columns, index, 0)
    got = whole_table(capsule).sort_by(ROW_ID)
    got_ids = got.column(ROW_ID).to_numpy()
    if len(got_ids) != len(wanted):
        raise RuntimeError(f"merge_into read {len(got_ids)} of {len(wanted)} matched target rows "
                           "back by row id")
    return got.take(np.searchsorted(got_ids, ids))


def _matched_branch(plan: MergePlan, pinned: Any, source: pa.Table, s_pos: np.ndarray,
                    t_ids: np.ndarray, writes: _Writes,
                    evaluator: conditions.ConditionEvaluator,
                    types: Dict[str, pa.DataType]) -> None:
    if not plan.matched:
        return
    if not plan.union and not any(c.delete for c in plan.matched):
        if plan.cardinality_first:  # pypaimon's local merge still checks the cardinality
            _check_distinct(t_ids)
        return  # every update is an identity assignment: nothing to do
    if plan.cardinality_first:
        sole_delete = len(plan.matched) == 1 and plan.matched[0].delete and \
            plan.matched[0].condition is None
        if not sole_delete:
            _check_distinct(t_ids)
    columns = [source.column(c).take(s_pos) for c in plan.source_columns()]
    names = ["s." + c for c in plan.source_columns()]
    target_cols = plan.matched_target_columns()
    if target_cols:
        fetched = _fetch_target(pinned, t_ids, target_cols)
        columns += [fetched.column(c) for c in target_cols]
        names += ["t." + c for c in target_cols]
    frame = pa.table(columns + [pa.array(t_ids, pa.int64())], names=names + ["t." + ROW_ID])
    action = assign_clauses(plan.matched, frame, evaluator)
    if not plan.union:  # deletes only: rows an identity update took do nothing
        is_delete = np.array([c.delete for c in plan.matched])
        action[(action >= 0) & ~is_delete[np.maximum(action, 0)]] = -1
    acted = t_ids[action >= 0]
    if not plan.cardinality_first:
        _check_distinct(acted)
    updates = update_rows(plan, frame, action, types) if plan.union else None
    deletes = delete_ids(plan, frame, action)
    if updates is not None:
        writes.update(pinned, updates, plan)
    writes.delete(pinned, np.unique(deletes) if plan.cardinality_first else deletes)


def _self_merge_predicate(plan: MergePlan, pinned: Any) -> Optional[Any]:
    """The OR of the matched clauses' conditions as a scan predicate (pruning files and row
    groups by statistics, and rows before they reach Python), when every clause has a
    condition that converts (memo §1.10); the conditions still run on the rows read."""
    if not plan.matched or any(c.condition is None for c in plan.matched):
        return None
    pb = pinned.new_read_builder().new_predicate_builder()
    parts = [conditions.scan_predicate(c.condition, pinned.arrow_schema, pb)
             for c in plan.matched if c.condition is not None]
    if any(p is None for p in parts):
        return None
    return parts[0] if len(parts) == 1 else pb.or_predicates(parts)


def _self_merge(plan: MergePlan, pinned: Any, writes: _Writes,
                evaluator: conditions.ConditionEvaluator,
                row_ranges: Optional[List[Tuple[int, int]]] = None) -> None:
    """Streams the target's needed columns batch by batch through the clauses: update rows go
    straight into the update kernel, delete ids are collected."""
    schema = pinned.arrow_schema
    types = {f.name: f.type for f in schema}
    columns = plan.self_merge_columns()
    builder = pinned.new_read_builder().with_projection(columns + [ROW_ID])
    predicate = _self_merge_predicate(plan, pinned)
    if predicate is not None:
        builder = builder.with_filter(predicate)
    scan = builder.new_scan()
    if row_ranges is not None:
        scan = scan.with_row_ranges(row_ranges)
    reader = builder.new_read().to_arrow_batch_reader(scan.plan().splits())
    deletes: List[np.ndarray] = []
    update_schema = pa.schema([pa.field(ROW_ID, pa.int64(), nullable=False)] +
                              [pa.field(c, types[c]) for c in plan.union])

    def frames() -> Iterator[Tuple[pa.Table, np.ndarray]]:
        for batch in reader:
            if not batch.num_rows:
                continue
            arrays: List[Any] = []
            names: List[str] = []
            for c in columns + [ROW_ID]:
                arrays += [batch.column(c), batch.column(c)]
                names += ["s." + c, "t." + c]
            frame = pa.table(arrays, names=names)
            action = assign_clauses(plan.matched, frame, evaluator)
            deletes.append(delete_ids(plan, frame, action))
            yield frame, action

    if plan.union:
        def update_batches() -> Iterator[pa.RecordBatch]:
            for frame, action in frames():
                rows = update_rows(plan, frame, action, types)
                if rows is not None:
                    yield from rows.cast(update_schema).to_batches()

        writes.update(pinned, pa.RecordBatchReader.from_batches(update_schema,
                                                                update_batches()), plan)
    else:
        for _ in frames():
            pass
    writes.delete(pinned, np.concatenate(deletes) if deletes else np.empty(0, np.int64))


# ------------------------------------------------------------------------------ local API


def _is_table_handle(source: Any) -> bool:
    return hasattr(source, "new_read_builder") and hasattr(source, "resolve_snapshot")


def _same_table(a: Any, b: Any) -> bool:
    return a is b or (_is_table_handle(b) and a.path == b.path and a.identifier == b.identifier)


def local_merge_into(table: Any, source: Any, on: Any, when_matched: Sequence[WhenMatched],
                     when_not_matched: Sequence[WhenNotMatched]) -> List[Any]:
    """pypaimon's local MERGE (``BatchTableUpdate.merge_into``): the round's native messages,
    nothing committed. Its rules differ from the Ray call's: the base is taken before the
    checks; a source is a pyarrow Table, a pandas DataFrame or a table handle (read whole);
    one target row matched by several source rows is an error before conditions run (but a
    sole unconditional DELETE collapses them); no callables."""
    snapshot = table.resolve_snapshot()
    when_matched, when_not_matched = list(when_matched or ()), list(when_not_matched or ())
    check_clause_order(when_matched, when_not_matched)
    target_keys, source_keys = normalize_on(on)
    self_merge = _is_table_handle(source) and _same_table(table, source) and \
        target_keys == [ROW_ID] and source_keys == [ROW_ID]
    plan = prepare_plan(table, "target table", target_keys, source_keys, when_matched,
                        when_not_matched, self_merge=self_merge, cardinality_first=True,
                        allow_callables=False)
    data: Optional[pa.Table] = None
    if self_merge:
        check_source_columns(plan, table, self_merge_source_names(table), table.identifier)
    else:
        if _is_table_handle(source):
            read = source.new_read_builder()
            data = read.new_read().to_arrow(read.new_scan().plan().splits())
        elif isinstance(source, pa.Table):
            data = source
        elif type(source).__name__ == "DataFrame" and \
                type(source).__module__.startswith("pandas"):
            data = pa.Table.from_pandas(source, preserve_index=False)
        else:
            raise TypeError("source must be a pyarrow.Table, a pandas.DataFrame, or a Paimon "
                            f"table; got {type(source).__name__}.")
        check_source_columns(plan, table, data.column_names, table.identifier)
    return run_round(plan, table, snapshot, data, conditions.ConditionEvaluator()).messages
