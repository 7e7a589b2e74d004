"""Data-evolution compaction on Ray: the driver plans (one manifest read), packs the due file
groups into tasks, and commits one COMPACT snapshot from the messages the tasks return.

Exactly once under task retries and node loss: every file a task writes is named from the
job id and its group's first row id (``ray/_job_files.py``), so an attempt that dies after
writing is re-run by Ray on the same groups and writes the same names over its files. A job
that fails waits for all its tasks, then deletes, by name, the file of every planned group
(missing ones are fine). Nothing lists the table; files of other writers are never touched.
"""
from __future__ import annotations

import uuid
from typing import Any, Callable, Dict, List, Mapping, Optional

from .._internal._lib import native
from .._internal._progress import JobProgress, ProgressReporter, check_progress_args
from ..jobs import _compact_core as core
from ..jobs import _job_checks as jobs
from ..jobs._compact_core import MAX_ATTEMPTS
from ._job_files import new_job_id, with_file_stem
from ._progress import ray_bar
from ._runtime import cluster_cpus, innermost, require_ray

__all__ = ["compact", "MAX_ATTEMPTS"]


def _compact_task(catalog_options: Mapping[str, Any], target: str, job_id: str,
                  splits: List[bytes]) -> List[bytes]:
    """Compacts the groups of ``splits`` (one per split) one after another; returns the
    serialized commit messages."""
    table = with_file_stem(jobs.load_table(target, catalog_options), job_id)
    lib = native()
    return [lib.compact_group(table._native, lib.Split.deserialize(s)).serialize()
            for s in splits]


def compact(target: str, catalog_options: Mapping[str, Any], *, full: bool = False,
            min_file_num: Optional[int] = None, num_partitions: Optional[int] = None,
            ray_remote_args: Optional[Dict[str, Any]] = None, progress: Any = False,
            on_progress: Optional[Callable[[JobProgress], Any]] = None) -> Dict[str, Any]:
    """``paimon_rowid.compact`` with the groups compacted by Ray tasks (``num_partitions``
    tasks, default two per cluster CPU, never more than the groups) and one commit on the
    driver. Same arguments, result and errors; ``ray_remote_args`` go to the tasks.
    ``progress`` / ``on_progress``: the bar is drawn by the driver (``progress=True``: with
    Ray's ``tqdm_ray``), which advances it by a task's groups as each task completes; an
    ``on_progress`` that raises fails the job (its files are deleted, nothing is
    committed)."""
    core.check_compact_args(target, full, min_file_num)
    check_progress_args(progress, on_progress)
    ray = require_ray()
    table = core.load_compact_table(target, catalog_options)
    lib = native()
    remote = ray.remote(**ray_remote_args)(_compact_task) if ray_remote_args else \
        ray.remote(_compact_task)
    reporter = ProgressReporter("compact", "groups", progress, on_progress, draw=ray_bar)
    reporter.start()

    def compact_groups(splits: List[Any]) -> List[Any]:
        """The groups as Ray tasks (packed by rows); the bar advances as each task completes.
        On any failure every planned group's file is deleted by name."""
        tasks = num_partitions or max(2, 2 * int(cluster_cpus(ray, 1)))
        job_id = new_job_id()
        chunks = core.pack(splits, max(1, min(int(tasks), len(splits))))
        refs = [remote.remote(dict(catalog_options), target, job_id,
                              [s.serialize() for s in chunk]) for chunk in chunks]
        groups_of = {ref: len(chunk) for ref, chunk in zip(refs, chunks)}
        try:
            pending = list(refs)
            while pending:
                ready, pending = ray.wait(pending, num_returns=1)
                ray.get(ready[0])
                reporter.advance(groups_of[ready[0]])
            serialized = ray.get(refs)
        except BaseException as error:  # KeyboardInterrupt too: nothing may stay behind
            ray.wait(refs, num_returns=len(refs))
            stemmed = with_file_stem(table, job_id)
            lib.delete_files(stemmed._native,
                             [lib.compacted_file_path(stemmed._native, s) for s in splits])
            inner = innermost(error)
            if inner is error:
                raise
            raise inner from error
        return [lib.CommitMessage.deserialize(m) for chunk in serialized for m in chunk]

    try:
        result = core.run(table, full, min_file_num, str(uuid.uuid4()), compact_groups,
                          reporter, lib=lib)
        reporter.finish()
        return result
    finally:
        reporter.close()
