"""Inclusive row-id ranges, with the semantics of pypaimon's ``pypaimon.utils.range.Range``.

A ``Range(from_, to)`` covers the row ids ``from_ .. to`` (both inclusive). Every method is pure
Python on small lists; costs are stated per method.
"""
from __future__ import annotations

from typing import Any, Iterable, List, Sequence, Tuple, Union

RangeLike = Union["Range", Tuple[int, int], Sequence[int]]


class Range:
    """An inclusive range of row ids. Immutable, hashable, ordered by ``(from_, to)``."""

    __slots__ = ("from_", "to")
    from_: int
    to: int

    def __init__(self, from_: int, to: int) -> None:
        if from_ > to:
            raise ValueError(f"Invalid range: from ({from_}) > to ({to})")
        object.__setattr__(self, "from_", from_)
        object.__setattr__(self, "to", to)

    # Immutable: the hash stays valid in sets and dicts.
    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Range is immutable")

    @staticmethod
    def of(value: RangeLike) -> Range:
        """Accepts a ``Range`` or a ``(from, to)`` pair (inclusive)."""
        if isinstance(value, Range):
            return value
        if isinstance(value, (str, bytes)):
            raise TypeError(f"expected a Range or a (from, to) pair, got {value!r}")
        try:
            from_, to = value
        except (TypeError, ValueError):
            raise TypeError(f"expected a Range or a (from, to) pair, got {value!r}") from None
        return Range(int(from_), int(to))

    # -- single-range queries, O(1) -------------------------------------------------------------

    def contains(self, value: int) -> bool:
        return self.from_ <= value <= self.to

    def overlaps(self, other: Range) -> bool:
        return Range.intersect(self.from_, self.to, other.from_, other.to)

    def count(self) -> int:
        """Number of row ids in the range."""
        return self.to - self.from_ + 1

    @staticmethod
    def intersect(start1: int, end1: int, start2: int, end2: int) -> bool:
        """Whether the inclusive ranges ``[start1, end1]`` and ``[start2, end2]`` share an id."""
        return not (end1 < start2 or end2 < start1)

    # -- list operations ------------------------------------------------------------------------

    def exclude(self, ranges: Iterable[Range]) -> List[Range]:
        """The parts of this range not covered by ``ranges``, ascending. O(k log k)."""
        ranges = list(ranges)
        if not ranges:
            return [self]
        result: List[Range] = []
        cursor = self.from_
        for r in sorted(ranges, key=lambda r: r.from_):
            if r.to < cursor:
                continue
            if r.from_ > self.to:
                break
            if r.from_ > cursor:
                result.append(Range(cursor, min(r.from_ - 1, self.to)))
            cursor = max(cursor, r.to + 1)
        if cursor <= self.to:
            result.append(Range(cursor, self.to))
        return result

    @staticmethod
    def to_ranges(values: Iterable[int]) -> List[Range]:
        """Sorts the ids and returns their maximal runs of consecutive values. O(n log n).

        Duplicates are kept inside a run's bounds (as pypaimon does, a duplicate ends a run)."""
        ids = sorted(values)
        if not ids:
            return []
        result: List[Range] = []
        start = end = ids[0]
        for current in ids[1:]:
            if current != end + 1:
                result.append(Range(start, end))
                start = current
            end = current
        result.append(Range(start, end))
        return result

    @staticmethod
    def and_(ranges1: Iterable[Range], ranges2: Iterable[Range]) -> List[Range]:
        """Intersection of two range lists (each assumed non-overlapping). O(n log n + m log m)."""
        a = sorted(ranges1, key=lambda r: r.from_)
        b = sorted(ranges2, key=lambda r: r.from_)
        result: List[Range] = []
        i = j = 0
        while i < len(a) and j < len(b):
            start = max(a[i].from_, b[j].from_)
            end = min(a[i].to, b[j].to)
            if start <= end:
                result.append(Range(start, end))
            if a[i].to < b[j].to:
                i += 1
            elif a[i].to > b[j].to:
                j += 1
            else:
                i += 1
                j += 1
        return result

    @staticmethod
    def merge_sorted_as_possible(ranges: Iterable[Range]) -> List[Range]:
        """Sorts and merges overlapping and adjacent ranges. O(n log n)."""
        return Range.sort_and_merge_overlap(ranges, merge=True, adjacent=True)

    @staticmethod
    def sort_and_merge_overlap(ranges: Iterable[Range], merge: bool = True,
                               adjacent: bool = True) -> List[Range]:
        """Sorts by start; with ``merge`` also merges overlapping ranges, and with ``adjacent``
        ranges that touch end to end (``to + 1 == from_``). O(n log n)."""
        ordered = sorted(ranges, key=lambda r: r.from_)
        if not ordered or not merge:
            return ordered
        gap = 1 if adjacent else 0
        result = [ordered[0]]
        for r in ordered[1:]:
            last = result[-1]
            if r.from_ <= last.to + gap:
                if r.to > last.to:
                    result[-1] = Range(last.from_, r.to)
            else:
                result.append(r)
        return result

    # -- value semantics ------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Range):
            return NotImplemented
        return self.from_ == other.from_ and self.to == other.to

    def __lt__(self, other: Range) -> bool:
        if not isinstance(other, Range):
            return NotImplemented
        return (self.from_, self.to) < (other.from_, other.to)

    def __hash__(self) -> int:
        return hash((self.from_, self.to))

    def __repr__(self) -> str:
        return f"Range({self.from_}, {self.to})"

    def __reduce__(self) -> Any:
        return (Range, (self.from_, self.to))


def normalize_ranges(ranges: Iterable[RangeLike]) -> List[Range]:
    """Coerces ``Range`` objects / ``(from, to)`` pairs and sorts + merges them (adjacent too)."""
    return Range.sort_and_merge_overlap([Range.of(r) for r in ranges], merge=True, adjacent=True)
