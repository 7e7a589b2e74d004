"""``backfill``: a derived column computed, resumed and kept fresh in one call, embedded (no
Ray: this process reads, calls ``fn`` and commits; ``paimon_rowid.ray.backfill`` runs the
same job on Ray). ``backfill_status``: what is done for a key, from metadata alone.

Beyond pypaimon: pypaimon has no backfill call; its documented pattern is the hand-written
``process_row_id_ranges`` + read + ``update_by_row_id`` loop (examples/seed_backfill.py),
which this call replaces (docs/backfill.md shows both side by side).
"""
from __future__ import annotations

import concurrent.futures
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import pyarrow as pa

from .._internal._progress import BackfillProgress, ProgressTracker, check_progress_args
from .._internal.range import Range
from ..table.predicate import Predicate
from . import _backfill_core as core
from ._backfill_column import add_missing_column
from ._backfill_core import BackfillError, BackfillResult
from ._backfill_status import BackfillStatus, RangeStatus, backfill_status
from .row_id_jobs import update_and_commit

__all__ = ["backfill", "backfill_status", "BackfillResult", "BackfillProgress",
           "BackfillStatus", "RangeStatus", "BackfillError"]


def backfill(target: str, catalog_options: Mapping[str, Any], *, column: str, fn: Any,
             input_columns: Sequence[str], rows_per_commit: int = 1_000_000,
             batch_size: int = 1024, concurrency: Optional[int] = None,
             ray_remote_args: Optional[Dict[str, Any]] = None, version: Optional[str] = None,
             key: Optional[str] = None, where: Optional[Predicate] = None,
             only_null: Optional[bool] = None, progress: Any = True,
             on_progress: Optional[Callable[[BackfillProgress], Any]] = None,
             fn_constructor_args: Sequence[Any] = (),
             fn_constructor_kwargs: Optional[Mapping[str, Any]] = None,
             column_type: Any = None) -> BackfillResult:
    """Computes ``column`` of ``target`` as ``fn`` of ``input_columns``, committing once per
    batch of file groups of about ``rows_per_commit`` rows, and records each batch as done
    for ``key`` in the snapshot it commits.

    - ``fn``: a function, or a class (constructed once per worker, as
      ``fn(*fn_constructor_args, **fn_constructor_kwargs)``; here once per thread),
      called with a ``pyarrow.Table`` of ``input_columns`` + ``_ROW_ID`` of at most
      ``batch_size`` rows; returns an array (or anything ``pa.array`` takes) or a one-column
      table of as many values, cast to the column's type (TypeError when it cannot be).
    - ``column_type``: a pyarrow type or a Paimon type; when the table has no ``column``,
      it is added as a nullable column of this type (one ``alter_table``) before anything is
      read; a rerun, or a concurrent backfill that added it first, adds nothing. A column
      that exists with another type is a ValueError. Without it the column must exist.
    - ``key`` (default: ``column``, or ``column@version`` with a ``version``): a rerun with the
      same key skips the ranges done for it without reading them; rows appended since are
      pending, so a rerun after an append computes exactly those; a new ``version`` is a new
      key, so every row is computed again.
    - ``only_null`` (default: True without a ``version``, False with one): read only rows
      whose ``column`` is null (the seed's rule; the filter runs before any BLOB payload is
      fetched); False: every row of the pending ranges. ``where``: an extra filter (rows it
      excludes are not computed, and their ranges still count as done).
    - ``concurrency``: threads calling ``fn`` (default 1); ``ray_remote_args`` is accepted
      for signature parity with ``paimon_rowid.ray.backfill`` and ignored.
    - ``progress``: True (a bar on stderr when it is a terminal, plain lines every 5 s and
      per commit otherwise), False (nothing), or a text stream to write to; ``on_progress``:
      called with every ``BackfillProgress``.

    Raises ValueError / TypeError for bad arguments before anything is read. A failure in a
    batch (``fn``, the cast, the commit) raises ``BackfillError`` naming the batch's row-id
    ranges, with the original exception as ``__cause__``; batches committed before it stay,
    the failing one leaves nothing behind, and a rerun resumes at it.

    Cost: one manifest read to plan, one snapshot walk for the key's progress; per batch one
    planned read of only the pending rows' read columns (one plan per window of
    ``max(batch_size, 16,384)`` row ids when a file group is larger) and one commit. Memory:
    one window of input rows and ``batch_size`` rows per thread in ``fn``; the new values
    stream into the update as they are computed, which holds them up to its memory budget
    (``paimon-rowid.update.memory-budget``, default 256 mb) and spills the rest to disk until
    the batch's commit, so ``rows_per_commit`` does not set the memory."""
    check_progress_args(progress, on_progress)
    add_missing_column(target, catalog_options, column, column_type)
    spec, table = core.check_arguments(
        target, catalog_options, column=column, fn=fn, input_columns=input_columns,
        rows_per_commit=rows_per_commit, batch_size=batch_size, version=version, key=key,
        where=where, only_null=only_null, fn_constructor_args=fn_constructor_args,
        fn_constructor_kwargs=fn_constructor_kwargs)
    threads = 1 if concurrency is None else core._positive_int("concurrency", concurrency)
    runner = _EmbeddedBatch(spec, threads)
    try:
        return core.run(spec, table, runner, progress, on_progress)
    finally:
        runner.close()


