"""process_row_id_ranges: drive a batched backfill over a table's row-id ranges.

Plans the latest snapshot once (one manifest read, in C++), turns every data-evolution file
group into an inclusive ``Range`` in row-id order, and calls ``processor(ranges)`` with
batches whose summed span reaches ``rows_per_commit``. Groups are never split, so a batch can
be larger than the target. No Ray needed.

Beyond pypaimon: with ``resume_key``, the run records its progress in the snapshots it
commits and a rerun skips finished batches without reading any of their data (see
``process_row_id_ranges``).
"""
from __future__ import annotations

import json
from typing import Any, Callable, List, Mapping, Optional

from .._internal._lib import native
from .._internal.range import Range
from ..catalog.catalog import CatalogFactory
from . import _job_checks as jobs

__all__ = ["process_row_id_ranges", "plan_row_id_ranges", "completed_ranges"]

PROPERTY_PREFIX = "paimon-rowid.backfill."

def plan_row_id_ranges(table: Any) -> List[Range]:
    """The file groups of the table's latest snapshot as inclusive ranges, ascending."""
    snapshot = table.latest_snapshot()
    if snapshot is None:
        return []
    index = native().RowIdIndex.build(table._native, snapshot.id)
    return [Range(lo, hi) for lo, hi in index.group_ranges()]


def _encode(ranges: List[Range]) -> str:
    return json.dumps([[r.from_, r.to] for r in Range.sort_and_merge_overlap(ranges)])


def completed_ranges(table: Any, resume_key: str) -> List[Range]:
    """Ranges recorded as done for ``resume_key``: the progress property of the newest
    snapshot that carries it (snapshots are read newest first, natively, stopping at the
    first hit)."""
    done = native().backfill_done_ranges(table._native, PROPERTY_PREFIX + resume_key)
    return [Range(a, b) for a, b in done]


def _covered(r: Range, done: List[Range]) -> bool:
    return any(d.from_ <= r.from_ and r.to <= d.to for d in done)


def process_row_id_ranges(target: str, catalog_options: Mapping[str, Any], *,
                          rows_per_commit: int,
                          processor: Callable[[List[Range]], None],
                          resume_key: Optional[str] = None) -> None:
    """Calls ``processor`` synchronously, in row-id order, once per batch of file-group ranges
    of about ``rows_per_commit`` rows. A processor exception stops the run at once. The plan is
    captured once, at the start.

    ``resume_key`` (beyond pypaimon): a name for this backfill. Each ``update_by_row_id`` of
    ``target`` made inside a batch records the batch as done in its snapshot's properties
    (``paimon-rowid.backfill.<resume_key>``); a rerun with the same key skips batches recorded
    as done without calling the processor, so finished ranges cost no reads at all. Use one
    update per batch (the seed's pattern); a batch whose processor commits nothing is
    processed again on a rerun. Use a new key when the model or the source changes."""
    if (not isinstance(rows_per_commit, int) or isinstance(rows_per_commit, bool)
            or rows_per_commit <= 0):
        raise ValueError("rows_per_commit must be a positive integer.")
    if not callable(processor):
        raise ValueError("processor must be callable.")
    if resume_key is not None and (not isinstance(resume_key, str) or not resume_key):
        raise ValueError("resume_key must be a non-empty string.")
    table = CatalogFactory.create(catalog_options).get_table(target)
    if not table.row_tracking_enabled:
        raise ValueError(
            f"process_row_id_ranges requires 'row-tracking.enabled'='true' on '{target}'.")
    done = completed_ranges(table, resume_key) if resume_key else []

    def run(batch: List[Range]) -> None:
        if resume_key and all(_covered(r, done) for r in batch):
            return
        if not resume_key:
            processor(list(batch))
            return
        with jobs.batch_properties(target, {PROPERTY_PREFIX + resume_key: _encode(done + batch)}):
            processor(list(batch))
        latest = completed_ranges(CatalogFactory.create(catalog_options).get_table(target),
                                  resume_key)
        done[:] = latest or done

    pending: List[Range] = []
    pending_rows = 0
    for r in plan_row_id_ranges(table):
        pending.append(r)
        pending_rows += r.count()
        if pending_rows >= rows_per_commit:
            run(pending)
            pending, pending_rows = [], 0
    if pending:
        run(pending)
