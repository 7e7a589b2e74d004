"""pypaimon's ``TableUpdate`` calls on data-evolution tables (``new_batch_write_builder()
.new_update()``): column updates by row id and by predicate, key upserts, and deletes through
deletion vectors. Every call returns commit messages and commits nothing; the caller commits
them with ``new_commit().commit(messages)`` (one snapshot). docs/deletes.md, docs/python-api.md.
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import pyarrow as pa

from .._internal._arrow import columns_source, row_id_array, source_stream
from .._internal._lib import native
from .._internal._time_travel import pin_snapshot
from ._merge_core import local_merge_into
from ._merge_plan import check_key_type
from .write import BatchTableWrite, CommitMessage

__all__ = ["BatchTableUpdate", "ShardTableUpdator"]


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
        self._projection: Optional[List[str]] = None

    def with_update_type(self, update_cols: Sequence[str]) -> BatchTableUpdate:
        if not update_cols:
            raise ValueError("update_cols must be non-empty.")
        # Validated and de-duplicated (order kept) natively, as the row-id jobs do.
        self._update_cols = native().validate_update_columns(
            self._table._native, list(update_cols), self._table.identifier,
            "update_by_arrow_with_row_id")
        return self

    def update_by_arrow_with_row_id(self, table: Any) -> List[CommitMessage]:
        """Routes and writes the update (the row-id update kernel, on a C++ thread pool) and
        returns its messages; nothing is committed. On error every written file is deleted.
        ``table`` (pypaimon's name): a pyarrow Table or any Arrow stream of ``_ROW_ID`` and
        the update columns."""
        if self._update_cols is None:
            raise ValueError("call with_update_type(columns) before update_by_arrow_with_row_id")
        stream = source_stream(columns_source(table), "update_by_row_id", "the target _ROW_ID")
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
        columns = list(assignments)
        # The engine's own column checks (blob columns, ...) before any read.
        cols = native().validate_update_columns(table._native, columns, table.identifier,
                                                "update_by_predicate")
        snapshot = table.resolve_snapshot()
        if snapshot is None:
            return []
        pinned = pin_snapshot(table, snapshot)
        builder = pinned.new_read_builder().with_projection(
            read_columns + ["_ROW_ID"] if has_callable else ["_ROW_ID"])
        if predicate is not None:
            builder = builder.with_filter(predicate)
        matched = builder.new_read().to_arrow(builder.new_scan().plan().splits())
        if matched.num_rows == 0:
            return []
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
        stream = source_stream(pa.concat_tables(updates), "update_by_predicate",
                               "the target _ROW_ID")
        messages, _ = stream.call(lambda reader: native().update_by_row_id(
            pinned._native, reader, cols, table.identifier, reject_deleted=False))
        return [CommitMessage(m) for m in messages]

    def upsert_by_arrow_with_key(self, table: pa.Table,
                                 upsert_keys: List[str]) -> List[CommitMessage]:
        """Upserts ``table`` by the composite key ``upsert_keys`` (pypaimon 2.1.0): per
        partition (partition keys are dropped from the match key), input rows whose key matches
        existing rows update **every** such row (the columns of ``with_update_type``, or all
        columns but the partition keys); the other rows are appended with new row ids (only the
        input's columns are written: the others read as NULL). Duplicate input keys: the last
        row wins. As in pypaimon, NULL keys match NULL keys, and deleted rows never match.
        Nothing is committed; update and append messages go into one commit."""
        if not isinstance(table, pa.Table):
            raise TypeError(f"table must be a pyarrow.Table, got {type(table).__name__}")
        target = self._table
        fields = list(target.field_names)
        if not target.data_evolution_enabled:
            raise ValueError(
                "upsert_by_arrow_with_key requires 'data-evolution.enabled' = 'true'.")
        if not target.row_tracking_enabled:
            raise ValueError("upsert_by_arrow_with_key requires 'row-tracking.enabled' = 'true'.")
        if not upsert_keys:
            raise ValueError("upsert_keys must not be empty.")
        for name in upsert_keys:
            if name not in fields:
                raise ValueError(f"upsert_key '{name}' is not in table schema fields: {fields}")
            if name not in table.column_names:
                raise ValueError(
                    f"upsert_key '{name}' is not in input data columns: {table.column_names}")
        partition_keys = list(target.partition_keys)
        missing = [k for k in partition_keys if k not in table.column_names]
        if missing:
            raise ValueError("For partitioned tables, input data must contain all partition "
                             f"key columns. Missing: {missing}")
        # Keys are matched by value: a string '1' never equals an INT 1, and the append would
        # cast it, adding a second row with key 1. Keys of another kind are refused.
        types = {f.name: f.type for f in target.arrow_schema}
        for name in list(dict.fromkeys(list(upsert_keys) + partition_keys)):
            check_key_type(table.column(name).type, types[name], name, name,
                           "upsert_by_arrow_with_key")
        for col in self._update_cols or []:
            if col not in fields:
                raise ValueError(
                    f"Column '{col}' in update_cols is not in table schema fields: {fields}")
        if table.num_rows == 0:
            raise ValueError("Input data is empty.")
        update_cols = [c for c in (self._update_cols or fields) if c not in partition_keys]
        absent = [c for c in update_cols if c not in table.column_names]
        if absent:
            # pypaimon raises a bare KeyError here (memo §5.3 bug 16).
            raise ValueError(f"upsert_by_arrow_with_key updates {update_cols} but the input "
                             f"lacks {absent}; pass those columns or call with_update_type.")
        snapshot = target.resolve_snapshot()
        pinned = None if snapshot is None else pin_snapshot(target, snapshot)
        match_keys = [k for k in upsert_keys if k not in partition_keys]
        updates: List[pa.Table] = []
        appends: List[pa.Table] = []
        for spec, part in _by_partition(table, partition_keys):
            keys = list(zip(*(part.column(k).to_pylist() for k in match_keys))) \
                if match_keys else [()] * part.num_rows
            last: Dict[Tuple, int] = {}
            for i, key in enumerate(keys):
                last[key] = i  # the last duplicate wins
            if len(last) != len(keys):
                keep = sorted(last.values())
                part, keys = part.take(keep), [keys[i] for i in keep]
            existing = _row_ids_by_key(pinned, match_keys, spec, set(keys)) if pinned else {}
            rows: List[int] = []
            row_ids: List[int] = []
            new_rows: List[int] = []
            for i, key in enumerate(keys):
                hits = existing.get(key)
                if hits:
                    rows.extend([i] * len(hits))  # fan-out: every row with the key
                    row_ids.extend(hits)
                else:
                    new_rows.append(i)
            if rows:
                matched = part.take(rows).select(update_cols)
                updates.append(matched.append_column("_ROW_ID", pa.array(row_ids, pa.int64())))
            if new_rows:
                appends.append(part.take(new_rows))
        messages: List[CommitMessage] = []
        try:
            if updates:
                assert pinned is not None  # rows matched, so the table has a snapshot
                stream = source_stream(pa.concat_tables(updates), "upsert_by_arrow_with_key",
                                       "the target _ROW_ID")
                cols = native().validate_update_columns(
                    pinned._native, update_cols, target.identifier, "upsert_by_arrow_with_key")
                written, _ = stream.call(lambda reader: native().update_by_row_id(
                    pinned._native, reader, cols, target.identifier, reject_deleted=False))
                messages.extend(CommitMessage(m) for m in written)
            if appends:
                data = pa.concat_tables(appends, promote_options="permissive")
                write = BatchTableWrite(target).with_write_type(
                    [c for c in fields if c in data.column_names])
                write.write_arrow(data)
                messages.extend(write.prepare_commit())
        except BaseException:
            if messages:
                target.new_batch_write_builder().new_commit().abort(messages)
            raise
        return messages

    def merge_into(self, source: Any, *, on: Any, when_matched: Sequence[Any] = (),
                   when_not_matched: Sequence[Any] = ()) -> List[CommitMessage]:
        """SQL's MERGE (pypaimon 2.1.0's local ``merge_into``): the commit messages of the
        merge of ``source`` (a pyarrow Table, a pandas DataFrame, or a table handle, read
        whole) into this table at its latest snapshot; nothing is committed. Clauses, SET specs
        and conditions are ``paimon_rowid.merge_into``'s; as in pypaimon's local call, a target
        row matched by several source rows is an error before conditions run (except under a
        sole unconditional DELETE), and SET values cannot be callables. On error the files
        written are deleted. docs/merge-into.md."""
        return [CommitMessage(m) for m in local_merge_into(
            self._table, source, on, when_matched, when_not_matched)]

    def with_read_projection(self, projection: Optional[Sequence[str]]) -> None:
        """The columns :meth:`new_shard_updator`'s reader returns (pypaimon returns None
        here, not self)."""
        self._projection = None if projection is None else list(projection)

    def new_shard_updator(self, shard_num: int, total_shard_count: int) -> ShardTableUpdator:
        """A scan-and-rewrite updater of shard ``shard_num`` of ``total_shard_count``
        (pypaimon 2.1.0): its ``arrow_reader()`` reads the shard's file groups (the
        ``with_read_projection`` columns); feed ``update_by_arrow_batch`` exactly the rows
        read, in read order, with the ``with_update_type`` columns; ``prepare_commit()``
        returns one partial-column file per group. On a table with deletion vectors the reader
        skips deleted rows and each row fed goes to the live row it was read from (deleted rows
        keep their values and stay deleted). Differs from pypaimon: a shard fed fewer rows than
        it read is an error at ``prepare_commit`` (pypaimon drops the partly written group
        silently), and on deletion-vector tables rows never shift into a neighbouring range."""
        if self._update_cols is None:
            raise ValueError("call with_update_type(columns) before new_shard_updator")
        return ShardTableUpdator(self._table, self._projection,
                                 self._update_cols, shard_num, total_shard_count)

    def delete_by_row_id(self, row_ids: Any) -> List[CommitMessage]:
        """Commit messages deleting the rows ``row_ids`` through deletion vectors (docs/deletes.md):
        one new index file per touched (partition, bucket), merged with its existing vectors; no
        data file is rewritten and row ids never move. Nothing is committed. Already deleted ids
        change nothing; an id outside every file group is a ValueError. Requires
        ``data-evolution.enabled``, ``row-tracking.enabled`` and ``deletion-vectors.enabled``
        (checked first, even for an empty list). The base is the latest snapshot, or the one the
        table's time-travel options pin.

        ``row_ids``: a list or tuple of integers, a pyarrow Array / ChunkedArray of an integer
        type or a numpy integer array. Anything else, and any id that is not an integer (a
        bool, float, string, ...), is a TypeError naming it, raised before anything is
        written."""
        native().validate_delete(self._table._native)
        column = row_id_array(row_ids)
        if column.null_count:
            raise ValueError("_ROW_ID value must not be null.")
        ids: List[int] = list(dict.fromkeys(column.to_pylist()))  # distinct, in order
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
        pinned = pin_snapshot(self._table, snapshot)
        builder = pinned.new_read_builder().with_projection(["_ROW_ID"])
        if predicate is not None:
            builder = builder.with_filter(predicate)
        matched = builder.new_read().to_arrow(builder.new_scan().plan().splits())
        ids = matched.column("_ROW_ID").to_pylist()
        if not ids:
            return []
        return [CommitMessage(m) for m in native().delete_by_row_id(pinned._native, ids)]


def _by_partition(table: pa.Table, partition_keys: List[str]):
    """(partition spec, its rows) in order of first appearance; one part when unpartitioned."""
    if not partition_keys:
        yield {}, table
        return
    values = list(zip(*(table.column(k).to_pylist() for k in partition_keys)))
    order: Dict[Tuple, List[int]] = {}
    for i, v in enumerate(values):
        order.setdefault(v, []).append(i)
    for v, rows in order.items():
        yield dict(zip(partition_keys, v)), table.take(rows)


def _row_ids_by_key(pinned: Any, match_keys: List[str], spec: Dict[str, Any],
                    wanted: set) -> Dict[Tuple, List[int]]:
    """key -> row ids of the live rows of partition ``spec`` whose key is in ``wanted``."""
    builder = pinned.new_read_builder().with_projection(match_keys + ["_ROW_ID"])
    if spec:
        pb = pinned.new_read_builder().new_predicate_builder()  # over every field
        builder = builder.with_filter(pb.and_predicates([
            pb.is_null(k) if v is None else pb.equal(k, v) for k, v in spec.items()]))
    out: Dict[Tuple, List[int]] = {}
    reader = builder.new_read().to_arrow_batch_reader(builder.new_scan().plan().splits())
    for batch in reader:
        columns = [batch.column(k).to_pylist() for k in match_keys]
        for j, row_id in enumerate(batch.column("_ROW_ID").to_pylist()):
            key = tuple(c[j] for c in columns)
            if key in wanted:
                out.setdefault(key, []).append(row_id)
    return out


class ShardTableUpdator:
    """One shard of a scan-and-rewrite update (see BatchTableUpdate.new_shard_updator)."""

    def __init__(self, table: Any, projection: Optional[List[str]], write_cols: List[str],
                 shard_num: int, total_shard_count: int) -> None:
        if total_shard_count < 1 or not 0 <= shard_num < total_shard_count:
            raise ValueError(f"shard_num must be in [0, {total_shard_count}), got {shard_num}")
        # On a deletion-vector table the reader skips deleted rows, so each range takes its
        # live rows only, matched to their row ids (read once per range, when it is filled).
        self._deletion_vectors = table.options.get(
            "deletion-vectors.enabled", "false").lower() == "true"
        self._live: Optional[pa.Array] = None  # live row ids of the range being filled
        self._write_cols = list(write_cols)
        snapshot = table.resolve_snapshot()
        self.snapshot_id = snapshot.id if snapshot is not None else -1
        self._table = table if snapshot is None else pin_snapshot(table, snapshot)
        self._projection = projection
        ranges: List[Tuple[int, int]] = []
        if snapshot is not None:
            index = native().RowIdIndex.build(self._table._native, snapshot.id)
            ranges = sorted(index.group_ranges())
        # Contiguous, count-balanced slices of the groups; the first n % k shards get one more.
        per, extra = divmod(len(ranges), total_shard_count)
        start = shard_num * per + min(shard_num, extra)
        self.row_ranges = ranges[start:start + per + (1 if shard_num < extra else 0)]
        self._pos = 0  # the range being filled
        self._pending: List[pa.RecordBatch] = []
        self._pending_rows = 0
        self._messages: List[CommitMessage] = []

    def arrow_reader(self) -> pa.RecordBatchReader:
        """The shard's rows, group by group in row-id order (the order of ``row_ranges``,
        which update_by_arrow_batch fills)."""
        builder = self._table.new_read_builder()
        if self._projection is not None:
            builder = builder.with_projection(self._projection)
        read = builder.new_read()

        def batches():
            for first, last in self.row_ranges:
                splits = builder.new_scan().with_row_ranges([(first, last)]).plan().splits()
                yield from read.to_arrow_batch_reader(splits)

        return pa.RecordBatchReader.from_batches(read.output_schema(), batches())

    def update_by_arrow_batch(self, data: pa.RecordBatch) -> None:
        if isinstance(data, pa.Table):
            batches = data.to_batches()
        else:
            batches = [data]
        for batch in batches:
            while batch.num_rows:
                # Ranges whose every row is deleted read nothing and take nothing.
                while self._pos < len(self.row_ranges) and self._expected_rows() == 0:
                    self._next_range()
                if self._pos >= len(self.row_ranges):
                    raise RuntimeError(
                        "No more row ranges to write. Ensure you write exactly the same number "
                        "of rows as read from this shard.")
                expected = self._expected_rows()
                take = min(expected - self._pending_rows, batch.num_rows)
                self._pending.append(batch.slice(0, take))
                self._pending_rows += take
                batch = batch.slice(take)
                if self._pending_rows == expected:
                    self._flush()

    def _live_ids(self) -> pa.Array:
        """The row ids the reader returns for the range being filled: all of them, or on a
        deletion-vector table those no vector of the planned snapshot deletes."""
        first, last = self.row_ranges[self._pos]
        if not self._deletion_vectors:
            return pa.array(range(first, last + 1), pa.int64())
        if self._live is None:
            builder = self._table.new_read_builder().with_projection(["_ROW_ID"])
            splits = builder.new_scan().with_row_ranges([(first, last)]).plan().splits()
            ids = builder.new_read().to_arrow(splits).column("_ROW_ID")
            self._live = ids.combine_chunks() if ids.num_chunks else pa.array([], pa.int64())
        return self._live

    def _expected_rows(self) -> int:
        first, last = self.row_ranges[self._pos]
        return len(self._live_ids()) if self._deletion_vectors else last - first + 1

    def _next_range(self) -> None:
        self._pos += 1
        self._live = None

    def _flush(self) -> None:
        rows = pa.Table.from_batches(self._pending).select(self._write_cols)
        rows = rows.append_column("_ROW_ID", self._live_ids())
        stream = source_stream(rows, "update_by_row_id", "the target _ROW_ID")
        written, _ = stream.call(lambda reader: native().update_by_row_id(
            self._table._native, reader, self._write_cols, self._table.identifier,
            reject_deleted=False))
        self._messages.extend(CommitMessage(m) for m in written)
        self._next_range()
        self._pending, self._pending_rows = [], 0

    def prepare_commit(self) -> List[CommitMessage]:
        """One message per group written; RuntimeError if a group got only part of its rows."""
        if self._pending_rows:
            first, last = self.row_ranges[self._pos]
            raise RuntimeError(
                f"The shard's row range [{first}, {last}] got {self._pending_rows} of its "
                f"{self._expected_rows()} rows. Ensure you write exactly the same number of rows "
                "as read from this shard.")
        return list(self._messages)
