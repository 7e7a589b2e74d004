"""Tags on the table and in the catalog (docs/tags.md): pypaimon 2.1.0's calls, exception
types and messages; every refusal writes nothing; tag files read both ways with pypaimon."""
from __future__ import annotations

import json
import os
import shutil
import time

import pyarrow as pa
import pytest

from ours import catalog, create_table, files, write

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string())])


def _batch(start: int, n: int) -> pa.Table:
    return pa.table({"id": pa.array(range(start, start + n), pa.int64()),
                     "name": [f"n{i}" for i in range(start, start + n)]}, schema=SCHEMA)


def _table_with_snapshots(warehouse, n=3):
    table = create_table(warehouse, "t", SCHEMA, DE)
    for i in range(n):
        write(table, _batch(i * 10, 10))
    return table


def _ids(table, scan_tag_name=None):
    if scan_tag_name is not None:
        table = table.copy({"scan.tag-name": scan_tag_name})
    rb = table.new_read_builder().with_projection(["id"])
    return sorted(rb.new_read().to_arrow(rb.new_scan().plan().splits())["id"].to_pylist())


def _tag_path(warehouse, name):
    return os.path.join(warehouse, "db.db", "t", "tag", f"tag-{name}")


def test_table_tag_calls(warehouse):
    table = _table_with_snapshots(warehouse)
    table.create_tag("v1", 1)
    table.create_tag("latest")
    assert table.list_tags() == ["latest", "v1"]
    assert _ids(table, scan_tag_name="v1") == list(range(10))
    assert _ids(table, scan_tag_name="latest") == list(range(30))
    # Without a retention a tag file is the snapshot's JSON, byte for byte (as Java writes).
    snapshot_file = os.path.join(warehouse, "db.db", "t", "snapshot", "snapshot-1")
    assert open(_tag_path(warehouse, "v1")).read() == open(snapshot_file).read()

    table.replace_tag("v1", 2)
    assert _ids(table, scan_tag_name="v1") == list(range(20))
    table.replace_tag("v1")  # the latest
    assert _ids(table, scan_tag_name="v1") == list(range(30))
    table.rename_tag("v1", "v2")
    assert table.list_tags() == ["latest", "v2"]
    assert _ids(table, scan_tag_name="v2") == list(range(30))
    assert table.delete_tag("v2") is True
    assert table.delete_tag("v2") is False
    assert table.list_tags() == ["latest"]


def test_time_retained_writes_java_tag_fields(warehouse):
    table = _table_with_snapshots(warehouse, 1)
    table.create_tag("ttl", time_retained="1 d")
    content = json.loads(open(_tag_path(warehouse, "ttl")).read())
    assert content["tagTimeRetained"] == 86400
    now = time.localtime()
    assert content["tagCreateTime"][:3] == [now.tm_year, now.tm_mon, now.tm_mday]
    got = catalog(warehouse).get_tag("db.t", "ttl")
    assert got.tag_name == "ttl" and got.snapshot.id == 1
    assert got.tag_time_retained == "PT24H"
    assert abs(got.tag_create_time - time.time() * 1000) < 60_000
    plain = catalog(warehouse)
    table.create_tag("plain")
    got = plain.get_tag("db.t", "plain")
    assert got.tag_create_time is None and got.tag_time_retained is None


@pytest.mark.parametrize("call, error, message", [
    (lambda t: t.create_tag("x", 9), ValueError, "Snapshot with id 9 doesn't exist."),
    (lambda t: t.create_tag("v1"), ValueError, "Tag 'v1' already exists."),
    (lambda t: t.create_tag("  "), ValueError, "Tag name shouldn't be blank."),
    (lambda t: t.create_tag("a/b"), ValueError, "must not contain '/'"),
    (lambda t: t.create_tag("x", time_retained="2 fortnights"), ValueError,
     "Time interval unit label 'fortnights'"),
    (lambda t: t.create_tag("x", "1"), TypeError, "snapshot_id must be an int"),
    (lambda t: t.replace_tag("nope", 1), ValueError, "Tag 'nope' doesn't exist."),
    (lambda t: t.replace_tag("v1", 9), ValueError, "Snapshot id '9' doesn't exist."),
    (lambda t: t.rename_tag("nope", "x"), ValueError, "Tag 'nope' doesn't exist."),
    (lambda t: t.rename_tag("v1", "v2"), ValueError, "Tag 'v2' already exists."),
    (lambda t: t.rename_tag(" ", "x"), ValueError, "Old tag name shouldn't be blank."),
    (lambda t: t.rename_tag("v1", ""), ValueError, "New tag name shouldn't be blank."),
    (lambda t: t.delete_tag(""), ValueError, "Tag name shouldn't be blank."),
])
def test_refusals_write_nothing(warehouse, call, error, message):
    table = _table_with_snapshots(warehouse, 2)
    table.create_tag("v1", 1)
    table.create_tag("v2", 2)
    before = {p: open(p, "rb").read() for p in files(warehouse)}
    with pytest.raises(error) as info:
        call(table)
    assert message in str(info.value)
    assert {p: open(p, "rb").read() for p in files(warehouse)} == before


def test_tags_on_a_table_without_snapshots(warehouse):
    table = create_table(warehouse, "t", SCHEMA, DE)
    before = files(warehouse)
    with pytest.raises(ValueError, match="No snapshot exists in this table."):
        table.create_tag("x")
    with pytest.raises(ValueError,
                       match="Cannot replace tag because latest snapshot doesn't exist."):
        table.replace_tag("x")
    assert table.list_tags() == []
    assert files(warehouse) == before