class _EmbeddedBatch:
    """Executes one batch in this process: stream the pending rows, ``fn`` over chunks of
    ``batch_size`` rows (on ``threads`` threads, each with its own ``fn`` instance), then one
    ``update_by_row_id`` commit with the batch's progress properties."""

    def __init__(self, spec: core.BackfillSpec, threads: int) -> None:
        self._spec = spec
        self._threads = threads
        self._pool = (concurrent.futures.ThreadPoolExecutor(threads) if threads > 1 else None)
        self._free: List[core.Compute] = []

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)

    def _compute(self, chunk: pa.Table) -> pa.Table:
        # One fn instance per thread: take a free one, or construct one (at most `threads`).
        try:
            compute = self._free.pop()
        except IndexError:
            compute = core.Compute(self._spec)
        try:
            return compute(chunk)
        finally:
            self._free.append(compute)

    def __call__(self, batch: List[Range], properties: Dict[str, str],
                 tracker: ProgressTracker) -> Tuple[int, Optional[int], int]:
        spec = self._spec
        read, splits = core.batch_read(spec, batch)
        if not splits:
            return 0, None, 0
        measured = {"bytes": 0}

        def values():
            # Pulled by the native update while it routes (and spills past its memory
            # budget): the batch's new values are never all held here at once.
            before = core.io_bytes_read()
            for out in self._computed(read.to_arrow_batch_reader(splits)):
                tracker.rows(out.num_rows)
                yield from out.to_batches()
            measured["bytes"] = core.io_bytes_read() - before

        schema = core.Compute.schema_of(spec)
        rows, snapshot_id = update_and_commit(
            spec.target, pa.RecordBatchReader.from_batches(schema, values()),
            spec.catalog_options, update_cols=[spec.column], snapshot_properties=properties)
        return rows, snapshot_id, measured["bytes"]

    def _computed(self, batches):
        """``fn`` over chunks of ``batch_size`` rows, in order; on ``threads`` threads at most
        ``threads`` chunks are in flight."""
        chunks = core.chunks(batches, self._spec.batch_size)
        if self._pool is None:
            for chunk in chunks:
                yield self._compute(chunk)
            return
        in_flight: List[concurrent.futures.Future] = []
        try:
            for chunk in chunks:
                in_flight.append(self._pool.submit(self._compute, chunk))
                while len(in_flight) >= self._threads:
                    yield in_flight.pop(0).result()
            while in_flight:
                yield in_flight.pop(0).result()
        finally:
            for future in in_flight:  # a failure: let the other chunks finish, unread
                future.cancel()
            concurrent.futures.wait(in_flight)
