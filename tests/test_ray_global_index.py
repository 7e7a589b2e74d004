"""``paimon_rowid.ray.create_global_index`` (docs/global-index.md, "On Ray"): a btree or bitmap
build sharded over Ray tasks and committed once holds the same keys and row ids as the embedded
build; a second Ray build covers only appended rows; a build by a column renamed after the last
commit works (the tasks read through the driver's schema); argument errors are the embedded
ones; a failed task leaves no file and no commit."""
from __future__ import annotations

import os
import shutil
from typing import Any, List, Tuple

import pyarrow as pa
import pytest

import ours

ray = pytest.importorskip("ray")

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string()), ("dt", pa.string())])
ID = "db.t"


def _rows(start: int, n: int) -> pa.Table:
    ids = list(range(start, start + n))
    return pa.table({"id": pa.array([(i * 7919) % 500 for i in ids], pa.int64()),
                     "name": [None if i % 11 == 4 else f"k{i % 83:03d}" for i in ids],
                     "dt": ["a" if i < 150 else "b" for i in ids]}, schema=SCHEMA)


def _setup(warehouse: str) -> None:
    table = ours.create_table(warehouse, "t", SCHEMA, dict(DE), partition_keys=["dt"])
    for start in (0, 100, 200):
        ours.write(table, _rows(start, 100))


def _content(warehouse: str, column: str, index_type: str = "btree"
             ) -> Tuple[List[Any], List[Tuple[int, int]]]:
    """Every (key, row id) the index holds, and the ranges it covers."""
    from paimon_rowid.global_index import list_global_indexes, lookup_global_index
    table = ours.catalog(warehouse).get_table(ID)
    rb = table.new_read_builder().with_projection([column])
    keys = sorted({k for k in rb.new_read().to_arrow(rb.new_scan().plan().splits())
                   .column(column).to_pylist() if k is not None})
    found = lookup_global_index(table, column, keys)
    entries = [e for e in list_global_indexes(table) if e["column"] == column]
    assert entries and all(e["index_type"] == index_type for e in entries)
    covered = sorted(tuple(e["row_range"]) for e in entries)
    return found.row_ids, _merge(covered)


