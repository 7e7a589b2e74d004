"""The Arrow seam: PyCapsule wrappers for native results and coercion of Python inputs.

Native calls return bare PyCapsules ("arrow_array_stream", "arrow_schema"); pyarrow consumes
objects exposing ``__arrow_c_stream__`` / ``__arrow_c_schema__``, so these wrappers hand the
capsule over without copying. Each capsule can be consumed exactly once.
"""
from __future__ import annotations

import array
import datetime
import decimal
from typing import Any, Iterable, List, Mapping, Optional, Sequence

import pyarrow as pa

__all__ = ["CapsuleStream", "CapsuleSchema", "stream_reader", "whole_table", "capsule_schema",
           "literal_array", "to_record_batch_reader", "UserStream", "row_id_array",
           "int64_row_ids", "is_id_column", "ids_source", "columns_source",
           "unsupported_source"]


class CapsuleStream:
    """An ``ArrowArrayStream`` PyCapsule exposed through ``__arrow_c_stream__`` (one use)."""

    __slots__ = ("_capsule",)

    def __init__(self, capsule: Any) -> None:
        self._capsule = capsule

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        capsule, self._capsule = self._capsule, None
        if capsule is None:
            raise ValueError("the Arrow stream was already consumed")
        return capsule


class CapsuleSchema:
    """An ``ArrowSchema`` PyCapsule exposed through ``__arrow_c_schema__``."""

    __slots__ = ("_capsule",)

    def __init__(self, capsule: Any) -> None:
        self._capsule = capsule

    def __arrow_c_schema__(self) -> Any:
        return self._capsule


def stream_reader(capsule: Any) -> pa.RecordBatchReader:
    """Wraps a native stream capsule as a ``pyarrow.RecordBatchReader`` (no copy; lazy)."""
    return pa.RecordBatchReader.from_stream(CapsuleStream(capsule))


def whole_table(result: Any) -> pa.Table:
    """The table of a native whole-result export (``ExportColumns`` in python/src/common.h):
    a (schema capsule, [one ChunkedArray stream capsule per column]) tuple, whose columns
    each own their memory (dropping the payload column frees it even while ``_ROW_ID`` is
    kept), or a stream capsule (no columns, or the read failed: reading it raises the error
    as a stream read would)."""
    if not isinstance(result, tuple):
        return stream_reader(result).read_all()
    schema_capsule, columns = result
    return pa.Table.from_arrays([pa.ChunkedArray._import_from_c_capsule(c) for c in columns],
                                schema=capsule_schema(schema_capsule))


def capsule_schema(capsule: Any) -> pa.Schema:
    return pa.schema(CapsuleSchema(capsule))


def _coerce_literal(value: Any, arrow_type: pa.DataType) -> Any:
    """Per-value fixes pyarrow does not do itself when building a typed array."""
    if value is None:
        return None
    if isinstance(value, pa.Scalar):
        return value.as_py()
    if pa.types.is_integer(arrow_type) and isinstance(value, float):
        # pyarrow would truncate 2.5 to 2 silently, changing the predicate's meaning.
        if not value.is_integer():
            raise ValueError(f"{value!r} is not an integer")
        return int(value)
    if pa.types.is_decimal(arrow_type) and isinstance(value, float):
        return decimal.Decimal(repr(value))
    if pa.types.is_date(arrow_type) and isinstance(value, datetime.datetime):
        return value.date()
    if (pa.types.is_timestamp(arrow_type) and isinstance(value, datetime.date)
            and not isinstance(value, datetime.datetime)):
        return datetime.datetime(value.year, value.month, value.day)
    if pa.types.is_timestamp(arrow_type) and isinstance(value, datetime.datetime):
        if arrow_type.tz is None and value.tzinfo is not None:
            # A zoned literal against a zoneless column: compare in UTC wall-clock terms.
            return value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return value


# Fixed-width literal types built from their bytes: the `array` typecode of each (native byte
# order, as Arrow's buffers).
_FIXED_FORMATS = {pa.int8(): "b", pa.int16(): "h", pa.int32(): "i", pa.int64(): "q",
                  pa.uint8(): "B", pa.uint16(): "H", pa.uint32(): "I", pa.uint64(): "Q",
                  pa.float32(): "f", pa.float64(): "d"}
_EPOCH = datetime.date(1970, 1, 1)
_EPOCH_TIME = datetime.datetime(1970, 1, 1)
# Microseconds per tick of a timestamp unit, as (multiplier, divisor).
_TIMESTAMP_MICROS = {"s": (1, 1_000_000), "ms": (1, 1_000), "us": (1, 1), "ns": (1_000, 1)}


