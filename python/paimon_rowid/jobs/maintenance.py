"""Table maintenance, embedded: snapshot expiration and orphan-file cleaning
(docs/maintenance.md). Same call shape as the row-id jobs: ``target`` is "db.table",
``catalog_options`` the catalog's options ({"warehouse": ...}); keyword names follow Java
Paimon's procedures, and an option left at None takes the table option of Java's name.

Both run in C++ with the GIL released. Cost: expiration reads the snapshots it expires, the
first retained one and every tag (their manifest lists and manifests); orphan cleaning reads
every snapshot and tag and each distinct manifest once, and lists the table directory.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Mapping, Optional

from .._internal._lib import native
from .._internal._progress import JobProgress, check_progress_args, run_native
from . import _job_checks as jobs


def _int_or_none(name: str, value: Any) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int or None, got {type(value).__name__}.")
    return value


def expire_snapshots(target: str, catalog_options: Mapping[str, Any], *,
                     retain_max: Optional[int] = None, retain_min: Optional[int] = None,
                     older_than_ms: Optional[int] = None,
                     max_deletes: Optional[int] = None, progress: Any = False,
                     on_progress: Optional[Callable[[JobProgress], Any]] = None
                     ) -> Dict[str, Any]:
    """Expires old snapshots of ``target`` and deletes the files only they need, as Java's
    ``expire_snapshots`` does: at least ``retain_min`` (``snapshot.num-retained.min``, 10) and
    at most ``retain_max`` (``snapshot.num-retained.max``, unbounded) snapshots stay; among
    those in between, only snapshots older than ``older_than_ms`` (epoch ms; default now minus
    ``snapshot.time-retained``, 1 h) go; at most ``max_deletes`` (``snapshot.expire.limit``,
    50) per call. Files a retained snapshot or a tag needs are never deleted.

    Returns ``{"snapshots_expired", "data_files_deleted", "manifest_files_deleted",
    "bytes_freed", "earliest_snapshot_id"}``. Raises ``TypeError`` for a non-int option,
    ``ValueError`` for a bad value (``retain_min`` < 1, ``retain_max`` < ``retain_min``,
    ``max_deletes`` < 1), ``TableNotExistException`` for an unknown table; nothing is deleted
    then. ``progress`` / ``on_progress``: the jobs' progress interface (unit: steps, three per
    expired snapshot); an ``on_progress`` that raises stops the call if no file was deleted
    yet, else it finishes (stopping halfway would leave what a crash leaves)."""
    retain_max = _int_or_none("retain_max", retain_max)
    retain_min = _int_or_none("retain_min", retain_min)
    older_than_ms = _int_or_none("older_than_ms", older_than_ms)
    max_deletes = _int_or_none("max_deletes", max_deletes)
    check_progress_args(progress, on_progress)
    table = jobs.load_table(target, catalog_options)
    result = run_native("expire_snapshots", "steps", progress, on_progress,
                        lambda counter: native().expire_snapshots(
                            table._native, retain_max, retain_min, older_than_ms, max_deletes,
                            counter))
    return dict(result)


def remove_orphan_files(target: str, catalog_options: Mapping[str, Any], *,
                        older_than_ms: Optional[int] = None,
                        dry_run: bool = False, progress: Any = False,
                        on_progress: Optional[Callable[[JobProgress], Any]] = None
                        ) -> Dict[str, Any]:
    """Deletes the files under ``target``'s directory that no snapshot or tag references and
    that were last modified before ``older_than_ms`` (epoch ms; default now minus one day, the
    margin that protects commits in flight), as Java's ``remove_orphan_files`` does. With
    ``dry_run`` nothing is deleted and the result lists what would be.

    Returns ``{"files", "bytes", "paths" (sorted absolute paths), "dirs_removed",
    "dry_run"}``. Raises ``TypeError`` for a non-int ``older_than_ms`` or a non-bool
    ``dry_run``, ``TableNotExistException`` for an unknown table; nothing is deleted then.
    ``progress`` / ``on_progress``: the jobs' progress interface (unit: files, the metadata
    files read and the candidate files checked); an ``on_progress`` that raises stops the
    call before the first deletion, not after it."""
    older_than_ms = _int_or_none("older_than_ms", older_than_ms)
    if not isinstance(dry_run, bool):
        raise TypeError(f"dry_run must be a bool, got {type(dry_run).__name__}.")
    check_progress_args(progress, on_progress)
    table = jobs.load_table(target, catalog_options)
    result = dict(run_native("remove_orphan_files", "files", progress, on_progress,
                             lambda counter: native().remove_orphan_files(
                                 table._native, older_than_ms, dry_run, counter)))
    result["paths"] = list(result["paths"])
    return result
