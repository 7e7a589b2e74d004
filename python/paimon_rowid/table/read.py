"""``ReadBuilder`` and ``TableRead``: what to read (projection, filter, limit) and reading it.

Reading streams Arrow record batches from the native reader (merging each data-evolution file
group column by column, one group per core at once); memory is bounded by a batch per file
group being read or read ahead (one per core), except for ``to_arrow`` / ``to_pandas``
which materialise the result.
"""
from __future__ import annotations

from typing import Any, Iterator, List, Optional, Sequence

import pyarrow as pa

from .._internal._arrow import stream_reader, whole_table
from .._internal._lib import native
from .._internal._ray_door import SPLITS_TO_RAY, ray_function
from ..schema import DataField
from .predicate import Predicate, PredicateBuilder
from .scan import Split, TableScan

__all__ = ["ReadBuilder", "TableRead", "Row"]


class ReadBuilder:
    """Collects the projection, filter and limit of a read. ``with_*`` mutate and return self.
    Building is O(fields); no I/O."""

    def __init__(self, table: Any) -> None:
        self._table = table
        self._projection: Optional[List[str]] = None
        self._predicate: Optional[Predicate] = None
        self._limit: Optional[int] = None

    def with_projection(self, projection: Optional[Sequence[str]]) -> ReadBuilder:
        """Selects top-level columns, in the given order (a repeated name once);
        ``_ROW_ID`` and ``_SEQUENCE_NUMBER`` are accepted on row-tracking tables. None resets
        to all table fields. Unknown names raise ValueError naming them (pypaimon drops them
        silently, so a typo reads zero columns)."""
        if projection is None:
            self._projection = None
            return self
        if isinstance(projection, str):
            raise TypeError("with_projection expects a list of column names")
        available = {f.name for f in self._table.readable_fields()}
        unknown = [name for name in projection if name not in available]
        if unknown:
            raise ValueError(f"with_projection: unknown column(s) {unknown}; the table has "
                             f"{[f.name for f in self._table.readable_fields()]}")
        chosen: List[str] = []
        for name in projection:
            if name not in chosen:
                chosen.append(name)
        self._projection = chosen
        return self

    def with_filter(self, predicate: Optional[Predicate]) -> ReadBuilder:
        """Keeps only rows matching ``predicate`` (exactly; it also prunes files and groups)."""
        if predicate is not None and not isinstance(predicate, Predicate):
            raise TypeError(f"with_filter expects a Predicate, got {type(predicate).__name__}")
        self._predicate = predicate
        return self

    def with_limit(self, limit: Optional[int]) -> ReadBuilder:
        """Stops after ``limit`` rows (which rows is unspecified)."""
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                                  or limit < 0):
            raise ValueError(f"limit must be a non-negative integer, got {limit!r}")
        self._limit = limit
        return self

    def read_type(self) -> List[DataField]:
        """The fields a read returns, in order."""
        if self._projection is None:
            return self._table.fields
        by_name = {f.name: f for f in self._table.readable_fields()}
        return [by_name[name] for name in self._projection]

    def new_predicate_builder(self) -> PredicateBuilder:
        """A builder over the current read type: with a projection set, only projected
        fields can be referenced."""
        fields = self.read_type()
        return PredicateBuilder(fields, self._arrow_types(fields))

    def _arrow_types(self, fields: List[DataField]) -> List[pa.DataType]:
        # The native reader's types are authoritative (literals must match them); fall back
        # to the Python mapping when the native module is not available.
        try:
            schema = self._table.read_schema([f.name for f in fields])
        except ImportError:
            return [f.type.to_arrow() for f in fields]
        return [schema.field(i).type for i in range(len(fields))]

    def new_scan(self) -> TableScan:
        return TableScan(self._table, self._predicate, self._limit)

    def new_read(self) -> TableRead:
        return TableRead(self._table, [f.name for f in self.read_type()], self._predicate,
                         self._limit)


def _check_parallelism(name: str, value: Optional[int]) -> int:
    """``value`` when it is a whole number >= 1 (0 for None); TypeError / ValueError as
    pypaimon's ("parallelism must be >= 1, got 0")."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int or None, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")
    return value


class Row(tuple):
    """One row from ``TableRead.to_iterator``: a tuple in read-type order that also answers
    pypaimon's ``InternalRow`` calls (``get_field``, ``len``)."""

    __slots__ = ()
    _names: Sequence[str] = ()

    def get_field(self, pos: int) -> Any:
        return self[pos]

    def as_dict(self) -> dict:
        return dict(zip(self._names, self))


