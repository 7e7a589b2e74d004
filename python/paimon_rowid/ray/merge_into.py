"""``merge_into`` on Ray: ``pypaimon.ray.merge_into``'s signature, clauses, validations and result,
with the engine of the embedded call (``paimon_rowid.table._merge_core``). docs/merge-into.md.

Where each merge runs:
- a source on the driver (a pyarrow Table, a pandas DataFrame, or a Dataset whose materialized
  Arrow bytes are at most ``driver_max_bytes``, default 256 MiB) is merged on the driver by the
  C++ kernels: a Ray job would only add task start-up to a join of that size;
- a larger Dataset (or table) source is executed **once** (materialized), joined with the
  target's keys by one Ray hash join that feeds all three branches, classified by tasks, and
  written by tasks (updates through the Ray row-id update pipeline, inserts by write tasks);
- the self-merge (source == target, ``on=["_ROW_ID"]``) streams the table through the clauses
  into the update kernel, no join, no shuffle: on the driver when the Arrow bytes of the
  columns it reads (rows x column widths) are at most ``driver_max_bytes``, else in one task
  per slice of file groups.
Deletes are written on the driver (one deletion-vector index file per bucket holds all of a
bucket's deletes). One commit on the driver for everything, re-run on a lost row-id conflict.
"""
from __future__ import annotations

import uuid
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._internal._lib import native
from .._internal._time_travel import pin_snapshot
from ..catalog.catalog import CatalogFactory
from ..jobs import _job_checks as jobs
from ..jobs.merge_into import commit_rounds, prepare, result_dict
from ..table import _merge_condition as conditions
from ..table._merge_core import (
    DEDUPLICATE,
    MergePlan,
    RoundResult,
    assign_clauses,
    check_source_columns,
    delete_ids,
    insert_rows,
    join_key,
    key_bounds,
    prune_target_scan,
    run_round,
    self_merge_source_names,
    update_rows,
)
from ..table._merge_plan import check_key_type
from ..table.merge_clauses import ROW_ID, OnSpec, WhenMatched, WhenNotMatched
from ..table.write import BatchTableWrite
from ._row_id_routing import _resolve_partitions, _task_options, non_negative_bytes
from ._runtime import innermost, require_ray
from .io import read_paimon
from .row_id_jobs import _UpdatePipeline

__all__ = ["merge_into"]

#: A source of at most this many Arrow bytes (materialized) is merged on the driver.
DRIVER_MAX_BYTES = 256 * 1024 * 1024

_NONE, _UPDATE, _DELETE, _INSERT = 0, 1, 2, 3
_BLOCK, _ROW = "__b", "__r"  # a source row's block and row within it


