"""Bitmap global indexes (docs/global-index.md, "Bitmap file") against pypaimon 2.1.0, both ways.

Both builders write byte-identical bitmap files and equal manifest entries for the same rows;
pypaimon's bitmap indexes drive our lookups and reads; pypaimon's index evaluation and
index-driven reads over our bitmap indexes return the scan's rows (30 random predicates); our
plans through a bitmap index equal pypaimon's evaluation; deletes, compaction, updates under
each column-update action and overwrite keep index-driven reads equal to unindexed ones; errors
commit nothing and leave no file.
"""
from __future__ import annotations

import os
import random
from typing import Any, Dict, List, Optional

import pyarrow as pa
import pytest

import ours
from oracle import build_predicate, encode_filter, read_ipc

pytestmark = [pytest.mark.native, pytest.mark.oracle]

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([("id", pa.int32()), ("name", pa.string()), ("price", pa.float64()),
                    ("big", pa.int64())])
ID = "db.t"
BITMAP = "bitmap"


def _rows(start: int, n: int) -> pa.Table:
    ids = list(range(start, start + n))
    return pa.table({
        "id": pa.array(ids, pa.int32()),
        "name": [None if i % 7 == 3 else f"n{i % 23:02d}" for i in ids],
        "price": pa.array([None if i % 13 == 5 else float(i % 11) * 1.5 for i in ids],
                          pa.float64()),
        "big": pa.array([(i * 7919) % 50 - 25 for i in ids], pa.int64()),
    }, schema=SCHEMA)


def _catalog(warehouse: str) -> Any:
    from paimon_rowid import CatalogFactory
    return CatalogFactory.create({"warehouse": warehouse})


def _table(warehouse: str, options: Optional[Dict[str, str]] = None) -> Any:
    table = _catalog(warehouse).get_table(ID)
    return table.copy(options) if options else table


def _create(warehouse: str, extra: Optional[Dict[str, str]] = None) -> None:
    from paimon_rowid.schema import Schema
    _catalog(warehouse).create_database("db", ignore_if_exists=True)
    _catalog(warehouse).create_table(
        ID, Schema.from_pyarrow_schema(SCHEMA, options={**DE, **(extra or {})}), False)


def _write(warehouse: str, data: pa.Table) -> None:
    ours.write(_table(warehouse), data)


def _read_ids(table: Any, spec: list) -> List[int]:
    predicate = build_predicate(table.new_read_builder().new_predicate_builder(), spec)
    builder = table.new_read_builder().with_projection(["_ROW_ID"]).with_filter(predicate)
    result = builder.new_read().to_arrow(builder.new_scan().plan().splits())
    return sorted(result.column("_ROW_ID").to_pylist())


def _unindexed_ids(warehouse: str, spec: list) -> List[int]:
    return _read_ids(_table(warehouse, {"global-index.enabled": "false"}), spec)


def _entries(oracle: Any, warehouse: str) -> List[Dict[str, Any]]:
    return oracle.run({"cmd": "global_index_entries", "warehouse": warehouse, "identifier": ID})


def _index_files(warehouse: str) -> List[str]:
    root = os.path.join(warehouse, "db.db", "t", "index")
    return sorted(os.listdir(root)) if os.path.isdir(root) else []


def _stats(warehouse: str, spec: list) -> Optional[Dict[str, Any]]:
    from paimon_rowid.global_index import global_index_plan_stats
    table = _table(warehouse)
    return global_index_plan_stats(
        table, build_predicate(table.new_read_builder().new_predicate_builder(), spec))


def _expand(ranges: List[Any]) -> set:
    return {i for lo, hi in ranges for i in range(lo, hi + 1)}


def _file_order(entry: Dict[str, Any]) -> tuple:
    return entry["row_count"], entry["index_meta"]


