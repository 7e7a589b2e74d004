"""BLOB helpers: ``BlobDescriptor`` (docs/format.md §6.3) and ``map_with_blobs`` for
in-process use.

A BLOB column read with ``blob-as-descriptor=true`` (``table.copy({...})`` or
``dynamic_options``) holds serialized descriptors instead of payloads: references
``(uri, offset, length)`` into the table's ``.blob`` files. Reading them that way costs only the
``.blob`` indexes; the payloads are fetched later, where they are needed, with
:meth:`BlobDescriptor.read` or :func:`map_with_blobs`.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import pyarrow as pa

from .._internal._lib import native

__all__ = ["BlobDescriptor", "map_with_blobs", "resolve_blobs"]

_BytesLike = (bytes, bytearray, memoryview)


def filesystem_options(catalog_options: Any = None) -> Dict[str, str]:
    """The options a payload read is configured by, as ``{str: str}``: a catalog's options
    (``fs.s3.endpoint``, keys, ... of an object-store warehouse; other keys such as
    ``warehouse`` are ignored by the reader), or a paimon_rowid ``Table``'s (the filesystem
    options its FileIO was made from). None or empty: the local filesystem."""
    if catalog_options is None:
        return {}
    if hasattr(catalog_options, "file_io_options"):  # a Table
        return dict(catalog_options.file_io_options)
    if not isinstance(catalog_options, Mapping):
        raise TypeError("catalog_options must be a dict of catalog options or a Table, got "
                        f"{type(catalog_options).__name__}")
    return {str(k): str(v) for k, v in catalog_options.items() if v is not None}


_Range = Tuple[str, int, int]
_RangeReader = Callable[[List[_Range]], List[bytes]]


def blob_files(source: Any = None) -> Any:
    """What payload reads go through, picklable for Ray tasks: for a paimon_rowid ``Table``
    its files (``_native.BlobFiles``: the table's own FileIO, so a REST table's data token
    is refreshed from the server as for its other files, in this process or a task's); a
    ``BlobFiles`` as it is; else the filesystem options of ``filesystem_options``."""
    if isinstance(source, native().BlobFiles):
        return source
    if hasattr(source, "file_io_options") and hasattr(source, "_native"):  # a Table
        return native().BlobFiles(source._native)
    return filesystem_options(source)


def _range_reader(source: Any) -> _RangeReader:
    """``read(ranges) -> [bytes]`` for ``blob_files(source)``; safe to call from threads."""
    files = blob_files(source)
    if isinstance(files, dict):
        return partial(native().read_blob_ranges, options=files)
    return files.read


class BlobDescriptor:
    """A reference to ``length`` bytes at ``offset`` of ``uri``. Immutable and hashable.

    Bytes (version 2, little endian): ``version:u8 = 2``, ``magic:u64 = "BLOBDESC"``,
    ``uri_len:i32``, ``uri``, ``offset:i64``, ``length:i64``; version 1 (no magic) is parsed
    too. Equal to pypaimon's ``BlobDescriptor`` byte for byte. The bytes are encoded, decoded
    and dereferenced by the native core (``codec/blob_file.h``, ``read/blob_reader.h``)."""

    __slots__ = ("_uri", "_offset", "_length", "_version")

    def __init__(self, uri: str, offset: int, length: int, version: int = 2) -> None:
        if offset < 0 or length < 0:
            raise ValueError(f"offset and length must be >= 0, got {offset}, {length}")
        self._uri = str(uri)
        self._offset = int(offset)
        self._length = int(length)
        self._version = int(version)

    @property
    def uri(self) -> str:
        return self._uri

    @property
    def offset(self) -> int:
        return self._offset

    @property
    def length(self) -> int:
        return self._length

    @property
    def version(self) -> int:
        return self._version

    def serialize(self) -> bytes:
        """Version-2 bytes (what readers return and writers accept)."""
        return native().blob_descriptor_serialize(self._uri, self._offset, self._length)

    @classmethod
    def deserialize(cls, data: Union[bytes, bytearray, memoryview]) -> BlobDescriptor:
        """Parses version 1 or 2 bytes; ValueError when malformed."""
        uri, offset, length, version = native().blob_descriptor_deserialize(data)
        return cls(uri, offset, length, version)

    @staticmethod
    def is_descriptor(data: Any) -> bool:
        """pypaimon's detection rule: >= 9 bytes, version 0 or 2, then the magic. Writers
        treat such BLOB input values as references and copy the referenced bytes."""
        if not isinstance(data, _BytesLike):
            return False
        return native().blob_looks_like_descriptor(data)

    def read(self, catalog_options: Optional[Mapping[str, Any]] = None) -> bytes:
        """The referenced bytes. ``catalog_options`` (the catalog options of the warehouse, or
        its ``Table``) configure the filesystem of an object-store uri (``s3://...``: endpoint,
        region, keys); without them only local files (plain paths and ``file:`` URIs) are
        read (NotImplementedError for another uri, before any request). A ``Table`` is read
        through its own FileIO: a REST table's data token, refreshed when it nears expiry.
        A range in a ``.blob`` file is verified against its entry's CRC (usually one
        positioned read of ``length + 16`` bytes; an ARRAY/MAP element also reads the file's
        index and its whole row); OSError when the bytes are damaged, or the range
        lies outside every payload of the ``.blob`` file or past the end of another file."""
        return _range_reader(catalog_options)([(self._uri, self._offset, self._length)])[0]

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, BlobDescriptor) and self._uri == other._uri
                and self._offset == other._offset and self._length == other._length)

    def __hash__(self) -> int:
        return hash((self._uri, self._offset, self._length))

    def __repr__(self) -> str:
        return f"BlobDescriptor(uri={self._uri!r}, offset={self._offset}, length={self._length})"


def _fetch_all(values: List[Optional[bytes]], pool: ThreadPoolExecutor,
               read: _RangeReader) -> List[Optional[bytes]]:
    """The payloads of serialized descriptors (None stays None), in order. Every value is
    checked and decoded first (ValueError for raw bytes, before any read); then consecutive
    ranges go to the native reader in one call per worker thread, which keeps the elements
    of one ARRAY/MAP row (ranges inside one entry) together."""
    present = [i for i, v in enumerate(values) if v is not None]
    out: List[Optional[bytes]] = [None] * len(values)
    if not present:
        return out
    ranges = native().blob_ranges_of([values[i] for i in present])
    workers = max(1, getattr(pool, "_max_workers", 1))
    step = max(1, -(-len(ranges) // workers))
    chunks = [ranges[i:i + step] for i in range(0, len(ranges), step)]
    fetched = [b for part in pool.map(read, chunks) for b in part]
    for i, data in zip(present, fetched):
        out[i] = data
    return out


def _kind_of(arrow_type: pa.DataType, name: str, map_columns, array_columns) -> str:
    """"map", "array" or "scalar": from the caller's lists, else from the Arrow type."""
    if name in map_columns or pa.types.is_map(arrow_type):
        return "map"
    if (name in array_columns or pa.types.is_list(arrow_type)
            or pa.types.is_large_list(arrow_type)):
        return "array"
    return "scalar"