def merge_into(target: str, source: Any, catalog_options: Dict[str, str], *, on: OnSpec,
               when_matched: Sequence[WhenMatched] = (),
               when_not_matched: Sequence[WhenNotMatched] = (),
               num_partitions: Optional[int] = None,
               ray_remote_args: Optional[Dict[str, Any]] = None,
               concurrency: Optional[int] = None,
               read_columns: Optional[Sequence[str]] = None,
               driver_max_bytes: Optional[int] = None,
               snapshot_properties: Optional[Mapping[str, str]] = None) -> Dict[str, int]:
    """MERGE ``source`` into ``target`` on Ray (``pypaimon.ray.merge_into``; the semantics are
    ``paimon_rowid.merge_into``'s). ``source``: a ``ray.data.Dataset``, a table identifier
    (read at its latest snapshot), a pyarrow Table or a pandas DataFrame. Blocking: returns
    ``{"num_matched", "num_inserted", "num_unchanged"}`` after the one commit.

    ``num_partitions`` sets the join's partitions and the number of self-merge / update tasks
    (default: 2 per cluster CPU, at most one per file group); ``ray_remote_args`` go to every
    task; ``concurrency`` caps the tasks in flight. Beyond pypaimon: the source is executed
    once; an empty lazy source merges nothing (pypaimon's join fails on it); errors keep
    their type; a failed merge leaves no files."""
    ray = require_ray()
    driver_max_bytes = non_negative_bytes("driver_max_bytes", driver_max_bytes,
                                          DRIVER_MAX_BYTES)
    catalog, table, plan = prepare(target, source, catalog_options, on, when_matched,
                                   when_not_matched, read_columns)
    remote_args = dict(ray_remote_args or {})
    if concurrency is not None:
        remote_args.setdefault("concurrency", concurrency)
    properties = jobs.snapshot_properties(target, snapshot_properties)
    evaluator = conditions.ConditionEvaluator()
    if plan.self_merge:
        check_source_columns(plan, table, self_merge_source_names(table), target)
        snapshot = table.latest_snapshot()
        if _self_merge_bytes(plan, table, snapshot) <= driver_max_bytes:
            def run(snapshot: Any) -> RoundResult:
                return run_round(plan, table, snapshot, None, evaluator)
        else:
            def run(snapshot: Any) -> RoundResult:
                return _self_merge(ray, plan, table, target, catalog_options, snapshot,
                                   num_partitions, remote_args)
    else:
        local, dataset, names = _source(ray, catalog, source, plan, catalog_options,
                                        driver_max_bytes)
        if names is None:  # an empty source whose schema Ray dropped: nothing to merge
            return result_dict(RoundResult([]))
        check_source_columns(plan, table, names, target)
        if dataset is not None:
            _check_key_types(plan, table, dataset)
        if local is not None:
            def run(snapshot: Any) -> RoundResult:
                return run_round(plan, table, snapshot, local, evaluator)
        else:
            def run(snapshot: Any) -> RoundResult:
                return _GenericRound(ray, plan, table, target, catalog_options, dataset,
                                     num_partitions, remote_args).run(snapshot, evaluator)
    try:
        result = commit_rounds(table, plan, run, str(uuid.uuid4()), properties)
    except BaseException as error:
        inner = innermost(error)
        if inner is error:
            raise
        raise inner from error
    return result_dict(result)


# ------------------------------------------------------------------------------ the source


def _source(ray, catalog: Any, source: Any, plan: MergePlan, catalog_options: Mapping[str, Any],
            max_bytes: int) -> Tuple[Optional[pa.Table], Any, Optional[List[str]]]:
    """(driver-side table or None, materialized Dataset or None, source column names; None
    for an empty source without a schema)."""
    import ray.data  # the Ray extra is installed: require_ray passed

    wanted = plan.source_columns()
    if isinstance(source, str):
        other = catalog.get_table(source)
        snapshot = other.latest_snapshot()
        projection = [c for c in wanted if c in other.field_names or c == ROW_ID]
        builder = other.new_read_builder().with_projection(projection or None)
        if snapshot is None:
            empty = builder.new_read().output_schema().empty_table()
            return empty, None, list(empty.column_names)
        source = read_paimon(source, dict(catalog_options), projection=projection or None,
                             snapshot_id=snapshot.id)
    if isinstance(source, pa.Table):
        return source, None, list(source.column_names)
    if type(source).__name__ == "DataFrame" and type(source).__module__.startswith("pandas"):
        local = pa.Table.from_pandas(source, preserve_index=False)
        return local, None, list(local.column_names)
    if not isinstance(source, ray.data.Dataset):
        raise TypeError("source must be a ray.data.Dataset, a Paimon table identifier string, "
                        f"a pyarrow.Table, or a pandas.DataFrame; got {type(source).__name__}.")
    known = source.schema(fetch_if_missing=False)
    if known is not None:
        keep = [c for c in known.names if c in wanted]
        if keep and len(keep) < len(known.names):
            source = source.select_columns(keep)
    materialized = source.materialize()  # the source runs once, here
    schema = materialized.schema()
    if schema is None:
        if materialized.count() == 0:
            return None, None, None
        raise ValueError("merge_into could not infer the source schema; pass a "
                         "ray.data.Dataset that has been materialized (e.g. via "
                         ".materialize()) or constructed from pyarrow/pandas.")
    names = list(known.names) if known is not None else list(schema.names)
    size = materialized.size_bytes()
    if size is not None and size <= max_bytes:
        blocks = [b for b in ray.get(materialized.to_arrow_refs()) if b.num_rows]
        local = pa.concat_tables(blocks, promote_options="permissive") if blocks else \
            schema.empty_table()
        return local, None, names
    return None, materialized, names


