"""``map_with_blobs`` on Ray: fetch BLOB payloads next to the code that consumes them.

A Dataset read with ``blob-as-descriptor=true`` (``read_paimon(..., dynamic_options=...)``,
``read_by_row_id(..., dynamic_options=...)``) carries small serialized ``BlobDescriptor``
values instead of payloads. ``map_with_blobs`` runs a ``map_batches`` step that, per Arrow
batch, fetches the referenced payloads with a thread pool (``paimon_rowid.blob.resolve_blobs``:
one positioned read per non-null value) and calls the user's function, so payloads are only
ever held one batch at a time, on the worker that needs them.

Same signature, validations and exception types as ``pypaimon.ray.map_with_blobs``. Differences:
``file_io`` may be omitted (the Dataset of ``read_paimon`` / ``read_by_row_id`` records its
table's files: the tasks read through the table's FileIO, a REST table's data token
refreshed from the server; ``file_io`` may also be a ``Table`` or catalog options, and
``catalog_options=`` names them explicitly), ``blob_uri_affinity`` / ``prefetch_bytes`` are
validated hints that are not used, and values of the BLOB columns must be descriptors
(pypaimon passes inline payload bytes through). ARRAY<BLOB> / MAP<K, BLOB> columns
(``array_blob_columns`` / ``map_blob_columns``, the Dataset's ``_paimon_array_blob_columns`` /
``_paimon_map_blob_columns``, or recognised by their Arrow list / map type) reach ``fn`` as
pypaimon passes them: a list of payloads, a list of ``(key, payload)`` pairs.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Union

import pyarrow as pa

from .._internal._lib import native
from ..table.blob import blob_files, resolve_blobs

__all__ = ["map_with_blobs"]

#: Dataset attribute naming the BLOB columns of a Dataset that holds descriptors (set by
#: ``read_paimon`` when reading with ``blob-as-descriptor=true``; pypaimon's name).
BLOB_COLUMNS_ATTR = "_paimon_blob_columns"
#: The ARRAY<BLOB> / MAP<K, BLOB> columns among them (pypaimon's names).
ARRAY_BLOB_COLUMNS_ATTR = "_paimon_array_blob_columns"
MAP_BLOB_COLUMNS_ATTR = "_paimon_map_blob_columns"
#: The files the payloads are read from: ``_native.BlobFiles`` of the table the Dataset was
#: read from (its FileIO; pickled into the tasks with the table's filesystem options, a REST
#: table's current data token and catalog options, so each task refreshes the token). Ours;
#: pypaimon keeps a FileIO object under ``_paimon_blob_file_io``.
BLOB_FILES_ATTR = "_paimon_rowid_blob_files"


def _binary_holds_descriptor(array: pa.Array) -> bool:
    """``any(BlobDescriptor.is_descriptor(v) for v in array)``, natively, in one pass."""
    if len(array) == 0 or array.null_count == len(array):
        return False
    return native().blob_array_holds_descriptor(array)


def _holds_descriptor(array: pa.Array, nested: bool = False) -> bool:
    """True when a (scalar-side) column holds serialized descriptors: binary values, or any
    binary/string element inside lists and map values."""
    kind = array.type
    if isinstance(kind, pa.ExtensionType):
        return _holds_descriptor(array.storage, nested)
    if pa.types.is_binary(kind) or pa.types.is_large_binary(kind):
        return _binary_holds_descriptor(array)
    if nested and (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
        target = pa.large_binary() if pa.types.is_large_string(kind) else pa.binary()
        return _binary_holds_descriptor(array.cast(target))
    if pa.types.is_map(kind):
        return _holds_descriptor(array.items, nested=True)
    if (pa.types.is_list(kind) or pa.types.is_large_list(kind)
            or pa.types.is_fixed_size_list(kind)):
        return _holds_descriptor(array.flatten(), nested=True)
    return False


def _column_chunks(column: Union[pa.Array, pa.ChunkedArray]) -> Iterable[pa.Array]:
    return column.chunks if isinstance(column, pa.ChunkedArray) else [column]


def _map_blob_batch(batch: pa.Table, *, columns: List[str], all_blob_columns: List[str],
                    map_blob_columns: List[str], array_blob_columns: List[str],
                    parallelism: int, fn: Callable[..., Any],
                    fn_kwargs: Dict[str, Any], files: Any) -> Any:
    """One map_batches call: validate the batch, fetch its payloads, call ``fn``."""
    names = batch.schema.names
    missing = [c for c in columns if c not in names]
    if missing:
        raise ValueError(f"BLOB column(s) not found in Ray Dataset: {', '.join(missing)}")
    owned = set(all_blob_columns)
    scalar_columns = [n for n in names if n not in owned]
    for name in scalar_columns:
        if any(_holds_descriptor(chunk) for chunk in _column_chunks(batch.column(name))):
            raise ValueError(
                f"Column {name!r} holds BLOB descriptors that are not among the BLOB columns "
                f"{sorted(owned)} (for example from a joined BLOB table); fetch it with its "
                "own map_with_blobs pass, or drop it before mapping.")
    bodies = resolve_blobs(batch, columns, parallelism=parallelism,
                           map_blob_columns=map_blob_columns,
                           array_blob_columns=array_blob_columns,
                           catalog_options=files)
    result = fn(batch.select(scalar_columns), bodies, **fn_kwargs)
    if result is None:
        raise ValueError(
            "map_with_blobs fn must return a Ray-compatible batch (e.g. a pyarrow.Table), not "
            "None; for side effects only, return an empty pyarrow.Table.")
    return result


def map_with_blobs(dataset: Any, columns: Union[str, Sequence[str]], fn: Callable[..., Any], *,
                   file_io: Any = None, all_blob_columns: Optional[Sequence[str]] = None,
                   map_blob_columns: Optional[Sequence[str]] = None,
                   array_blob_columns: Optional[Sequence[str]] = None,
                   parallelism: int = 64, batch_size: Optional[int] = 1024,
                   blob_uri_affinity: bool = False, prefetch_bytes: int = 64 * 1024 * 1024,
                   fn_kwargs: Optional[Dict[str, Any]] = None,
                   ray_remote_args: Optional[Dict[str, Any]] = None,
                   catalog_options: Optional[Dict[str, Any]] = None, **map_args: Any) -> Any:
    """A lazy Dataset of ``fn``'s results over ``dataset``, a Dataset whose BLOB columns hold
    serialized descriptors.

    For every pyarrow batch of at most ``batch_size`` rows, the payloads of ``columns`` are
    fetched with ``parallelism`` threads and ``fn(scalar_batch, {col: [bytes or None, ...]},
    **fn_kwargs)`` is called; ``scalar_batch`` is the batch without any BLOB column. ``fn``
    must return a batch (not None). ``all_blob_columns`` defaults to the Dataset's
    ``_paimon_blob_columns`` attribute (set by ``read_paimon`` with
    ``blob-as-descriptor=true``). ``ray_remote_args`` and ``**map_args`` go to
    ``map_batches`` (``batch_format`` must be ``"pyarrow"``).

    The payloads are read through the filesystem of the warehouse: ``catalog_options`` (the
    catalog options, e.g. an ``s3://`` warehouse's endpoint and keys, or a ``Table``), else
    ``file_io`` when it is a paimon_rowid ``Table`` or a dict of catalog options, else the
    table's files recorded on the Dataset by ``read_paimon`` / ``read_by_row_id``, else the
    local filesystem. A ``Table`` (given or recorded) is read through its own FileIO in each
    task: a REST table's data token goes with it and is refreshed from the server when it
    nears expiry; plain catalog options of a REST catalog carry no data token.

    Raises ValueError (before running anything) when ``fn`` is not callable, ``columns`` is
    empty or names a non-BLOB column, ``parallelism`` / ``batch_size`` is below 1,
    ``batch_format`` is not pyarrow, the BLOB columns are unknown, or the nested BLOB
    columns are not disjoint subsets of them; and (when the Dataset
    runs) for a missing column, for BLOB descriptors in a non-BLOB column, or a None result.
    Memory per task: one batch of payloads."""
    if not callable(fn):
        raise ValueError("fn must be callable")
    blob_columns = [columns] if isinstance(columns, str) else list(dict.fromkeys(columns))
    if not blob_columns:
        raise ValueError("columns must contain at least one BLOB column")
    if isinstance(parallelism, bool) or not isinstance(parallelism, int) or parallelism < 1:
        raise ValueError(f"parallelism must be at least 1, got {parallelism}")
    if batch_size is not None and (isinstance(batch_size, bool) or not isinstance(batch_size, int)
                                   or batch_size < 1):
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    if not isinstance(blob_uri_affinity, bool):
        raise ValueError("blob_uri_affinity must be a boolean")
    if blob_uri_affinity and batch_size is None:
        raise ValueError("blob_uri_affinity requires batch_size")
    if (isinstance(prefetch_bytes, bool) or not isinstance(prefetch_bytes, int)
            or prefetch_bytes < 1):
        raise ValueError("prefetch_bytes must be a positive integer")
    # The blob_uri_affinity / prefetch_bytes read-coalescing hints are accepted for pypaimon
    # compatibility and not used. file_io is used when it names the filesystem (a Table or
    # catalog options); another object (pypaimon's FileIO) is ignored.
    if catalog_options is not None:
        files = blob_files(catalog_options)
    elif file_io is not None and (hasattr(file_io, "file_io_options")
                                  or isinstance(file_io, dict)):
        files = blob_files(file_io)
    else:
        files = blob_files(getattr(dataset, BLOB_FILES_ATTR, None))
    batch_format = map_args.pop("batch_format", "pyarrow")
    if batch_format != "pyarrow":
        raise ValueError("map_with_blobs requires batch_format='pyarrow'")
    if all_blob_columns is None:
        all_blob_columns = getattr(dataset, BLOB_COLUMNS_ATTR, None)
    if all_blob_columns is None:
        raise ValueError("map_with_blobs requires all_blob_columns when the Dataset lacks BLOB "
                         "metadata (read it with read_paimon and 'blob-as-descriptor'='true', "
                         "or pass all_blob_columns=).")
    if isinstance(all_blob_columns, str):
        all_blob_columns = [all_blob_columns]
    all_blob_columns = list(all_blob_columns)
    invalid = [c for c in blob_columns if c not in set(all_blob_columns)]
    if invalid:
        raise ValueError(f"Column {invalid[0]!r} is not a BLOB column.")
    if map_blob_columns is None:
        map_blob_columns = getattr(dataset, MAP_BLOB_COLUMNS_ATTR, ())
    if array_blob_columns is None:
        array_blob_columns = getattr(dataset, ARRAY_BLOB_COLUMNS_ATTR, ())
    maps, arrays = set(map_blob_columns or ()), set(array_blob_columns or ())
    if maps & arrays or (maps | arrays) - set(all_blob_columns):
        raise ValueError("Nested BLOB columns must be disjoint subsets of all_blob_columns.")
    known = dataset.schema(fetch_if_missing=False) if hasattr(dataset, "schema") else None
    if known is not None and getattr(known, "names", None) is not None:
        missing = [c for c in blob_columns if c not in known.names]
        if missing:
            raise ValueError(f"BLOB column(s) not found in Ray Dataset: {', '.join(missing)}")

    kwargs: Dict[str, Any] = dict(map_args)
    kwargs["batch_format"] = "pyarrow"
    if batch_size is not None:
        kwargs["batch_size"] = batch_size
    if ray_remote_args:
        kwargs.update(ray_remote_args)
    mapper_kwargs = {"columns": blob_columns, "all_blob_columns": all_blob_columns,
                     "map_blob_columns": sorted(maps), "array_blob_columns": sorted(arrays),
                     "parallelism": parallelism, "fn": fn, "fn_kwargs": dict(fn_kwargs or {}),
                     "files": files}
    return dataset.map_batches(_map_blob_batch, fn_kwargs=mapper_kwargs, **kwargs)
