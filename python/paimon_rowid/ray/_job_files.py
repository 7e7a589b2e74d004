"""The data files one Ray job wrote, found by name, for exactly-once cleanup.

A Ray job (an update, a write) names every data file it writes ``<data-file.prefix><job id>-...``
by running its writers on a table handle whose ``data-file.prefix`` carries a random job id
(``with_job_prefix``). A task attempt that dies after writing (worker or node lost; Ray may
retry it) leaves files that no returned commit message names. Before committing, the driver
deletes the job's files that the commit does not name; when the job fails, it deletes all of
them. Files of other writers never carry the job id and are never touched.
"""
from __future__ import annotations

import os
import uuid
from typing import Any, Iterable, List, Tuple

# Table directories that hold metadata, never data files.
_METADATA_DIRS = {"snapshot", "manifest", "schema", "index", "tag", "branch", "changelog",
                  "statistics", "consumer", "service"}


def new_job(table: Any) -> Tuple[str, str]:
    """(a new job id, the ``data-file.prefix`` that makes the job's files carry it)."""
    job_id = uuid.uuid4().hex
    return job_id, f"{table.options.get('data-file.prefix', 'data-')}{job_id}-"


def with_job_prefix(table: Any) -> Tuple[Any, str]:
    """(a copy of ``table`` whose data files carry a new job id, that job id)."""
    job_id, prefix = new_job(table)
    return table.copy({"data-file.prefix": prefix}), job_id


def job_files(table_path: str, job_id: str) -> List[str]:
    """Every file under the table's data directories whose name carries ``job_id``."""
    found = []
    for root, dirs, names in os.walk(table_path):
        if root == table_path:
            dirs[:] = [d for d in dirs if d not in _METADATA_DIRS]
        found.extend(os.path.join(root, n) for n in names if job_id in n)
    return found


def delete_job_files(table_path: str, job_id: str, keep: Iterable[str] = ()) -> List[str]:
    """Deletes the files of this job whose names are not in ``keep``; returns them."""
    keep = frozenset(keep)
    deleted = []
    for path in job_files(table_path, job_id):
        if os.path.basename(path) in keep:
            continue
        try:
            os.remove(path)
        except FileNotFoundError:
            continue
        deleted.append(path)
    return deleted
