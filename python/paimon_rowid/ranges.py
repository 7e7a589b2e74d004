"""process_row_id_ranges: drive a batched backfill over a table's row-id ranges.

Plans the latest snapshot once (one manifest read, in C++), turns every data-evolution file
group into an inclusive ``Range`` in row-id order, and calls ``processor(ranges)`` with
batches whose summed span reaches ``rows_per_commit``. Groups are never split, so a batch can
be larger than the target. No Ray needed.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping

from ._lib import native
from .range import Range

__all__ = ["process_row_id_ranges", "plan_row_id_ranges"]


def plan_row_id_ranges(table) -> List[Range]:
    """The file groups of the table's latest snapshot as inclusive ranges, ascending."""
    snapshot = table.latest_snapshot()
    if snapshot is None:
        return []
    index = native().RowIdIndex.build(table._native, int(snapshot["id"]))
    return [Range(lo, hi) for lo, hi in index.group_ranges()]


def process_row_id_ranges(target: str, catalog_options: Mapping[str, Any], *,
                          rows_per_commit: int,
                          processor: Callable[[List[Range]], None]) -> None:
    """Calls ``processor`` synchronously, in row-id order, once per batch of file-group ranges
    of about ``rows_per_commit`` rows. A processor exception stops the run at once. The plan is
    captured once, at the start."""
    if (not isinstance(rows_per_commit, int) or isinstance(rows_per_commit, bool)
            or rows_per_commit <= 0):
        raise ValueError("rows_per_commit must be a positive integer.")
    if not callable(processor):
        raise ValueError("processor must be callable.")
    from .catalog import CatalogFactory
    table = CatalogFactory.create(catalog_options).get_table(target)
    if not table.row_tracking_enabled:
        raise ValueError(
            f"process_row_id_ranges requires 'row-tracking.enabled'='true' on '{target}'.")
    pending: List[Range] = []
    pending_rows = 0
    for r in plan_row_id_ranges(table):
        pending.append(r)
        pending_rows += r.count()
        if pending_rows >= rows_per_commit:
            processor(list(pending))
            pending, pending_rows = [], 0
    if pending:
        processor(list(pending))