def test_catalog_tag_calls(warehouse):
    from paimon_rowid.exceptions import (
        TableNotExistException,
        TagAlreadyExistException,
        TagNotExistException,
    )
    _table_with_snapshots(warehouse, 2)
    cat = catalog(warehouse)
    for name in ["b", "a", "c2", "c1"]:
        cat.create_tag("db.t", name, 1)
    before = files(warehouse)
    with pytest.raises(TagAlreadyExistException, match="^Tag a already exists$") as info:
        cat.create_tag("db.t", "a", 2)
    assert info.value.tag == "a"
    cat.create_tag("db.t", "a", 2, ignore_if_exists=True)
    with pytest.raises(ValueError, match="Snapshot with id 7 doesn't exist."):
        cat.create_tag("db.t", "z", 7)
    with pytest.raises(TagNotExistException, match="^Tag zz does not exist$"):
        cat.delete_tag("db.t", "zz")
    with pytest.raises(TagNotExistException, match="^Tag zz does not exist$"):
        cat.get_tag("db.t", "zz")
    with pytest.raises(TableNotExistException):
        cat.create_tag("db.nope", "a")
    with pytest.raises(NotImplementedError,
                       match="Filesystem catalog does not support load_snapshot"):
        cat.load_snapshot("db.t")
    assert files(warehouse) == before
    assert cat.get_tag("db.t", "a").snapshot.id == 1

    page = cat.list_tags_paged("db.t", max_results=3)
    assert page.elements == ["a", "b", "c1"] and page.next_page_token == "c1"
    page = cat.list_tags_paged("db.t", max_results=3, page_token=page.next_page_token)
    assert page.elements == ["c2"] and page.next_page_token is None
    assert cat.list_tags_paged("db.t", tag_name_prefix="c").elements == ["c1", "c2"]
    cat.delete_tag("db.t", "a")
    assert cat.list_tags_paged("db.t").elements == ["b", "c1", "c2"]


def test_list_snapshots(warehouse):
    table = _table_with_snapshots(warehouse, 3)
    assert [s.id for s in table.list_snapshots()] == [1, 2, 3]
    os.remove(os.path.join(warehouse, "db.db", "t", "snapshot", "snapshot-1"))
    assert [s.id for s in table.list_snapshots()] == [2, 3]


@pytest.mark.oracle
def test_tags_both_ways_with_pypaimon(oracle, warehouse):
    table = _table_with_snapshots(warehouse, 3)
    table.create_tag("ours", 1)
    table.create_tag("ours_ttl", 2, time_retained="12 h")
    table.rename_tag("ours_ttl", "ours_ttl2")
    # pypaimon lists and reads our tags, and tags on its own side.
    assert oracle.tag_op(warehouse, "db.t", "list")["tags"] == ["ours", "ours_ttl2"]
    assert sorted(oracle.read(warehouse, "db.t", projection=["id"], tag="ours_ttl2")
                  ["id"].to_pylist()) == list(range(20))
    oracle.tag_op(warehouse, "db.t", "create", tag="theirs", snapshot_id=2)
    oracle.tag_op(warehouse, "db.t", "create", tag="theirs_ttl", snapshot_id=1,
                  time_retained="1 d")
    oracle.tag_op(warehouse, "db.t", "replace", tag="ours", snapshot_id=3)
    # We read pypaimon's tags (plain and with retention) and see its replace.
    assert table.list_tags() == ["ours", "ours_ttl2", "theirs", "theirs_ttl"]
    assert _ids(table, scan_tag_name="theirs") == list(range(20))
    assert _ids(table, scan_tag_name="theirs_ttl") == list(range(10))
    assert _ids(table, scan_tag_name="ours") == list(range(30))
    got = catalog(warehouse).get_tag("db.t", "theirs_ttl")
    assert got.tag_time_retained == "PT24H" and got.tag_create_time is not None
    # Its refusals and ours agree in type and message.
    for op, args, ours_call in [
        ("create", {"tag": "ours", "snapshot_id": 1}, lambda: table.create_tag("ours", 1)),
        ("rename", {"tag": "nope", "new_name": "x"}, lambda: table.rename_tag("nope", "x")),
        ("replace", {"tag": "nope", "snapshot_id": 1}, lambda: table.replace_tag("nope", 1)),
    ]:
        from oracle import OracleError
        with pytest.raises(OracleError) as theirs:
            oracle.tag_op(warehouse, "db.t", op, **args)
        with pytest.raises(ValueError) as mine:
            ours_call()
        assert theirs.value.error_type == "ValueError"
        assert str(mine.value) == theirs.value.message
    assert oracle.tag_op(warehouse, "db.t", "delete", tag="ours")["deleted"] is True
    assert table.list_tags() == ["ours_ttl2", "theirs", "theirs_ttl"]


def test_tags_survive_a_copied_warehouse(warehouse, tmp_path):
    """Tag files hold no absolute path: a copied table reads its tags."""
    table = _table_with_snapshots(warehouse, 2)
    table.create_tag("v1", 1)
    copy = str(tmp_path / "copy")
    shutil.copytree(warehouse, copy)
    assert _ids(catalog(copy).get_table("db.t"), scan_tag_name="v1") == list(range(10))
