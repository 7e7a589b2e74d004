"""The write API, shaped like pypaimon's (``pypaimon.write``).

``table.new_batch_write_builder()`` -> :class:`BatchWriteBuilder`; its ``new_write()`` gives a
:class:`BatchTableWrite` (Arrow/pandas in, Parquet files out) and ``new_commit()`` a
:class:`BatchTableCommit` that makes the files visible as one snapshot::

    builder = table.new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    write.write_arrow(data)
    commit.commit(write.prepare_commit())
    write.close(); commit.close()

All work is native (C++): input crosses as one Arrow C stream, is cast to the table's types,
routed to partitions and written as Parquet; the committer creates ``snapshot-N`` atomically
(no-replace), so concurrent writers in any number of processes are safe. A failed write or
commit leaves no files behind.

Differences from pypaimon, all in the safe direction: input columns are matched by name and
cast (pypaimon demands the exact schema); a commit that fails removes the files it wrote.
"""
from __future__ import annotations

import uuid
from typing import Any, Iterable, List, Mapping, Optional, Sequence

import pyarrow as pa

from ._arrow import UserStream, capsule_schema, source_stream
from ._lib import native

__all__ = ["BatchWriteBuilder", "BatchTableWrite", "BatchTableCommit", "CommitMessage",
           "BATCH_COMMIT_IDENTIFIER"]

#: The commit identifier of batch commits (Java's Long.MAX_VALUE).
BATCH_COMMIT_IDENTIFIER = 9223372036854775807


class CommitMessage:
    """The new files of one partition, written but not yet visible. Opaque; picklable (it
    travels as bytes, e.g. from Ray workers to the committing driver)."""

    __slots__ = ("_native",)

    def __init__(self, native_message: Any) -> None:
        self._native = native_message

    @classmethod
    def from_bytes(cls, data: bytes) -> CommitMessage:
        return cls(native().CommitMessage.deserialize(bytes(data)))

    def to_bytes(self) -> bytes:
        return self._native.serialize()

    def __reduce__(self):
        return (CommitMessage.from_bytes, (self.to_bytes(),))

    def is_empty(self) -> bool:
        return self._native.is_empty()

    @property
    def bucket(self) -> int:
        return self._native.bucket

    @property
    def file_names(self) -> List[str]:
        return list(self._native.file_names)

    @property
    def row_count(self) -> int:
        return self._native.row_count

    @property
    def check_from_snapshot(self) -> Optional[int]:
        return self._native.check_from_snapshot

    def __repr__(self) -> str:
        return f"CommitMessage(files={self.file_names!r}, rows={self.row_count})"


def _native_messages(messages: Optional[Iterable[Any]]) -> List[Any]:
    if messages is None:
        return []
    out = []
    for message in messages:
        if not isinstance(message, CommitMessage):
            raise TypeError(f"expected paimon_rowid CommitMessage objects, got "
                            f"{type(message).__name__}")
        out.append(message._native)
    return out