def _resolve_column(column: Union[pa.Array, pa.ChunkedArray], pool: ThreadPoolExecutor,
                    kind: str, read: _RangeReader) -> List[Any]:
    """Payloads of one descriptor column, row-aligned. ARRAY<BLOB> cells become lists of
    payloads, MAP<K, BLOB> cells lists of (key, payload) pairs (pypaimon's shapes); null
    cells, elements and values stay None. All values of the column are fetched at once."""
    values = column.to_pylist()
    if kind == "scalar":
        return _fetch_all(values, pool, read)
    flat: List[Optional[bytes]] = []
    for cell in values:
        if cell is None:
            continue
        if kind == "map":
            entries = list(cell.items()) if isinstance(cell, dict) else list(cell)
            flat.extend(v for _, v in entries)
        else:
            flat.extend(cell)
    fetched = iter(_fetch_all(flat, pool, read))
    out: List[Any] = []
    for cell in values:
        if cell is None:
            out.append(None)
        elif kind == "map":
            entries = list(cell.items()) if isinstance(cell, dict) else list(cell)
            out.append([(k, next(fetched)) for k, _ in entries])
        else:
            out.append([next(fetched) for _ in cell])
    return out


def resolve_blobs(batch: Union[pa.RecordBatch, pa.Table], columns: Sequence[str], *,
                  parallelism: int = 16, map_blob_columns: Sequence[str] = (),
                  array_blob_columns: Sequence[str] = (),
                  catalog_options: Optional[Mapping[str, Any]] = None) -> Dict[str, List[Any]]:
    """Fetches the payloads of the descriptor ``columns`` of ``batch`` with ``parallelism``
    threads: ``{column: [cell, ...]}`` in row order, a cell being the payload bytes (BLOB), a
    list of payloads (ARRAY<BLOB>) or a list of ``(key, payload)`` pairs (MAP<K, BLOB>), or
    None. Nested columns are recognised by their Arrow type (list / map) or named in
    ``map_blob_columns`` / ``array_blob_columns``. Every payload is verified against its
    ``.blob`` entry's CRC (:meth:`BlobDescriptor.read`). ``catalog_options`` (or the
    ``Table``, read through its own FileIO: a REST table's refreshing data token) configure
    the filesystem of a warehouse on an object store; without them the payloads are read
    from local files."""
    maps, arrays = set(map_blob_columns), set(array_blob_columns)
    read = _range_reader(catalog_options)
    with ThreadPoolExecutor(max_workers=max(1, parallelism)) as pool:
        return {name: _resolve_column(
                    batch.column(name), pool,
                    _kind_of(batch.schema.field(name).type, name, maps, arrays), read)
                for name in columns}