def _timestamp_ticks(value: datetime.datetime, unit: str) -> int:
    """``value`` as pyarrow stores it in a timestamp of ``unit``: an aware value as its UTC
    instant, a naive one as UTC wall-clock time (whatever the column's zone), sub-unit
    digits floored."""
    offset = value.utcoffset()
    naive = value.replace(tzinfo=None) - (offset or datetime.timedelta(0))
    delta = naive - _EPOCH_TIME
    micros = (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    multiplier, divisor = _TIMESTAMP_MICROS[unit]
    return micros * multiplier // divisor


def _bitmap(flags: Sequence[bool]) -> pa.Buffer:
    """An Arrow bitmap (LSB first) of ``flags``."""
    bits = bytearray((len(flags) + 7) // 8)
    for i, flag in enumerate(flags):
        if flag:
            bits[i // 8] |= 1 << (i % 8)
    return pa.py_buffer(bytes(bits))


def _validity(values: Sequence[Any]) -> Optional[pa.Buffer]:
    if all(v is not None for v in values):
        return None
    return _bitmap([v is not None for v in values])


def _built_from_buffers(values: Sequence[Any], arrow_type: pa.DataType) -> Optional[pa.Array]:
    """The literal array of the common types (integers, floats, bool, strings, binary, dates,
    timestamps) built straight from its buffers, or None for a value or type of another kind.

    pyarrow's own conversion of Python objects (``pa.array``, ``pa.scalar``) imports pandas
    whenever it is installed (it checks for pandas objects first), ~0.3 s on the first filtered
    read of a process; this path imports nothing. It takes only values whose conversion cannot
    differ from pyarrow's (no int-to-float, no bool-as-int, values in range); anything else is
    left to ``pa.array`` and its errors."""
    n = len(values)
    present = [v for v in values if v is not None]
    code = _FIXED_FORMATS.get(arrow_type)
    try:
        if code is not None:
            kind = float if pa.types.is_floating(arrow_type) else int
            if any(type(v) is not kind for v in present):
                return None
            data = array.array(code, [0 if v is None else v for v in values])
            return pa.Array.from_buffers(arrow_type, n, [_validity(values), pa.py_buffer(data)])
        if arrow_type == pa.bool_():
            if any(type(v) is not bool for v in present):
                return None
            return pa.Array.from_buffers(arrow_type, n, [_validity(values),
                                                         _bitmap([bool(v) for v in values])])
        if arrow_type == pa.date32():
            if any(type(v) is not datetime.date for v in present):
                return None
            data = array.array("i", [0 if v is None else (v - _EPOCH).days for v in values])
            return pa.Array.from_buffers(arrow_type, n, [_validity(values), pa.py_buffer(data)])
        if pa.types.is_timestamp(arrow_type) and arrow_type.unit in _TIMESTAMP_MICROS:
            if any(type(v) is not datetime.datetime for v in present):
                return None
            ticks = [0 if v is None else _timestamp_ticks(v, arrow_type.unit) for v in values]
            data = array.array("q", ticks)
            return pa.Array.from_buffers(arrow_type, n, [_validity(values), pa.py_buffer(data)])
        text = pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type)
        if text or pa.types.is_binary(arrow_type) or pa.types.is_large_binary(arrow_type):
            if any(type(v) is not (str if text else bytes) for v in present):
                return None
            encoded = [b"" if v is None else (v.encode("utf-8") if text else v) for v in values]
            ends, at = [0], 0
            for e in encoded:
                at += len(e)
                ends.append(at)
            large = pa.types.is_large_string(arrow_type) or pa.types.is_large_binary(arrow_type)
            offsets = array.array("q" if large else "i", ends)
            return pa.Array.from_buffers(arrow_type, n, [_validity(values), pa.py_buffer(offsets),
                                                         pa.py_buffer(b"".join(encoded))])
    except (UnicodeEncodeError, OverflowError, TypeError):
        return None  # out of range or not encodable: pa.array reports it
    return None


def literal_array(values: Sequence[Any], arrow_type: pa.DataType, field_name: str) -> pa.Array:
    """Builds the typed literal array of a predicate. O(len(values)).

    Raises ValueError when a literal cannot be represented in the field's type (e.g. a string
    compared with an INT column, or 2.5 against an INT column)."""
    try:
        coerced = [_coerce_literal(v, arrow_type) for v in values]
        built = _built_from_buffers(coerced, arrow_type)
        return built if built is not None else pa.array(coerced, type=arrow_type)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, TypeError,
            ValueError, OverflowError) as error:
        raise ValueError(f"Literal(s) {list(values)!r} cannot be used with field '{field_name}' "
                         f"of type {arrow_type}: {error}") from None


def to_record_batch_reader(data: Any, schema: Optional[pa.Schema] = None) -> pa.RecordBatchReader:
    """Turns any tabular input into one ``RecordBatchReader`` (the single input type of the
    native layer): pyarrow Table / RecordBatch / RecordBatchReader, pandas DataFrame, any
    object with ``__arrow_c_stream__`` (polars, duckdb, ...), or an iterable of record
    batches. Zero-copy except for pandas (converted once)."""
    if isinstance(data, pa.RecordBatchReader):
        return data
    if isinstance(data, pa.Table):
        return data.to_reader()
    if isinstance(data, pa.RecordBatch):
        return pa.Table.from_batches([data]).to_reader()
    if hasattr(data, "__arrow_c_stream__"):
        return pa.RecordBatchReader.from_stream(data)
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is optional
        pd = None
    if pd is not None and isinstance(data, pd.DataFrame):
        return pa.Table.from_pandas(data, preserve_index=False).to_reader()
    if isinstance(data, Iterable) and not isinstance(data, (str, bytes, dict)):
        batches: List[pa.RecordBatch] = list(data)
        if schema is None and not batches:
            raise ValueError("cannot infer a schema from an empty iterable of batches")
        return pa.RecordBatchReader.from_batches(schema or batches[0].schema, batches)
    raise TypeError(f"expected a pyarrow Table/RecordBatch/RecordBatchReader, a pandas "
                    f"DataFrame or an Arrow stream, got {type(data).__name__}")


class UserStream:
    """A user's stream handed to native code, keeping the exception the user's code raises.

    Native code pulls batches through the Arrow C stream interface, which carries only a
    status: an exception raised by the user's generator or reader would reach the caller as
    ``ValueError("Unknown error: ...")``. ``UserStream`` pulls through a Python generator that
    records the exception; ``call`` re-raises that original exception (its type, message and
    traceback; the native error is its ``__context__``). In-memory inputs (pyarrow Table,
    RecordBatch) cannot raise and pass through unwrapped, with no per-batch cost."""

    def __init__(self, reader: pa.RecordBatchReader, wrap: bool = True) -> None:
        self.error: Optional[BaseException] = None
        self.reader = (pa.RecordBatchReader.from_batches(reader.schema, self._pull(reader))
                       if wrap else reader)

    @classmethod
    def of(cls, data: Any) -> UserStream:
        in_memory = isinstance(data, (pa.Table, pa.RecordBatch)) or (
            type(data).__name__ == "DataFrame" and type(data).__module__.startswith("pandas"))
        return cls(to_record_batch_reader(data), wrap=not in_memory)

    def _pull(self, reader: pa.RecordBatchReader):
        try:
            yield from reader
        except BaseException as error:
            self.error = error
            raise

    def call(self, fn: Any, *args: Any) -> Any:
        """``fn(self.reader, *args)``; the user's own exception wins over the native one."""
        try:
            return fn(self.reader, *args)
        except BaseException:
            if self.error is not None:
                # Chained to the native error on purpose: both are worth seeing.
                raise self.error.with_traceback(self.error.__traceback__)  # noqa: B904
            raise


# -- row ids ----------------------------------------------------------------------------------
# Row ids are integers, everywhere: a bool, float, string or decimal is a TypeError naming the
# value or the type, never cast (pypaimon casts, so 1.5, True and "3" addressed rows 1, 1, 3).


def int64_row_ids(ids: Any, column: str = "_ROW_ID") -> pa.Array:
    """A pyarrow Array/ChunkedArray of row ids as one int64 Array (a safe cast from any integer
    type, or from the null type of an all-null or empty column; out-of-range values raise
    ``pyarrow.ArrowInvalid``). TypeError for another type."""
    if isinstance(ids, pa.ChunkedArray):
        ids = ids.combine_chunks()
    if not (pa.types.is_integer(ids.type) or pa.types.is_null(ids.type)):  # null: no values
        raise TypeError(f"row ids must be integers: column {column!r} is {ids.type}; a row id "
                        "is an int64 value of a table's _ROW_ID column")
    return ids if ids.type == pa.int64() else ids.cast(pa.int64())


def is_id_column(values: Any) -> bool:
    """True for the forms a bare column of row ids takes: a pyarrow Array or ChunkedArray, a
    one-dimensional numpy array, or a list/tuple (not one of record batches)."""
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        return True
    if type(values).__name__ == "ndarray" and type(values).__module__ == "numpy":
        return values.ndim == 1
    return isinstance(values, (list, tuple)) and not (
        values and all(isinstance(v, pa.RecordBatch) for v in values))


def row_id_array(values: Any, column: str = "_ROW_ID") -> pa.Array:
    """A column of row ids (see ``is_id_column``) as one int64 pyarrow Array; None stays a
    null (callers refuse nulls with their own messages). TypeError naming the first value that
    is not an integer (``bool`` is not one), or the array's type. O(n)."""
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        return int64_row_ids(values, column)
    if type(values).__name__ == "ndarray" and type(values).__module__ == "numpy":
        if values.dtype.kind in "iu":
            return int64_row_ids(pa.array(values), column)
        if values.dtype.kind != "O":
            raise TypeError(f"row ids must be integers: {column!r} is a numpy array of "
                            f"{values.dtype}")
        values = values.tolist()
    if not isinstance(values, (list, tuple)):
        raise TypeError(f"row ids must be a list, tuple, pyarrow Array or numpy array of "
                        f"integers; got {type(values).__name__}")
    ids: List[Optional[int]] = []
    for position, value in enumerate(values):
        kind = type(value)
        if value is None:
            ids.append(None)
        elif kind is int or (isinstance(value, int) and kind is not bool) or (
                kind.__module__ == "numpy" and hasattr(value, "dtype")
                and value.dtype.kind in "iu"):
            ids.append(int(value))
        else:
            raise TypeError(f"row ids must be integers: {column!r} has {value!r} "
                            f"({kind.__name__}) at position {position}")
    return pa.array(ids, pa.int64())


def ids_source(row_ids: Any, row_id_col: str) -> Any:
    """``read_by_row_id``'s ``row_ids``: a bare column of ids (``is_id_column``) becomes a
    one-column table named ``row_id_col``; anything else is returned as it is."""
    if is_id_column(row_ids):
        return pa.table({row_id_col: row_id_array(row_ids, row_id_col)})
    return row_ids


def columns_source(source: Any, row_id_col: str = "_ROW_ID") -> Any:
    """An update source given as a mapping of column name to values (lists, numpy or pyarrow
    arrays) becomes a pyarrow Table, its ``row_id_col`` checked by ``row_id_array``; anything
    else is returned as it is."""
    if isinstance(source, Mapping):
        return pa.table({str(name): row_id_array(values, row_id_col) if name == row_id_col
                         else values for name, values in source.items()})
    return source


def unsupported_source(operation: str, source: Any) -> TypeError:
    """The TypeError for a source of a type ``operation`` does not take, listing what it takes
    (pypaimon's message lists "a Paimon table identifier string", which it then refuses)."""
    if operation == "read_by_row_id":
        takes = ("a list / tuple / pyarrow Array / numpy array of integer row ids, or a table "
                 "carrying them: a pyarrow.Table, a pandas.DataFrame, a mapping of columns, "
                 "any Arrow stream, or a ray.data.Dataset (paimon_rowid.ray)")
    else:
        takes = ("a table carrying _ROW_ID and the update columns: a pyarrow.Table, a "
                 "pandas.DataFrame, a mapping of columns, any Arrow stream, or a "
                 "ray.data.Dataset (paimon_rowid.ray)")
    return TypeError(f"{operation}'s source must be {takes}; got {type(source).__name__}.")


def source_stream(source: Any, operation: str, what: str) -> UserStream:
    """The source as one Arrow stream (``.reader``; ``.call`` keeps the user's exceptions).
    A table name is refused (its _ROW_ID is its own); other unsupported types are TypeError."""
    if isinstance(source, str):
        raise ValueError(
            f"{operation} does not accept a table-name source; pass a ray.data.Dataset / "
            f"pyarrow.Table / pandas.DataFrame carrying {what}.")
    if type(source).__module__.startswith("ray.data"):
        # Iterating a Dataset would run the whole Ray pipeline only to fail on its rows.
        raise TypeError(
            f"{operation} (embedded) does not take a ray.data.Dataset; use "
            f"paimon_rowid.ray.{operation}, or pass a pyarrow.Table / pandas.DataFrame / "
            f"Arrow stream carrying {what}.")
    try:
        if isinstance(source, (list, tuple)) and not (
                source and all(isinstance(b, pa.RecordBatch) for b in source)):
            raise TypeError(type(source).__name__)  # only a list of record batches is a table
        return UserStream.of(source)
    except (TypeError, AttributeError):  # AttributeError: an iterable of non-batches
        raise unsupported_source(operation, source) from None