class BatchTableWrite:
    """Writes rows into new data files of the table. Nothing becomes visible before the
    messages of :meth:`prepare_commit` are committed. Not thread-safe.

    Each ``write_*`` call costs one pass over the input (cast, partition routing, Parquet
    encoding); memory stays bounded by one open file per partition."""

    def __init__(self, table: Any) -> None:
        self._table = table
        self._write_cols: Optional[List[str]] = None
        self._writer: Any = None
        self._prepared = False
        self._closed = False

    def with_write_type(self, write_cols: Sequence[str]) -> BatchTableWrite:
        """Writes only ``write_cols`` (a partial-column append: other columns of these new rows
        read as NULL). Must be called before the first write."""
        if self._writer is not None:
            raise RuntimeError("with_write_type must be called before writing")
        if isinstance(write_cols, str) or not all(isinstance(c, str) for c in write_cols):
            raise TypeError("write_cols must be a list of column names")
        self._write_cols = list(write_cols)
        return self

    def _native_writer(self) -> Any:
        if self._closed:
            raise RuntimeError("the BatchTableWrite is closed")
        if self._prepared:
            raise RuntimeError("BatchTableWrite only supports one-time committing.")
        if self._writer is None:
            self._writer = native().AppendWriter(self._table._native, self._write_cols)
        return self._writer

    @property
    def write_schema(self) -> pa.Schema:
        """The Arrow schema input is cast to."""
        return capsule_schema(self._native_writer().write_schema())

    def write(self, data: Any) -> None:
        """Writes any tabular input: pyarrow Table/RecordBatch/RecordBatchReader, pandas
        DataFrame, or any object with ``__arrow_c_stream__`` (polars, duckdb, ...). Columns are
        matched by name and cast to the table's types. Raises ValueError for a missing or
        unknown column or a null in a NOT NULL column, TypeError for a column that cannot be
        cast; the writer is then aborted (its files deleted) and cannot be used again."""
        writer = self._native_writer()
        UserStream.of(data).call(writer.write)

    def write_arrow(self, table: pa.Table) -> None:
        if not isinstance(table, pa.Table):
            raise TypeError(f"write_arrow expects a pyarrow.Table, got {type(table).__name__}")
        self.write(table)

    def write_arrow_batch(self, batch: pa.RecordBatch) -> None:
        if not isinstance(batch, pa.RecordBatch):
            raise TypeError(f"write_arrow_batch expects a pyarrow.RecordBatch, got "
                            f"{type(batch).__name__}")
        self.write(batch)

    def write_pandas(self, dataframe: Any) -> None:
        self.write(pa.Table.from_pandas(dataframe, preserve_index=False))

    def prepare_commit(self) -> List[CommitMessage]:
        """Closes the files and returns their commit messages. Only once."""
        writer = self._native_writer()
        self._prepared = True
        return [CommitMessage(m) for m in writer.prepare_commit()]

    def abort(self) -> None:
        """Deletes every file this write produced (also after prepare_commit, for messages
        that will not be committed)."""
        if self._writer is not None:
            self._writer.abort()

    def close(self) -> None:
        """Releases the writer. Files of a write that was never prepared are deleted."""
        if self._closed:
            return
        self._closed = True
        if self._writer is not None and not self._prepared:
            self._writer.abort()
        self._writer = None

    def __enter__(self) -> BatchTableWrite:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class BatchTableCommit:
    """Commits messages as one snapshot. Safe against concurrent committers in other
    processes (the snapshot file is created with a no-replace primitive; a lost race is
    retried from the new latest snapshot, up to ``commit.max-retries``)."""

    def __init__(self, table: Any, commit_user: str) -> None:
        self._table = table
        self._commit_user = commit_user
        self._committed = False
        self._committer: Any = None

    def _native_committer(self, identifier: Optional[int] = None) -> Any:
        return native().Committer(self._table._native, self._commit_user, identifier)

    def commit(self, commit_messages: Iterable[CommitMessage],
               commit_identifier: int = BATCH_COMMIT_IDENTIFIER) -> Optional[int]:
        """Makes the messages' files visible as one APPEND snapshot and returns its id (None
        when there is nothing to commit: no snapshot is made). Only once. Raises
        CommitConflictException on a data-evolution conflict or when retries run out; the
        messages' files are then deleted."""
        if self._committed:
            raise RuntimeError("BatchTableCommit only supports one-time committing.")
        self._committed = True
        messages = _native_messages(commit_messages)
        if not messages:
            return None
        return self._native_committer(int(commit_identifier)).commit(messages)

    def abort(self, commit_messages: Iterable[CommitMessage]) -> None:
        """Deletes the files of messages that will not be committed."""
        messages = _native_messages(commit_messages)
        if messages:
            self._native_committer().abort(messages)

    def close(self) -> None:
        pass

    def __enter__(self) -> BatchTableCommit:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


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
        """Column updates of existing rows addressed by ``_ROW_ID`` (data-evolution tables)."""
        return BatchTableUpdate(self._table)


def _assignment_array(value: Any, data_type: pa.DataType, rows: int):
    """One assignment of update_by_predicate as an array of `rows` values of `data_type`."""
    if isinstance(value, (pa.Array, pa.ChunkedArray)):
        if len(value) != rows:
            raise ValueError("Assignment array length must match matched row count: "
                             f"{len(value)} != {rows}.")
        return value if value.type == data_type else value.cast(data_type)
    if isinstance(value, pa.Scalar):
        value = value.as_py()
    return pa.array([value] * rows, type=data_type)