def test_our_bitmap_files_equal_pypaimons(warehouse, oracle):
    """The same rows indexed by each builder: byte-identical files and equal entries."""
    oracle.create_table(warehouse, ID, SCHEMA, options=DE)
    oracle.write(warehouse, ID, _rows(0, 150))
    run = {"cmd": "create_global_index", "warehouse": warehouse, "identifier": ID,
           "index_type": BITMAP}
    table_dir = os.path.join(warehouse, "db.db", "t", "index")
    for column, options in [("name", {"bitmap-index.dictionary-block-size": "64"}),
                            ("id", {}), ("price", {}),
                            ("big", {"sorted-index.records-per-file": "40"})]:
        count = oracle.run({**run, "column": column, "build_options": options})
        assert count >= 1
        theirs = sorted(_entries(oracle, warehouse), key=_file_order)
        their_bytes = []
        for e in theirs:
            with open(os.path.join(table_dir, e["file_name"]), "rb") as f:
                their_bytes.append(f.read())
        assert oracle.run({"cmd": "drop_global_index", "warehouse": warehouse, "identifier": ID,
                           "column": column, "index_type": BITMAP}) == count
        assert _table(warehouse).create_global_index(column, BITMAP, options=options) == count
        ours = sorted(_entries(oracle, warehouse), key=_file_order)
        assert [e["index_type"] for e in ours] == [BITMAP] * count
        for mine, their, data in zip(ours, theirs, their_bytes):
            assert mine["file_name"].startswith("bitmap-global-index-")
            with open(os.path.join(table_dir, mine["file_name"]), "rb") as f:
                assert f.read() == data, column
            for key in ("kind", "bucket", "partition", "file_size", "row_count", "range",
                        "field_id", "extra", "index_meta"):
                assert mine[key] == their[key], (column, key)
        assert _table(warehouse).drop_global_index(column, BITMAP) == count


def test_pypaimon_bitmap_drives_our_lookups_and_reads(warehouse, oracle):
    oracle.create_table(warehouse, ID, SCHEMA, options=DE)
    oracle.write(warehouse, ID, _rows(0, 120))
    oracle.write(warehouse, ID, _rows(120, 60))
    run = {"cmd": "create_global_index", "warehouse": warehouse, "identifier": ID,
           "index_type": BITMAP}
    assert oracle.run({**run, "column": "name",
                       "build_options": {"sorted-index.records-per-file": "50"}}) >= 2
    assert oracle.run({**run, "column": "big"}) >= 1
    oracle.write(warehouse, ID, _rows(180, 30))  # rows no index covers
    from paimon_rowid.global_index import lookup_global_index
    table = _table(warehouse)
    for column, keys in [("name", ["n00", "n05", "n22", "zz"]), ("big", [-25, 0, 13, 99])]:
        found = lookup_global_index(table, column, keys)
        assert found.covered == [(0, 179)]
        expected = [r for r in _unindexed_ids(warehouse, ["is_in", column, [keys]]) if r < 180]
        assert found.row_ids == expected and expected, column
    for spec in (["equal", "name", ["n04"]], ["is_in", "big", [[-3, 7, 24]]],
                 ["is_null", "name"],
                 ["and", [["equal", "name", ["n01"]], ["is_in", "big", [[1, 2, 3, -20]]]]],
                 ["or", [["equal", "name", ["n02"]], ["is_null", "name"]]]):
        stats = _stats(warehouse, spec)
        assert stats is not None and stats["rows_selected"] < stats["rows_total"], spec
        assert _read_ids(_table(warehouse), spec) == _unindexed_ids(warehouse, spec), spec
    import paimon_rowid
    located = paimon_rowid.lookup_row_ids(ID, ["n03", "n07"], "name", {"warehouse": warehouse})
    assert sorted(located.column("_ROW_ID").to_pylist()) == _unindexed_ids(
        warehouse, ["is_in", "name", [["n03", "n07"]]])


def test_bitmap_lookup_reads_a_fraction_of_pypaimons_file(warehouse, oracle):
    """An `=`/`IN` lookup on a bitmap file pypaimon wrote reads the footer, the index block,
    the dictionary blocks that can hold its keys and the bitmaps of the keys found (ranged
    reads), not the whole file; the answer is the scan's."""
    from paimon_rowid.global_index import list_global_indexes, lookup_global_index
    oracle.create_table(warehouse, ID, SCHEMA, options=DE)
    oracle.write(warehouse, ID, _rows(0, 20000))
    assert oracle.run({"cmd": "create_global_index", "warehouse": warehouse, "identifier": ID,
                       "index_type": BITMAP, "column": "id",
                       "build_options": {"bitmap-index.dictionary-block-size": "1024"}}) == 1
    (entry,) = list_global_indexes(_table(warehouse))
    one = lookup_global_index(_table(warehouse), "id", [4321])
    assert one.row_ids == [4321] and one.files_read == 1
    assert 0 < one.bytes_read < entry["file_size"] // 20
    keys = list(range(100, 20000, 97))
    many = lookup_global_index(_table(warehouse), "id", keys)
    assert many.row_ids == _unindexed_ids(warehouse, ["is_in", "id", [keys]])
    assert one.bytes_read < many.bytes_read < entry["file_size"]


