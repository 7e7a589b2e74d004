"""``Table``: a handle on one table (its schema in force and its options).

Wraps ``_native.Table``. Getting properties is O(1) after the first access (the schema JSON is
parsed once per handle); nothing here reads data or manifests except :meth:`latest_snapshot`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional

import pyarrow as pa

from .._internal._arrow import capsule_schema
from .._internal._lib import native
from .._internal._progress import JobProgress
from ..schema import ROW_ID, SEQUENCE_NUMBER, DataField, TableSchema
from . import global_index as _global_index
from . import search as _search
from .read import ReadBuilder
from .write_builder import BatchWriteBuilder

if TYPE_CHECKING:  # pragma: no cover
    from .._native import Snapshot

__all__ = ["Table"]

ROW_TRACKING_ENABLED = "row-tracking.enabled"
DATA_EVOLUTION_ENABLED = "data-evolution.enabled"


def _snapshot_id(value: Any) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"snapshot_id must be an int or None, got {type(value).__name__}")
    return value


def _flag(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, got {type(value).__name__}")
    return value


def _is_true(value: Optional[str]) -> bool:
    return value is not None and value.strip().lower() == "true"


class Table:
    """A Paimon append table. Obtain it from ``Catalog.get_table``; ``copy`` derives a handle
    with other options (time travel via ``scan.snapshot-id`` / ``scan.tag-name``)."""

    def __init__(self, native_table: Any) -> None:
        self._native = native_table
        self._schema: Optional[TableSchema] = None
        self._options: Optional[Dict[str, str]] = None
        self._arrow_schema: Optional[pa.Schema] = None

    # -- identity and schema ------------------------------------------------------------------

    @property
    def identifier(self) -> str:
        """``"database.table"``."""
        return self._native.identifier

    @property
    def path(self) -> str:
        return self._native.path

    @property
    def table_schema(self) -> TableSchema:
        """The schema in force (under time travel, the travelled snapshot's schema)."""
        if self._schema is None:
            self._schema = TableSchema.from_json(self._native.schema_json())
        return self._schema

    def schema(self) -> TableSchema:
        """The schema in force (pypaimon's ``FileStoreTable.schema()``)."""
        return self.table_schema

    @property
    def fields(self) -> List[DataField]:
        return list(self.table_schema.fields)

    @property
    def field_names(self) -> List[str]:
        return [f.name for f in self.table_schema.fields]

    @property
    def partition_keys(self) -> List[str]:
        return list(self.table_schema.partition_keys)

    @property
    def primary_keys(self) -> List[str]:
        return list(self.table_schema.primary_keys)

    @property
    def options(self) -> Dict[str, str]:
        """The effective options (schema options overlaid by ``copy`` overrides)."""
        if self._options is None:
            self._options = dict(self._native.options())
        return dict(self._options)

    @property
    def file_io_options(self) -> Dict[str, str]:
        """The filesystem options the table's FileIO was made from (an object store's
        endpoint, region and keys, as the catalog was given them); empty for a local
        warehouse. What a pickled table carries to Ray workers, and what BLOB descriptor
        reads of this table need (``BlobDescriptor.read(catalog_options=table)``)."""
        return dict(self._native.file_io_options)

    @property
    def row_tracking_enabled(self) -> bool:
        return _is_true(self.options.get(ROW_TRACKING_ENABLED))

    @property
    def data_evolution_enabled(self) -> bool:
        return _is_true(self.options.get(DATA_EVOLUTION_ENABLED))

    def readable_fields(self) -> List[DataField]:
        """Table fields plus ``_ROW_ID`` and ``_SEQUENCE_NUMBER`` on row-tracking tables."""
        fields = self.fields
        if self.row_tracking_enabled:
            fields += [ROW_ID, SEQUENCE_NUMBER]
        return fields

    @property
    def arrow_schema(self) -> pa.Schema:
        """The Arrow schema of a full read of the table's fields (as the native reader
        produces it)."""
        if self._arrow_schema is None:
            self._arrow_schema = self.read_schema(self.field_names)
        return self._arrow_schema

    def read_schema(self, read_fields: List[str]) -> pa.Schema:
        """The Arrow schema a read of ``read_fields`` produces (native mapping, no I/O)."""
        return capsule_schema(native().read_schema(self._native, list(read_fields)))

    # -- derivation and snapshots -------------------------------------------------------------

    def copy(self, options: Mapping[str, Any]) -> Table:
        """A new handle with ``options`` overlaid; a value of None removes the key. Changing
        ``bucket`` raises ValueError. A time-travel key (``scan.snapshot-id`` /
        ``scan.tag-name``) makes the handle read that snapshot with its schema. Cheap: reads
        at most one schema file."""
        if not isinstance(options, Mapping):
            raise TypeError(f"options must be a dict, got {type(options).__name__}")
        overrides: Dict[str, Optional[str]] = {}
        for key, value in options.items():
            if not isinstance(key, str):
                raise TypeError(f"option keys must be strings, got {key!r}")
            if value is None:
                overrides[key] = None
            elif isinstance(value, bool):
                overrides[key] = "true" if value else "false"
            else:
                overrides[key] = str(value)
        return Table(self._native.copy(overrides))

    def latest_snapshot(self) -> Optional[Snapshot]:
        """The latest snapshot, or None. A read-only native object: pypaimon's attribute names
        (``id``, ``schema_id``, ``commit_kind``, ``total_record_count``, ``next_row_id``,
        ``properties`` ...); ``snapshot["nextRowId"]`` also answers the Java JSON key names.
        Reads the snapshot directory hints and one snapshot file."""
        return self._native.latest_snapshot()

    def resolve_snapshot(self) -> Optional[Snapshot]:
        """The snapshot a read of this handle uses (time travel or latest), or None."""
        return self._native.resolve_snapshot()

    def snapshot(self, snapshot_id: int) -> Snapshot:
        """Snapshot ``snapshot_id``; ValueError when it does not exist (or has expired)."""
        return self._native.snapshot(int(snapshot_id))

    def list_snapshots(self) -> List[Snapshot]:
        """Every snapshot file of the table, ascending by id (pypaimon's
        ``SnapshotManager.list_snapshots``): one listing and one read per snapshot; a
        snapshot expired while listing is skipped."""
        out: List[Snapshot] = []
        for snapshot_id in self._native.list_snapshot_ids():
            try:
                out.append(self._native.snapshot(snapshot_id))
            except ValueError:
                continue  # expired since the listing
        return out

    # -- tags and rollback (docs/tags.md) -------------------------------------------------------

    def create_tag(self, tag_name: str, snapshot_id: Optional[int] = None,
                   ignore_if_exists: bool = False, time_retained: Optional[str] = None) -> None:
        """Tags a snapshot (the latest when ``snapshot_id`` is None) as pypaimon does. The tag
        file is the snapshot's JSON (plus ``tagCreateTime``/``tagTimeRetained`` with a
        ``time_retained`` such as ``"1 d"``), created atomically and never replaced.
        ValueError: "Snapshot with id N doesn't exist.", "No snapshot exists in this table.",
        "Tag name shouldn't be blank.", "Tag 'x' already exists." (unless
        ``ignore_if_exists``), a malformed ``time_retained``; nothing is written then."""
        self._native.create_tag(tag_name, _snapshot_id(snapshot_id), bool(ignore_if_exists),
                                time_retained)

    def delete_tag(self, tag_name: str) -> bool:
        """Deletes a tag's file (the files only it kept alive are left to
        ``remove_orphan_files``, as pypaimon); False when it did not exist."""
        return bool(self._native.delete_tag(tag_name))

    def list_tags(self) -> List[str]:
        """Tag names, sorted."""
        return list(self._native.list_tags())

    def rename_tag(self, old_name: str, new_name: str) -> None:
        """Renames a tag (content unchanged; never overwrites one). ValueError: "Old tag name
        shouldn't be blank.", "New tag name shouldn't be blank.", "Tag 'old' doesn't
        exist.", "Tag 'new' already exists."."""
        self._native.rename_tag(old_name, new_name)

    def replace_tag(self, tag_name: str, snapshot_id: Optional[int] = None,
                    time_retained: Optional[str] = None) -> None:
        """Points an existing tag at another snapshot (the latest when None). ValueError:
        "Cannot replace tag because latest snapshot doesn't exist.", "Snapshot id 'N'
        doesn't exist.", "Tag 'x' doesn't exist."."""
        self._native.replace_tag(tag_name, _snapshot_id(snapshot_id), time_retained)

    def rollback_to(self, target: Any, *, delete_unused_files: bool = False) -> Dict[str, Any]:
        """Rolls the table back to snapshot ``target`` (an int) or to tag ``target`` (a str),
        as Java Paimon and pypaimon do: later snapshots and the tags on them are deleted;
        LATEST points at the retained snapshot; the schema stays the latest. A snapshot id
        that expired but a tag holds rolls back to that tag (its snapshot file is re-created,
        EARLIEST set). Data files and manifests stay (``remove_orphan_files`` deletes them
        later); with ``delete_unused_files`` (beyond pypaimon and Java) the files only the
        deleted snapshots and tags needed are deleted now.

        ValueError: "Rollback snapshot 'N' doesn't exist.", "Tag 'x' doesn't exist.",
        "Unsupported rollback target type: <type>"; nothing changes then. Returns what was
        deleted: ``{"snapshot_id", "snapshots_deleted", "tags_deleted", "data_files_deleted",
        "manifest_files_deleted", "bytes_freed"}`` (pypaimon returns None)."""
        clean = _flag("delete_unused_files", delete_unused_files)
        if isinstance(target, int) and not isinstance(target, bool):
            return dict(native().rollback_to_snapshot(self._native, target, clean))
        if isinstance(target, str):
            return dict(native().rollback_to_tag(self._native, target, clean))
        raise ValueError(f"Unsupported rollback target type: {type(target)}")

    def rollback_to_timestamp(self, timestamp_millis: int, *,
                              delete_unused_files: bool = False) -> Dict[str, Any]:
        """Rolls back to the latest snapshot committed at or before ``timestamp_millis``
        (epoch ms), as ``rollback_to``. ValueError "No snapshot found with timestamp earlier
        than or equal to <ms>ms." when there is none."""
        if isinstance(timestamp_millis, bool) or not isinstance(timestamp_millis, int):
            raise TypeError(f"timestamp_millis must be an int, got "
                            f"{type(timestamp_millis).__name__}")
        clean = _flag("delete_unused_files", delete_unused_files)
        return dict(native().rollback_to_timestamp(self._native, timestamp_millis, clean))

    # -- reading ------------------------------------------------------------------------------

    def new_read_builder(self) -> ReadBuilder:
        return ReadBuilder(self)

    # -- writing ------------------------------------------------------------------------------

    def new_batch_write_builder(self) -> BatchWriteBuilder:
        """A builder of one batch write + commit (pypaimon's shape); see paimon_rowid.write."""
        return BatchWriteBuilder(self)

    # -- search (paimon_rowid.table.search, docs/search.md) ---------------------------------

    def new_vector_search_builder(self) -> _search.VectorSearchBuilder:
        """pypaimon's vector search builder over the table's vector indexes."""
        return _search.VectorSearchBuilder(self)

    def new_batch_vector_search_builder(self) -> _search.BatchVectorSearchBuilder:
        return _search.BatchVectorSearchBuilder(self)

    def new_full_text_search_builder(self) -> _search.FullTextSearchBuilder:
        return _search.FullTextSearchBuilder(self)

    def new_hybrid_search_builder(self) -> _search.HybridSearchBuilder:
        return _search.HybridSearchBuilder(self)

    # -- global indexes (paimon_rowid.global_index, docs/global-index.md) ---------------------

    def create_global_index(self, index_column: Any, index_type: str = "btree",
                            partition_filter: Any = None, partitions: Any = None,
                            options: Optional[Mapping[str, Any]] = None, *,
                            progress: Any = False,
                            on_progress: Optional[Callable[[JobProgress], Any]] = None
                            ) -> int:
        """pypaimon's ``create_global_index``: indexes the rows not covered yet, one commit;
        returns the number of index files added. See paimon_rowid.global_index (beyond
        pypaimon: ``progress`` / ``on_progress``)."""
        return _global_index.create_global_index(self, index_column, index_type,
                                                 partition_filter, partitions, options,
                                                 progress=progress, on_progress=on_progress)

    def drop_global_index(self, index_column: Any, index_type: str = "btree",
                          partition_filter: Any = None, partitions: Any = None,
                          dry_run: bool = False) -> int:
        """pypaimon's ``drop_global_index``: returns the number of index files matched."""
        return _global_index.drop_global_index(self, index_column, index_type,
                                               partition_filter, partitions, dry_run)

    def __repr__(self) -> str:
        return f"Table({self.identifier!r})"

