"""The rest of pypaimon's filesystem-catalog surface (reference memo schema-evolution.md §5):
``get_database``, ``alter_database`` (refused), ``rename_table`` (also across databases) and
``Table.schema()``, with pypaimon's exception types and words."""
from __future__ import annotations

import os

import pyarrow as pa
import pytest

from ours import catalog, create_table, write

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([("id", pa.int64()), ("s", pa.string())])


def _data(n=3):
    return pa.table({"id": pa.array(range(n), pa.int64()), "s": [str(i) for i in range(n)]})


def test_get_and_alter_database(warehouse):
    from paimon_rowid.catalog import Database
    from paimon_rowid.exceptions import DatabaseNotExistException
    cat = catalog(warehouse)
    cat.create_database("db", False)
    assert cat.get_database("db") == Database("db", {}, None)
    with pytest.raises(DatabaseNotExistException, match="Database nope does not exist"):
        cat.get_database("nope")
    with pytest.raises(NotImplementedError,
                       match="alter_database is not supported by this catalog."):
        cat.alter_database("db", [])


@pytest.mark.oracle
def test_rename_table_across_databases(warehouse, oracle):
    table = create_table(warehouse, "t", SCHEMA, DE)
    write(table, _data())
    cat = catalog(warehouse)
    cat.create_database("db2", False)
    cat.rename_table("db.t", "db2.e")
    assert cat.list_tables("db") == [] and cat.list_tables("db2") == ["e"]
    rb = cat.get_table("db2.e").new_read_builder()
    ours = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    assert ours.sort_by("id").to_pydict() == _data().to_pydict()
    assert oracle.read(warehouse, "db2.e").sort_by("id").to_pydict() == _data().to_pydict()
    # Writes go on under the new name.
    write(cat.get_table("db2.e"), _data(1))
    assert cat.get_table("db2.e").latest_snapshot().id == 2


def test_rename_table_refusals_touch_nothing(warehouse):
    from paimon_rowid.exceptions import (
        DatabaseNotExistException,
        TableAlreadyExistException,
        TableNotExistException,
    )
    create_table(warehouse, "t", SCHEMA, DE)
    create_table(warehouse, "u", SCHEMA, DE)
    cat = catalog(warehouse)
    before = sorted(os.listdir(os.path.join(str(warehouse), "db.db")))
    with pytest.raises(TableNotExistException, match="Table db.nope does not exist"):
        cat.rename_table("db.nope", "db.x")
    with pytest.raises(DatabaseNotExistException, match="Database nodb does not exist"):
        cat.rename_table("db.t", "nodb.x")
    with pytest.raises(TableAlreadyExistException, match="Table db.u already exists"):
        cat.rename_table("db.t", "db.u")
    os.makedirs(os.path.join(str(warehouse), "db.db", "left", "bucket-0"))
    with pytest.raises(ValueError, match="already exists"):
        cat.rename_table("db.t", "db.left")
    with pytest.raises(ValueError):
        cat.rename_table("db.t", "db.../x")
    assert sorted(os.listdir(os.path.join(str(warehouse), "db.db"))) == sorted(before + ["left"])
    assert cat.list_tables("db") == ["t", "u"]


def test_table_schema_is_the_schema_in_force(warehouse):
    from paimon_rowid.schema.schema_change import SchemaChange
    table = create_table(warehouse, "t", SCHEMA, DE)
    write(table, _data())
    assert table.schema().id == 0 and table.schema().field_names == ["id", "s"]
    cat = catalog(warehouse)
    cat.alter_table("db.t", [SchemaChange.add_column("c", "INT")])
    assert cat.get_table("db.t").schema().field_names == ["id", "s", "c"]
    assert cat.get_table("db.t").copy({"scan.snapshot-id": "1"}).schema().field_names \
        == ["id", "s"]
