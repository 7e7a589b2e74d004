"""Progress of the long jobs (``compact``, ``expire_snapshots``, ``remove_orphan_files``,
``create_global_index``, ``backfill``; on Ray too): one ``progress=`` / ``on_progress=``
interface, the figures (``JobProgress``; ``BackfillProgress`` adds a backfill's own), drawn
with ``tqdm``.

- ``progress``: True (stderr), False / None (nothing), or a text stream. On a terminal the
  figures are a tqdm bar redrawn in place; elsewhere (a log, a pipe, a StringIO) they are
  plain lines in tqdm's format, at most one per ``interval`` seconds plus one per batch
  commit (backfill) and one at the end, so logs stay readable.
- ``on_progress``: called with every ``JobProgress`` (each unit of work and the end) in the
  caller's thread. An exception it raises stops the job: a backfill stops as if ``fn`` had
  failed; a job of the C++ core is cancelled at its next check (common/progress.h) and commits
  nothing, then the exception propagates.

Jobs that run in C++ count into a ``ProgressCounter`` (cpp common/progress.h) from their own
threads; ``run_native`` runs such a job on a worker thread and polls the counter every 0.1 s
from the calling thread, which draws the bar and calls ``on_progress``. Ctrl-C cancels the
job the same way. Without a bar or a hook the job runs directly, with no thread and no
counter.

The Ray doors draw ``progress=True`` with Ray's own tqdm instead (``ray/_progress.py``, passed
here as ``draw``): the driver's bar then lives in Ray's bar manager, which hides it while the
workers' log lines are printed and lays it out with the workers' own ``tqdm_ray`` bars. A text
stream gets the same plain lines on Ray as embedded.

Cost: O(1) per update; the terminal bar redraws at most 10 times a second.
"""
from __future__ import annotations

import dataclasses
import io
import sys
import threading
import time
from typing import Any, Callable, Optional, Protocol, TextIO, TypeVar

from tqdm import tqdm

from ._lib import native

__all__ = ["JobProgress", "BackfillProgress", "ProgressReporter", "ProgressTracker",
           "BarSink", "DrawBar", "check_progress_args", "run_native"]

T = TypeVar("T")

#: Seconds between two polls of a native job's counter.
POLL_SECONDS = 0.1


@dataclasses.dataclass(frozen=True)
class JobProgress:
    """One reading of a running job.

    ``job``: the call (``"compact"``, ...); ``unit``: what ``done`` and ``total`` count
    (compact: file groups; expire_snapshots: steps, three per expired snapshot;
    remove_orphan_files: files read or checked; create_global_index and backfill: rows).
    ``done`` never decreases; ``total`` is the work known so far (it may grow while a job
    plans, never shrinks; ``done <= total``). ``seconds``: since the start; ``rate``:
    ``done / seconds``; ``eta_s``: seconds left at that rate (None before the first unit);
    ``finished``: the last reading of a job that succeeded."""
    job: str
    unit: str
    done: int
    total: int
    seconds: float
    rate: float
    eta_s: Optional[float]
    finished: bool = False

    @property
    def fraction(self) -> float:
        """``done / total`` (1.0 for a job with nothing to do)."""
        return min(1.0, self.done / self.total) if self.total else 1.0


@dataclasses.dataclass(frozen=True)
class BackfillProgress(JobProgress):
    """A backfill's reading (unit: rows). ``rows_done`` / ``rows_total`` (= ``done`` /
    ``total``): rows of the ranges this run visits that are finished; a committed batch
    counts all its rows, the running batch the rows computed so far. ``rows_computed``: rows
    ``fn`` produced values for. ``commits``: snapshots made. ``batch`` / ``batches``: the
    batch running (1-based) and the batches of this run."""
    rows_computed: int = 0
    commits: int = 0
    batch: int = 0
    batches: int = 0

    @property
    def rows_done(self) -> int:
        return self.done

    @property
    def rows_total(self) -> int:
        return self.total

    @property
    def rows_per_s(self) -> float:
        return self.rate

    def postfix(self) -> str:
        return (f"{self.rows_computed:,} computed, batch {self.batch}/{self.batches}, "
                f"{self.commits} commit(s)")

    def line(self) -> str:
        """The figures as one plain line (what the non-terminal output prints)."""
        return _plain_line(self, self.postfix())


class BarSink(Protocol):
    """What draws one job's figures: called with each reading (its postfix text; ``forced``
    for a reading that must show now), then closed."""

    def __call__(self, p: JobProgress, postfix: str, forced: bool) -> None: ...

    def close(self) -> None: ...


