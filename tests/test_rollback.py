"""Rollback (docs/tags.md): ``Table.rollback_to(snapshot id | tag)`` and
``rollback_to_timestamp`` as Java Paimon and pypaimon do them — later snapshots and the tags on
them go, their files stay for orphan cleaning (or go at once with ``delete_unused_files``) —
with pypaimon 2.1.0's checks and messages. Refusals change
nothing; pypaimon reads what we rolled back and we read what it rolled back."""
from __future__ import annotations

import os
import shutil
from typing import List

import pyarrow as pa
import pytest

from ours import catalog, create_table, files, write

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string())])


def _batch(start: int, n: int) -> pa.Table:
    return pa.table({"id": pa.array(range(start, start + n), pa.int64()),
                     "name": [f"n{i}" for i in range(start, start + n)]}, schema=SCHEMA)


def _table_path(warehouse: str) -> str:
    return os.path.join(warehouse, "db.db", "t")


def _snapshot_ids(warehouse: str) -> List[int]:
    names = os.listdir(os.path.join(_table_path(warehouse), "snapshot"))
    return sorted(int(n[len("snapshot-"):]) for n in names if n.startswith("snapshot-"))


def _hint(warehouse: str, name: str):
    path = os.path.join(_table_path(warehouse), "snapshot", name)
    return open(path).read().strip() if os.path.exists(path) else None


def _rows(warehouse: str) -> pa.Table:
    table = catalog(warehouse).get_table("db.t")
    rb = table.new_read_builder().with_projection(["id", "name", "_ROW_ID"])
    return rb.new_read().to_arrow(rb.new_scan().plan().splits()).sort_by("_ROW_ID")


def _data_files(warehouse: str) -> List[str]:
    return [f for f in files(warehouse) if f.endswith(".parquet")]


def _build(warehouse: str):
    """Snapshots 1-2 appends, 3 an update of row 0, 4 an append; tags on 2 and 3."""
    from paimon_rowid import update_by_row_id
    table = create_table(warehouse, "t", SCHEMA, DE)
    write(table, _batch(0, 10))
    write(table, _batch(10, 10))
    update_by_row_id("db.t", pa.table({"_ROW_ID": pa.array([0], pa.int64()), "name": ["upd"]}),
                     {"warehouse": warehouse}, update_cols=["name"])
    write(table, _batch(20, 10))
    table.create_tag("on2", 2)
    table.create_tag("on3", 3)
    return catalog(warehouse).get_table("db.t")


def test_rollback_leaves_the_files_for_orphan_cleaning(warehouse):
    from paimon_rowid import remove_orphan_files
    table = _build(warehouse)
    data_before = _data_files(warehouse)
    result = table.rollback_to(2)
    assert result["snapshots_deleted"] == 2 and result["tags_deleted"] == ["on3"]
    assert result["data_files_deleted"] == result["manifest_files_deleted"] == 0
    assert _data_files(warehouse) == data_before
    assert _snapshot_ids(warehouse) == [1, 2] and table.list_tags() == ["on2"]
    # The later snapshots' files are orphans now: orphan cleaning finds exactly those two.
    orphans = remove_orphan_files("db.t", {"warehouse": warehouse}, older_than_ms=2 ** 62)
    assert len([p for p in orphans["paths"] if p.endswith(".parquet")]) == 2
    assert _rows(warehouse)["id"].to_pylist() == list(range(20))


def test_rollback_deleting_unused_files(warehouse):
    table = _build(warehouse)
    at2 = table.copy({"scan.snapshot-id": "2"})
    rb = at2.new_read_builder().with_projection(["id", "name", "_ROW_ID"])
    expected = rb.new_read().to_arrow(rb.new_scan().plan().splits()).sort_by("_ROW_ID")
    data_before = _data_files(warehouse)
    result = table.rollback_to(2, delete_unused_files=True)
    assert result["snapshot_id"] == 2 and result["snapshots_deleted"] == 2
    assert result["tags_deleted"] == ["on3"]
    assert result["data_files_deleted"] == 2  # the update's partial file, the last append
    assert _snapshot_ids(warehouse) == [1, 2]
    assert table.list_tags() == ["on2"]
    assert _hint(warehouse, "LATEST") == "2"
    assert len(_data_files(warehouse)) == len(data_before) - 2
    assert _rows(warehouse).equals(expected)
    # The next commit is snapshot 3 again; row ids continue from snapshot 2's.
    write(catalog(warehouse).get_table("db.t"), _batch(100, 5))
    assert _snapshot_ids(warehouse) == [1, 2, 3]
    assert _rows(warehouse)["_ROW_ID"].to_pylist() == list(range(25))