class TableRead:
    """Reads splits into Arrow. Each call opens a new native stream."""

    def __init__(self, table: Any, read_fields: List[str], predicate: Optional[Predicate],
                 limit: Optional[int]) -> None:
        self._table = table
        self._read_fields = list(read_fields)
        self._predicate = predicate
        self._limit = limit

    def _native_splits(self, splits: Sequence[Split]) -> List[Any]:
        if splits is None:
            raise ValueError("splits cannot be None")
        out = []
        for split in splits:
            if not isinstance(split, Split):
                raise TypeError(f"expected Split objects from TableScan.plan(), got "
                                f"{type(split).__name__}")
            out.append(split._native)
        return out

    def to_arrow_batch_reader(self, splits: Sequence[Split],
                              blob_parallelism: Optional[int] = None,
                              parallelism: Optional[int] = None) -> pa.RecordBatchReader:
        """A lazy reader over the splits' rows; files are opened as batches are pulled, one
        file group at a time on the consumer's thread (memory: one group's batch). With
        ``parallelism`` (or the table option ``read.parallelism``) n > 1, up to n file groups
        are read ahead on n threads, still yielded in order (memory: n groups' batches).
        ``blob_parallelism`` is pypaimon's: checked (>= 1), not needed here (see
        ``to_arrow``)."""
        _check_parallelism("blob_parallelism", blob_parallelism)
        return self._reader(splits, threads=self._threads(parallelism, default=1))

    def to_arrow(self, splits: Sequence[Split], parallelism: Optional[int] = None,
                 blob_parallelism: Optional[int] = None) -> pa.Table:
        """All rows as one table (typed and empty when there are none). Materialises the
        result in memory; file groups are read on ``parallelism`` threads (pypaimon's
        precedence: the argument, else the table option ``read.parallelism``, else one per
        core), in order. ``blob_parallelism`` (pypaimon: concurrent BLOB range reads per
        split) is checked (>= 1) and otherwise not needed: BLOB payloads are fetched by the
        native reader of each file group, batched by file."""
        _check_parallelism("blob_parallelism", blob_parallelism)
        return whole_table(self._native_read(splits, threads=self._threads(parallelism, 0),
                                             whole=True))

    def _threads(self, parallelism: Optional[int], default: int) -> int:
        """The native reader's threads: ``parallelism``, else ``read.parallelism``, else
        ``default`` (0: one per core). ValueError below 1, naming the source (pypaimon's)."""
        if parallelism is not None:
            return _check_parallelism("parallelism", parallelism)
        option = self._table.options.get("read.parallelism")
        if option is None:
            return default
        try:
            value = int(option)
        except ValueError:
            raise ValueError(f"read.parallelism must be an integer, got {option!r}") from None
        return _check_parallelism("read.parallelism", value)

    def _reader(self, splits: Sequence[Split], threads: int) -> pa.RecordBatchReader:
        return stream_reader(self._native_read(splits, threads, whole=False))

    def _native_read(self, splits: Sequence[Split], threads: int, whole: bool) -> Any:
        predicate = None if self._predicate is None else self._predicate.to_native()
        return native().read(self._table._native, self._native_splits(splits),
                             self._read_fields, predicate, self._limit, threads, whole)

    def output_schema(self) -> pa.Schema:
        """The Arrow schema every read of this TableRead produces."""
        return self._table.read_schema(self._read_fields)

    def to_ray(self, splits: Sequence[Split], *, ray_remote_args: Optional[dict] = None,
               concurrency: Optional[int] = None, override_num_blocks: Optional[int] = None,
               **read_args: Any) -> Any:
        """A lazy ``ray.data.Dataset`` of the splits' rows. Splits are packed into read tasks
        by row count; each task reads its splits with the native reader (no manifest reads on
        workers). No splits give a typed empty Dataset; the limit is re-applied."""
        splits_to_ray = ray_function(SPLITS_TO_RAY)
        return splits_to_ray(self, splits, ray_remote_args=ray_remote_args,
                             concurrency=concurrency, override_num_blocks=override_num_blocks,
                             **read_args)

    def to_pandas(self, splits: Sequence[Split], parallelism: Optional[int] = None) -> Any:
        """All rows as a pandas DataFrame (materialises the result); ``parallelism`` as in
        ``to_arrow``."""
        return self.to_arrow(splits, parallelism=parallelism).to_pandas()

    def to_iterator(self, splits: Sequence[Split]) -> Iterator[Row]:
        """Yields rows one by one (as ``Row`` tuples), pulling batches lazily. Converting to
        Python objects costs O(rows x columns) in the interpreter: prefer the Arrow forms."""
        reader = self.to_arrow_batch_reader(splits)
        names = tuple(reader.schema.names)
        row_type = type("Row", (Row,), {"__slots__": (), "_names": names})
        for batch in reader:
            columns = [column.to_pylist() for column in batch.columns]
            for values in zip(*columns) if columns else ((),) * batch.num_rows:
                yield row_type(values)
