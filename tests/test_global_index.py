"""Global indexes (docs/global-index.md) against pypaimon 2.1.0, both ways.

pypaimon builds a btree index, we read it (our lookups equal a scan); we build one, pypaimon's
own index evaluation (called without the scan's error swallowing) and its index-driven reads
return what a scan returns; both builders write byte-identical files for the same rows; each
builder's second call covers only what the other left; every error path commits nothing and
leaves no index file.
"""
from __future__ import annotations

import os
import random
from typing import Any, Dict, List, Optional

import pyarrow as pa
import pytest

from oracle import build_predicate, encode_filter, read_ipc

pytestmark = [pytest.mark.native, pytest.mark.oracle]

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([("id", pa.int32()), ("name", pa.string()), ("price", pa.float64()),
                    ("big", pa.int64())])
ID = "db.t"


def _rows(start: int, n: int) -> pa.Table:
    ids = list(range(start, start + n))
    return pa.table({
        "id": pa.array(ids, pa.int32()),
        "name": [None if i % 7 == 3 else f"n{i % 23:02d}" for i in ids],
        "price": pa.array([float(i % 11) * 1.5 for i in ids], pa.float64()),
        "big": pa.array([(i * 7919) % 1000 - 500 for i in ids], pa.int64()),
    }, schema=SCHEMA)


def _catalog(warehouse: str) -> Any:
    from paimon_rowid import CatalogFactory
    return CatalogFactory.create({"warehouse": warehouse})


def _table(warehouse: str) -> Any:
    return _catalog(warehouse).get_table(ID)


def _write(warehouse: str, data: pa.Table) -> None:
    builder = _table(warehouse).new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    write.write_arrow(data)
    commit.commit(write.prepare_commit())
    write.close()


def _create(warehouse: str, oracle: Any, by: str, options: Optional[Dict[str, str]] = None
            ) -> None:
    opts = {**DE, **(options or {})}
    if by == "pypaimon":
        oracle.create_table(warehouse, ID, SCHEMA, options=opts)
    else:
        _catalog(warehouse).create_database("db", ignore_if_exists=True)
        from paimon_rowid.schema import Schema
        _catalog(warehouse).create_table(ID, Schema.from_pyarrow_schema(SCHEMA, options=opts),
                                         False)


def _scan_row_ids(warehouse: str, spec: list) -> List[int]:
    table = _table(warehouse)
    predicate = build_predicate(table.new_read_builder().new_predicate_builder(), spec)
    builder = table.new_read_builder().with_projection(["_ROW_ID"]).with_filter(predicate)
    result = builder.new_read().to_arrow(builder.new_scan().plan().splits())
    return sorted(result.column("_ROW_ID").to_pylist())