def test_rollback_to_tag_and_timestamp(warehouse):
    table = _build(warehouse)
    table.rollback_to("on3")
    assert _snapshot_ids(warehouse) == [1, 2, 3]
    assert table.list_tags() == ["on2", "on3"]
    assert _rows(warehouse)["name"].to_pylist()[0] == "upd"
    millis = table.snapshot(2).time_millis
    table.rollback_to_timestamp(millis)
    assert _snapshot_ids(warehouse) == [1, 2]
    assert table.list_tags() == ["on2"]


def test_rollback_to_a_tag_whose_snapshot_expired(warehouse):
    from paimon_rowid import expire_snapshots
    table = _build(warehouse)
    expire_snapshots("db.t", {"warehouse": warehouse}, retain_max=1, retain_min=1,
                     older_than_ms=2 ** 62)
    assert _snapshot_ids(warehouse) == [4]
    # By id: snapshot 2 is gone, but tag on2 holds it (pypaimon and Java do the same).
    table.rollback_to(2, delete_unused_files=True)
    assert _snapshot_ids(warehouse) == [2]
    assert _hint(warehouse, "EARLIEST") == "2" and _hint(warehouse, "LATEST") == "2"
    assert _rows(warehouse)["id"].to_pylist() == list(range(20))
    # Every data file left is one snapshot 2 reads: nothing of the later ones stays behind.
    assert len(_data_files(warehouse)) == 2


@pytest.mark.parametrize("call, error, message", [
    (lambda t: t.rollback_to(9), ValueError, "Rollback snapshot '9' doesn't exist."),
    (lambda t: t.rollback_to("nope"), ValueError, "Tag 'nope' doesn't exist."),
    (lambda t: t.rollback_to(2.0), ValueError, "Unsupported rollback target type: <class 'float'>"),
    (lambda t: t.rollback_to(True), ValueError, "Unsupported rollback target type: <class 'bool'>"),
    (lambda t: t.rollback_to_timestamp(1), ValueError,
     "No snapshot found with timestamp earlier than or equal to 1ms."),
    (lambda t: t.rollback_to_timestamp("1"), TypeError, "timestamp_millis must be an int"),
    (lambda t: t.rollback_to(2, delete_unused_files="yes"), TypeError,
     "delete_unused_files must be a bool"),
])
def test_refusals_change_nothing(warehouse, call, error, message):
    table = _build(warehouse)
    before = {p: open(p, "rb").read() for p in files(warehouse)}
    with pytest.raises(error) as info:
        call(table)
    assert message in str(info.value)
    assert {p: open(p, "rb").read() for p in files(warehouse)} == before


def test_rollback_keeps_the_latest_schema(warehouse):
    from paimon_rowid.schema import DataType
    from paimon_rowid.schema.schema_change import SchemaChange
    table = _build(warehouse)
    catalog(warehouse).alter_table("db.t", [SchemaChange.add_column("extra", DataType("INT"))])
    table.rollback_to(1)
    fresh = catalog(warehouse).get_table("db.t")
    assert fresh.field_names == ["id", "name", "extra"]
    rb = fresh.new_read_builder()
    got = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    assert got["extra"].to_pylist() == [None] * 10


