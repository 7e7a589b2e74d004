"""Catalog behaviour: options, databases, tables, identifier validation (nothing may be created
outside the warehouse), missing tables, missing snapshots and tags.

Native tests: they ERROR while paimon_rowid._native is not built.
"""
from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from paimon_rowid import (
    CatalogException,
    CatalogFactory,
    DatabaseAlreadyExistException,
    DatabaseNotExistException,
    Schema,
    TableAlreadyExistException,
    TableNotExistException,
)

pytestmark = pytest.mark.native

DE_OPTIONS = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = Schema.from_pyarrow_schema(
    pa.schema([pa.field("id", pa.int64(), nullable=False), ("v", pa.string())]),
    options=DE_OPTIONS)


@pytest.fixture
def catalog(warehouse):
    return CatalogFactory.create({"warehouse": warehouse})


def _tree(root: Path):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_factory_errors(warehouse):
    with pytest.raises(ValueError, match="^Paimon 'warehouse' path must be set$"):
        CatalogFactory.create({})
    with pytest.raises(ValueError, match=r"^Unknown catalog identifier: nope\. Available types: "):
        CatalogFactory.create({"warehouse": warehouse, "metastore": "nope"})
    catalog = CatalogFactory.create({"warehouse": warehouse, "metastore": "filesystem"})
    assert catalog.list_databases() == []


def test_databases(catalog, warehouse):
    catalog.create_database("db1", False)
    catalog.create_database("db1", True)
    with pytest.raises(DatabaseAlreadyExistException):
        catalog.create_database("db1", False)
    catalog.create_database("db0", False, {"comment": "ignored"})
    with pytest.raises(ValueError, match="Cannot specify location"):
        catalog.create_database("db2", False, {"location": "/elsewhere"})
    assert catalog.list_databases() == ["db0", "db1"]
    assert (Path(warehouse) / "db1.db").is_dir()
    assert catalog.list_tables("db1") == []
    with pytest.raises(DatabaseNotExistException) as info:
        catalog.list_tables("missing")
    assert isinstance(info.value, CatalogException)
    catalog.drop_database("db0", False)
    catalog.drop_database("db0", True)
    with pytest.raises(DatabaseNotExistException):
        catalog.drop_database("db0", False)
    assert catalog.list_databases() == ["db1"]


def test_tables(catalog, warehouse):
    with pytest.raises(DatabaseNotExistException):
        catalog.create_table("nodb.t", SCHEMA, False)
    catalog.create_database("db", False)
    catalog.create_table("db.t", SCHEMA, False)
    catalog.create_table("db.t", SCHEMA, True)
    with pytest.raises(TableAlreadyExistException):
        catalog.create_table("db.t", SCHEMA, False)
    assert catalog.list_tables("db") == ["t"]
    assert (Path(warehouse) / "db.db" / "t" / "schema" / "schema-0").is_file()
    table = catalog.get_table("db.t")
    assert table.identifier == "db.t"
    assert table.fields == SCHEMA.fields
    assert table.options["data-evolution.enabled"] == "true"
    assert table.latest_snapshot() is None
    empty = table.new_read_builder()
    assert empty.new_scan().plan().splits() == []
    assert empty.new_read().to_arrow([]).schema == pa.schema(
        [pa.field("id", pa.int64(), nullable=False), ("v", pa.string())])
    catalog.drop_table("db.t")
    catalog.drop_table("db.t", ignore_if_not_exists=True)
    with pytest.raises(TableNotExistException):
        catalog.drop_table("db.t")
    assert catalog.list_tables("db") == []


def test_missing_table(catalog):
    catalog.create_database("db", False)
    with pytest.raises(TableNotExistException) as info:
        catalog.get_table("db.nope")
    assert "db.nope" in str(info.value)
    with pytest.raises(TableNotExistException):
        catalog.get_table("otherdb.nope")
    # a directory without schema files is not a table
    (Path(catalog.warehouse) / "db.db" / "bare").mkdir()
    with pytest.raises(TableNotExistException):
        catalog.get_table("db.bare")


