"""``merge_into``'s clauses and SET specs, shaped like ``pypaimon.ray``'s: :class:`WhenMatched`
(update or delete), :class:`WhenNotMatched` (insert), and the value markers
:func:`source_col`, :func:`target_col`, :func:`lit`; plus their normalisation against a target
(a leaf module: pure Python, no engine). docs/merge-into.md has the rules.

A SET spec is ``"*"`` or a mapping ``{target column: value}``. A value is ``source_col(c)`` or
the string ``"s.c"`` (the source's column), ``target_col(c)`` or ``"t.c"`` (the target's
current value), a callable (self-merge updates only), or anything else: a literal (``lit(v)``
forces a literal, e.g. a string starting with ``"s."``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

__all__ = ["WhenMatched", "WhenNotMatched", "SourceColumnRef", "TargetColumnRef",
           "LiteralValue", "source_col", "target_col", "lit"]

ROW_ID = "_ROW_ID"
SetSpec = Union[str, Mapping[str, Any]]
OnSpec = Union[str, Sequence[str], Mapping[str, str]]


@dataclass(frozen=True)
class SourceColumnRef:
    """The value of a source column."""
    column: str


@dataclass(frozen=True)
class TargetColumnRef:
    """The current value of a target column (matched clauses only)."""
    column: str


@dataclass(frozen=True)
class LiteralValue:
    """A constant, cast to the target column's type."""
    value: Any


def source_col(name: str) -> SourceColumnRef:
    return SourceColumnRef(name)


def target_col(name: str) -> TargetColumnRef:
    return TargetColumnRef(name)


def lit(value: Any) -> LiteralValue:
    return LiteralValue(value)


class WhenMatched:
    """A WHEN MATCHED clause: ``WhenMatched.update(spec="*", condition=None)`` or
    ``WhenMatched.delete(condition=None)`` (or ``WhenMatched("update", update=..., ...)``).
    After construction, ``.update`` holds the spec (None for a delete) and ``.delete`` is a
    bool, as in pypaimon."""

    update: Any
    delete: Any

    def __init__(self, action: str, *, update: Optional[SetSpec] = None,
                 condition: Optional[str] = None) -> None:
        if action not in ("update", "delete"):
            raise ValueError("WhenMatched action must be 'update' or 'delete'.")
        if action == "update" and update is None:
            raise ValueError("WhenMatched.update requires an update spec.")
        if action == "delete" and update is not None:
            raise ValueError("WhenMatched.delete must not specify update.")
        # Instance attributes shadow the two factory classmethods below.
        self.update = update
        self.delete = action == "delete"
        self.condition = condition

    @classmethod  # type: ignore[no-redef]
    def update(cls, update: SetSpec = "*", condition: Optional[str] = None) -> WhenMatched:
        return cls("update", update=update, condition=condition)

    @classmethod  # type: ignore[no-redef]
    def delete(cls, condition: Optional[str] = None) -> WhenMatched:
        return cls("delete", condition=condition)

    def __repr__(self) -> str:
        if self.delete:
            return f"WhenMatched.delete(condition={self.condition!r})"
        return f"WhenMatched.update({self.update!r}, condition={self.condition!r})"


@dataclass
class WhenNotMatched:
    """A WHEN NOT MATCHED clause: insert the source row as ``insert`` (a SET spec) says."""
    insert: SetSpec
    condition: Optional[str] = None


@dataclass
class Clause:
    """A clause after normalisation: ``spec`` maps target columns to SourceColumnRef /
    TargetColumnRef / LiteralValue / callables; a delete has an empty spec; ``condition`` is
    the compiled condition (``_merge_condition.Condition``) or None."""
    spec: Dict[str, Any]
    condition: Optional[Any] = None
    delete: bool = False


