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

Overwrites: ``builder.overwrite(spec)``, ``commit.truncate_table()`` and
``commit.truncate_partitions(specs)`` (docs/python-api.md, "Overwrite and truncate").

Differences from pypaimon, all in the safe direction: input columns are matched by name and
cast (pypaimon demands the exact schema); a commit that fails removes the files it wrote.
"""
from __future__ import annotations

from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence

import pyarrow as pa

from .._internal._arrow import UserStream, capsule_schema
from .._internal._lib import native
from .._internal._ray_door import WRITE_DATASET, ray_function
from ._partition_spec import truncate_arguments

__all__ = ["BatchTableWrite", "BatchTableCommit", "CommitMessage",
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

    def __reduce__(self) -> Any:
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

    def __init__(self, table: Any, static_partition: Optional[Mapping[str, Any]] = None) -> None:
        self._table = table
        self._static_partition = static_partition  # the builder's overwrite spec (write_ray)
        self._write_cols: Optional[List[str]] = None
        self._writer: Any = None
        self._prepared = False
        self._closed = False
        # bucket= writes: one native writer per call, prepared at once and checked
        self._bucket_groups: List[Any] = []

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

    def write_ray(self, dataset: Any, overwrite: bool = False, concurrency: Optional[int] = None,
                  ray_remote_args: Optional[Dict[str, Any]] = None,
                  hash_fixed_precluster: str = "auto",
                  static_partition: Optional[Mapping[str, Any]] = None) -> Any:
        """pypaimon's ``write_ray``: writes a ``ray.data.Dataset`` with Ray tasks and commits
        it as one snapshot (``paimon_rowid.ray.write_paimon``; this writer's own
        ``prepare_commit`` is not involved). It overwrites when ``overwrite`` is true, when
        ``static_partition`` is given, or when the builder called ``overwrite(...)``; the spec
        is ``static_partition``, else the builder's, else ``{}``. Returns the
        ``PaimonWriteResult`` (pypaimon returns None), None when nothing was committed."""
        write_dataset = ray_function(WRITE_DATASET)
        spec = static_partition if static_partition is not None else self._static_partition
        if spec is None and overwrite:
            spec = {}
        return write_dataset(dataset, self._table, overwrite=spec, concurrency=concurrency,
                             ray_remote_args=ray_remote_args,
                             hash_fixed_precluster=hash_fixed_precluster)

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

    def write_arrow(self, data: pa.Table, bucket: Optional[int] = None) -> None:
        """Writes a pyarrow Table (see ``write``). ``bucket``: pypaimon's precomputed-bucket
        write (``_write_to_bucket``)."""
        if not isinstance(data, pa.Table):
            raise TypeError(f"write_arrow expects a pyarrow.Table, got {type(data).__name__}")
        self._write_maybe_to_bucket(data, bucket)

    def write_arrow_batch(self, data: pa.RecordBatch, bucket: Optional[int] = None) -> None:
        """Writes a pyarrow RecordBatch (see ``write``); ``bucket`` as in ``write_arrow``."""
        if not isinstance(data, pa.RecordBatch):
            raise TypeError(f"write_arrow_batch expects a pyarrow.RecordBatch, got "
                            f"{type(data).__name__}")
        self._write_maybe_to_bucket(data, bucket)

    def _write_maybe_to_bucket(self, data: Any, bucket: Optional[int]) -> None:
        if bucket is None:
            self.write(data)
        else:
            self._write_to_bucket(data, bucket)

    def _write_to_bucket(self, data: Any, bucket: Any) -> None:
        """pypaimon's ``bucket=``: rows a caller grouped by bucket upstream (one partition,
        one bucket of a fixed-bucket table). pypaimon trusts the grouping; here it is checked:
        the rows are written by a writer of their own, which places each row by its bucket
        key, and the group is kept only if every row landed in ``bucket`` of one partition
        (else its files are deleted and ValueError says where the rows belong). Each call
        closes its own files (one per group), as a precomputed group is meant to be whole.
        pypaimon's messages for a table without fixed buckets and a bucket out of range."""
        if isinstance(bucket, bool) or not isinstance(bucket, int):
            raise TypeError(f"bucket must be an int or None, got {type(bucket).__name__}")
        self._native_writer()  # a closed or prepared writer refuses first
        buckets = int(self._table.options.get("bucket", "-1"))
        if buckets <= 0:
            raise ValueError("Precomputed bucket writes are only valid for HASH_FIXED or "
                             "HASH_DYNAMIC tables")
        if not 0 <= bucket < buckets:
            raise ValueError(f"Bucket id must be between 0 and {buckets - 1}")
        group = native().AppendWriter(self._table._native, self._write_cols)
        try:
            UserStream.of(data).call(group.write)
            messages = [m for m in group.prepare_commit() if not m.is_empty()]
            elsewhere = sorted({m.bucket for m in messages} - {bucket})
            if elsewhere:
                raise ValueError(f"write_arrow(bucket={bucket}): rows of this group belong to "
                                 f"bucket(s) {elsewhere} by their bucket key; nothing of the "
                                 "group was written")
            if len({bytes(m.partition) for m in messages}) > 1:
                raise ValueError("A precomputed bucket group contained multiple partitions")
        except BaseException:
            group.abort()
            raise
        self._bucket_groups.append((group, messages))

    def write_pandas(self, dataframe: Any) -> None:
        self.write(pa.Table.from_pandas(dataframe, preserve_index=False))

    def prepare_commit(self) -> List[CommitMessage]:
        """Closes the files and returns their commit messages. Only once."""
        writer = self._native_writer()
        self._prepared = True
        grouped = [m for _, messages in self._bucket_groups for m in messages]
        return [CommitMessage(m) for m in list(writer.prepare_commit()) + grouped]

    def abort(self) -> None:
        """Deletes every file this write produced (also after prepare_commit, for messages
        that will not be committed)."""
        if self._writer is not None:
            self._writer.abort()
        for group, _ in self._bucket_groups:
            group.abort()

    def close(self) -> None:
        """Releases the writer. Files of a write that was never prepared are deleted."""
        if self._closed:
            return
        self._closed = True
        if self._writer is not None and not self._prepared:
            self._writer.abort()
            for group, _ in self._bucket_groups:
                group.abort()
        self._writer = None
        self._bucket_groups = []

    def __enter__(self) -> BatchTableWrite:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _properties(properties: Optional[Mapping[str, str]]) -> Dict[str, str]:
    if properties is None:
        return {}
    if not isinstance(properties, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in properties.items()):
        raise TypeError("snapshot_properties must be a dict of str to str")
    return dict(properties)


