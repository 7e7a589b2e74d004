"""The table's tag calls on a REST table go to the server's tag endpoints (docs/rest-catalog.md),
on Java Paimon 1.4.2's RESTCatalogServer (tests/rest_server.py), with pypaimon's REST catalog
on the same server.

(a) ``create_tag`` / ``list_tags`` / ``rename_tag`` / ``replace_tag`` / ``delete_tag`` through
    the table object are the server's calls: pypaimon's catalog lists what they made and the
    table lists what pypaimon's catalog made; the same ValueErrors as on a filesystem table,
    with the tags as they were.
(b) They are sent, not written beside the server: once the server refuses the table
    (``no-permission-table``), each raises TableNoPermissionException and no tag file appears.
(c) ``rollback_to`` a tag made through the table rolls back through the server.
"""
from __future__ import annotations

import uuid

import pyarrow as pa
import pytest

from ours import write as _write

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([("id", pa.int64())])


def _setup(server):
    from paimon_rowid import CatalogFactory, Schema

    catalog = CatalogFactory.create(server.catalog_options())
    db = f"db_{uuid.uuid4().hex[:10]}"
    catalog.create_database(db, False)
    catalog.create_table(f"{db}.t", Schema.from_pyarrow_schema(SCHEMA, options=DE), False)
    table = catalog.get_table(f"{db}.t")
    for start in (0, 3, 5):
        _write(table, pa.table({"id": pa.array(range(start, start + 2), pa.int64())}))
    return catalog, db, f"{db}.t"


def _tag_files(server, db):
    return [f for f in server.table_files(db, "t") if f.startswith("tag/")]


def test_table_tag_calls_go_to_the_server(rest_server, oracle):
    catalog, db, identifier = _setup(rest_server)
    table = catalog.get_table(identifier)
    pypaimon = oracle.with_catalog_options(rest_server.catalog_options())
    wh = rest_server.warehouse

    def theirs():
        return pypaimon.tag_op(wh, identifier, "catalog_list")["tags"]

    table.create_tag("first", 1)
    table.create_tag("kept", 2, time_retained="1 d")
    assert theirs() == ["first", "kept"]
    assert catalog.get_tag(identifier, "kept").snapshot.id == 2
    assert catalog.get_tag(identifier, "kept").tag_time_retained == "PT24H"
    with pytest.raises(ValueError, match="Tag 'first' already exists."):
        table.create_tag("first", 3)
    table.create_tag("first", 3, ignore_if_exists=True)
    assert catalog.get_tag(identifier, "first").snapshot.id == 1
    with pytest.raises(ValueError, match="Snapshot with id 9 doesn't exist."):
        table.create_tag("nine", 9)
    pypaimon.tag_op(wh, identifier, "catalog_create", tag="theirs", snapshot_id=3)
    assert table.list_tags() == ["first", "kept", "theirs"]

    # Rename: same snapshot and retention under the new name; the old name is gone.
    table.rename_tag("kept", "renamed")
    assert theirs() == ["first", "renamed", "theirs"]
    renamed = catalog.get_tag(identifier, "renamed")
    assert renamed.snapshot.id == 2 and renamed.tag_time_retained == "PT24H"
    with pytest.raises(ValueError, match="Tag 'kept' doesn't exist."):
        table.rename_tag("kept", "other")
    with pytest.raises(ValueError, match="Tag 'theirs' already exists."):
        table.rename_tag("renamed", "theirs")
    assert theirs() == ["first", "renamed", "theirs"]

    # Replace: the tag now names the latest snapshot.
    table.replace_tag("first")
    assert catalog.get_tag(identifier, "first").snapshot.id == 3
    with pytest.raises(ValueError, match="Tag 'absent' doesn't exist."):
        table.replace_tag("absent", 1)

    assert table.delete_tag("theirs") is True
    assert table.delete_tag("theirs") is False
    assert theirs() == ["first", "renamed"]
    assert table.list_tags() == ["first", "renamed"]
    assert sorted(_tag_files(rest_server, db)) == ["tag/tag-first", "tag/tag-renamed"]

    # Rollback to a tag made through the table: the server rolls back.
    table.rollback_to("renamed")
    assert catalog.get_table(identifier).latest_snapshot().id == 2
    assert theirs() == ["renamed"]  # "first" named snapshot 3, deleted by the rollback


def test_table_tag_calls_are_refused_by_the_server(rest_server):
    from paimon_rowid import TableNoPermissionException

    catalog, db, identifier = _setup(rest_server)
    table = catalog.get_table(identifier)
    table.create_tag("before", 1)
    rest_server.command(f"no-permission-table {identifier}")
    for call in (lambda: table.create_tag("after", 2), table.list_tags,
                 lambda: table.delete_tag("before"), lambda: table.rename_tag("before", "x"),
                 lambda: table.replace_tag("before", 2)):
        with pytest.raises(TableNoPermissionException):
            call()
    assert _tag_files(rest_server, db) == ["tag/tag-before"]
