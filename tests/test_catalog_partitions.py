"""The catalog's ``list_partitions_paged`` and ``drop_partitions`` (pypaimon's filesystem
catalog, docs/tags.md): the same partitions, counts and pages as pypaimon on the same table;
refusals commit nothing."""
from __future__ import annotations

import pyarrow as pa
import pytest

from ours import catalog, create_table, files, write

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string()), ("dt", pa.string()),
                    ("hr", pa.int32())])


def _rows(ids, dt, hr):
    return pa.table({"id": pa.array(ids, pa.int64()), "name": [f"n{i}" for i in ids],
                     "dt": [dt] * len(ids), "hr": pa.array([hr] * len(ids), pa.int32())},
                    schema=SCHEMA)


@pytest.fixture
def table(warehouse):
    t = create_table(warehouse, "t", SCHEMA, DE, partition_keys=["dt", "hr"])
    write(t, _rows(range(0, 5), "2024-01-01", 1))
    write(t, _rows(range(5, 8), "2024-01-01", 2))
    write(t, _rows(range(8, 10), "2024-01-02", 1))
    write(t, _rows(range(10, 11), "2024-01-01", 1))
    return t


def _view(page):
    return [(p.spec, p.record_count, p.file_count, p.total_buckets) for p in page.elements]


def test_list_partitions_paged(table, warehouse):
    cat = catalog(warehouse)
    got = cat.list_partitions_paged("db.t")
    assert _view(got) == [({"dt": "2024-01-01", "hr": "1"}, 6, 2, 1),
                          ({"dt": "2024-01-01", "hr": "2"}, 3, 1, 1),
                          ({"dt": "2024-01-02", "hr": "1"}, 2, 1, 1)]
    assert got.next_page_token is None
    assert all(p.file_size_in_bytes > 0 and p.last_file_creation_time > 0 for p in got.elements)
    first = cat.list_partitions_paged("db.t", max_results=2)
    assert len(first.elements) == 2 and first.next_page_token == "2"
    rest = cat.list_partitions_paged("db.t", max_results=2, page_token=first.next_page_token)
    assert _view(rest) == _view(got)[2:] and rest.next_page_token is None
    only = cat.list_partitions_paged("db.t", partition_name_pattern="dt=2024-01-01,*")
    assert [p.spec["hr"] for p in only.elements] == ["1", "2"]


def test_updates_add_no_rows(table, warehouse):
    from paimon_rowid import update_by_row_id
    update_by_row_id("db.t", pa.table({"_ROW_ID": pa.array([0, 1], pa.int64()),
                                       "name": ["a", "b"]}),
                     {"warehouse": warehouse}, update_cols=["name"])
    got = catalog(warehouse).list_partitions_paged("db.t")
    assert [p.record_count for p in got.elements] == [6, 3, 2]
    assert got.elements[0].file_count == 3  # the partial-column file counts as a file


def test_drop_partitions(table, warehouse):
    cat = catalog(warehouse)
    cat.drop_partitions("db.t", [{"dt": "2024-01-01", "hr": 1}])
    assert [p.spec for p in cat.list_partitions_paged("db.t").elements] == [
        {"dt": "2024-01-01", "hr": "2"}, {"dt": "2024-01-02", "hr": "1"}]
    t = cat.get_table("db.t")
    assert t.latest_snapshot().commit_kind == "OVERWRITE"
    before = files(warehouse)
    with pytest.raises(ValueError, match="Partitions list cannot be empty."):
        cat.drop_partitions("db.t", [])
    with pytest.raises(ValueError):
        cat.drop_partitions("db.t", [{"nope": "x"}])
    assert files(warehouse) == before


def test_table_without_snapshots(warehouse):
    create_table(warehouse, "e", SCHEMA, DE, partition_keys=["dt"])
    got = catalog(warehouse).list_partitions_paged("db.e")
    assert got.elements == [] and got.next_page_token is None


@pytest.mark.oracle
def test_same_as_pypaimon(oracle, table, warehouse):
    for args in [{}, {"max_results": 2}, {"max_results": 2, "page_token": "2"},
                 {"pattern": "dt=2024-01-01,*"}]:
        theirs = oracle.run({"cmd": "list_partitions", "warehouse": warehouse,
                             "identifier": "db.t", **args})
        mine = catalog(warehouse).list_partitions_paged(
            "db.t", max_results=args.get("max_results"), page_token=args.get("page_token"),
            partition_name_pattern=args.get("pattern"))
        assert mine.next_page_token == theirs["next_page_token"]
        assert [(p.spec, p.record_count, p.file_count, p.file_size_in_bytes, p.total_buckets)
                for p in mine.elements] == [
            (p["spec"], p["record_count"], p["file_count"], p["file_size_in_bytes"],
             p["total_buckets"]) for p in theirs["partitions"]]