#: Makes the bar of ``progress=True`` for a job and its unit (the Ray doors' tqdm_ray).
DrawBar = Callable[[str, str], BarSink]


def _plain_line(p: JobProgress, postfix: str = "") -> str:
    return tqdm.format_meter(p.done, p.total or None, p.seconds, prefix=p.job, unit=p.unit,
                             unit_scale=False, postfix=postfix or None, ncols=0)


def check_progress_args(progress: Any, on_progress: Any) -> None:
    """TypeError unless ``progress`` is a bool, None or a text stream and ``on_progress`` is
    None or callable (checked before a job touches anything)."""
    if not (progress is None or isinstance(progress, bool)
            or callable(getattr(progress, "write", None))):
        raise TypeError("progress must be True, False or a text stream (an object with "
                        f"write()), got {type(progress).__name__}.")
    if on_progress is not None and not callable(on_progress):
        raise TypeError(f"on_progress must be a callable or None, got "
                        f"{type(on_progress).__name__}.")


def _is_terminal(stream: Any) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if callable(isatty) else False
    except (ValueError, io.UnsupportedOperation):  # a closed stream
        return False


class _Bar:
    """tqdm on a terminal; plain tqdm-format lines elsewhere."""

    def __init__(self, stream: TextIO, job: str, unit: str, interval: float) -> None:
        self._stream = stream
        self._tty = _is_terminal(stream)
        self._interval = interval
        self._last = float("-inf")
        self._bar: Optional[tqdm] = None
        if self._tty:
            self._bar = tqdm(total=0, desc=job, unit=unit, file=stream, mininterval=0.1,
                             dynamic_ncols=True, leave=True)

    def __call__(self, p: JobProgress, postfix: str, forced: bool) -> None:
        if self._bar is not None:
            bar = self._bar
            if bar.total != p.total:
                bar.total = p.total
            if postfix:
                bar.set_postfix_str(postfix, refresh=False)
            bar.update(p.done - bar.n)
            if forced or p.finished:
                bar.refresh()
            if p.finished:
                bar.close()
            return
        now = time.monotonic()
        if not (forced or p.finished) and now - self._last < self._interval:
            return
        self._last = now
        self._stream.write(_plain_line(p, postfix) + "\n")
        self._stream.flush()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


class ProgressReporter:
    """The figures of one job run and its sinks (the bar, ``on_progress``).

    The job calls ``add_total`` as it learns of work, ``advance`` / ``update_to`` as units
    finish, and ``finish`` once at the end of a successful run (``close`` in any case).
    ``enabled`` is False when nobody watches (then every call is a no-op). ``draw`` makes the
    bar of ``progress=True`` (default: tqdm on stderr, or plain lines when it is no terminal);
    a text stream is always written plain lines or a tqdm bar as above."""

    def __init__(self, job: str, unit: str, progress: Any,
                 on_progress: Optional[Callable[[Any], Any]], total: int = 0,
                 interval: float = 5.0, draw: Optional[DrawBar] = None) -> None:
        check_progress_args(progress, on_progress)
        self.job, self.unit = job, unit
        self.total, self.done = total, 0
        self._bar: Optional[BarSink] = None
        if progress is True and draw is not None:
            self._bar = draw(job, unit)
        elif progress is True:
            self._bar = _Bar(sys.stderr, job, unit, interval)
        elif progress is not None and progress is not False:
            self._bar = _Bar(progress, job, unit, interval)
        self._hook = on_progress
        self._started = time.perf_counter()
        self._closed = False

    @property
    def enabled(self) -> bool:
        return self._bar is not None or self._hook is not None

    def start(self) -> None:
        """The first reading (nothing done yet)."""
        self._emit(forced=True)

    def add_total(self, n: int) -> None:
        self.total += n
        self._emit(forced=False)

    def advance(self, n: int = 1) -> None:
        self.done += n
        self._emit(forced=False)

    def update_to(self, done: int, total: int) -> None:
        """Absolute figures (a native counter's): never moves ``done`` back or ``total``
        down; emits only on a change."""
        done, total = max(self.done, done), max(self.total, total, done)
        if (done, total) == (self.done, self.total):
            return
        self.done, self.total = done, total
        self._emit(forced=False)

    def finish(self) -> None:
        self.total = max(self.total, self.done)
        self._emit(forced=True, finished=True)
        self.close()

    def close(self) -> None:
        if not self._closed and self._bar is not None:
            self._bar.close()
        self._closed = True

    def snapshot(self, finished: bool = False) -> JobProgress:
        seconds, rate, eta = self._timing(finished)
        return JobProgress(job=self.job, unit=self.unit, done=self.done,
                           total=max(self.total, self.done), seconds=seconds, rate=rate,
                           eta_s=eta, finished=finished)

    def _timing(self, finished: bool):
        seconds = time.perf_counter() - self._started
        rate = self.done / seconds if seconds > 0 else 0.0
        left = max(0, self.total - self.done)
        eta = left / rate if rate > 0 else (0.0 if finished or not left else None)
        return seconds, rate, eta

    def _postfix(self, p: JobProgress) -> str:
        return ""

    def _emit(self, forced: bool, finished: bool = False) -> None:
        if not self.enabled or self._closed:
            return
        p = self.snapshot(finished)
        if self._bar is not None:
            self._bar(p, self._postfix(p), forced)
        if self._hook is not None:
            self._hook(p)


