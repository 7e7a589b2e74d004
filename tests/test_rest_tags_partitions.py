"""Tags and partitions through the REST catalog server's endpoints (docs/rest-catalog.md), on
Java Paimon's RESTCatalogServer (tests/rest_server.py), with pypaimon's REST client on the
same server.

(a) The catalog's tag calls go to the server's tag endpoints: tags made by ours are listed by
    pypaimon's catalog and the reverse, a deleted one is gone for both; the typed errors
    (TagAlreadyExistException, TagNotExistException, TableNotExistException) leave the tags
    as they were.
(b) Commits send their partition statistics: the server's partitions (what pypaimon's REST
    catalog lists) equal the partitions of the table's files, after commits by ours and
    pypaimon's.
"""
from __future__ import annotations

import uuid

import pyarrow as pa
import pytest

from ours import write as _write

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([("id", pa.int64()), ("p", pa.string())])


def _data(ids, part: str) -> pa.Table:
    return pa.table({"id": pa.array(list(ids), pa.int64()), "p": [part] * len(ids)},
                    schema=SCHEMA)


def _setup(server, partitioned: bool = False):
    from paimon_rowid import CatalogFactory, Schema

    catalog = CatalogFactory.create(server.catalog_options())
    db = f"db_{uuid.uuid4().hex[:10]}"
    catalog.create_database(db, False)
    schema = Schema.from_pyarrow_schema(SCHEMA, partition_keys=["p"] if partitioned else None,
                                        options=DE)
    catalog.create_table(f"{db}.t", schema, False)
    return catalog, f"{db}.t"


def test_tags_through_the_server(rest_server, oracle):
    from paimon_rowid import (
        TableNotExistException,
        TagAlreadyExistException,
        TagNotExistException,
    )

    catalog, identifier = _setup(rest_server)
    _write(catalog.get_table(identifier), _data(range(3), "a"))
    _write(catalog.get_table(identifier), _data(range(3, 5), "a"))
    pypaimon = oracle.with_catalog_options(rest_server.catalog_options())
    wh = rest_server.warehouse

    catalog.create_tag(identifier, "first", 1)
    catalog.create_tag(identifier, "latest")
    assert catalog.get_tag(identifier, "first").snapshot.id == 1
    assert catalog.get_tag(identifier, "latest").snapshot.id == 2
    with pytest.raises(TagAlreadyExistException):
        catalog.create_tag(identifier, "first", 2)
    catalog.create_tag(identifier, "first", 2, ignore_if_exists=True)
    assert catalog.get_tag(identifier, "first").snapshot.id == 1  # unchanged
    # pypaimon's catalog sees ours and makes its own, which ours sees.
    assert pypaimon.tag_op(wh, identifier, "catalog_list")["tags"] == ["first", "latest"]
    pypaimon.tag_op(wh, identifier, "catalog_create", tag="theirs", snapshot_id=2)
    page = catalog.list_tags_paged(identifier, max_results=2)
    assert page.elements == ["first", "latest"] and page.next_page_token == "latest"
    assert catalog.list_tags_paged(identifier, page_token="latest").elements == ["theirs"]
    assert catalog.list_tags_paged(identifier, tag_name_prefix="th").elements == ["theirs"]
    # The table's own view (its tag files) agrees.
    assert sorted(catalog.get_table(identifier).list_tags()) == ["first", "latest", "theirs"]
    catalog.delete_tag(identifier, "theirs")
    assert pypaimon.tag_op(wh, identifier, "catalog_list")["tags"] == ["first", "latest"]
    with pytest.raises(TagNotExistException):
        catalog.delete_tag(identifier, "theirs")
    with pytest.raises(TagNotExistException):
        catalog.get_tag(identifier, "theirs")
    missing = identifier + "_missing"
    with pytest.raises(TableNotExistException):
        catalog.create_tag(missing, "x")
    with pytest.raises(TableNotExistException):
        catalog.delete_tag(missing, "x")
    with pytest.raises(TableNotExistException):
        catalog.list_tags_paged(missing)
    assert catalog.list_tags_paged(identifier).elements == ["first", "latest"]


def test_commits_send_partition_statistics(rest_server, oracle):
    from paimon_rowid.catalog.filesystem_catalog import Catalog

    catalog, identifier = _setup(rest_server, partitioned=True)
    _write(catalog.get_table(identifier), pa.concat_tables([_data(range(3), "a"),
                                                            _data(range(3, 5), "b")]))
    pypaimon = oracle.with_catalog_options(rest_server.catalog_options())
    pypaimon.write(rest_server.warehouse, identifier, _data(range(5, 9), "c"))
    _write(catalog.get_table(identifier), _data(range(9, 10), "a"))

    def summary(parts):
        return sorted((tuple(sorted(p.spec.items())), p.record_count, p.file_count)
                      for p in parts)

    served = catalog.list_partitions_paged(identifier).elements
    assert summary(served) == [((("p", "a"),), 4, 2), ((("p", "b"),), 2, 1),
                               ((("p", "c"),), 4, 1)]
    # The same as the table's files say (the filesystem catalog's way of listing).
    from_files = Catalog.list_partitions_paged(catalog, identifier).elements
    assert summary(served) == summary(from_files)
    assert [p.file_size_in_bytes for p in sorted(served, key=lambda p: p.spec["p"])] == \
        [p.file_size_in_bytes for p in sorted(from_files, key=lambda p: p.spec["p"])]
    # pypaimon's REST catalog lists the server's partitions: the same.
    theirs = pypaimon.run({"cmd": "list_partitions", "warehouse": rest_server.warehouse,
                           "identifier": identifier})["partitions"]
    assert sorted((tuple(sorted(p["spec"].items())), p["record_count"], p["file_count"])
                  for p in theirs) == summary(served)
    page = catalog.list_partitions_paged(identifier, max_results=2, partition_name_pattern="p=*")
    assert [p.spec["p"] for p in page.elements] == ["a", "b"] and page.next_page_token == "2"