def map_with_blobs(data: Union[pa.Table, pa.RecordBatch, pa.RecordBatchReader,
                               Iterable[pa.RecordBatch]],
                   columns: Sequence[str], fn: Callable[..., Any], *,
                   parallelism: int = 16, batch_size: int = 1024,
                   fn_kwargs: Optional[Dict[str, Any]] = None,
                   catalog_options: Optional[Mapping[str, Any]] = None) -> List[Any]:
    """In-process equivalent of pypaimon's ``ray.map_with_blobs``: for each batch of at most
    ``batch_size`` rows, fetches the payloads of the descriptor ``columns`` with
    ``parallelism`` threads and calls ``fn(scalar_batch, {col: [cell, ...]}, **fn_kwargs)``
    (cells as in ``resolve_blobs``: bytes, lists of bytes for ARRAY<BLOB>, lists of
    ``(key, bytes)`` for MAP<K, BLOB>, or None), where ``scalar_batch`` is the pyarrow batch
    without ``columns``. Returns the list of ``fn``'s results (ValueError if ``fn`` returns
    None). ``catalog_options`` (the warehouse's catalog options, or the ``Table`` the data was
    read from, whose own FileIO then reads: a REST table's refreshing data token) configure
    the filesystem of an object-store warehouse; without them the payloads are read from
    local files. Memory: one batch of payloads at a time."""
    columns = list(columns)
    read = _range_reader(catalog_options)
    if not columns:
        raise ValueError("columns must name at least one BLOB descriptor column")
    if batch_size <= 0:
        raise ValueError(f"batch_size must be positive, got {batch_size}")
    kwargs = dict(fn_kwargs or {})
    if isinstance(data, pa.Table):
        batches: Iterable[pa.RecordBatch] = data.to_batches(max_chunksize=batch_size)
    elif isinstance(data, pa.RecordBatch):
        batches = [data]
    else:
        batches = data
    results = []
    with ThreadPoolExecutor(max_workers=max(1, parallelism)) as pool:
        for big in batches:
            for start in range(0, big.num_rows, batch_size):
                batch = big.slice(start, batch_size)
                missing = [c for c in columns if c not in batch.schema.names]
                if missing:
                    raise ValueError(f"columns {missing} are not in the data {batch.schema.names}")
                blobs = {name: _resolve_column(batch.column(name), pool,
                                               _kind_of(batch.schema.field(name).type, name,
                                                        (), ()), read)
                         for name in columns}
                scalar = batch.select([n for n in batch.schema.names if n not in columns])
                result = fn(scalar, blobs, **kwargs)
                if result is None:
                    raise ValueError("fn must not return None")
                results.append(result)
    return results