def _merge(ranges: List[Tuple[int, int]]) -> List[Tuple[int, int]]:
    out: List[List[int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return [(lo, hi) for lo, hi in out]


def test_ray_build_equals_the_embedded_build(ray_session, tmp_path):
    import paimon_rowid
    from paimon_rowid import ray as pray
    embedded, on_ray = str(tmp_path / "embedded"), str(tmp_path / "ray")
    os.makedirs(embedded)
    _setup(embedded)
    shutil.copytree(embedded, on_ray, dirs_exist_ok=True)
    for column in ("name", "id"):
        ours.catalog(embedded).get_table(ID).create_global_index(column)
        added = pray.create_global_index(ID, {"warehouse": on_ray}, column, num_tasks=4,
                                         options={"sorted-index.records-per-file": "40"})
        assert added >= 4
        assert _content(on_ray, column) == _content(embedded, column)
    snapshot = ours.catalog(on_ray).get_table(ID).latest_snapshot().id
    assert pray.create_global_index(ID, {"warehouse": on_ray}, "name") == 0
    assert ours.catalog(on_ray).get_table(ID).latest_snapshot().id == snapshot
    # Appended rows: a second build covers only them, in one commit.
    for wh in (embedded, on_ray):
        ours.write(ours.catalog(wh).get_table(ID), _rows(300, 60))
    ours.catalog(embedded).get_table(ID).create_global_index("name")
    assert pray.create_global_index(ID, {"warehouse": on_ray}, "name", num_tasks=2) >= 1
    assert ours.catalog(on_ray).get_table(ID).latest_snapshot().id == snapshot + 2
    assert _content(on_ray, "name") == _content(embedded, "name")
    # Partitions, and reads through the Ray-built index.
    assert pray.create_global_index(ID, {"warehouse": on_ray}, "dt", partitions=[{"dt": "a"}]) \
        >= 1
    found = paimon_rowid.lookup_row_ids(ID, ["k001", "k050"], "name", {"warehouse": on_ray})
    assert found.equals(paimon_rowid.lookup_row_ids(ID, ["k001", "k050"], "name",
                                                    {"warehouse": embedded}))


def test_ray_bitmap_build_equals_the_embedded_build(ray_session, tmp_path):
    from paimon_rowid import ray as pray
    embedded, on_ray = str(tmp_path / "embedded"), str(tmp_path / "ray")
    os.makedirs(embedded)
    _setup(embedded)
    shutil.copytree(embedded, on_ray, dirs_exist_ok=True)
    for column in ("name", "id"):
        assert ours.catalog(embedded).get_table(ID).create_global_index(column, "bitmap") == 2
        added = pray.create_global_index(ID, {"warehouse": on_ray}, column, "bitmap",
                                         num_tasks=3)
        assert added >= 3
        assert _content(on_ray, column, "bitmap") == _content(embedded, column, "bitmap")
    # Reads planned through the Ray-built bitmap index equal unindexed reads.
    table = ours.catalog(on_ray).get_table(ID)
    for keys in (["k004", "k077"], ["k011"]):
        ids = []
        for t in (table, table.copy({"global-index.enabled": "false"})):
            rb = t.new_read_builder().with_projection(["_ROW_ID"]).with_filter(
                t.new_read_builder().new_predicate_builder().is_in("name", keys))
            ids.append(sorted(rb.new_read().to_arrow(rb.new_scan().plan().splits())
                              .column("_ROW_ID").to_pylist()))
        assert ids[0] == ids[1] and ids[0], keys


def test_ray_build_by_a_column_renamed_after_the_last_commit(ray_session, warehouse):
    """The latest snapshot predates the rename: each task pins it through the driver's schema,
    so the new name is found (the snapshot's own schema only knows the old one)."""
    from paimon_rowid import ray as pray
    from paimon_rowid.schema.schema_change import SchemaChange
    _setup(warehouse)
    snapshot = ours.catalog(warehouse).get_table(ID).latest_snapshot().id
    ours.catalog(warehouse).alter_table(ID, [SchemaChange.rename_column("name", "label")], False)
    assert pray.create_global_index(ID, {"warehouse": warehouse}, "label", num_tasks=2) >= 2
    assert pray.create_global_index(ID, {"warehouse": warehouse}, "label", "bitmap",
                                    num_tasks=2) >= 2
    table = ours.catalog(warehouse).get_table(ID)
    assert table.latest_snapshot().id == snapshot + 2
    from paimon_rowid.global_index import lookup_global_index
    rb = table.new_read_builder().with_projection(["_ROW_ID"]).with_filter(
        table.new_read_builder().new_predicate_builder().is_in("label", ["k001", "k050"]))
    expected = sorted(rb.new_read().to_arrow(rb.new_scan().plan().splits())
                      .column("_ROW_ID").to_pylist())
    assert expected
    assert lookup_global_index(table, "label", ["k001", "k050"]).row_ids == expected


def test_ray_build_errors_leave_nothing(ray_session, warehouse):
    from paimon_rowid import ray as pray
    _setup(warehouse)
    options = {"warehouse": warehouse}
    snapshot = ours.catalog(warehouse).get_table(ID).latest_snapshot().id
    before = ours.files(warehouse)
    with pytest.raises(ValueError, match="does not exist"):
        pray.create_global_index(ID, options, "nope")
    with pytest.raises(ValueError, match="bitmap-index.compression"):
        pray.create_global_index(ID, options, "name", index_type="bitmap",
                                 options={"bitmap-index.compression": "zstd"})
    with pytest.raises(ValueError, match="not supported"):
        pray.create_global_index(ID, options, "name", index_type="ivf-flat")
    with pytest.raises(ValueError, match="one column"):
        pray.create_global_index(ID, options, "name,id")
    with pytest.raises(ValueError, match="not a partition column"):
        pray.create_global_index(ID, options, "name", partitions=[{"zz": "1"}])
    with pytest.raises(ValueError, match="lzo"):
        pray.create_global_index(ID, options, "name",
                                 options={"btree-index.compression": "lzo"})
    # A task that fails after others wrote their files: a damaged data file of the last commit.
    table = ours.catalog(warehouse).get_table(ID)
    rb = table.new_read_builder()
    victim = sorted(rb.new_scan().plan().splits()[-1].file_paths)[-1]
    with open(victim, "r+b") as f:
        f.truncate(40)
    before = ours.files(warehouse)
    with pytest.raises(OSError):  # the task's own error, unwrapped
        pray.create_global_index(ID, options, "name", num_tasks=4)
    assert ours.catalog(warehouse).get_table(ID).latest_snapshot().id == snapshot
    assert ours.files(warehouse) == before


@pytest.mark.oracle
def test_pypaimon_uses_a_ray_built_index(ray_session, warehouse, oracle):
    """The finer manifest ranges of a Ray build are read by pypaimon's index evaluation, which
    returns exactly the rows our scan matches."""
    from oracle import build_predicate, encode_filter
    from paimon_rowid import ray as pray
    _setup(warehouse)
    assert pray.create_global_index(ID, {"warehouse": warehouse}, "name", num_tasks=3) >= 3
    table = ours.catalog(warehouse).get_table(ID)
    for spec in (["equal", "name", ["k005"]], ["is_in", "name", [["k001", "k040", "zz"]]],
                 ["less_than", "name", ["k003"]], ["is_null", "name"]):
        rb = table.new_read_builder().with_projection(["_ROW_ID"]).with_filter(
            build_predicate(table.new_read_builder().new_predicate_builder(), spec))
        expected = sorted(rb.new_read().to_arrow(rb.new_scan().plan().splits())
                          .column("_ROW_ID").to_pylist())
        evaluated = oracle.run({"cmd": "global_index_eval", "warehouse": warehouse,
                                "identifier": ID, "filter": encode_filter(spec),
                                "options": None})
        assert evaluated["row_ids"] == expected, spec
