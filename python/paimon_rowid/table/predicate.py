"""Predicates and the ``PredicateBuilder`` (same method names and rules as pypaimon's).

A ``Predicate`` is a small immutable tree; :meth:`Predicate.to_native` turns it into the tuple
form of ``_native.pyi``, with literals as a pyarrow Array of the field's Arrow type. Building
and converting cost O(number of leaves + literals); nothing touches data.
"""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

import pyarrow as pa

from .._internal._arrow import literal_array
from .._internal._lib import native
from .._internal.range import Range
from ..schema import DataField

__all__ = ["Predicate", "PredicateBuilder", "row_ranges_of"]

# method -> number of literals (None = any number >= 0)
_LEAF_ARITY = {
    "equal": 1, "not_equal": 1, "less_than": 1, "less_or_equal": 1, "greater_than": 1,
    "greater_or_equal": 1, "is_null": 0, "is_not_null": 0, "startswith": 1, "endswith": 1,
    "contains": 1, "like": 1, "is_in": None, "is_not_in": None, "between": 2,
    "not_between": 2,
}
_STRING_ONLY = {"startswith", "endswith", "contains", "like"}


class Predicate:
    """A leaf (``method``, ``field``, ``literals``) or a compound (``and`` / ``or`` over
    ``children``). ``index`` is the field's position in the read type it was built over."""

    __slots__ = ("method", "field", "index", "literals", "children", "_arrow_type")

    def __init__(self, method: str, field: Optional[str] = None, index: Optional[int] = None,
                 literals: Optional[List[Any]] = None,
                 children: Optional[List[Predicate]] = None,
                 arrow_type: Optional[pa.DataType] = None) -> None:
        self.method = method
        self.field = field
        self.index = index
        self.literals = literals
        self.children = children
        self._arrow_type = arrow_type

    @property
    def is_compound(self) -> bool:
        return self.method in ("and", "or")

    def fields(self) -> List[str]:
        """Names of the fields the predicate reads, in first-use order."""
        if not self.is_compound:
            return [self.field] if self.field is not None else []
        out: List[str] = []
        for child in self.children or []:
            for name in child.fields():
                if name not in out:
                    out.append(name)
        return out

    def to_native(self) -> Tuple[Any, ...]:
        """The native tuple form: ("and"|"or", [..]) or ("leaf", method, field, literals)."""
        if self.is_compound:
            return (self.method, [child.to_native() for child in self.children or []])
        literals = None
        if _LEAF_ARITY[self.method] != 0:
            literals = literal_array(self.literals or [], self._arrow_type, self.field or "")
        return ("leaf", self.method, self.field, literals)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Predicate):
            return NotImplemented
        return (self.method, self.field, self.index, self.literals, self.children) == (
            other.method, other.field, other.index, other.literals, other.children)

    def __hash__(self) -> int:
        return hash((self.method, self.field, self.index))

    def __repr__(self) -> str:
        if self.is_compound:
            return f"Predicate({self.method}, {self.children!r})"
        return f"Predicate({self.method}, {self.field!r}, {self.literals!r})"


