"""``merge_into``'s plan: the clauses normalised and checked against the target (pypaimon
2.1.0's validations, in its order), and the columns each branch reads. docs/merge-into.md."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence

import pyarrow as pa

from . import _merge_condition as conditions
from .merge_clauses import (
    ROW_ID,
    Clause,
    SourceColumnRef,
    TargetColumnRef,
    WhenMatched,
    WhenNotMatched,
    normalize_set_spec,
    source_refs,
    union_columns,
)

DEDUPLICATE = ("MERGE matched multiple source rows to the same target _ROW_ID. Deduplicate the "
               "source before merging.")


@dataclass
class MergePlan:
    """A validated merge: keys, normalised clauses and the columns each branch needs."""
    target_keys: List[str]
    source_keys: List[str]
    matched: List[Clause]
    not_matched: List[Clause]
    union: List[str]  # the columns matched updates write, in order
    self_merge: bool
    read_columns: List[str] = field(default_factory=list)
    # pypaimon's local merge checks cardinality before conditions (Spark's rule) and lets a
    # sole unconditional DELETE collapse duplicates; its Ray merge checks acted-on rows only.
    cardinality_first: bool = False

    @property
    def has_condition(self) -> bool:
        return any(c.condition is not None for c in self.matched + self.not_matched)

    def condition_refs(self, clauses: Sequence[Clause], prefix: str) -> List[str]:
        seen: Dict[str, None] = {}
        for clause in clauses:
            if clause.condition is not None:
                for name in clause.condition.refs_of(prefix):
                    seen.setdefault(name, None)
        return list(seen)

    def source_columns(self) -> List[str]:
        """Source columns any branch reads: keys, SET references, ``s.*`` condition refs."""
        cols: Dict[str, None] = dict.fromkeys(self.source_keys)
        for c in source_refs(self.matched + self.not_matched) + self.condition_refs(
                self.matched + self.not_matched, "s"):
            cols.setdefault(c, None)
        return list(cols)

    def self_merge_columns(self) -> List[str]:
        """The columns a self-merge reads besides ``_ROW_ID``."""
        needed: Dict[str, None] = {}
        for c in self.matched_target_columns() + self.source_columns() + self.read_columns + \
                self.condition_refs(self.matched, "s"):
            if c != ROW_ID:
                needed.setdefault(c, None)
        return list(needed)

    def matched_target_columns(self) -> List[str]:
        """Target columns the matched branch reads besides ``_ROW_ID``: target refs of the specs
        and conditions, and the union columns some update clause does not set (carried)."""
        cols: Dict[str, None] = {}
        updates = [c for c in self.matched if not c.delete]
        for clause in updates:
            for value in clause.spec.values():
                if isinstance(value, TargetColumnRef):
                    cols.setdefault(value.column, None)
        for c in self.condition_refs(self.matched, "t"):
            cols.setdefault(c, None)
        for col in self.union:
            if not all(col in c.spec for c in updates):
                cols.setdefault(col, None)
        cols.pop(ROW_ID, None)
        return list(cols)


def prepare_plan(table: Any, where: str, target_keys: List[str], source_keys: List[str],
                 when_matched: Sequence[WhenMatched], when_not_matched: Sequence[WhenNotMatched],
                 *, self_merge: bool, read_columns: Optional[Sequence[str]] = None,
                 cardinality_first: bool = False,
                 allow_callables: Optional[bool] = None) -> MergePlan:
    """pypaimon's checks after the table loads, in its order (memo §1.8 rows 5-17); ``where``
    ends the option messages (``"'db.t'"`` or ``"target table"``)."""
    options = table.options
    if options.get("data-evolution.enabled", "false").lower() != "true":
        raise ValueError(f"merge_into requires 'data-evolution.enabled' = 'true' on {where}.")
    if options.get("row-tracking.enabled", "false").lower() != "true":
        raise ValueError(f"merge_into requires 'row-tracking.enabled' = 'true' on {where}.")
    if any(c.delete for c in when_matched) and \
            options.get("deletion-vectors.enabled", "false").lower() != "true":
        raise ValueError(f"merge_into DELETE requires 'deletion-vectors.enabled' = 'true' on "
                         f"{where}.")
    fields = list(table.field_names)
    partition_keys = list(table.partition_keys)
    on_map = dict(zip(target_keys, source_keys))
    matched: List[Clause] = []
    for c in when_matched:
        spec: Dict[str, Any] = {}
        if not c.delete:
            # "*" never names partition keys: a matched row cannot move (pypaimon's "*" does,
            # so it always fails on partitioned tables).
            spec = normalize_set_spec(c.update, fields, on_map, insert=False,
                                      allow_callables=self_merge if allow_callables is None
                                      else allow_callables, skip_star=partition_keys)
        matched.append(Clause(spec=spec, condition=c.condition, delete=bool(c.delete)))
    if partition_keys:
        for clause in matched:
            moved = set(partition_keys) & set(clause.spec)
            if moved:
                raise ValueError(f"merge_into does not support updating partition columns "
                                 f"{sorted(moved)}; cross-partition row movement is not "
                                 "implemented.")
    has_condition = any(wm.condition is not None for wm in when_matched) or \
        any(nm.condition is not None for nm in when_not_matched)
    if has_condition:
        conditions.require_engine()
        # Each condition is parsed here, before anything is read: one SQL expression over
        # s.* / t.* columns, or a ValueError (_merge_condition).
        for clause in matched:
            if clause.condition is not None:
                clause.condition = conditions.compile_condition(clause.condition)
        for nm in when_not_matched:
            if nm.condition is not None:
                t_refs = conditions.compile_condition(nm.condition).refs_of("t")
                if t_refs:
                    raise ValueError("WhenNotMatched condition must not reference target "
                                     f"columns (t.*), but found: {t_refs}")
    not_matched: List[Clause] = []
    for nm in when_not_matched:
        spec = normalize_set_spec(nm.insert, fields, on_map, insert=True)
        for t_key, s_key in on_map.items():
            if t_key in fields and t_key not in spec:
                spec[t_key] = SourceColumnRef(s_key)
        not_matched.append(Clause(spec=spec, condition=None if nm.condition is None else
                                  conditions.compile_condition(nm.condition)))
    if self_merge and not_matched:
        raise ValueError("Self-merge (source == target with ON _ROW_ID) does not support WHEN "
                         "NOT MATCHED clauses.")
    read_columns = list(dict.fromkeys(read_columns or ()))
    has_callable = any(callable(v) and not isinstance(v, type)
                       for clause in matched for v in clause.spec.values())
    if read_columns and not has_callable:
        raise ValueError("read_columns requires a callable SET value.")
    if has_callable:
        if not read_columns:
            raise ValueError("Callable SET values require read_columns.")
        for col in read_columns:
            if col not in fields:
                raise ValueError(f"Read column {col!r} is not in target {where}.")
    return MergePlan(target_keys, source_keys, matched, not_matched, union_columns(matched),
                     self_merge, read_columns, cardinality_first)


def check_source_columns(plan: MergePlan, table: Any, source_names: Sequence[str],
                         target: str) -> None:
    """Memo §1.8 rows 20-22, then the target keys (pypaimon never checks those: a wrong name
    fails inside its join)."""
    names = set(source_names)
    if not plan.self_merge:
        missing = [c for c in plan.source_keys if c not in names]
        if missing:
            raise ValueError(f"'on' columns {missing} missing from source schema "
                             f"{list(source_names)}.")
    absent = sorted(set(source_refs(plan.matched + plan.not_matched)) - names)
    if absent:
        raise ValueError(f"source is missing columns {absent} referenced by SET spec")
    target_names = set(table.field_names)
    if plan.self_merge:
        target_names.add(ROW_ID)
    for clause in plan.matched + plan.not_matched:
        if clause.condition is None:
            continue
        for ref in clause.condition.refs:
            prefix, col = ref.split(".", 1)
            if prefix == "s" and col not in names:
                raise ValueError(f"condition references unknown source column '{col}'")
            if prefix == "t" and col not in target_names:
                raise ValueError(f"condition references unknown target column '{col}'")
    unknown = [k for k in plan.target_keys if k != ROW_ID and k not in table.field_names]
    if unknown:
        raise ValueError(f"'on' columns {unknown} missing from target '{target}' fields "
                         f"{list(table.field_names)}.")


def self_merge_source_names(table: Any) -> List[str]:
    return list(table.field_names) + [ROW_ID]


# ------------------------------------------------------------------------------ join keys


def key_kind(data_type: pa.DataType) -> str:
    """The kind of a join key's type: keys of one kind are cast to the target's type (a safe
    cast: widening, or values that fit), keys of different kinds are never compared."""
    if pa.types.is_dictionary(data_type):
        return key_kind(data_type.value_type)
    if pa.types.is_integer(data_type) or pa.types.is_floating(data_type) or \
            pa.types.is_decimal(data_type):
        return "number"
    if pa.types.is_string(data_type) or pa.types.is_large_string(data_type) or \
            data_type == getattr(pa, "string_view", lambda: None)():
        return "string"
    if pa.types.is_binary(data_type) or pa.types.is_large_binary(data_type) or \
            pa.types.is_fixed_size_binary(data_type):
        return "binary"
    if pa.types.is_date(data_type) or pa.types.is_timestamp(data_type):
        return "date/timestamp"
    return str(data_type)  # anything else (time, nested, ...) only matches its own type


def check_key_type(source_type: pa.DataType, target_type: pa.DataType, source_key: str,
                   target_key: str, call: str = "merge_into") -> None:
    """A TypeError naming both types when a source key of one kind (string, number, ...) would
    be matched with a target key of another: '1' never matches 1. A column of NULLs only (no
    type) matches nothing and passes."""
    if source_type == target_type or pa.types.is_null(source_type):
        return
    if key_kind(source_type) != key_kind(target_type):
        raise TypeError(f"{call} key: source column '{source_key}' is {source_type} but target "
                        f"column '{target_key}' is {target_type}; keys are not cast between "
                        "kinds (string, number, binary, date/timestamp). Cast the source "
                        "column first.")


def join_key(column: Any, target_type: pa.DataType, source_key: str, target_key: str) -> Any:
    """A source key column (Arrow array or chunked array) in the target key's type: a
    TypeError across kinds (:func:`check_key_type`), a ValueError for values the safe cast
    cannot carry (an int64 beyond int32, 1.5 into an integer)."""
    if column.type == target_type:
        return column
    check_key_type(column.type, target_type, source_key, target_key)
    try:
        return column.cast(target_type, safe=True)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as error:
        raise ValueError(f"source column '{source_key}' ({column.type}) cannot be matched "
                         f"with target column '{target_key}' ({target_type}): "
                         f"{error}") from error