def _check_key_types(plan: MergePlan, table: Any, dataset: Any) -> None:
    """Join keys of different kinds (a string source key for a number target key) are a
    TypeError on the driver, before any task runs (the driver-side merge checks in its join)."""
    schema = dataset.schema()
    arrow = getattr(schema, "base_schema", None)
    if not isinstance(arrow, pa.Schema):
        return  # not Arrow blocks: the scatter tasks check each block
    types = {f.name: f.type for f in table.arrow_schema}
    types[ROW_ID] = pa.int64()
    for s_key, t_key in zip(plan.source_keys, plan.target_keys):
        if s_key in arrow.names and t_key in types:
            check_key_type(arrow.field(s_key).type, types[t_key], s_key, t_key)


# ------------------------------------------------------------------------------ self-merge


def _width(data_type: pa.DataType) -> int:
    try:
        return max(1, data_type.bit_width // 8)
    except ValueError:  # variable width
        return 32


def _self_merge_bytes(plan: MergePlan, table: Any, snapshot: Any) -> int:
    """The Arrow bytes a self-merge reads (rows x widths of the columns it reads, 32 bytes
    per variable-width value): the driver streams up to ``driver_max_bytes`` of them faster
    than Ray tasks start (1M rows of an INT condition column: ~0.1 s on one core)."""
    rows = 0 if snapshot is None else int(snapshot.total_record_count or 0)
    types = {f.name: f.type for f in table.arrow_schema}
    return rows * (8 + sum(_width(types[c]) for c in plan.self_merge_columns()))


def _self_merge_task(catalog_options: Mapping[str, Any], target: str, snapshot_id: int,
                     plan: MergePlan, ranges: List[Tuple[int, int]]):
    table = CatalogFactory.create(catalog_options).get_table(target)
    snapshot = table.snapshot(snapshot_id)
    result = run_round(plan, table, snapshot, None, conditions.ConditionEvaluator(),
                       row_ranges=ranges, defer_deletes=True)
    deletes = result.deferred_deletes if result.deferred_deletes is not None else \
        np.empty(0, np.int64)
    return [m.serialize() for m in result.messages], result.num_updated, deletes


def _slices(ranges: List[Tuple[int, int]], n: int) -> List[List[Tuple[int, int]]]:
    """``n`` contiguous slices of the group ranges, balanced by row count."""
    rows = np.cumsum([b - a + 1 for a, b in ranges])
    cuts = np.searchsorted(rows, np.linspace(0, rows[-1], n + 1)[1:-1], side="right")
    bounds = [0] + sorted(set(int(c) for c in cuts if 0 < c < len(ranges))) + [len(ranges)]
    return [ranges[a:b] for a, b in zip(bounds, bounds[1:])]


def _self_merge(ray, plan: MergePlan, table: Any, target: str,
                catalog_options: Mapping[str, Any], snapshot: Any,
                num_partitions: Optional[int], remote_args: Mapping[str, Any]) -> RoundResult:
    """One task per slice of file groups; the driver writes the deletes."""
    if snapshot is None or (snapshot.total_record_count or 0) == 0:
        return RoundResult([])
    index = native().RowIdIndex.build(table._native, snapshot.id)
    ranges = sorted(index.group_ranges())
    if not ranges:
        return RoundResult([])
    options, cap = _task_options(remote_args)
    task = ray.remote(**options)(_self_merge_task) if options else ray.remote(_self_merge_task)
    slices = _slices(ranges, _resolve_partitions(ray, num_partitions, len(ranges)))
    refs: List[Any] = []
    pending: List[Any] = []
    plan_ref = ray.put(plan)
    result = RoundResult([])
    try:
        for part in slices:
            if cap and len(pending) >= cap:
                _, pending = ray.wait(pending, num_returns=1)
            refs.append(task.remote(dict(catalog_options), target, snapshot.id, plan_ref, part))
            pending.append(refs[-1])
        deletes = []
        for messages, updated, ids in ray.get(refs):
            result.messages.extend(native().CommitMessage.deserialize(m) for m in messages)
            result.num_updated += updated
            deletes.append(ids)
        ids = np.concatenate(deletes) if deletes else np.empty(0, np.int64)
        if len(ids):
            pinned = pin_snapshot(table, snapshot)
            result.messages.extend(native().delete_by_row_id(pinned._native,
                                                             np.unique(ids).tolist()))
            result.num_deleted = len(ids)
    except BaseException:
        _abort_tasks(ray, table, refs, result)
        raise
    return result


def _abort_tasks(ray, table: Any, refs: List[Any], result: RoundResult) -> None:
    """After a failure: waits for every task, then deletes the files of those that succeeded
    (a failed task deleted its own)."""
    if refs:
        ray.wait(refs, num_returns=len(refs))
    messages = list(result.messages)
    for ref in refs:
        try:
            serialized = ray.get(ref)[0]
        except Exception:  # noqa: BLE001 - a failed task cleaned up after itself
            continue
        messages.extend(native().CommitMessage.deserialize(m) for m in serialized)
    if messages:
        native().Committer(table._native, "merge_into-abort", None).abort(messages)
    result.messages = []


# ------------------------------------------------------------------------------ generic path
#
# A hash join by Ray tasks (no Ray Data shuffle, which needs polars since Ray 2.60): scatter
# tasks cut each source block and each slice of target splits into P parts by a hash of the
# join keys (in the target's types); join task p joins part p of both sides with Arrow, runs
# the clauses, writes its inserts, and returns its update rows (as an object ref for the
# update pipeline), its acted-on and deleted row ids, and its insert messages.


def _key_hash(table: pa.Table, keys: List[str], parts: int) -> np.ndarray:
    """The part of each row: a hash of its key values (the same for equal keys everywhere).
    Rows with a NULL key never match, so they go to part 0. Only rows without NULL keys are
    hashed: pandas turns an integer column with NULLs into floats (and a boolean one into
    objects), whose hashes differ from the same values in a column without NULLs, so equal
    keys of a source block with NULLs and of a target block without would land apart."""
    import pandas as pd  # a dependency of the package; only hashing needs it here

    valid = np.ones(table.num_rows, dtype=bool)
    for k in keys:
        valid &= pc.is_valid(table.column(k)).to_numpy(zero_copy_only=False)
    out = np.zeros(table.num_rows, dtype=np.int64)
    if valid.any():
        rows = table if valid.all() else table.filter(pa.array(valid))
        frame = pd.DataFrame({k: rows.column(k).to_pandas() for k in keys})
        hashes = pd.util.hash_pandas_object(frame, index=False).to_numpy()
        out[valid] = (hashes % np.uint64(parts)).astype(np.int64)
    return out


def _split_parts(table: pa.Table, keys: List[str], parts: int) -> List[pa.Table]:
    if parts == 1 or table.num_rows == 0:
        return [table] + [table.slice(0, 0)] * (parts - 1)
    part = _key_hash(table, keys, parts)
    order = np.argsort(part, kind="stable")
    bounds = np.searchsorted(part[order], np.arange(parts + 1))
    return [table.take(order[a:b]) for a, b in zip(bounds, bounds[1:])]


def _keys(plan: MergePlan) -> List[str]:
    return [f"__k{i}" for i in range(len(plan.target_keys))]


def _scatter_source(block: pa.Table, plan: MergePlan, types: Dict[str, pa.DataType],
                    parts: int, block_index: int):
    """A source block as ``s.*`` columns plus the keys ``__k<i>`` in the target's types and
    its place in the source (``__b`` block, ``__r`` row: inserts are written in that order),
    cut into ``parts``. An empty block (Ray may drop its columns) gives empty parts."""
    if block.num_rows == 0:
        return [pa.table({})] * parts if parts > 1 else pa.table({})
    out = block.select(plan.source_columns()).rename_columns(
        ["s." + c for c in plan.source_columns()])
    for i, (s_key, t_key) in enumerate(zip(plan.source_keys, plan.target_keys)):
        out = out.append_column(f"__k{i}", join_key(block.column(s_key), types[t_key],
                                                    s_key, t_key))
    out = out.append_column(_BLOCK, pa.array(np.full(block.num_rows, block_index, np.int64)))
    out = out.append_column(_ROW, pa.array(np.arange(block.num_rows, dtype=np.int64)))
    cut = _split_parts(out, _keys(plan), parts)
    return cut if parts > 1 else cut[0]


def _block_bounds(block: pa.Table, column: str) -> Optional[Tuple[Any, Any]]:
    """(min, max) of a source block's key column (in the source's own type), or None."""
    return None if block.num_rows == 0 else key_bounds(block.column(column))


def _source_bounds(ray, task: Any, blocks: List[Any], plan: MergePlan,
                   target_type: pa.DataType) -> Optional[Tuple[Any, Any]]:
    """The source's single-key bounds in the target's type, over every block (one small
    task per block), or None when they do not prune (no order, all NULL, no safe cast)."""
    if not blocks:
        return None
    per_block = ray.get([task.remote(ref, plan.source_keys[0]) for ref in blocks])
    if any(b is None for b in per_block):
        # A block of only NULL keys bounds nothing; the others still do.
        per_block = [b for b in per_block if b is not None]
        if not per_block:
            return None
    low, high = min(b[0] for b in per_block), max(b[1] for b in per_block)
    try:  # the bounds in the target's type; a cast the join would refuse prunes nothing
        arr = pa.array([low, high]).cast(target_type, safe=True)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        return None
    return key_bounds(arr)


def _scatter_target(catalog_options: Mapping[str, Any], target: str, snapshot_id: int,
                    columns: List[str], splits: List[Any], plan: MergePlan, parts: int):
    """The ``columns`` of some target splits as ``t.*`` columns plus ``__k<i>``, cut."""
    table = CatalogFactory.create(catalog_options).get_table(target)
    pinned = pin_snapshot(table, table.snapshot(snapshot_id))
    data = pinned.new_read_builder().with_projection(columns).new_read().to_arrow(splits)
    out = data.rename_columns(["t." + c for c in data.column_names])
    for i, t_key in enumerate(plan.target_keys):
        out = out.append_column(f"__k{i}", data.column(t_key))
    cut = _split_parts(out, _keys(plan), parts)
    return cut if parts > 1 else cut[0]


def _join_part(plan: MergePlan, schema: pa.Schema, num_source: int, num_blocks: int,
               num_groups: int, *parts: pa.Table):
    """Joins part p of the source (the first ``num_source`` tables) with part p of the target
    and runs the clauses. Returns the update rows, (acted-on ids, deleted ids), then the rows
    to insert (with their ``__b``/``__r`` source places) cut into ``num_groups`` tables by
    source block (group g holds a contiguous run of blocks)."""
    evaluator = conditions.ConditionEvaluator()
    types = {f.name: f.type for f in schema}
    keys = _keys(plan)
    sources = [p for p in parts[:num_source] if p.num_rows]
    acted = deleted = np.empty(0, np.int64)
    updates = pa.schema([(ROW_ID, pa.int64())] + [(c, types[c]) for c in plan.union]
                        ).empty_table()
    inserts = pa.schema(list(schema) + [(_BLOCK, pa.int64()), (_ROW, pa.int64())]).empty_table()
    if not sources:  # no source row hashed here
        return (updates, (acted, deleted)) + (inserts,) * num_groups
    source = pa.concat_tables(sources)
    if num_source < len(parts):
        target_part = pa.concat_tables(parts[num_source:])
        right = target_part.select([k for k in target_part.column_names
                                    if k not in keys] + keys)
        joined = source.join(right, keys=keys, join_type="left outer", use_threads=False)
    else:  # the target has no rows
        joined = source.append_column("t." + ROW_ID, pa.nulls(source.num_rows, pa.int64()))
    hit = pc.is_valid(joined.column("t." + ROW_ID))
    matched = joined.filter(hit)
    if matched.num_rows and plan.matched:
        action = assign_clauses(plan.matched, matched, evaluator)
        acted = matched.column("t." + ROW_ID).to_numpy()[action >= 0]
        if plan.union:
            rows = update_rows(plan, matched, action, types)
            if rows is not None:
                updates = rows
        deleted = delete_ids(plan, matched, action)
    unmatched = joined.filter(pc.invert(hit))
    if unmatched.num_rows and plan.not_matched:
        action = assign_clauses(plan.not_matched, unmatched, evaluator)
        rows = insert_rows(plan, unmatched, action, schema)
        if rows is not None:
            taken = np.nonzero(action >= 0)[0]  # the frame rows of `rows`, in order
            rows = rows.append_column(_BLOCK, unmatched.column(_BLOCK).take(taken))
            inserts = rows.append_column(_ROW, unmatched.column(_ROW).take(taken))
    if not num_groups:
        return (updates, (acted, deleted))
    group = inserts.column(_BLOCK).to_numpy() * num_groups // max(1, num_blocks)
    order = np.argsort(group, kind="stable")
    bounds = np.searchsorted(group[order], np.arange(num_groups + 1))
    return (updates, (acted, deleted)) + tuple(inserts.take(order[a:b])
                                               for a, b in zip(bounds, bounds[1:]))


def _write_inserts(catalog_options: Mapping[str, Any], target: str, *parts: pa.Table):
    """Writes one group of source blocks' inserts (from every join part) in source order:
    new row ids are given in the order of the files, and of the rows within a file, so they
    follow the source. Returns (serialized messages, rows written)."""
    rows = pa.concat_tables(parts)
    if rows.num_rows == 0:
        return [], 0
    rows = rows.sort_by([(_BLOCK, "ascending"), (_ROW, "ascending")]).drop_columns(
        [_BLOCK, _ROW])
    table = CatalogFactory.create(catalog_options).get_table(target)
    write = BatchTableWrite(table)
    write.write_arrow(rows)
    return [m.to_bytes() for m in write.prepare_commit()], rows.num_rows


class _GenericRound:
    """One round of a distributed merge (a materialized source Dataset)."""

    def __init__(self, ray, plan: MergePlan, table: Any, target: str,
                 catalog_options: Mapping[str, Any], dataset: Any,
                 num_partitions: Optional[int], remote_args: Mapping[str, Any]) -> None:
        self.ray, self.plan, self.table, self.target = ray, plan, table, target
        self.catalog_options = dict(catalog_options)
        self.blocks = dataset.to_arrow_refs()
        self.num_partitions = num_partitions
        self.remote_args = dict(remote_args)
        options, _ = _task_options(remote_args)
        remote = ray.remote(**options) if options else ray.remote
        self.scatter_source = remote(_scatter_source)
        self.scatter_target = remote(_scatter_target)
        self.block_bounds = remote(_block_bounds)
        self.join_part = remote(_join_part)
        self.write_inserts = remote(_write_inserts)

    def run(self, snapshot: Any, evaluator: conditions.ConditionEvaluator) -> RoundResult:
        ray, plan, table = self.ray, self.plan, self.table
        schema = table.arrow_schema
        types = {f.name: f.type for f in schema}
        types[ROW_ID] = pa.int64()
        parts = _resolve_partitions(ray, self.num_partitions, 1 << 30)
        source_parts = [self.scatter_source.options(num_returns=parts).remote(
            ref, plan, types, parts, b) for b, ref in enumerate(self.blocks)]
        target_parts: List[Any] = []
        if snapshot is not None and (snapshot.total_record_count or 0) > 0:
            pinned = pin_snapshot(table, snapshot)
            columns = list(dict.fromkeys(plan.target_keys + plan.matched_target_columns() +
                                         [ROW_ID]))
            builder, scan = pinned.new_read_builder().with_projection(columns), None
            if len(plan.target_keys) == 1:
                # Only the target's files within the source's key range are read.
                key = plan.target_keys[0]
                bounds = _source_bounds(ray, self.block_bounds, self.blocks, plan, types[key])
                builder, scan = prune_target_scan(pinned, builder, key, bounds)
            splits = (scan or builder.new_scan()).plan().splits()
            tasks = max(1, min(len(splits), parts))
            for i in range(tasks):
                chunk = splits[i::tasks]
                if chunk:
                    target_parts.append(self.scatter_target.options(num_returns=parts).remote(
                        self.catalog_options, self.target, snapshot.id, columns, chunk, plan,
                        parts))
        if parts == 1:
            source_parts = [[r] for r in source_parts]
            target_parts = [[r] for r in target_parts]
        result = RoundResult([])
        # Inserts are written per group of consecutive source blocks, each group's rows from
        # every join part in source order, and committed in group order: new row ids follow
        # the source (a hash-ordered write would scatter them).
        blocks = len(self.blocks)
        groups = min(blocks, parts) if plan.not_matched else 0
        join_refs: List[Any] = []
        for p in range(parts):
            join_refs.append(self.join_part.options(num_returns=2 + groups).remote(
                plan, schema, len(source_parts), blocks, groups,
                *[s[p] for s in source_parts], *[t[p] for t in target_parts]))
        insert_refs = [self.write_inserts.remote(self.catalog_options, self.target,
                                                 *[j[2 + g] for j in join_refs])
                       for g in range(groups)]
        try:
            metas = ray.get([j[1] for j in join_refs])
            written = ray.get(insert_refs)
        except BaseException:
            _abort_inserts(ray, table, insert_refs)
            raise
        for serialized, inserted in written:
            result.messages.extend(native().CommitMessage.deserialize(m) for m in serialized)
            result.num_inserted += inserted
        try:
            self._apply(snapshot, join_refs, metas, result)
        except BaseException:
            if result.messages:
                native().Committer(table._native, "merge_into-abort", None).abort(
                    result.messages)
                result.messages = []
            raise
        return result

    def _apply(self, snapshot: Any, join_refs: List[Any], metas: List[Any],
               result: RoundResult) -> None:
        ray, plan, table = self.ray, self.plan, self.table
        acted = np.concatenate([m[0] for m in metas]) if metas else np.empty(0, np.int64)
        if len(acted) and len(np.unique(acted)) != len(acted):
            raise ValueError(DEDUPLICATE)
        deletes = np.concatenate([m[1] for m in metas]) if metas else np.empty(0, np.int64)
        inserts = list(result.messages)
        if plan.union and len(acted) > len(deletes):
            pinned = pin_snapshot(table, snapshot)
            pipeline = _UpdatePipeline(ray, pinned, self.target, self.catalog_options,
                                       [ROW_ID] + plan.union, [j[0] for j in join_refs],
                                       self.num_partitions, self.remote_args, allow_blob=True)
            pipeline.run(native().RowIdIndex.build(pinned._native, snapshot.id), None)
            result.messages = list(pipeline.messages) + inserts  # updates first
            result.num_updated = int(pipeline.rows)
        if len(deletes):
            pinned = pin_snapshot(table, snapshot)
            result.messages.extend(native().delete_by_row_id(pinned._native,
                                                             np.unique(deletes).tolist()))
            result.num_deleted = len(deletes)


def _abort_inserts(ray, table: Any, insert_refs: List[Any]) -> None:
    """After a failed join or insert task: deletes the inserts the others wrote."""
    if not insert_refs:
        return
    ray.wait(insert_refs, num_returns=len(insert_refs))
    messages: List[Any] = []
    for ref in insert_refs:
        try:
            messages.extend(native().CommitMessage.deserialize(m) for m in ray.get(ref)[0])
        except Exception:  # noqa: BLE001 - a failed task wrote nothing that stays
            continue
    if messages:
        native().Committer(table._native, "merge_into-abort", None).abort(messages)
