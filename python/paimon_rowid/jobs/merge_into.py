"""``merge_into``, embedded: SQL's MERGE on a data-evolution table, with
``pypaimon.ray.merge_into``'s signature and rules, in one process (``paimon_rowid.ray.merge_into``
runs it on Ray)::

    merge_into("db.t", source, catalog_options, on=["id"],
               when_matched=[WhenMatched.update({"label": "s.label"}, condition="s.v > t.v"),
                             WhenMatched.delete()],
               when_not_matched=[WhenNotMatched(insert="*")])

returns ``{"num_matched", "num_inserted", "num_unchanged"}`` after exactly one commit (none when
nothing was written). docs/merge-into.md.
"""
from __future__ import annotations

import uuid
from typing import Any, Dict, List, Mapping, Optional, Sequence

import pyarrow as pa

from .._internal._arrow import to_record_batch_reader
from .._internal._lib import native
from .._internal._time_travel import pin_snapshot
from ..catalog.catalog import CatalogFactory
from ..table import _merge_condition as conditions
from ..table._merge_core import (
    MergePlan,
    RoundResult,
    check_source_columns,
    prepare_plan,
    run_round,
    self_merge_source_names,
)
from ..table.merge_clauses import (
    ROW_ID,
    OnSpec,
    WhenMatched,
    WhenNotMatched,
    check_clause_order,
    normalize_on,
)
from . import _job_checks as jobs

__all__ = ["merge_into"]


def is_self_merge(target: str, source: Any, target_keys: List[str],
                  source_keys: List[str]) -> bool:
    """pypaimon's rule: the source names the target exactly and both keys are ``_ROW_ID``."""
    return isinstance(source, str) and source == target and \
        target_keys == [ROW_ID] and source_keys == [ROW_ID]


def prepare(target: str, source: Any, catalog_options: Mapping[str, Any], on: OnSpec,
            when_matched: Sequence[WhenMatched], when_not_matched: Sequence[WhenNotMatched],
            read_columns: Optional[Sequence[str]]):
    """The checks before the source is read (memo §1.8 rows 2-17). Returns (catalog, table,
    plan)."""
    when_matched, when_not_matched = list(when_matched or ()), list(when_not_matched or ())
    check_clause_order(when_matched, when_not_matched)
    target_keys, source_keys = normalize_on(on)
    catalog = CatalogFactory.create(catalog_options)
    table = catalog.get_table(target)
    plan = prepare_plan(table, f"'{target}'", target_keys, source_keys, when_matched,
                        when_not_matched,
                        self_merge=is_self_merge(target, source, target_keys, source_keys),
                        read_columns=read_columns)
    return catalog, table, plan


def source_table(catalog: Any, source: Any, plan: MergePlan) -> pa.Table:
    """An in-memory source as one pyarrow Table; a table identifier read at its latest
    snapshot, only the columns the merge reads."""
    if isinstance(source, str):
        other = catalog.get_table(source)
        wanted = [c for c in plan.source_columns() if c in other.field_names or c == ROW_ID]
        snapshot = other.latest_snapshot()
        builder = other.new_read_builder().with_projection(wanted or None)
        if snapshot is None:
            return builder.new_read().output_schema().empty_table()
        pinned = pin_snapshot(other, snapshot)
        builder = pinned.new_read_builder().with_projection(wanted or None)
        return builder.new_read().to_arrow(builder.new_scan().plan().splits())
    if type(source).__module__.startswith("ray.data"):
        raise TypeError("merge_into (embedded) does not take a ray.data.Dataset; use "
                        "paimon_rowid.ray.merge_into, or pass a pyarrow.Table / "
                        "pandas.DataFrame / Arrow stream.")
    try:
        if isinstance(source, (list, tuple, dict, bytes)):
            raise TypeError(type(source).__name__)
        return to_record_batch_reader(source).read_all()
    except TypeError:
        raise TypeError("source must be a Paimon table identifier string, a pyarrow.Table, a "
                        "pandas.DataFrame, or an Arrow stream (pyarrow.RecordBatchReader, "
                        f"polars, ...); got {type(source).__name__}.") from None


