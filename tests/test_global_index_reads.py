"""Reads planned through btree global indexes (docs/global-index.md, "Reading"), and the
column-update check that keeps indexes true.

A filtered read with `=` / `IN` on an indexed column plans only the row ranges the index
returns plus the rows it does not cover; its result equals the same read with
`global-index.enabled=false` and pypaimon's read, including rows appended after the build. An
update of an indexed column is refused (`global-index.column-update-action` THROW_ERROR, the
default), commits nothing, and goes through under IGNORE.
"""
from __future__ import annotations

import os
import random
from typing import Any, List

import pyarrow as pa
import pytest

from oracle import build_predicate

pytestmark = [pytest.mark.native, pytest.mark.oracle]

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([("id", pa.int32()), ("name", pa.string()), ("big", pa.int64())])
ID = "db.t"


def _rows(start: int, n: int) -> pa.Table:
    ids = list(range(start, start + n))
    return pa.table({"id": pa.array(ids, pa.int32()),
                     "name": [None if i % 9 == 4 else f"n{i % 31:02d}" for i in ids],
                     "big": pa.array([(i * 7919) % 1000 for i in ids], pa.int64())},
                    schema=SCHEMA)


def _table(warehouse: str, options=None) -> Any:
    from paimon_rowid import CatalogFactory
    table = CatalogFactory.create({"warehouse": warehouse}).get_table(ID)
    return table.copy(options) if options else table


def _write(warehouse: str, data: pa.Table) -> None:
    builder = _table(warehouse).new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    write.write_arrow(data)
    commit.commit(write.prepare_commit())
    write.close()


def _read(table: Any, spec: list) -> List[tuple]:
    predicate = build_predicate(table.new_read_builder().new_predicate_builder(), spec)
    builder = table.new_read_builder().with_filter(predicate).with_projection(
        ["id", "name", "big", "_ROW_ID"])
    result = builder.new_read().to_arrow(builder.new_scan().plan().splits())
    return sorted(zip(*[result.column(c).to_pylist() for c in result.column_names]))


def test_indexed_reads_equal_unindexed_reads(warehouse, oracle):
    from paimon_rowid import CatalogFactory
    from paimon_rowid.global_index import global_index_plan_stats
    from paimon_rowid.schema import Schema
    catalog = CatalogFactory.create({"warehouse": warehouse})
    catalog.create_database("db", True)
    catalog.create_table(ID, Schema.from_pyarrow_schema(SCHEMA, options=DE), False)
    for start in range(0, 600, 150):
        _write(warehouse, _rows(start, 150))
    table = _table(warehouse)
    assert table.create_global_index("name") >= 1
    assert table.create_global_index("id", options={"sorted-index.records-per-file": "100"}) >= 1
    _write(warehouse, _rows(600, 90))  # not covered by the indexes
    rng = random.Random(5)
    specs = [["equal", "name", ["n07"]], ["is_in", "id", [[3, 333, 650, 689, 9999]]],
             ["and", [["equal", "name", ["n01"]], ["greater_than", "big", [300]]]],
             ["and", [["is_in", "name", [["n02", "n03"]]], ["is_in", "id", [[2, 3, 64, 620]]]]],
             ["equal", "name", ["absent"]], ["equal", "id", [-1]]]
    for _ in range(14):
        specs.append(rng.choice([
            ["equal", "name", [f"n{rng.randrange(33):02d}"]],
            ["is_in", "id", [[rng.randrange(700) for _ in range(rng.randrange(1, 6))]]],
            ["and", [["equal", "name", [f"n{rng.randrange(33):02d}"]],
                     ["less_than", "id", [rng.randrange(700)]]]]]))
    unindexed = _table(warehouse, {"global-index.enabled": "false"})
    for spec in specs:
        table = _table(warehouse)
        ours = _read(table, spec)
        assert ours == _read(unindexed, spec), spec
        predicate = build_predicate(table.new_read_builder().new_predicate_builder(), spec)
        stats = global_index_plan_stats(table, predicate)
        assert stats is not None, spec
        assert stats["rows_total"] == 690
        # The 90 appended rows are always read; of the indexed 600 only the rows matching the
        # indexed conjuncts (at most 40 for these keys).
        assert 90 <= stats["rows_selected"] <= 90 + 40, (spec, stats)
        assert stats["rows_selected"] >= len([r for r in ours if r[3] < 600]) + 90
        # pypaimon's default search mode (fast) drops the rows its index does not cover;
        # full reads them, as we always do.
        theirs = oracle.read(warehouse, ID, filter=spec,
                             projection=["id", "name", "big", "_ROW_ID"],
                             options={"scalar-index.search-mode": "full"})
        assert sorted(zip(*[theirs.column(c).to_pylist() for c in theirs.column_names])) == ours
    # A predicate no index answers plans as before.
    table = _table(warehouse)
    predicate = table.new_read_builder().new_predicate_builder().less_than("big", 10)
    assert global_index_plan_stats(table, predicate) is None
    assert global_index_plan_stats(unindexed, build_predicate(
        unindexed.new_read_builder().new_predicate_builder(), ["equal", "name", ["n01"]])) is None


