"""``table.new_batch_write_builder()``: one batch job's write (write.py), commit (write.py)
and updates (table_update.py), sharing one commit user."""
from __future__ import annotations

import uuid
from typing import Any, Dict, Mapping, Optional

from ._partition_spec import overwrite_arguments
from .table_update import BatchTableUpdate
from .write import BatchTableCommit, BatchTableWrite

__all__ = ["BatchWriteBuilder"]


class BatchWriteBuilder:
    """Builds the write and the commit of one batch job; both share one commit user."""

    def __init__(self, table: Any) -> None:
        self._table = table
        self._commit_user = str(uuid.uuid4())
        self._static_partition: Optional[Dict[str, Any]] = None  # set by overwrite()
        self._overwrite: Optional[Dict[str, Any]] = None  # its native commit arguments

    @property
    def commit_user(self) -> str:
        return self._commit_user

    def overwrite(self, static_partition: Optional[dict] = None) -> BatchWriteBuilder:
        """Makes this job an INSERT OVERWRITE: its commit also deletes the rows it replaces
        (docs/python-api.md, "Overwrite"). ``static_partition`` (None is ``{}``) selects the
        partitions to replace; on a partitioned table with ``dynamic-partition-overwrite``
        true (the default, as in pypaimon and Java) only the partitions the new rows are
        written to are replaced and the spec is ignored. ``{}`` on an unpartitioned table, or
        with that option false, replaces the whole table."""
        if static_partition is not None and not isinstance(static_partition, Mapping):
            raise TypeError("static_partition must be a dict of partition key to value, got "
                            f"{type(static_partition).__name__}")
        # Checked now, before any row is written (pypaimon checks at commit time).
        spec = dict(static_partition or {})
        arguments = overwrite_arguments(self._table, spec)  # a refusal leaves self unchanged
        self._static_partition, self._overwrite = spec, arguments
        return self

    def new_write(self) -> BatchTableWrite:
        return BatchTableWrite(self._table, self._static_partition)

    def new_commit(self) -> BatchTableCommit:
        return BatchTableCommit(self._table, self._commit_user, self._overwrite)

    def new_update(self) -> BatchTableUpdate:
        """Updates and deletes of existing rows (data-evolution tables; table_update.py)."""
        return BatchTableUpdate(self._table)
