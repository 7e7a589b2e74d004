"""``backfill`` on Ray: the embedded ``paimon_rowid.backfill`` with the read-and-compute step
of each batch on a Ray actor pool, and the batch's commit through the Ray
``update_by_row_id``. Same arguments, same progress keys, same results and errors.

The run creates ``concurrency`` actors (``ray_remote_args`` shape each, e.g.
``{"num_gpus": 1}``); each constructs ``fn`` once. Per batch, the driver plans the pending
rows' splits (manifests only) and ships them, as bytes, to the actors; each reads its split
with the native reader, calls ``fn`` per ``batch_size`` rows and returns the
``(_ROW_ID, column)`` values as an object-store ref. The driver commits them once through the
Ray ``update_by_row_id``, with the batch's progress in the snapshot properties. An actor lost
mid-batch is restarted and its split re-run by Ray (reading is idempotent); if Ray gives up,
the batch fails as a ``fn`` failure does and nothing of it is committed.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import pyarrow as pa

from .._internal._progress import BackfillProgress, ProgressTracker, check_progress_args
from .._internal.range import Range
from ..jobs import _backfill_core as core
from ..jobs._backfill_column import add_missing_column
from ..jobs._backfill_core import BackfillResult
from ..jobs._backfill_status import backfill_status
from ..table.predicate import Predicate
from ..table.scan import Split
from ._progress import ray_bar
from ._runtime import cluster_cpus, innermost, require_ray
from .row_id_jobs import update_and_commit

__all__ = ["backfill", "backfill_status"]


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
    """``paimon_rowid.backfill`` on Ray (see its docstring for every argument).
    ``concurrency``: the most actors in the pool, which live for the whole run and are
    created on demand, never more than a batch has splits (default: the cluster's CPUs less
    one, divided by the actors' ``num_cpus``; at least 1);
    ``ray_remote_args``: Ray options of each actor (default ``{"num_cpus": 1}``, e.g. add
    ``"num_gpus": 1``), plus ``max_restarts`` / ``max_task_retries`` (default 3). A class
    ``fn`` is constructed once per actor. The update's Ray tasks need CPUs while the actors
    live: leave some free. Progress advances per split (a file group, or a window of one) as
    its values are computed; ``progress=True`` draws it with Ray's ``tqdm_ray`` in the
    driver (so the actors' log lines do not tear it)."""
    check_progress_args(progress, on_progress)
    ray = require_ray()
    add_missing_column(target, catalog_options, column, column_type)
    spec, table = core.check_arguments(
        target, catalog_options, column=column, fn=fn, input_columns=input_columns,
        rows_per_commit=rows_per_commit, batch_size=batch_size, version=version, key=key,
        where=where, only_null=only_null, fn_constructor_args=fn_constructor_args,
        fn_constructor_kwargs=fn_constructor_kwargs)
    if concurrency is not None:
        core._positive_int("concurrency", concurrency)
    if ray_remote_args is not None and not isinstance(ray_remote_args, Mapping):
        raise TypeError("ray_remote_args must be a mapping of Ray options.")
    runner = _RayBatch(ray, spec, concurrency, ray_remote_args)
    try:
        return core.run(spec, table, runner, progress, on_progress, draw=ray_bar)
    finally:
        runner.close()


class _ReadAndCompute:
    """A worker actor: ``fn`` constructed once (per actor, for the whole run); ``run`` reads
    one split's pending rows and returns ``fn``'s values, computed per ``batch_size`` rows,
    and the bytes read for them. Idempotent, so Ray may retry it on another actor."""

    def __init__(self, spec: core.BackfillSpec) -> None:
        self._spec = spec
        self._compute = core.Compute(spec)
        self._read = core.pending_rows(spec).new_read()

    def run(self, split: bytes) -> Tuple[pa.Table, Tuple[int, int]]:
        """(the values, (their rows, bytes read))."""
        before = core.io_bytes_read()
        reader = self._read.to_arrow_batch_reader([Split.deserialize(split)])
        outs = [self._compute(chunk) for chunk in core.chunks(reader, self._spec.batch_size)]
        read = core.io_bytes_read() - before
        values = pa.concat_tables(outs) if outs else self._compute.empty()
        return values, (values.num_rows, read)


class _RayBatch:
    """Runs batches on one pool of actors created for the run (so ``fn`` is built once per
    actor, not once per batch), and commits each through the Ray ``update_by_row_id``."""

    def __init__(self, ray, spec: core.BackfillSpec, concurrency: Optional[int],
                 ray_remote_args: Optional[Mapping[str, Any]]) -> None:
        self._ray = ray
        self._spec = spec
        options: Dict[str, Any] = {"num_cpus": 1, "max_restarts": 3, "max_task_retries": 3}
        options.update(ray_remote_args or {})
        if concurrency is None:
            # Leave a CPU to the update's scatter/apply tasks, which run while actors live.
            per_actor = float(options.get("num_cpus") or 0)
            cpus = cluster_cpus(ray, 1)
            concurrency = int((cpus - 1) // per_actor) if per_actor else int(cpus)
            concurrency = max(1, concurrency)
        self._size = concurrency
        self._options = options
        self._actors: List[Any] = []

    def close(self) -> None:
        for actor in self._actors:
            self._ray.kill(actor)
        self._actors = []

    def __call__(self, batch: List[Range], properties: Dict[str, str],
                 tracker: ProgressTracker) -> Tuple[int, Optional[int], int]:
        import ray.data
        spec = self._spec
        _, splits = core.batch_read(spec, batch)
        if not splits:
            return 0, None, 0
        # Actors are created on demand: never more than the largest batch has splits.
        if len(self._actors) < min(self._size, len(splits)):
            worker = self._ray.remote(**self._options)(_ReadAndCompute)
            while len(self._actors) < min(self._size, len(splits)):
                self._actors.append(worker.remote(spec))
        table_refs, figure_refs = [], []
        for i, split in enumerate(splits):
            table_ref, figures_ref = self._actors[i % len(self._actors)].run.options(
                num_returns=2).remote(split.serialize())
            table_refs.append(table_ref)
            figure_refs.append(figures_ref)
        bytes_read = 0
        try:
            pending = list(figure_refs)
            while pending:  # progress per split (a window of a group at most) as it finishes
                ready, pending = self._ray.wait(pending, num_returns=1)
                rows, read = self._ray.get(ready[0])
                bytes_read += read
                tracker.rows(rows)
        except Exception as error:  # noqa: BLE001 - the task's own error, unwrapped
            for ref in table_refs:  # collect every result, so Ray reports none as unhandled
                try:
                    self._ray.get(ref)
                except Exception:  # noqa: BLE001 - the same failure
                    pass
            inner = innermost(error)
            if inner is error:
                raise
            raise inner from error
        values = ray.data.from_arrow_refs(table_refs)
        if values.count() == 0:
            return 0, None, bytes_read
        written, snapshot_id = update_and_commit(spec.target, values, spec.catalog_options,
                                                 update_cols=[spec.column],
                                                 snapshot_properties=properties)
        return written, snapshot_id, bytes_read
