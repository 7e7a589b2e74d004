"""What the embedded and the Ray ``compact`` share (one implementation, two doors:
``jobs/compact.py`` and ``ray/compact.py``): the argument checks, loading the table, and the
compaction loop over the C++ pieces of maint/compact.h: plan the due groups
(``plan_compaction``), rewrite each group into one file (``compact_group``, run by the door:
on threads of the C++ pool, or as Ray tasks), commit them as one COMPACT snapshot
(``commit_compaction``), and re-plan when another compaction replaced the same files first.

The embedded door runs this loop inside the C++ driver (``Compact``, maint/compact.h), where
the groups share the process's thread pool and a group's writer encodes on threads of its own
when there are fewer groups than cores; ``run`` is the same loop for doors whose groups run
elsewhere, with the same plan, the same group rewrite, the same commit and the same result.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping, Optional

from .._internal._lib import native
from .._internal._progress import ProgressReporter
from .._internal._retry import retry
from .._internal.exceptions import CommitConflictException
from ..table.table import Table
from . import _job_checks as jobs

#: Attempts (each a fresh plan) when another compaction replaces the same files first.
MAX_ATTEMPTS = 3

# compact_groups(splits) -> their commit messages; on failure it deletes what it wrote.
CompactGroups = Callable[[List[Any]], List[Any]]


def check_compact_args(target: str, full: bool, min_file_num: Optional[int]) -> None:
    """The argument checks both doors run before touching the table."""
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


def pack(splits: List[Any], tasks: int) -> List[List[Any]]:
    """Groups into ``tasks`` lists of about equal rows (largest first, to the lightest list)."""
    bins: List[List[Any]] = [[] for _ in range(tasks)]
    load = [0] * tasks
    for split in sorted(splits, key=lambda s: -s.row_count):
        i = load.index(min(load))
        bins[i].append(split)
        load[i] += split.row_count
    return [b for b in bins if b]


def run(table: Table, full: bool, min_file_num: Optional[int], commit_user: str,
        compact_groups: CompactGroups, reporter: ProgressReporter,
        lib: Any = None) -> Dict[str, Any]:
    """The compaction loop with the groups rewritten by ``compact_groups``; the result of
    ``paimon_rowid.compact``. ``reporter`` learns each attempt's groups (``compact_groups``
    advances it as groups finish). ``lib``: the native module (a door passes its own, the
    seam its tests patch)."""
    lib = lib if lib is not None else native()

    def attempt(number: int) -> Dict[str, Any]:
        _snapshot, splits, groups_total = lib.plan_compaction(table._native, full, min_file_num)
        result = dict(lib.compaction_tally([]))
        result.update(snapshot_id=None, groups_total=groups_total, attempts=number)
        if not splits:
            return result
        reporter.add_total(len(splits))
        messages = compact_groups(splits)
        # CommitConflictException: another compaction replaced these files first; the committer
        # deleted this attempt's files, and the next attempt re-plans.
        snapshot_id = lib.commit_compaction(table._native, messages, commit_user)
        result = dict(lib.compaction_tally(messages))
        result.update(snapshot_id=snapshot_id, groups_total=groups_total, attempts=number)
        return result

    return retry(attempt, on=CommitConflictException, attempts=MAX_ATTEMPTS)