BAD_IDENTIFIERS = [
    "", "db", "db.", ".t", "../x.t", "db/../../x.t", "a/b.t", "db.a/b", "db.t/../../x",
    "db.\x00t", "db.t\n", "db\x01.t", "db.t\x7f", "..", "...", "db..", "db...", "db.t\x1b",
]


@pytest.mark.parametrize("identifier", BAD_IDENTIFIERS, ids=repr)
def test_bad_identifiers(catalog, warehouse, identifier):
    catalog.create_database("db", False)
    root = Path(warehouse).parent
    before = _tree(root)
    for call in (lambda: catalog.create_table(identifier, SCHEMA, False),
                 lambda: catalog.get_table(identifier),
                 lambda: catalog.drop_table(identifier, True)):
        with pytest.raises(ValueError):
            call()
    assert _tree(root) == before, "an invalid identifier changed the filesystem"


@pytest.mark.parametrize("name", ["", "../x", "a/b", "x\x00", "x\x01y", "..", "."],
                         ids=repr)
def test_bad_database_names(catalog, warehouse, name):
    root = Path(warehouse).parent
    before = _tree(root)
    with pytest.raises(ValueError):
        catalog.create_database(name, False)
    assert _tree(root) == before


def test_identifier_objects_accepted(catalog):
    class Identifier:  # duck-typed like pypaimon's
        def get_full_name(self):
            return "db.t"

    catalog.create_database("db", False)
    catalog.create_table(Identifier(), SCHEMA, False)
    assert catalog.get_table(Identifier()).identifier == "db.t"
    with pytest.raises(TypeError):
        catalog.get_table(42)


@pytest.mark.oracle
def test_missing_snapshot_and_tag(catalog, warehouse, oracle):
    oracle.create_table(warehouse, "db.t", pa.schema([("a", pa.int32())]), options=DE_OPTIONS)
    oracle.write(warehouse, "db.t", pa.table({"a": pa.array([1, 2], pa.int32())}))
    oracle.write(warehouse, "db.t", pa.table({"a": pa.array([3], pa.int32())}))
    table = catalog.get_table("db.t")

    def plan(options):
        return table.copy(options).new_read_builder().new_scan().plan()

    with pytest.raises(ValueError, match=r"^Snapshot id '99' doesn't exist\.$"):
        plan({"scan.snapshot-id": "99"})
    with pytest.raises(ValueError, match=r"^Tag 'nope' doesn't exist\.$"):
        plan({"scan.tag-name": "nope"})
    assert plan({"scan.snapshot-id": 1}).snapshot_id == 1
    assert table.copy({"scan.snapshot-id": "1"}).copy({"scan.snapshot-id": None}) \
        .new_read_builder().new_scan().plan().snapshot_id == 2


@pytest.mark.oracle
def test_pypaimon_reads_our_schema(catalog, warehouse, oracle):
    catalog.create_database("db", False)
    nested = Schema.from_pyarrow_schema(pa.schema([
        pa.field("id", pa.int64(), nullable=False), ("p", pa.string()),
        ("s", pa.struct([("x", pa.int32()), ("y", pa.list_(pa.string()))])),
        ("m", pa.map_(pa.string(), pa.float64())), ("ltz", pa.timestamp("us", tz="UTC")),
        ("dec", pa.decimal128(25, 5)), ("t", pa.time32("ms")),
    ]), partition_keys=["p"], options=DE_OPTIONS)
    catalog.create_table("db.ours", nested, False)
    theirs = oracle.schema(warehouse, "db.ours")
    assert theirs["arrow"] == str(nested.to_arrow())
    assert [f["id"] for f in theirs["fields"]] == [f.id for f in nested.fields]
    oracle.write(warehouse, "db.ours", nested.to_arrow().empty_table())
    assert catalog.get_table("db.ours").field_names == nested.field_names


def test_no_files_outside_warehouse_on_errors(tmp_path):
    warehouse = tmp_path / "wh"
    catalog = CatalogFactory.create({"warehouse": str(warehouse)})
    with pytest.raises(Exception):  # noqa: B017 - any error, as long as nothing is created
        catalog.get_table("db.t")
    assert not any(p for p in tmp_path.iterdir() if p.name != "wh")
