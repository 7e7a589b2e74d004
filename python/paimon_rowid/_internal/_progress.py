"""Progress of a ``backfill`` run: the figures (``BackfillProgress``), the bar on a terminal,
plain periodic lines elsewhere, and the ``on_progress`` hook.

A ``ProgressTracker`` is driven by the run (``rows``: rows read and computed in the batch
that runs; ``committed``: a batch finished) and hands each new ``BackfillProgress`` to its
sinks. Cost: O(1) per update; the terminal bar redraws at most 10 times a second, plain
lines come at most every ``interval`` seconds (and once per commit, and at the end).
"""
from __future__ import annotations

import dataclasses
import sys
import time
from typing import Any, Callable, List, Optional, TextIO

__all__ = ["BackfillProgress", "ProgressTracker"]


@dataclasses.dataclass(frozen=True)
class BackfillProgress:
    """One reading of a running backfill.

    ``rows_done`` / ``rows_total``: rows of the ranges this run visits (those not recorded as
    done for the key) that are finished; a committed batch counts all its rows, the batch
    that runs counts the rows computed so far. ``rows_computed``: rows ``fn`` produced values
    for. ``rows_per_s``: ``rows_done / seconds``. ``eta_s``: seconds left at that rate (None
    before the first row). ``commits``: snapshots made. ``batch`` / ``batches``: the batch
    running (1-based) and the number of batches of this run. ``finished``: the last one."""
    rows_done: int
    rows_total: int
    rows_computed: int
    commits: int
    batch: int
    batches: int
    seconds: float
    rows_per_s: float
    eta_s: Optional[float]
    finished: bool = False

    def line(self) -> str:
        """The figures as one plain line (what the non-terminal output prints)."""
        pct = 100.0 * self.rows_done / self.rows_total if self.rows_total else 100.0
        eta = "-" if self.eta_s is None else _duration(self.eta_s)
        return (f"backfill: {self.rows_done:,}/{self.rows_total:,} rows ({pct:.0f}%), "
                f"{self.rows_computed:,} computed, batch {self.batch}/{self.batches}, "
                f"{self.commits} commit(s), {self.rows_per_s:,.0f} rows/s, "
                f"{_duration(self.seconds)} elapsed, ETA {eta}")


def _duration(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"


class _TextSink:
    """A bar redrawn in place when ``stream`` is a terminal, else periodic plain lines."""

    def __init__(self, stream: TextIO, interval: float) -> None:
        self._stream = stream
        isatty = getattr(stream, "isatty", None)
        self._tty = bool(isatty()) if callable(isatty) else False
        self._interval = 0.1 if self._tty else interval
        self._last = float("-inf")
        self._drawn = False

    def __call__(self, p: BackfillProgress, forced: bool) -> None:
        now = time.monotonic()
        if not forced and now - self._last < self._interval:
            return
        self._last = now
        if self._tty:
            self._stream.write("\r" + _bar(p) + ("\n" if p.finished else ""))
        else:
            self._stream.write(p.line() + "\n")
        self._stream.flush()


def _bar(p: BackfillProgress, width: int = 24) -> str:
    frac = p.rows_done / p.rows_total if p.rows_total else 1.0
    filled = int(round(width * min(1.0, frac)))
    eta = "-" if p.eta_s is None else _duration(p.eta_s)
    return (f"[{'#' * filled}{'.' * (width - filled)}] {p.rows_done:,}/{p.rows_total:,} rows "
            f"{p.rows_per_s:,.0f} rows/s ETA {eta} commits {p.commits} "
            f"batch {p.batch}/{p.batches}\x1b[K")


class ProgressTracker:
    """Accumulates the figures of one run and reports them to the sinks.

    ``progress``: True (stderr), False (nothing) or a text stream; ``on_progress``: called
    with every ``BackfillProgress`` (each fn call, each commit, the end). An exception raised
    by ``on_progress`` propagates (it stops the run like one of ``fn``)."""

    def __init__(self, rows_total: int, batches: int, progress: Any,
                 on_progress: Optional[Callable[[BackfillProgress], Any]],
                 interval: float = 5.0) -> None:
        self.rows_total = rows_total
        self.batches = batches
        self._sinks: List[Callable[[BackfillProgress, bool], None]] = []
        if progress is True:
            self._sinks.append(_TextSink(sys.stderr, interval))
        elif progress is not False and progress is not None:
            self._sinks.append(_TextSink(progress, interval))
        if on_progress is not None:
            self._sinks.append(lambda p, _forced: on_progress(p))
        self._started = time.perf_counter()
        self.rows_committed = 0   # rows of finished batches (all their rows)
        self.rows_in_batch = 0    # rows computed in the running batch
        self.rows_computed = 0
        self.commits = 0
        self.batch = 0

    def start_batch(self, batch: int) -> None:
        self.batch = batch
        self.rows_in_batch = 0
        self._emit(forced=False)

    def rows(self, n: int) -> None:
        """``n`` more rows computed in the running batch."""
        self.rows_in_batch += n
        self.rows_computed += n
        self._emit(forced=False)

    def committed(self, batch_rows: int, commit_made: bool) -> None:
        """The running batch is finished: its ``batch_rows`` rows count as done."""
        self.rows_committed += batch_rows
        self.rows_in_batch = 0
        self.commits += 1 if commit_made else 0
        if self.batch < self.batches:  # the last batch's line is the one ``finish`` prints
            self._emit(forced=True)

    def finish(self) -> None:
        self._emit(forced=True, finished=True)

    def snapshot(self, finished: bool = False) -> BackfillProgress:
        seconds = time.perf_counter() - self._started
        done = min(self.rows_total, self.rows_committed + self.rows_in_batch)
        rate = done / seconds if seconds > 0 else 0.0
        eta = (self.rows_total - done) / rate if rate > 0 else (0.0 if finished else None)
        return BackfillProgress(rows_done=done, rows_total=self.rows_total,
                                rows_computed=self.rows_computed, commits=self.commits,
                                batch=self.batch, batches=self.batches, seconds=seconds,
                                rows_per_s=rate, eta_s=eta, finished=finished)

    def _emit(self, forced: bool, finished: bool = False) -> None:
        if not self._sinks:
            return
        p = self.snapshot(finished)
        for sink in self._sinks:
            sink(p, forced)