class PredicateBuilder:
    """Builds predicates over a fixed list of fields (a read type). Every method is O(1) plus
    the literals; a name outside the field list raises ``ValueError``."""

    def __init__(self, fields: Sequence[DataField],
                 arrow_types: Optional[Sequence[pa.DataType]] = None) -> None:
        self._fields = list(fields)
        self.field_names = [f.name for f in self._fields]
        self._arrow_types = (list(arrow_types) if arrow_types is not None
                             else [f.type.to_arrow() for f in self._fields])

    def _leaf(self, method: str, field: str, literals: List[Any]) -> Predicate:
        if not isinstance(field, str) or field not in self.field_names:
            raise ValueError(f"The field {field} is not in field list {self.field_names}.")
        index = self.field_names.index(field)
        arrow_type = self._arrow_types[index]
        if method in _STRING_ONLY and not (pa.types.is_string(arrow_type)
                                           or pa.types.is_large_string(arrow_type)):
            raise ValueError(f"{method} needs a string field; '{field}' is {arrow_type}.")
        # Validate literals eagerly so a bad literal fails at the call that made it.
        if literals:
            literal_array(literals, arrow_type, field)
        return Predicate(method, field, index, literals, None, arrow_type)

    def equal(self, field: str, literal: Any) -> Predicate:
        return self._leaf("equal", field, [literal])

    def not_equal(self, field: str, literal: Any) -> Predicate:
        return self._leaf("not_equal", field, [literal])

    def less_than(self, field: str, literal: Any) -> Predicate:
        return self._leaf("less_than", field, [literal])

    def less_or_equal(self, field: str, literal: Any) -> Predicate:
        return self._leaf("less_or_equal", field, [literal])

    def greater_than(self, field: str, literal: Any) -> Predicate:
        return self._leaf("greater_than", field, [literal])

    def greater_or_equal(self, field: str, literal: Any) -> Predicate:
        return self._leaf("greater_or_equal", field, [literal])

    def is_null(self, field: str) -> Predicate:
        return self._leaf("is_null", field, [])

    def is_not_null(self, field: str) -> Predicate:
        return self._leaf("is_not_null", field, [])

    def startswith(self, field: str, pattern_literal: Any) -> Predicate:
        return self._leaf("startswith", field, [pattern_literal])

    def endswith(self, field: str, pattern_literal: Any) -> Predicate:
        return self._leaf("endswith", field, [pattern_literal])

    def contains(self, field: str, pattern_literal: Any) -> Predicate:
        return self._leaf("contains", field, [pattern_literal])

    def like(self, field: str, pattern_literal: Any) -> Predicate:
        """SQL LIKE: ``%`` matches any sequence, ``_`` any single character."""
        return self._leaf("like", field, [pattern_literal])

    def is_in(self, field: str, literals: Sequence[Any]) -> Predicate:
        return self._leaf("is_in", field, _as_list(literals, "is_in"))

    def is_not_in(self, field: str, literals: Sequence[Any]) -> Predicate:
        return self._leaf("is_not_in", field, _as_list(literals, "is_not_in"))

    def between(self, field: str, included_lower_bound: Any,
                included_upper_bound: Any) -> Predicate:
        """Inclusive on both ends."""
        return self._leaf("between", field, [included_lower_bound, included_upper_bound])

    def not_between(self, field: str, included_lower_bound: Any,
                    included_upper_bound: Any) -> Predicate:
        return self._leaf("not_between", field, [included_lower_bound, included_upper_bound])

    @staticmethod
    def and_predicates(predicates: Sequence[Optional[Predicate]]) -> Optional[Predicate]:
        """AND of the predicates: an empty list gives None, a single one is returned as is."""
        return _compound("and", predicates)

    @staticmethod
    def or_predicates(predicates: Sequence[Optional[Predicate]]) -> Optional[Predicate]:
        """OR of the predicates: an empty list gives None, a single one is returned as is."""
        return _compound("or", predicates)


def _as_list(literals: Any, method: str) -> List[Any]:
    if isinstance(literals, (str, bytes)) or not hasattr(literals, "__iter__"):
        raise TypeError(f"{method} expects a list of literals, got {type(literals).__name__}")
    return list(literals)


def _compound(method: str, predicates: Sequence[Optional[Predicate]]) -> Optional[Predicate]:
    predicates = list(predicates)
    if not predicates:
        return None
    if len(predicates) == 1:
        return predicates[0]
    for p in predicates:
        if not isinstance(p, Predicate):
            raise TypeError(f"{method}_predicates expects Predicate objects, got {p!r}")
    return Predicate(method, children=[p for p in predicates if isinstance(p, Predicate)])


def row_ranges_of(predicate: Optional[Predicate]) -> Optional[List[Range]]:
    """The row-id ranges a predicate confines the read to, or None when it does not.

    ``_ROW_ID`` ``equal`` / ``is_in`` / ``between`` leaves give ranges; AND intersects them
    (ignoring children that say nothing), OR unites them (unknown if any child says nothing).
    A null literal matches nothing. Computed by the planner's own rule
    (``RowRangesFromPredicate``, scan/predicate.h). Cost: O(literals log literals)."""
    if predicate is None:
        return None
    ranges = native().row_ranges_of(predicate.to_native())
    return None if ranges is None else [Range(lo, hi) for lo, hi in ranges]