def test_update_of_an_indexed_column_is_refused(warehouse, oracle):
    import paimon_rowid
    from paimon_rowid import CatalogFactory
    from paimon_rowid.schema import Schema
    catalog = CatalogFactory.create({"warehouse": warehouse})
    catalog.create_database("db", True)
    catalog.create_table(ID, Schema.from_pyarrow_schema(SCHEMA, options=DE), False)
    _write(warehouse, _rows(0, 50))
    assert _table(warehouse).create_global_index("name") == 1
    before = _table(warehouse).latest_snapshot().id
    data_dir = os.path.join(warehouse, "db.db", "t", "bucket-0")
    files_before = sorted(os.listdir(data_dir))
    source = pa.table({"_ROW_ID": pa.array([1, 2], pa.int64()), "name": ["x", "y"]})
    with pytest.raises(RuntimeError, match="Update columns contain globally indexed columns"):
        paimon_rowid.update_by_row_id(ID, source, {"warehouse": warehouse},
                                      update_cols=["name"])
    assert _table(warehouse).latest_snapshot().id == before
    assert sorted(os.listdir(data_dir)) == files_before
    # Other columns update freely.
    other = pa.table({"_ROW_ID": pa.array([1], pa.int64()), "big": pa.array([7], pa.int64())})
    paimon_rowid.update_by_row_id(ID, other, {"warehouse": warehouse}, update_cols=["big"])
    # pypaimon refuses the same update with the same message.
    with pytest.raises(Exception, match="globally indexed columns"):
        oracle.update_by_row_id(warehouse, ID, source, ["name"])
    # IGNORE lets the update through (the index is then stale, as in pypaimon).
    from paimon_rowid.schema.schema_change import SchemaChange
    catalog.alter_table(ID, [SchemaChange.set_option("global-index.column-update-action",
                                                     "IGNORE")], False)
    paimon_rowid.update_by_row_id(ID, source, {"warehouse": warehouse}, update_cols=["name"])
    assert _table(warehouse).latest_snapshot().id == before + 2


PART_SCHEMA = pa.schema([("id", pa.int32()), ("name", pa.string()), ("dt", pa.string())])


def _part_table(warehouse: str) -> Any:
    """db.t (id, name, dt) partitioned by dt: 60 rows of "a", then 60 of "b"; btree indexes
    on name and id; global-index.column-update-action=DROP_PARTITION_INDEX."""
    import ours
    from paimon_rowid.schema.schema_change import SchemaChange
    table = ours.create_table(warehouse, "t", PART_SCHEMA, dict(DE), partition_keys=["dt"])
    for start, dt in ((0, "a"), (60, "b")):
        ours.write(table, pa.table({"id": pa.array(range(start, start + 60), pa.int32()),
                                    "name": [f"n{i % 7}" for i in range(start, start + 60)],
                                    "dt": [dt] * 60}, schema=PART_SCHEMA))
    table = _table(warehouse)
    assert table.create_global_index("name") == 2
    assert table.create_global_index("id") == 2
    ours.catalog(warehouse).alter_table(ID, [SchemaChange.set_option(
        "global-index.column-update-action", "DROP_PARTITION_INDEX")], False)
    return _table(warehouse)


def _live(warehouse: str) -> List[tuple]:
    from paimon_rowid.global_index import list_global_indexes
    return sorted((e["column"], e["partition"]["dt"], e["row_range"])
                  for e in list_global_indexes(_table(warehouse)))


def test_drop_partition_index_drops_the_updated_columns_index_like_pypaimon(tmp_path, oracle):
    import paimon_rowid
    ours_wh, theirs_wh = str(tmp_path / "ours"), str(tmp_path / "theirs")
    for wh in (ours_wh, theirs_wh):
        os.makedirs(wh)
        _part_table(wh)
    before = _live(ours_wh)
    assert [c for c, _, _ in before] == ["id", "id", "name", "name"]
    # Row ids 3 and 7 are in partition "a": its name index goes, "b"'s and both id indexes stay.
    source = pa.table({"_ROW_ID": pa.array([3, 7], pa.int64()), "name": ["renamed", "other"]})
    paimon_rowid.update_by_row_id(ID, source, {"warehouse": ours_wh}, update_cols=["name"])
    oracle.update_by_row_id(theirs_wh, ID, source, ["name"])
    after = _live(ours_wh)
    assert after == [e for e in before if not (e[0] == "name" and e[1] == "a")]
    assert _live(theirs_wh) == after
    # Reads and lookups see the new values (the dropped partition is scanned).
    found = paimon_rowid.lookup_row_ids(ID, ["renamed", "n3"], "name", {"warehouse": ours_wh})
    assert ("renamed", 3) in zip(found.column("name").to_pylist(),
                                 found.column("_ROW_ID").to_pylist())
    assert 3 not in [r for n, r in zip(found.column("name").to_pylist(),
                                       found.column("_ROW_ID").to_pylist()) if n == "n3"]
    for spec in (["equal", "name", ["renamed"]], ["is_in", "name", [["n3", "other"]]],
                 ["less_than", "name", ["n2"]]):
        table = _table(ours_wh)
        builder = table.new_read_builder().with_filter(build_predicate(
            table.new_read_builder().new_predicate_builder(), spec))
        got = builder.new_read().to_arrow(builder.new_scan().plan().splits())
        plain = _table(ours_wh, {"global-index.enabled": "false"})
        builder = plain.new_read_builder().with_filter(build_predicate(
            plain.new_read_builder().new_predicate_builder(), spec))
        want = builder.new_read().to_arrow(builder.new_scan().plan().splits())
        assert got.sort_by("id").equals(want.sort_by("id")), spec
