"""``table.new_batch_write_builder()``: one batch job's write (write.py), commit (write.py)
and updates (table_update.py), sharing one commit user."""
from __future__ import annotations

import uuid
from typing import Any, Optional

from .table_update import BatchTableUpdate
from .write import BatchTableCommit, BatchTableWrite

__all__ = ["BatchWriteBuilder"]


class BatchWriteBuilder:
    """Builds the write and the commit of one batch job; both share one commit user."""

    def __init__(self, table: Any) -> None:
        self._table = table
        self._commit_user = str(uuid.uuid4())
        self._static_partition = None

    @property
    def commit_user(self) -> str:
        return self._commit_user

    def overwrite(self, static_partition: Optional[dict] = None) -> BatchWriteBuilder:
        raise NotImplementedError("overwrite is not supported by paimon_rowid yet")

    def new_write(self) -> BatchTableWrite:
        return BatchTableWrite(self._table)

    def new_commit(self) -> BatchTableCommit:
        return BatchTableCommit(self._table, self._commit_user)

    def new_update(self) -> BatchTableUpdate:
        """Updates and deletes of existing rows (data-evolution tables; table_update.py)."""
        return BatchTableUpdate(self._table)