@pytest.mark.oracle
def test_same_result_as_pypaimon_and_readable_both_ways(oracle, warehouse, tmp_path):
    _build(warehouse)
    theirs = str(tmp_path / "theirs")
    shutil.copytree(warehouse, theirs)
    catalog(warehouse).get_table("db.t").rollback_to(2)
    oracle.tag_op(theirs, "db.t", "rollback", target=2)
    # Same snapshots, tags, hint and rows.
    assert _snapshot_ids(warehouse) == _snapshot_ids(theirs) == [1, 2]
    assert (catalog(warehouse).get_table("db.t").list_tags()
            == oracle.tag_op(theirs, "db.t", "list")["tags"] == ["on2"])
    assert _hint(warehouse, "LATEST") == _hint(theirs, "LATEST") == "2"
    assert _rows(warehouse).equals(_rows(theirs))
    ours_read = oracle.read(warehouse, "db.t", projection=["id", "name"]).sort_by("id")
    assert ours_read.equals(_rows(warehouse).select(["id", "name"]).sort_by("id"))
    # Both leave every file but the snapshot and tag files.
    assert ([os.path.relpath(p, warehouse) for p in files(warehouse)]
            == [os.path.relpath(p, theirs) for p in files(theirs)])
    # Each engine appends to the other's rolled-back table: snapshot 3 again, read alike.
    oracle.write(warehouse, "db.t", _batch(50, 3))
    write(catalog(theirs).get_table("db.t"), _batch(50, 3))
    assert _snapshot_ids(warehouse) == _snapshot_ids(theirs) == [1, 2, 3]
    assert _rows(warehouse).equals(_rows(theirs))
    for root in (warehouse, theirs):
        assert (oracle.read(root, "db.t", projection=["id", "name"]).sort_by("id")
                .equals(_rows(root).select(["id", "name"]).sort_by("id")))


@pytest.mark.oracle
def test_pypaimon_rolls_back_to_our_tag_we_read_it(oracle, warehouse):
    table = _build(warehouse)
    oracle.tag_op(warehouse, "db.t", "rollback", target="on3")
    assert _snapshot_ids(warehouse) == [1, 2, 3]
    assert table.list_tags() == ["on2", "on3"]
    got = _rows(warehouse)
    assert got["name"].to_pylist()[0] == "upd" and got.num_rows == 20
    # And ours on a table pypaimon rolled back: further back to its tag on 2.
    table.rollback_to("on2")
    assert oracle.read(warehouse, "db.t", projection=["id"])["id"].to_pylist() == list(range(20))


def test_tags_and_rollback_on_s3(s3_server):
    """The same calls on an s3:// warehouse (no rename there: a tag rename is a no-replace
    PUT and a delete)."""
    options = s3_server.catalog_options(s3_server.fresh_warehouse("tags"))
    table = create_table(options, "t", SCHEMA, DE)
    for start in (0, 10, 20):
        write(table, _batch(start, 10))
    table.create_tag("a", 1)
    table.create_tag("b", 3, time_retained="1 h")
    table.rename_tag("a", "first")
    with pytest.raises(ValueError, match="Tag 'b' already exists."):
        table.rename_tag("first", "b")
    table.replace_tag("first", 2)
    assert table.list_tags() == ["b", "first"]
    keys = s3_server.list_keys(options["warehouse"])
    result = table.rollback_to("first")
    assert result["snapshots_deleted"] == 1 and result["tags_deleted"] == ["b"]
    after = s3_server.list_keys(options["warehouse"])
    gone = sorted(set(keys) - set(after))
    assert [k.rsplit("/", 1)[1] for k in gone] == ["snapshot-3", "tag-b"]
    fresh = catalog(options).get_table("db.t")
    rb = fresh.new_read_builder().with_projection(["id"])
    assert sorted(rb.new_read().to_arrow(rb.new_scan().plan().splits())["id"].to_pylist()) \
        == list(range(20))
    assert fresh.list_tags() == ["first"]
    result = fresh.rollback_to(1, delete_unused_files=True)
    # Snapshot 2's append goes; snapshot 3's was left by the first rollback (an orphan now,
    # no snapshot names it any more) and stays.
    assert result["data_files_deleted"] == 1
    parquet = [k for k in s3_server.list_keys(options["warehouse"]) if k.endswith(".parquet")]
    assert len(parquet) == 2