class ProgressTracker(ProgressReporter):
    """A backfill's reporter: rows, batches and commits (``BackfillProgress``)."""

    def __init__(self, rows_total: int, batches: int, progress: Any,
                 on_progress: Optional[Callable[[BackfillProgress], Any]],
                 interval: float = 5.0, draw: Optional[DrawBar] = None) -> None:
        super().__init__("backfill", "rows", progress, on_progress, total=rows_total,
                         interval=interval, draw=draw)
        self.batches = batches
        self.rows_committed = 0   # rows of finished batches (all their rows)
        self.rows_in_batch = 0    # rows computed in the running batch
        self.rows_computed = 0
        self.commits = 0
        self.batch = 0

    @property
    def rows_total(self) -> int:
        return self.total

    def start_batch(self, batch: int) -> None:
        self.batch = batch
        self.rows_in_batch = 0
        self._emit(forced=False)

    def rows(self, n: int) -> None:
        """``n`` more rows computed in the running batch."""
        self.rows_in_batch += n
        self.rows_computed += n
        self._sync()
        self._emit(forced=False)

    def committed(self, batch_rows: int, commit_made: bool) -> None:
        """The running batch is finished: its ``batch_rows`` rows count as done."""
        self.rows_committed += batch_rows
        self.rows_in_batch = 0
        self.commits += 1 if commit_made else 0
        self._sync()
        if self.batch < self.batches:  # the last batch's line is the one ``finish`` prints
            self._emit(forced=True)

    def _sync(self) -> None:
        self.done = max(self.done, min(self.total, self.rows_committed + self.rows_in_batch))

    def snapshot(self, finished: bool = False) -> BackfillProgress:
        seconds, rate, eta = self._timing(finished)
        return BackfillProgress(job=self.job, unit=self.unit, done=self.done,
                                total=self.total, seconds=seconds, rate=rate, eta_s=eta,
                                finished=finished, rows_computed=self.rows_computed,
                                commits=self.commits, batch=self.batch,
                                batches=self.batches)

    def _postfix(self, p: JobProgress) -> str:
        return p.postfix() if isinstance(p, BackfillProgress) else ""


def run_native(job: str, unit: str, progress: Any, on_progress: Optional[Callable[[Any], Any]],
               call: Callable[[Any], T]) -> T:
    """Runs ``call(counter)`` (a C++ job that counts into ``counter``, a native
    ``ProgressCounter``, or gets None when nobody watches) and reports its progress.

    With a bar or a hook: the call runs on a worker thread (it releases the GIL) while this
    thread polls the counter every ``POLL_SECONDS``. ``on_progress`` first gets a reading of
    nothing done before the job starts. If it raises, or Ctrl-C arrives, the job is cancelled
    at its next check (it stops before its commit and removes what it wrote), waited for, and
    the exception propagates; a job already past its last check (its commit) completes
    first."""
    reporter = ProgressReporter(job, unit, progress, on_progress)
    if not reporter.enabled:
        return call(None)
    reporter.start()  # a hook that raises here stops the job before it starts
    counter = native().ProgressCounter()
    outcome: dict = {}

    def work() -> None:
        try:
            outcome["value"] = call(counter)
        except BaseException as error:  # noqa: BLE001 - re-raised in the caller's thread
            outcome["error"] = error

    worker = threading.Thread(target=work, name=f"paimon-rowid-{job}", daemon=True)
    worker.start()
    try:
        try:
            while worker.is_alive():
                worker.join(POLL_SECONDS)
                reporter.update_to(counter.done, counter.total)
        except BaseException:
            counter.cancel()
            worker.join()
            raise
        if "error" in outcome:
            raise outcome["error"]
        reporter.update_to(counter.done, counter.total)
        reporter.finish()
        return outcome["value"]
    finally:
        reporter.close()
