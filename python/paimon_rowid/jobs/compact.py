"""Data-evolution compaction, embedded: ``paimon_rowid.compact`` (``paimon_rowid.ray.compact``
runs the same groups as Ray tasks).

Every ``update_by_row_id`` adds one partial-column file to each file group it touches, so
after n updates a read of the group merges n + 1 files. ``compact`` rewrites each group that
has at least ``min_file_num`` normal files (table option ``compaction.min.file-num``, default
5; ``full=True``: every group with two or more) into one file with the same row ids and
values, committed as one COMPACT snapshot. Readers (ours, pypaimon, Java) read the same rows
before and after. The replaced files stay on disk until ``expire_snapshots`` removes the
snapshots that still list them. See docs/maintenance.md.
"""
from __future__ import annotations

import uuid
from typing import Any, Callable, Dict, Mapping, Optional

from .._internal._lib import native
from .._internal._progress import JobProgress, check_progress_args, run_native
from ..table.table import Table
from . import _job_checks as jobs

__all__ = ["compact"]

#: Attempts (each a fresh plan) when another compaction replaces the same files first.
MAX_ATTEMPTS = 3


def check_compact_args(target: str, full: bool, min_file_num: Optional[int]) -> None:
    """The argument checks both drivers run before touching the table."""
    if not isinstance(target, str) or not target:
        raise ValueError("compact needs a target table name ('database.table').")
    if not isinstance(full, bool):
        raise TypeError(f"full must be a bool, got {type(full).__name__}.")
    if min_file_num is not None:
        if isinstance(min_file_num, bool) or not isinstance(min_file_num, int):
            raise TypeError(f"min_file_num must be an int, got {type(min_file_num).__name__}.")
        if min_file_num < 2:
            raise ValueError(f"min_file_num must be at least 2, got {min_file_num}.")


def load_compact_table(target: str, catalog_options: Mapping[str, Any]) -> Table:
    table = jobs.load_table(target, catalog_options)
    jobs.check_table(table, target, "compact")
    return table


def compact(target: str, catalog_options: Mapping[str, Any], *, full: bool = False,
            min_file_num: Optional[int] = None, num_partitions: Optional[int] = None,
            progress: Any = False,
            on_progress: Optional[Callable[[JobProgress], Any]] = None) -> Dict[str, Any]:
    """Compacts the file groups of ``target`` that are due and commits one COMPACT snapshot.

    Returns ``{"snapshot_id", "groups_total", "groups_compacted", "files_removed",
    "files_written", "rows_rewritten", "bytes_before", "bytes_written", "attempts"}``;
    ``snapshot_id`` is None when no group was due (no snapshot is made). ``num_partitions``
    sets the number of threads (default: one per core).

    Concurrent writers are safe: an update racing the compaction keeps its values (its file
    has the higher sequence number); a compaction that loses to another one re-plans.
    ValueError for a table without data evolution and row tracking; TypeError/ValueError for
    bad arguments; nothing is left behind on failure.

    ``progress`` / ``on_progress``: the jobs' progress interface (docs/maintenance.md,
    "Progress"); the unit is file groups, ``total`` the groups each attempt planned.
    """
    check_compact_args(target, full, min_file_num)
    check_progress_args(progress, on_progress)
    table = load_compact_table(target, catalog_options)
    threads = 0 if num_partitions is None else max(1, int(num_partitions))
    user = str(uuid.uuid4())
    return dict(run_native("compact", "groups", progress, on_progress,
                           lambda counter: native().compact(table._native, full, min_file_num,
                                                            threads, user, counter)))