def check_clause_order(when_matched: Sequence[WhenMatched],
                       when_not_matched: Sequence[WhenNotMatched]) -> None:
    if not when_matched and not when_not_matched:
        raise ValueError("At least one of when_matched or when_not_matched must be non-empty.")
    pairs: Tuple[Tuple[str, Sequence[Any]], ...] = (("when_matched", when_matched),
                                                    ("when_not_matched", when_not_matched))
    for label, clauses in pairs:
        for i, clause in enumerate(list(clauses)[:-1]):
            if clause.condition is None:
                raise ValueError(
                    f"Only the last {label} clause may omit its condition. Clause at index {i} "
                    "has no condition, making subsequent clauses unreachable.")


def normalize_on(on: OnSpec) -> Tuple[List[str], List[str]]:
    """(target keys, source keys). A mapping is ``{target column: source column}``; a bare
    string is one key (pypaimon splits it into characters)."""
    if isinstance(on, Mapping):
        target, source = [str(k) for k in on.keys()], [str(v) for v in on.values()]
    elif isinstance(on, str):
        target = source = [on] if on else []
    else:
        target = [str(c) for c in on]
        source = list(target)
    if not target:
        raise ValueError("'on' must be non-empty.")
    return target, source


def _is_callable(value: Any) -> bool:
    return callable(value) and not isinstance(value, type)


def normalize_set_spec(spec: Any, fields: Sequence[str], on_map: Mapping[str, str], *,
                       insert: bool, allow_callables: bool = False,
                       skip_star: Sequence[str] = ()) -> Dict[str, Any]:
    """``{target column: SourceColumnRef | TargetColumnRef | LiteralValue | callable}``.
    ``"*"`` is every field but ``skip_star`` (from its source column, renamed by ``on``);
    identity assignments ``t.c = t.c`` are dropped."""
    if isinstance(spec, str) and spec == "*":
        return {c: SourceColumnRef(on_map.get(c, c)) for c in fields if c not in skip_star}
    if not isinstance(spec, Mapping):
        raise TypeError(f"SET spec must be '*' or a mapping, got {type(spec).__name__}")
    if not spec:
        raise ValueError("SET spec must not be empty")
    names = set(fields)
    for key in spec:  # every key before any value, as pypaimon
        if key not in names:
            raise ValueError(f"SET spec references unknown target column '{key}'")
    out: Dict[str, Any] = {}
    for key, value in spec.items():
        if _is_callable(value):
            if not allow_callables or insert:
                raise TypeError("SET values must be source_col(), target_col(), lit(), or "
                                "literals; callables are only supported for self-merge")
            out[key] = value
            continue
        if isinstance(value, SourceColumnRef):
            out[key] = value
            continue
        ref: Optional[str] = None
        if isinstance(value, TargetColumnRef):
            if insert:
                raise ValueError("INSERT spec must not reference target columns (t.*), but "
                                 f"found: 't.{value.column}'")
            ref = value.column
        elif isinstance(value, str) and value.startswith("t."):
            if insert:
                raise ValueError("INSERT spec must not reference target columns (t.*), but "
                                 f"found: '{value}'")
            ref = value[2:]
        elif isinstance(value, str) and value.startswith("s."):
            out[key] = SourceColumnRef(value[2:])
            continue
        if ref is not None:
            if ref not in names:
                raise ValueError(f"SET spec references unknown target column '{ref}'")
            if ref != key:
                out[key] = TargetColumnRef(ref)
            continue  # t.c = t.c: a no-op
        out[key] = value if isinstance(value, LiteralValue) else LiteralValue(value)
    return out


def union_columns(clauses: Sequence[Clause]) -> List[str]:
    """The columns the matched updates write: the ordered union over the update clauses."""
    seen: Dict[str, None] = {}
    for clause in clauses:
        if not clause.delete:
            for col in clause.spec:
                seen.setdefault(col, None)
    return list(seen)


def source_refs(clauses: Sequence[Clause]) -> List[str]:
    """Source columns the specs read, in first-use order."""
    seen: Dict[str, None] = {}
    for clause in clauses:
        for value in clause.spec.values():
            if isinstance(value, SourceColumnRef):
                seen.setdefault(value.column, None)
    return list(seen)