def _random_spec(rng: random.Random) -> list:
    def leaf() -> list:
        column = rng.choice(["id", "name", "big"])
        if column == "name":
            pick: Any = lambda: f"n{rng.randrange(25):02d}"  # noqa: E731
        elif column == "id":
            pick = lambda: rng.randrange(-5, 260)  # noqa: E731
        else:
            pick = lambda: rng.randrange(-30, 30)  # noqa: E731
        kind = rng.choice(["equal", "is_in", "is_in", "is_null", "less_than", "between",
                           "not_equal"])
        if kind == "is_in":
            return ["is_in", column, [[pick() for _ in range(rng.randrange(1, 4))]]]
        if kind == "between":
            return ["between", column, sorted([pick(), pick()])]
        if kind == "is_null":
            return ["is_null", column]
        return [kind, column, [pick()]]
    if rng.random() < 0.5:
        return leaf()
    return [rng.choice(["and", "or"]), [leaf(), leaf()]]


def test_our_bitmap_used_by_pypaimon_and_planned_alike_30_random(warehouse, oracle):
    """pypaimon's evaluation over our bitmap indexes (FULL mode) equals our plan's rows and
    holds every matching row; reads equal unindexed ones; pypaimon's index-driven reads return
    the scan's rows."""
    _create(warehouse)
    _write(warehouse, _rows(0, 130))
    _write(warehouse, _rows(130, 120))
    table = _table(warehouse)
    assert table.create_global_index("name", BITMAP,
                                     options={"sorted-index.records-per-file": "50",
                                              "bitmap-index.dictionary-block-size": "40"}) >= 2
    assert table.create_global_index("id", BITMAP) == 1
    assert table.create_global_index("big", BITMAP) == 1
    _write(warehouse, _rows(250, 30))  # not covered
    full = {"scalar-index.search-mode": "full"}
    rng = random.Random(4849)
    answered = 0
    for spec in [_random_spec(rng) for _ in range(30)]:
        expected = _unindexed_ids(warehouse, spec)
        assert _read_ids(_table(warehouse), spec) == expected, spec
        stats = _stats(warehouse, spec)
        theirs = oracle.run({"cmd": "global_index_eval", "warehouse": warehouse,
                             "identifier": ID, "filter": encode_filter(spec), "options": full})
        their_rows = None if theirs is None or theirs["row_ids"] is None else \
            set(theirs["row_ids"]) | _expand(theirs["unindexed"])
        if their_rows is None:
            assert stats is None, spec
            continue
        answered += 1
        assert stats is not None and _expand(stats["row_ranges"]) == their_rows, spec
        assert set(expected) <= their_rows, spec
    assert answered >= 20
    out = os.path.join(warehouse, "read.arrow")
    for spec in (["equal", "name", ["n04"]], ["is_in", "id", [[3, 140, 249, 270]]],
                 ["and", [["equal", "name", ["n01"]], ["is_in", "big", [[0, 1, -7]]]]]):
        result = oracle.run({"cmd": "global_index_read", "warehouse": warehouse,
                             "identifier": ID, "filter": encode_filter(spec), "out_ipc": out,
                             "options": full})
        assert result["indexed_splits"] >= 1, spec
        assert sorted(read_ipc(out).column("id").to_pylist()) == sorted(
            _column_of(warehouse, spec, "id")), spec


def _column_of(warehouse: str, spec: list, column: str) -> List[Any]:
    table = _table(warehouse, {"global-index.enabled": "false"})
    predicate = build_predicate(table.new_read_builder().new_predicate_builder(), spec)
    builder = table.new_read_builder().with_projection([column]).with_filter(predicate)
    return builder.new_read().to_arrow(builder.new_scan().plan().splits()).column(
        column).to_pylist()