def commit_rounds(table: Any, plan: MergePlan, run: Any, commit_user: str,
                  properties: Mapping[str, str]) -> RoundResult:
    """Runs ``run(snapshot) -> RoundResult`` on the latest snapshot and commits its messages
    as one snapshot. A commit lost to a concurrent update of the same file groups re-runs the
    whole merge on the new snapshot (matching and conditions included, so the result is the
    merge applied after the other commit), up to ``MAX_REBASES`` times; the committer deletes
    each lost round's files."""
    last: List[RoundResult] = []

    def round_fn(step: Any) -> List[Any]:
        snapshot = table.latest_snapshot() if step is None else \
            table.snapshot(step.latest_index.snapshot_id)
        result = run(snapshot)
        last[:] = [result]
        return result.messages

    native().commit_update(table._native, round_fn, 0, commit_user, dict(properties),
                           jobs.MAX_REBASES, "merge_into")
    return last[0] if last else RoundResult([])


def result_dict(result: RoundResult) -> Dict[str, int]:
    return {"num_matched": result.num_updated + result.num_deleted,
            "num_inserted": result.num_inserted, "num_unchanged": 0}


def merge_into(target: str, source: Any, catalog_options: Mapping[str, Any], *, on: OnSpec,
               when_matched: Sequence[WhenMatched] = (),
               when_not_matched: Sequence[WhenNotMatched] = (),
               num_partitions: Optional[int] = None,
               ray_remote_args: Optional[Dict[str, Any]] = None,
               concurrency: Optional[int] = None,
               read_columns: Optional[Sequence[str]] = None,
               snapshot_properties: Optional[Mapping[str, str]] = None) -> Dict[str, int]:
    """MERGE ``source`` into the data-evolution table ``target`` (pypaimon 2.1.0's
    ``pypaimon.ray.merge_into``, embedded): rows whose ``on`` keys equal a live target row's
    (NULL never matches) take the first ``when_matched`` clause whose condition is TRUE
    (update some columns, or delete through deletion vectors); the others take the first such
    ``when_not_matched`` clause (insert, with new row ids). Conditions are SQL over ``s.<col>``
    / ``t.<col>`` (DataFusion). One commit for everything; returns ``{"num_matched": updated +
    deleted, "num_inserted": n, "num_unchanged": 0}``.

    ``source``: a pyarrow Table / RecordBatchReader, a pandas DataFrame, any Arrow stream, or a
    table identifier (read at its latest snapshot). ``source == target`` with
    ``on=["_ROW_ID"]`` is the self-merge: the target is streamed, no join, and SET values may
    be callables (given ``read_columns`` + ``_ROW_ID`` of the matched rows of a batch).
    ``num_partitions``, ``ray_remote_args`` and ``concurrency`` are accepted and ignored.

    Beyond pypaimon: a bare-string ``on`` is one key; target keys are checked; ``"*"`` leaves
    partition keys alone; the source is read once; a failed merge leaves no files; a commit
    lost to a concurrent update re-runs the merge on the new snapshot."""
    catalog, table, plan = prepare(target, source, catalog_options, on, when_matched,
                                   when_not_matched, read_columns)
    data = None
    if plan.self_merge:
        check_source_columns(plan, table, self_merge_source_names(table), target)
    else:
        data = source_table(catalog, source, plan)
        check_source_columns(plan, table, data.column_names, target)
    properties = jobs.snapshot_properties(target, snapshot_properties)
    evaluator = conditions.ConditionEvaluator()
    result = commit_rounds(table, plan, lambda snapshot: run_round(
        plan, table, snapshot, data, evaluator), str(uuid.uuid4()), properties)
    return result_dict(result)
