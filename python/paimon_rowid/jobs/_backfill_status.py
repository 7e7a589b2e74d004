"""``backfill_status``: which file-group ranges are done for a backfill key, which are
pending, and which snapshot committed each done range and when — from metadata alone (the
progress properties ``_backfill_core`` writes; see docs/backfill.md)."""
from __future__ import annotations

import dataclasses
from typing import Any, Dict, List, Mapping, Optional, Tuple

from .._internal.range import Range
from . import _job_checks as jobs
from ._backfill_core import BATCH_PROPERTY_PREFIX, covered
from .row_id_ranges import completed_ranges, plan_row_id_ranges

__all__ = ["backfill_status", "BackfillStatus", "RangeStatus"]


def _decode_batch(text: str) -> List[Range]:
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        if lo.isdigit() and hi.isdigit():
            out.append(Range(int(lo), int(hi)))
    return out



@dataclasses.dataclass(frozen=True)
class RangeStatus:
    """One file-group range of the latest snapshot: done (with the snapshot that recorded it
    and its commit time, epoch milliseconds; None when unknown) or pending."""
    range: Range
    done: bool
    snapshot_id: Optional[int] = None
    committed_millis: Optional[int] = None


@dataclasses.dataclass(frozen=True)
class BackfillStatus:
    key: str
    ranges: List[RangeStatus]

    @property
    def done(self) -> List[RangeStatus]:
        return [r for r in self.ranges if r.done]

    @property
    def pending(self) -> List[Range]:
        return [r.range for r in self.ranges if not r.done]

    @property
    def rows_done(self) -> int:
        return sum(r.range.count() for r in self.done)

    @property
    def rows_pending(self) -> int:
        return sum(r.count() for r in self.pending)


def backfill_status(target: str, catalog_options: Mapping[str, Any], key: str) -> BackfillStatus:
    """Which file-group ranges of the latest snapshot are done for ``key`` and which are
    pending, and which snapshot committed each done range and when. Metadata only: one
    manifest read to plan, then snapshot files newest first until every done range is dated
    (or snapshot 1 / an expired snapshot is reached). No data file is opened."""
    if not isinstance(key, str) or not key:
        raise ValueError("key must be a non-empty string.")
    table = jobs.load_table(target, catalog_options)
    groups = plan_row_id_ranges(table)
    done = completed_ranges(table, key)
    dated: Dict[Range, Tuple[int, int]] = {}
    todo = [g for g in groups if covered(g, done)]
    snapshot = table.latest_snapshot()
    snapshot_id = snapshot.id if snapshot is not None else 0
    while todo and snapshot_id >= 1:
        try:
            s = table.snapshot(snapshot_id)
        except ValueError:
            break  # expired
        text = s.properties.get(BATCH_PROPERTY_PREFIX + key)
        if text:
            batch = _decode_batch(text)
            for g in [g for g in todo if covered(g, batch)]:
                dated[g] = (s.id, s.time_millis)
            todo = [g for g in todo if g not in dated]
        snapshot_id -= 1
    out = []
    for g in groups:
        if covered(g, done):
            sid, millis = dated.get(g, (None, None))
            out.append(RangeStatus(g, True, sid, millis))
        else:
            out.append(RangeStatus(g, False))
    return BackfillStatus(key, out)
