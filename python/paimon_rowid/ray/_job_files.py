"""How a Ray job names its data files, so that it cleans up exactly once without listing.

A Ray job (an update round, a write) runs its writers on a table handle whose file stem
(``paimon-rowid.write.file-stem``, see ``AppendWriter::kFileStemOption``) is a new random job
id, extended per task, so every file name is a function of the job and of the task's input:
``<data-file.prefix><job>-g<first row id>-0.parquet`` for an update's file group,
``<data-file.prefix><job>-t<task>-<n>.parquet`` for the n-th file of a write task.

A task attempt that dies after writing (worker or node lost) is re-run by Ray on the same
input and writes the same names over the dead attempt's files: a job that succeeds leaves no
stray file, with no cleanup step at all. A job that fails deletes, by name, the files it can
derive: an update knows the groups its scatter tasks routed rows to (``update_file_paths``),
a write the files its tasks reported. Nothing walks the table directory, so this works on
an object store too; files of other writers never carry the job id and are never touched.
"""
from __future__ import annotations

import uuid
from typing import Any

#: Table (dynamic) option naming the writer's file stem (C++ ``AppendWriter::kFileStemOption``).
FILE_STEM_OPTION = "paimon-rowid.write.file-stem"


def new_job_id() -> str:
    """A new random job id (unique per job, and per round of an update)."""
    return uuid.uuid4().hex


def with_file_stem(table: Any, stem: str) -> Any:
    """A copy of ``table`` whose writers name their files from ``stem``."""
    return table.copy({FILE_STEM_OPTION: stem})
