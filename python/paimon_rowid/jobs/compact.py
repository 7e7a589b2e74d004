"""Data-evolution compaction, embedded: ``paimon_rowid.compact`` (``paimon_rowid.ray.compact``
runs the same groups as Ray tasks; both doors share ``_compact_core``: the checks, the table
load, and the loop, which this door runs inside the C++ driver).

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
from ._compact_core import MAX_ATTEMPTS, check_compact_args, load_compact_table

__all__ = ["compact", "MAX_ATTEMPTS", "check_compact_args", "load_compact_table"]

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
    bad arguments; nothing is left behind on failure. A store that refuses the commit's
    requests (a revoked data token) raises ``CommitIOError`` with no snapshot made (the
    rewritten files it cannot delete are orphans for ``remove_orphan_files``).

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