def _oracle_eval(oracle: Any, warehouse: str, spec: list,
                 options: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
    return oracle.run({"cmd": "global_index_eval", "warehouse": warehouse, "identifier": ID,
                       "filter": encode_filter(spec), "options": options})


def _entries(oracle: Any, warehouse: str) -> List[Dict[str, Any]]:
    return oracle.run({"cmd": "global_index_entries", "warehouse": warehouse, "identifier": ID})


def _index_files(warehouse: str) -> List[str]:
    root = os.path.join(warehouse, "db.db", "t", "index")
    return sorted(os.listdir(root)) if os.path.isdir(root) else []


def _latest_id(warehouse: str) -> int:
    return _table(warehouse).latest_snapshot().id


def test_pypaimon_index_read_by_us(warehouse, oracle):
    _create(warehouse, oracle, "pypaimon")
    oracle.write(warehouse, ID, _rows(0, 150))
    oracle.write(warehouse, ID, _rows(150, 60))
    run = {"cmd": "create_global_index", "warehouse": warehouse, "identifier": ID}
    assert oracle.run({**run, "column": "name",
                       "build_options": {"btree-index.bloom-filter.enabled": "true",
                                         "sorted-index.records-per-file": "40"}}) >= 2
    assert oracle.run({**run, "column": "id", "build_options": {"btree-index.block-size": "128"}}
                      ) >= 1
    assert oracle.run({**run, "column": "big"}) >= 1
    from paimon_rowid.global_index import lookup_global_index
    table = _table(warehouse)
    for column, keys in [("name", ["n00", "n05", "n22", "zz"]), ("id", [0, 77, 209, 500]),
                         ("big", [-500, 0, 13, 499, 1000])]:
        found = lookup_global_index(table, column, keys)
        assert found.covered == [(0, 209)]
        assert found.row_ids == _scan_row_ids(warehouse, ["is_in", column, [keys]]), column
        assert found.row_ids, column
    # Our drop removes pypaimon's entries; pypaimon sees none left and builds again.
    assert table.drop_global_index("name", dry_run=True) >= 2
    assert _latest_id(warehouse) == table.latest_snapshot().id
    dropped = table.drop_global_index("name")
    assert dropped >= 2
    assert [e for e in _entries(oracle, warehouse) if e["field_id"] == 1] == []
    assert oracle.run({**run, "column": "name"}) == 1


def test_our_btree_files_equal_pypaimons(warehouse, oracle):
    """The same rows indexed by each builder give byte-identical files and equal entries."""
    _create(warehouse, oracle, "pypaimon")
    oracle.write(warehouse, ID, _rows(0, 120))
    run = {"cmd": "create_global_index", "warehouse": warehouse, "identifier": ID}
    table_dir = os.path.join(warehouse, "db.db", "t", "index")
    for column, options in [("name", {"btree-index.bloom-filter.enabled": "true"}),
                            ("id", {}), ("price", {"btree-index.block-size": "64"}),
                            ("big", {"btree-index.bloom-filter.enabled": "true",
                                     "btree-index.block-size": "100"})]:
        assert oracle.run({**run, "column": column, "build_options": options}) == 1
        theirs = [e for e in _entries(oracle, warehouse) if e["index_type"] == "btree"]
        assert len(theirs) == 1
        with open(os.path.join(table_dir, theirs[0]["file_name"]), "rb") as f:
            their_bytes = f.read()
        assert oracle.run({"cmd": "drop_global_index", "warehouse": warehouse,
                           "identifier": ID, "column": column}) == 1
        assert _table(warehouse).create_global_index(column, options=options) == 1
        ours = [e for e in _entries(oracle, warehouse) if e["index_type"] == "btree"]
        assert len(ours) == 1
        with open(os.path.join(table_dir, ours[0]["file_name"]), "rb") as f:
            assert f.read() == their_bytes, column
        for key in ("kind", "bucket", "partition", "file_size", "row_count", "range",
                    "field_id", "extra", "index_meta"):
            assert ours[0][key] == theirs[0][key], (column, key)
        assert _table(warehouse).drop_global_index(column) == 1


def _random_spec(rng: random.Random) -> list:
    def leaf() -> list:
        column = rng.choice(["id", "name", "big"])
        if column == "name":
            value = f"n{rng.randrange(25):02d}"
            values = [f"n{rng.randrange(25):02d}" for _ in range(rng.randrange(1, 4))]
        elif column == "id":
            value = rng.randrange(-5, 260)
            values = [rng.randrange(-5, 260) for _ in range(rng.randrange(1, 4))]
        else:
            value = rng.randrange(-520, 520)
            values = [rng.randrange(-520, 520) for _ in range(rng.randrange(1, 4))]
        kind = rng.choice(["equal", "is_in", "less_than", "greater_or_equal", "between",
                           "is_null", "not_equal"])
        if kind == "is_in":
            return ["is_in", column, [values]]
        if kind == "between":
            lo, hi = sorted(values[:1] + [value])
            return ["between", column, [lo, hi]]
        if kind == "is_null":
            return ["is_null", column]
        return [kind, column, [value]]
    shape = rng.random()
    if shape < 0.6:
        return leaf()
    return [rng.choice(["and", "or"]), [leaf(), leaf()]]


def test_our_index_used_by_pypaimon_30_random_predicates(warehouse, oracle):
    _create(warehouse, oracle, "ours")
    _write(warehouse, _rows(0, 130))
    _write(warehouse, _rows(130, 120))
    table = _table(warehouse)
    assert table.create_global_index("name", options={"sorted-index.records-per-file": "50",
                                                      "btree-index.bloom-filter.enabled": "true"}
                                     ) >= 2
    assert table.create_global_index("id", options={"btree-index.block-size": "200"}) >= 1
    assert table.create_global_index("big", options={"btree-index.compression": "zstd",
                                                     "btree-index.block-size": "300"}) >= 1
    entries = _entries(oracle, warehouse)
    assert {e["field_id"] for e in entries} == {0, 1, 3}
    assert all(e["bucket"] == 0 and e["kind"] == 0 for e in entries)
    assert {tuple(e["range"]) for e in entries} == {(0, 249)}  # adjacent files join
    rng = random.Random(48)
    specs = [_random_spec(rng) for _ in range(30)]
    answered = 0
    for spec in specs:
        expected = _scan_row_ids(warehouse, spec)
        evaluated = _oracle_eval(oracle, warehouse, spec)
        assert evaluated is not None, spec
        if evaluated["row_ids"] is None:  # pypaimon's index cannot answer (e.g. OR with !=)
            continue
        answered += 1
        got = set(evaluated["row_ids"])
        if evaluated["exact"]:
            assert sorted(got) == expected, spec
        else:
            assert got >= set(expected), spec
    assert answered >= 20
    # pypaimon's index-driven read plans IndexedSplits over our index and returns the scan's rows.
    out = os.path.join(warehouse, "read.arrow")
    for spec in [["equal", "name", ["n04"]], ["is_in", "id", [[3, 140, 249, 400]]],
                 ["and", [["equal", "name", ["n01"]], ["less_than", "big", [0]]]]]:
        result = oracle.run({"cmd": "global_index_read", "warehouse": warehouse,
                             "identifier": ID, "filter": encode_filter(spec), "out_ipc": out})
        assert result["indexed_splits"] >= 1, spec
        theirs = read_ipc(out)
        assert sorted(theirs.column("id").to_pylist()) == sorted(
            _table_ids(warehouse, spec)), spec


def _table_ids(warehouse: str, spec: list) -> List[int]:
    table = _table(warehouse)
    predicate = build_predicate(table.new_read_builder().new_predicate_builder(), spec)
    builder = table.new_read_builder().with_projection(["id"]).with_filter(predicate)
    return builder.new_read().to_arrow(builder.new_scan().plan().splits()).column("id").to_pylist()


def test_second_create_covers_only_new_rows_across_engines(warehouse, oracle):
    _create(warehouse, oracle, "ours")
    _write(warehouse, _rows(0, 100))
    table = _table(warehouse)
    assert table.create_global_index("name") == 1
    run = {"cmd": "create_global_index", "warehouse": warehouse, "identifier": ID,
           "column": "name"}
    assert oracle.run(run) == 0  # pypaimon sees our coverage
    before = _latest_id(warehouse)
    assert table.create_global_index("name") == 0  # nothing left: no commit
    assert _latest_id(warehouse) == before
    oracle.write(warehouse, ID, _rows(100, 30))
    assert oracle.run(run) == 1  # pypaimon indexes only the appended rows
    _write(warehouse, _rows(130, 20))
    assert table.create_global_index("name") == 1  # and we only ours
    ranges = sorted(tuple(e["range"]) for e in _entries(oracle, warehouse))
    assert ranges == [(0, 99), (100, 129), (130, 149)]
    spec = ["equal", "name", ["n03"]]
    evaluated = _oracle_eval(oracle, warehouse, spec)
    assert evaluated["row_ids"] == _scan_row_ids(warehouse, spec)
    from paimon_rowid.global_index import lookup_global_index
    assert lookup_global_index(_table(warehouse), "name", ["n03"]).row_ids == \
        _scan_row_ids(warehouse, spec)


def test_errors_commit_nothing_and_leave_no_file(warehouse, oracle):
    _create(warehouse, oracle, "ours")
    _write(warehouse, _rows(0, 20))
    table = _table(warehouse)
    before = _latest_id(warehouse)
    with pytest.raises(ValueError, match="does not exist"):
        table.create_global_index("nope")
    with pytest.raises(ValueError, match="one column"):
        table.create_global_index("id,name")
    with pytest.raises(ValueError, match="bitmap-index.compression"):
        table.create_global_index("name", index_type="bitmap",
                                  options={"bitmap-index.compression": "zstd"})
    with pytest.raises(ValueError, match="not supported"):
        table.create_global_index("name", index_type="hash")
    with pytest.raises(ValueError, match="btree-index.compression"):
        table.create_global_index("name", options={"btree-index.compression": "lzo"})
    with pytest.raises(ValueError, match="not a partition column"):
        table.create_global_index("name", partitions={"name": "x"})
    with pytest.raises(KeyError):
        from paimon_rowid.global_index import lookup_global_index
        lookup_global_index(table, "name", ["n01"])
    assert _latest_id(warehouse) == before
    assert _index_files(warehouse) == []

    from paimon_rowid.schema import Schema
    _catalog(warehouse).create_table("db.plain", Schema.from_pyarrow_schema(SCHEMA), False)
    plain = _catalog(warehouse).get_table("db.plain")
    builder = plain.new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    write.write_arrow(_rows(0, 5))
    commit.commit(write.prepare_commit())
    with pytest.raises(ValueError, match="row-tracking.enabled"):
        plain.create_global_index("name")


def test_partitions_select_what_is_built_and_dropped(warehouse, oracle):
    schema = SCHEMA.append(pa.field("dt", pa.string()))
    oracle.create_table(warehouse, ID, schema, partition_keys=["dt"], options=DE)
    data = _rows(0, 90)
    data = data.append_column("dt", pa.array(["a", "b", "c"] * 30))
    oracle.write(warehouse, ID, data)
    table = _table(warehouse)
    assert table.create_global_index("name", partitions=[{"dt": "a"}, {"dt": "c"}]) == 2
    assert sorted(e["partition"] for e in _entries(oracle, warehouse)) == [["a"], ["c"]]
    run = {"cmd": "create_global_index", "warehouse": warehouse, "identifier": ID,
           "column": "name"}
    assert oracle.run(run) == 1  # pypaimon fills in partition b only
    assert table.drop_global_index("name", partitions={"dt": "b"}) == 1
    assert sorted(e["partition"] for e in _entries(oracle, warehouse)) == [["a"], ["c"]]
    spec = ["equal", "name", ["n02"]]
    from paimon_rowid.global_index import lookup_global_index
    found = lookup_global_index(_table(warehouse), "name", ["n02"])
    expected = _scan_row_ids(warehouse, spec)
    covered = found.covered
    assert found.row_ids == [r for r in expected if any(a <= r <= b for a, b in covered)]


def test_float_keys_nan_and_signed_zero_equal_pypaimons(warehouse, oracle):
    """NaN sorts above every number and -0.0 equals 0.0 (one key) in both builders."""
    schema = pa.schema([("v", pa.float64()), ("f", pa.float32())])
    values = [1.5, float("nan"), -0.0, None, 0.0, -3.0, float("nan"), 0.0, -0.0, 2.25, None,
              float("inf"), float("-inf")] * 3
    data = pa.table({"v": pa.array(values, pa.float64()), "f": pa.array(values, pa.float32())},
                    schema=schema)
    oracle.create_table(warehouse, "db.f", schema, options=DE)
    oracle.write(warehouse, "db.f", data)
    table_dir = os.path.join(warehouse, "db.db", "f", "index")
    run = {"cmd": "create_global_index", "warehouse": warehouse, "identifier": "db.f"}
    from paimon_rowid import CatalogFactory
    for column in ("v", "f"):
        before = set(os.listdir(table_dir)) if os.path.isdir(table_dir) else set()
        assert oracle.run({**run, "column": column}) == 1
        (theirs,) = set(os.listdir(table_dir)) - before
        assert oracle.run({"cmd": "drop_global_index", "warehouse": warehouse,
                           "identifier": "db.f", "column": column}) == 1
        table = CatalogFactory.create({"warehouse": warehouse}).get_table("db.f")
        assert table.create_global_index(column) == 1
        (ours,) = set(os.listdir(table_dir)) - before - {theirs}
        with open(os.path.join(table_dir, theirs), "rb") as a, \
                open(os.path.join(table_dir, ours), "rb") as b:
            assert a.read() == b.read(), column
        assert table.drop_global_index(column) == 1


def _wide_spec(rng: random.Random) -> list:
    """_random_spec's leaves and more: the other comparisons, negations, IS NOT NULL, a
    non-indexed column, and nested AND/OR of up to three children."""
    def leaf() -> list:
        column = rng.choice(["id", "name", "big", "price"])
        if column == "name":
            pick: Any = lambda: f"n{rng.randrange(25):02d}"  # noqa: E731
        elif column == "price":
            pick = lambda: rng.randrange(0, 17) * 1.0  # noqa: E731  (not indexed)
        else:
            pick = lambda: rng.randrange(-520, 520) if column == "big" \
                else rng.randrange(-5, 300)  # noqa: E731
        kind = rng.choice(["equal", "is_in", "less_than", "less_or_equal", "greater_than",
                           "greater_or_equal", "between", "is_null", "is_not_null",
                           "not_equal", "is_not_in", "not_between"])
        if kind in ("is_in", "is_not_in"):
            return [kind, column, [[pick() for _ in range(rng.randrange(1, 4))]]]
        if kind in ("between", "not_between"):
            return [kind, column, sorted([pick(), pick()])]
        if kind in ("is_null", "is_not_null"):
            return [kind, column]
        return [kind, column, [pick()]]

    def node(depth: int) -> list:
        if depth == 0 or rng.random() < 0.4:
            return leaf()
        return [rng.choice(["and", "or"]), [node(depth - 1) for _ in range(rng.randrange(2, 4))]]
    return node(2)


def _expand(ranges: List[Any]) -> set:
    return {i for lo, hi in ranges for i in range(lo, hi + 1)}


def test_ranges_and_boolean_predicates_plan_like_pypaimon_30_random(warehouse, oracle):
    """Ranges, negations, IS [NOT] NULL and AND/OR trees planned through our indexes: the
    rows each plan leaves to read equal pypaimon's index evaluation (its row ids plus its
    unindexed ranges, FULL mode); every read equals the read without an index and pypaimon's."""
    from paimon_rowid.global_index import global_index_plan_stats
    _create(warehouse, oracle, "ours")
    _write(warehouse, _rows(0, 130))
    _write(warehouse, _rows(130, 120))
    table = _table(warehouse)
    assert table.create_global_index("name", options={"sorted-index.records-per-file": "50"}) >= 2
    assert table.create_global_index("id", options={"btree-index.block-size": "200"}) >= 1
    assert table.create_global_index("big", options={"btree-index.block-size": "300"}) >= 1
    _write(warehouse, _rows(250, 40))  # not covered by any index
    full = {"scalar-index.search-mode": "full"}
    rng = random.Random(4848)
    specs = [_wide_spec(rng) for _ in range(30)]
    answered = 0
    unindexed_table = _table(warehouse).copy({"global-index.enabled": "false"})
    for number, spec in enumerate(specs):
        table = _table(warehouse)
        predicate = build_predicate(table.new_read_builder().new_predicate_builder(), spec)
        stats = global_index_plan_stats(table, predicate)
        theirs = _oracle_eval(oracle, warehouse, spec, full)
        their_rows = None if theirs is None or theirs["row_ids"] is None else \
            set(theirs["row_ids"]) | _expand(theirs["unindexed"])
        if their_rows is None:
            assert stats is None, spec
        else:
            assert stats is not None, spec
            answered += 1
            assert _expand(stats["row_ranges"]) == their_rows, spec
        expected = _scan_row_ids(warehouse, spec)
        builder = unindexed_table.new_read_builder().with_projection(["_ROW_ID"]).with_filter(
            build_predicate(unindexed_table.new_read_builder().new_predicate_builder(), spec))
        plain = builder.new_read().to_arrow(builder.new_scan().plan().splits())
        assert sorted(plain.column("_ROW_ID").to_pylist()) == expected, spec
        if stats is not None:
            assert set(expected) <= _expand(stats["row_ranges"]), spec
        if number < 8:  # pypaimon's reads cost ~2 s each; its evaluation is compared above
            read = oracle.read(warehouse, ID, filter=spec,
                               projection=["id", "name", "price", "big", "_ROW_ID"], options=full)
            assert sorted(read.column("_ROW_ID").to_pylist()) == expected, spec
    assert answered >= 15


def test_single_key_lookup_reads_a_fraction_of_the_file(warehouse, oracle):
    """A btree lookup reads the footer, the bloom filter, the index block and the one data
    block that can hold the key (ranged reads), not the whole file."""
    from paimon_rowid.global_index import list_global_indexes, lookup_global_index
    _create(warehouse, oracle, "ours")
    _write(warehouse, _rows(0, 6000))
    table = _table(warehouse)
    assert table.create_global_index("id", options={"btree-index.block-size": "1024",
                                                    "btree-index.bloom-filter.enabled": "true"}
                                     ) == 1
    (entry,) = list_global_indexes(_table(warehouse))
    found = lookup_global_index(_table(warehouse), "id", [4321])
    assert found.row_ids == [4321] and found.files_read == 1
    assert 0 < found.bytes_read < entry["file_size"] // 4
    many = lookup_global_index(_table(warehouse), "id", list(range(0, 6000, 7)))
    assert len(many.row_ids) == len(range(0, 6000, 7))
    assert found.bytes_read < many.bytes_read <= entry["file_size"] + 1024