class BatchTableCommit:
    """Commits messages as one snapshot. Safe against concurrent committers in other
    processes (the snapshot file is created with a no-replace primitive; a lost race is
    retried from the new latest snapshot, up to ``commit.max-retries``)."""

    def __init__(self, table: Any, commit_user: str,
                 overwrite: Optional[Dict[str, Any]] = None) -> None:
        self._table = table
        self._commit_user = commit_user
        self._overwrite = overwrite  # the native overwrite arguments (_partition_spec.py)
        self._committed = False
        self._committer: Any = None

    def _native_committer(self, identifier: Optional[int] = None, **overwrite: Any) -> Any:
        return native().Committer(self._table._native, self._commit_user, identifier,
                                  **overwrite)

    def _check_committed(self) -> None:
        if self._committed:
            raise RuntimeError("BatchTableCommit only supports one-time committing.")
        self._committed = True

    def commit(self, commit_messages: Iterable[CommitMessage],
               snapshot_properties: Optional[Mapping[str, str]] = None, *,
               commit_identifier: int = BATCH_COMMIT_IDENTIFIER) -> Optional[int]:
        """Makes the messages' files visible as one snapshot and returns its id: APPEND, or
        OVERWRITE after ``builder.overwrite(...)``, which also deletes the replaced
        partitions' files, with no message too. None when nothing is committed (no snapshot).
        Only once. Raises CommitConflictException on a data-evolution conflict or when retries
        run out, RuntimeError for an overwrite whose rows lie outside its static partition;
        the messages' files are then deleted. A store that refuses the commit's requests (a
        revoked data token) raises ``CommitIOError`` (a RuntimeError, as pypaimon's, and an
        OSError); no snapshot is made and the files stay, orphans for
        ``remove_orphan_files``. ``snapshot_properties`` (str to str, as in pypaimon) go into
        the snapshot's ``properties``."""
        properties = _properties(snapshot_properties)
        self._check_committed()
        messages = _native_messages(commit_messages)
        if not messages and not self._overwrite:
            return None
        committer = self._native_committer(int(commit_identifier), properties=properties,
                                           **(self._overwrite or {}))
        return committer.commit(messages)  # the store's refusal: CommitIOError (native)

    def truncate_table(self) -> Optional[int]:
        """Deletes every row as one OVERWRITE snapshot and returns its id; None (no snapshot)
        when the table holds no file. Row ids are never reused: nextRowId stays."""
        self._check_committed()
        arguments = truncate_arguments(self._table, None)
        return self._native_committer(BATCH_COMMIT_IDENTIFIER, **arguments).commit([])

    def truncate_partitions(self, partitions: Sequence[Mapping[str, Any]]) -> Optional[int]:
        """Deletes the partitions of ``partitions`` (a list of specs: each an AND of
        ``key: value``, None for null) as one OVERWRITE snapshot; None when none holds a
        file. ValueError for an empty list or a key that is not a partition key."""
        arguments = truncate_arguments(self._table, partitions)
        self._check_committed()
        return self._native_committer(BATCH_COMMIT_IDENTIFIER, **arguments).commit([])

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