def test_deletes_compaction_and_updates_keep_bitmap_reads_true(warehouse, oracle):
    import paimon_rowid
    from paimon_rowid.schema.schema_change import SchemaChange
    _create(warehouse, {"deletion-vectors.enabled": "true"})
    for start in (0, 40, 80):
        _write(warehouse, _rows(start, 40))
    assert _table(warehouse).create_global_index("name", BITMAP) == 1
    specs = (["equal", "name", ["n05"]], ["is_in", "name", [["n01", "n02", "zz"]]],
             ["is_null", "name"])

    def check() -> None:
        for spec in specs:
            assert _read_ids(_table(warehouse), spec) == _unindexed_ids(warehouse, spec), spec
        located = paimon_rowid.lookup_row_ids(ID, ["n05"], "name", {"warehouse": warehouse})
        assert sorted(located.column("_ROW_ID").to_pylist()) == _unindexed_ids(
            warehouse, ["equal", "name", ["n05"]])

    builder = _table(warehouse).new_batch_write_builder()
    builder.new_commit().commit(builder.new_update().delete_by_row_id([5, 28, 51, 74]))
    check()
    assert 5 not in _read_ids(_table(warehouse), ["equal", "name", ["n05"]])
    paimon_rowid.compact(ID, {"warehouse": warehouse}, full=True)
    assert len(_index_files(warehouse)) >= 1
    check()
    # THROW_ERROR (the default): an update of the indexed column is refused, nothing written.
    before = _table(warehouse).latest_snapshot().id
    source = pa.table({"_ROW_ID": pa.array([1, 2], pa.int64()), "name": ["n05", "x"]})
    with pytest.raises(RuntimeError, match="globally indexed columns"):
        paimon_rowid.update_by_row_id(ID, source, {"warehouse": warehouse}, update_cols=["name"])
    assert _table(warehouse).latest_snapshot().id == before
    # DROP_PARTITION_INDEX: the same update drops the bitmap index; reads stay true.
    _catalog(warehouse).alter_table(ID, [SchemaChange.set_option(
        "global-index.column-update-action", "DROP_PARTITION_INDEX")], False)
    paimon_rowid.update_by_row_id(ID, source, {"warehouse": warehouse}, update_cols=["name"])
    from paimon_rowid.global_index import list_global_indexes
    assert list_global_indexes(_table(warehouse)) == []
    check()
    assert 1 in _read_ids(_table(warehouse), ["equal", "name", ["n05"]])
    # Rebuilt, then replaced by an overwrite: the index of the replaced data goes.
    assert _table(warehouse).create_global_index("name", BITMAP) >= 1
    check()
    builder = _table(warehouse).new_batch_write_builder().overwrite()
    write, commit = builder.new_write(), builder.new_commit()
    write.write_arrow(_rows(500, 20))
    commit.commit(write.prepare_commit())
    write.close()
    assert list_global_indexes(_table(warehouse)) == []
    check()


def test_bitmap_errors_commit_nothing_and_leave_no_file(warehouse, oracle):
    _create(warehouse)
    _write(warehouse, _rows(0, 20))
    table = _table(warehouse)
    before = table.latest_snapshot().id
    with pytest.raises(ValueError, match="bitmap-index.compression"):
        table.create_global_index("name", BITMAP, options={"bitmap-index.compression": "zstd"})
    with pytest.raises(ValueError, match="dictionary-block-size"):
        table.create_global_index("name", BITMAP,
                                  options={"bitmap-index.dictionary-block-size": "0"})
    with pytest.raises(ValueError, match="does not exist"):
        table.create_global_index("nope", BITMAP)
    with pytest.raises(ValueError, match="not supported"):
        table.create_global_index("name", "hash")
    assert _table(warehouse).latest_snapshot().id == before
    assert _index_files(warehouse) == []
    # A bitmap index does not block a btree index of the same column, nor the other way.
    assert table.create_global_index("name", BITMAP) == 1
    assert table.create_global_index("name", BITMAP) == 0
    assert table.create_global_index("name") == 1
    assert table.drop_global_index("name", BITMAP, dry_run=True) == 1
    assert table.drop_global_index("name", BITMAP) == 1
    from paimon_rowid.global_index import list_global_indexes
    assert [e["index_type"] for e in list_global_indexes(_table(warehouse))] == ["btree"]