class BatchTableUpdate:
    """pypaimon's table-level row-id update: ``with_update_type(cols)`` then
    ``update_by_arrow_with_row_id(data)`` returns commit messages for ``new_commit().commit``.
    Each touched file group gets one partial-column file; the messages carry the snapshot the
    update was planned on, so a conflicting concurrent update is detected at commit."""

    def __init__(self, table: Any) -> None:
        self._table = table
        self._update_cols: Optional[List[str]] = None

    def with_update_type(self, update_cols: Sequence[str]) -> BatchTableUpdate:
        if not update_cols:
            raise ValueError("update_cols must be non-empty.")
        # Validated and de-duplicated (order kept) natively, as the row-id jobs do.
        self._update_cols = native().validate_update_columns(
            self._table._native, list(update_cols), self._table.identifier,
            "update_by_arrow_with_row_id")
        return self

    def update_by_arrow_with_row_id(self, data: Any) -> List[CommitMessage]:
        """Routes and writes the update (the row-id update kernel, on a C++ thread pool) and
        returns its messages; nothing is committed. On error every written file is deleted."""
        if self._update_cols is None:
            raise ValueError("call with_update_type(columns) before update_by_arrow_with_row_id")
        stream = source_stream(data, "update_by_row_id", "the target _ROW_ID")
        # Like pypaimon's table-level update, deleted rows are written (and stay deleted);
        # the update_by_row_id jobs refuse them.
        messages, _ = stream.call(lambda reader: native().update_by_row_id(
            self._table._native, reader, self._update_cols, self._table.identifier,
            reject_deleted=False))
        return [CommitMessage(m) for m in messages]

    def update_by_predicate(self, predicate: Optional[Any], assignments: Mapping[str, Any],
                            read_columns: Optional[Sequence[str]] = None
                            ) -> List[CommitMessage]:
        """SQL's ``UPDATE t SET col = value WHERE predicate`` (pypaimon 2.1.0): commit messages
        for the rows matching ``predicate`` (None: every row) at one snapshot (the latest, or
        the one the table's time-travel options pin); nothing is committed.

        A value is a literal (or ``pa.Scalar``) set on every matched row; a ``pa.Array`` /
        ``pa.ChunkedArray`` aligned with the matched rows in read order (file group by file
        group, by row id within one); or a callable, called once per file group with a
        ``pa.Table`` of the group's matched rows (``read_columns`` + ``_ROW_ID``), returning
        an array. Values are cast to the column types. Only matched rows are rewritten (one
        partial-column file per touched group, as ``update_by_arrow_with_row_id``); deleted
        rows never match."""
        has_callable = any(callable(v) for v in assignments.values()) if assignments else False
        has_array = any(isinstance(v, (pa.Array, pa.ChunkedArray))
                        for v in assignments.values()) if assignments else False
        read_columns = list(dict.fromkeys(read_columns or ()))
        table = self._table
        if not table.data_evolution_enabled:
            raise ValueError("update_by_predicate requires 'data-evolution.enabled' = 'true'.")
        if not table.row_tracking_enabled:
            raise ValueError("update_by_predicate requires 'row-tracking.enabled' = 'true'.")
        if not assignments:
            raise ValueError("assignments must not be empty.")
        if read_columns and not has_callable:
            raise ValueError("read_columns requires a callable assignment.")
        names = set(table.field_names)
        if has_callable:
            if has_array:
                raise ValueError(
                    "Callable assignments cannot be combined with Arrow array assignments.")
            if not read_columns:
                raise ValueError("Callable assignments require read_columns.")
            for col in read_columns:
                if col not in names:
                    raise ValueError(f"Read column {col} is not in table schema.")
        for col in assignments:
            if col not in names:
                raise ValueError(f"Column {col} is not in table schema.")
            if col in table.partition_keys:
                raise ValueError(
                    f"update_by_predicate does not support updating partition column '{col}'.")
        snapshot = table.resolve_snapshot()
        if snapshot is None:
            return []
        pinned = table.copy({"scan.snapshot-id": str(snapshot.id), "scan.tag-name": None,
                             "scan.timestamp-millis": None})
        builder = pinned.new_read_builder().with_projection(
            read_columns + ["_ROW_ID"] if has_callable else ["_ROW_ID"])
        if predicate is not None:
            builder = builder.with_filter(predicate)
        matched = builder.new_read().to_arrow(builder.new_scan().plan().splits())
        if matched.num_rows == 0:
            return []
        columns = list(assignments)
        types = {f.name: f.type for f in pinned.arrow_schema}
        if has_callable:
            # Rows of one file group are contiguous in read order: cut at group changes.
            index = native().RowIdIndex.build(pinned._native, snapshot.id)
            owners = index.route(matched.column("_ROW_ID").combine_chunks(), "").to_numpy()
            cuts = [0] + [int(i) + 1 for i in (owners[1:] != owners[:-1]).nonzero()[0]] + \
                [len(owners)]
            parts = [matched.slice(a, b - a) for a, b in zip(cuts, cuts[1:])]
        else:
            parts = [matched]
        updates = []
        for part in parts:
            arrays = [part.column("_ROW_ID")]
            for col in columns:
                value = assignments[col]
                if callable(value):
                    value = value(part)
                    if not isinstance(value, (pa.Array, pa.ChunkedArray)):
                        raise ValueError(f"Callable assignment for {col} must return a "
                                         "pyarrow.Array or pyarrow.ChunkedArray.")
                arrays.append(_assignment_array(value, types[col], part.num_rows))
            updates.append(pa.table(arrays, names=["_ROW_ID"] + columns))
        cols = native().validate_update_columns(pinned._native, columns, table.identifier,
                                                "update_by_predicate")
        stream = source_stream(pa.concat_tables(updates), "update_by_predicate",
                               "the target _ROW_ID")
        messages, _ = stream.call(lambda reader: native().update_by_row_id(
            pinned._native, reader, cols, table.identifier, reject_deleted=False))
        return [CommitMessage(m) for m in messages]

    def delete_by_row_id(self, row_ids: Sequence[int]) -> List[CommitMessage]:
        """Commit messages deleting the rows ``row_ids`` through deletion vectors (docs/deletes.md):
        one new index file per touched (partition, bucket), merged with its existing vectors; no
        data file is rewritten and row ids never move. Nothing is committed. Already deleted ids
        change nothing; an id outside every file group is a ValueError. Requires
        ``data-evolution.enabled``, ``row-tracking.enabled`` and ``deletion-vectors.enabled``
        (checked first, even for an empty list). The base is the latest snapshot, or the one the
        table's time-travel options pin."""
        native().validate_delete(self._table._native)
        ids: List[int] = []
        seen = set()
        for value in row_ids:
            if value is None:
                raise ValueError("_ROW_ID value must not be null.")
            if isinstance(value, pa.Scalar):
                raise TypeError(f"row ids must be Python integers, got {type(value).__name__}")
            v = int(value)
            if v not in seen:
                seen.add(v)
                ids.append(v)
        if not ids:
            return []
        return [CommitMessage(m) for m in native().delete_by_row_id(self._table._native, ids)]

    def delete_by_predicate(self, predicate: Optional[Any]) -> List[CommitMessage]:
        """Commit messages deleting every row matching ``predicate`` (None: every row) through
        deletion vectors: the matching row ids are read at one snapshot (the latest, or the
        pinned one), then deleted as :meth:`delete_by_row_id` does. Nothing is committed.

        A predicate on partition keys alone (on a partitioned table) takes pypaimon's fast path:
        the matching partitions' data files (and their index files) are dropped, in an
        OVERWRITE commit, with no data-evolution or deletion-vector requirement.

        Differs from pypaimon: otherwise the table's options are checked first, so a table
        without data evolution raises the same ValueError as :meth:`delete_by_row_id`
        (pypaimon raises a KeyError from its matching read)."""
        if predicate is not None:
            dropped = native().delete_partitions(self._table._native, predicate.to_native())
            if dropped is not None:
                return [CommitMessage(m) for m in dropped]
        native().validate_delete(self._table._native)
        snapshot = self._table.resolve_snapshot()
        if snapshot is None:
            return []
        pinned = self._table.copy({"scan.snapshot-id": str(snapshot.id), "scan.tag-name": None,
                                   "scan.timestamp-millis": None})
        builder = pinned.new_read_builder().with_projection(["_ROW_ID"])
        if predicate is not None:
            builder = builder.with_filter(predicate)
        matched = builder.new_read().to_arrow(builder.new_scan().plan().splits())
        ids = matched.column("_ROW_ID").to_pylist()
        if not ids:
            return []
        return [CommitMessage(m) for m in native().delete_by_row_id(pinned._native, ids)]
