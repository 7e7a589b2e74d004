"""``TableScan``, ``Plan`` and ``Split``: planning a read into splits.

Planning reads the selected snapshot's manifest list and the manifests whose row-id / partition
bounds can match (pruned by row ranges and the predicate); it never opens data files.
"""
from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional

from .._internal._lib import native
from .._internal.range import Range, RangeLike, normalize_ranges
from .predicate import Predicate, row_ranges_of

__all__ = ["TableScan", "Plan", "Split"]


class Split:
    """A unit of reading: whole file groups of one partition, optionally restricted to row
    ranges. Picklable (serialized natively), so splits can be shipped to workers."""

    __slots__ = ("_native", "_native_table")

    def __init__(self, native_split: Any, native_table: Any = None) -> None:
        self._native = native_split
        self._native_table = native_table  # decodes the partition; not pickled

    @property
    def row_count(self) -> int:
        """Rows of the split's file groups (before row-range restriction)."""
        return self._native.row_count

    @property
    def bucket(self) -> int:
        """The bucket of the split's files (0 on a bucket-unaware table)."""
        return self._native.bucket

    @property
    def file_paths(self) -> List[str]:
        return list(self._native.file_paths)

    @property
    def partition(self) -> Dict[str, Any]:
        """Partition values by key ({} for an unpartitioned table)."""
        if hasattr(self._native, "partition"):
            return dict(self._native.partition)
        if self._native_table is None:
            raise ValueError("the partition of a deserialized split is unknown; use the "
                             "splits of TableScan.plan() for it")
        return dict(self._native.partition_of(self._native_table))

    @property
    def row_ranges(self) -> Optional[List[Range]]:
        ranges = self._native.row_ranges
        return None if ranges is None else [Range(a, b) for a, b in ranges]

    def serialize(self) -> bytes:
        return self._native.serialize()

    @staticmethod
    def deserialize(data: bytes) -> Split:
        return Split(native().Split.deserialize(data))

    def __reduce__(self) -> Any:
        return (Split.deserialize, (self.serialize(),))

    def __repr__(self) -> str:
        return f"Split(row_count={self.row_count}, files={len(self.file_paths)})"


class Plan:
    """The result of ``TableScan.plan()``."""

    def __init__(self, native_plan: Any, native_table: Any = None) -> None:
        self._native = native_plan
        self._splits = [Split(s, native_table) for s in native_plan.splits()]

    @property
    def snapshot_id(self) -> Optional[int]:
        """The planned snapshot (None for a table without snapshots)."""
        return self._native.snapshot_id

    def splits(self) -> List[Split]:
        return list(self._splits)


class TableScan:
    """Plans the snapshot selected by the table's options (latest, ``scan.snapshot-id`` or
    ``scan.tag-name``)."""

    def __init__(self, table: Any, predicate: Optional[Predicate] = None,
                 limit: Optional[int] = None) -> None:
        self._table = table
        self._predicate = predicate
        self._limit = limit
        self._row_ranges: Optional[List[Range]] = None

    def with_row_ranges(self, row_ranges: Optional[Iterable[RangeLike]]) -> TableScan:
        """Restricts the scan to inclusive row-id ranges (``Range`` or ``(from, to)`` pairs);
        they are sorted and merged, adjacent ones included. Only on data-evolution tables.
        An empty list plans nothing. Mutates and returns the scan. O(k log k)."""
        if not self._table.data_evolution_enabled:
            raise ValueError("Row ranges are only supported for data evolution tables")
        if row_ranges is None:
            raise ValueError("row_ranges cannot be None")
        self._row_ranges = normalize_ranges(row_ranges)
        return self

    def effective_row_ranges(self) -> Optional[List[Range]]:
        """Explicit row ranges intersected with those implied by ``_ROW_ID`` predicates
        (data-evolution tables only); None means no restriction."""
        ranges = self._row_ranges
        if self._table.data_evolution_enabled:
            implied = row_ranges_of(self._predicate)
            if implied is not None:
                ranges = implied if ranges is None else Range.and_(ranges, implied)
        return ranges

    def plan(self) -> Plan:
        """Reads manifests of the selected snapshot (pruned by row ranges and predicate) and
        groups live files into splits. No data file is opened."""
        ranges = self.effective_row_ranges()
        native_ranges = None if ranges is None else [(r.from_, r.to) for r in ranges]
        predicate = None if self._predicate is None else self._predicate.to_native()
        return Plan(native().plan(self._table._native, predicate, native_ranges),
                    self._table._native)
