"""The Ray doors' progress bar: ``progress=True`` on a Ray job is drawn by Ray's own tqdm
(``ray.experimental.tqdm_ray``), not by plain tqdm.

On Ray the work runs in tasks and actors whose log lines Ray prints in the driver's terminal.
A plain tqdm bar there is torn by every such line; a ``tqdm_ray`` bar made in the driver is
handed to Ray's bar manager, which clears its bars before a worker's line is printed and
redraws them after, and places them with the bars workers draw with ``tqdm_ray`` themselves
(Ray Data's, a user's ``fn``). The driver advances the bar as tasks finish
(``_internal/_progress.py`` keeps the figures and ``on_progress``; this is only the drawing).

Works alike on Ray 2.50 (whose ``tqdm_ray.tqdm`` has no ``n``: the count is kept here) and the
newest release. A text stream passed as ``progress`` still gets plain lines.
"""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

from .._internal._progress import BarSink, DrawBar, JobProgress, ProgressReporter
from ._runtime import innermost

__all__ = ["RayBar", "ray_bar", "gather_with_progress"]

#: Seconds between two redraws of the bar by Ray's manager (tqdm_ray's default is 1 s).
FLUSH_SECONDS = 0.2


class RayBar:
    """One job's bar in Ray's bar manager (a ``tqdm_ray.tqdm`` of the driver)."""

    def __init__(self, job: str, unit: str) -> None:
        from ray.experimental import tqdm_ray
        self._job = job
        self._n = 0
        self._total = 0
        self._desc = job
        self._closed = False
        self._bar = tqdm_ray.tqdm(desc=job, total=None, unit=unit,
                                  flush_interval_s=FLUSH_SECONDS)

    def __call__(self, p: JobProgress, postfix: str, forced: bool) -> None:
        if self._closed:
            return
        bar = self._bar
        if p.total != self._total:  # grows from 0 (the bar shows no total until then)
            self._total = bar.total = p.total
        desc = f"{self._job} [{postfix}]" if postfix else self._job
        if desc != self._desc:
            self._desc = desc
            bar.set_description(desc)  # redrawn at most every FLUSH_SECONDS, like update()
        step, self._n = p.done - self._n, max(self._n, p.done)
        bar.update(max(0, step))
        if p.finished:
            self.close()

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._bar.close()  # flushes the last figures to the manager, which closes its bar


def _ray_bar(job: str, unit: str) -> BarSink:
    return RayBar(job, unit)


#: ``draw`` of the Ray doors' ``ProgressReporter`` / ``ProgressTracker``: the bar of
#: ``progress=True`` (a text stream still gets plain lines).
ray_bar: DrawBar = _ray_bar


def gather_with_progress(ray: Any, refs: Sequence[Any], units: Sequence[int],
                         reporter: ProgressReporter
                         ) -> Tuple[List[Any], Optional[BaseException]]:
    """Waits for every task of ``refs`` in completion order, advancing ``reporter`` by the
    task's ``units`` as each one succeeds (the driver's bar and ``on_progress``).

    Returns the results in ``refs`` order (None for a task that failed) and the first error:
    a task's own exception (under Ray's wrappers), or what ``on_progress`` raised, or a
    KeyboardInterrupt. Every task has finished when it returns, even after an error, so the
    caller's clean-up deletes every file the tasks wrote; after an error the reporter is no
    longer advanced."""
    results: List[Any] = [None] * len(refs)
    index = {ref: i for i, ref in enumerate(refs)}
    pending = list(refs)
    error: Optional[BaseException] = None
    while pending:
        try:
            ready, pending = ray.wait(pending, num_returns=1)
            i = index[ready[0]]
            try:
                results[i] = ray.get(ready[0])
            except Exception as failure:  # noqa: BLE001 - the first one is returned
                error = error or innermost(failure)
                continue
            if error is None:
                reporter.advance(units[i])
        except BaseException as stop:  # the hook raised, or Ctrl-C: wait, then report it
            error = error or stop
    return results, error
