"""Java Paimon 1.4.2 (the second oracle, tests/java) reads through our btree global index
(docs/java-oracle.md, "Global indexes"): Java's filtered scan of a data-evolution table
evaluates the index and plans only the matching row ranges, so an `=` read returns the
matching rows and none of the rest of the file (its value-stats pruning alone returns the
whole file); with `global-index.enabled=false` Java returns the whole file, and every read
holds the rows our read returns. The other way: Java builds a btree index through its own API
(the harness's create_global_index) and our planned reads and lookups through it equal our
unindexed reads; Java 1.4.2's bitmap index files (the file-index bitmap layout, not pypaimon's
BGIX) are scanned, not misread.

Needs JDK 17 + Maven (see docs/java-oracle.md); skips without them unless CI is set."""
from __future__ import annotations

import pyarrow as pa
import pytest

pytestmark = [pytest.mark.native, pytest.mark.java]

N = 3000
SCHEMA = pa.schema([pa.field("id", pa.int64()), pa.field("name", pa.string())])


def _create(warehouse: str):
    from paimon_rowid import CatalogFactory
    from paimon_rowid.schema import Schema
    catalog = CatalogFactory.create({"warehouse": warehouse})
    catalog.create_database("db", True)
    catalog.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA, options={
        "row-tracking.enabled": "true", "data-evolution.enabled": "true"}), False)
    return catalog


def _ours(warehouse: str) -> None:
    import ours
    catalog = _create(warehouse)
    # ids shuffled so that value stats cannot prune the single file
    ours.write(catalog.get_table("db.t"), pa.table({
        "id": pa.array([(i * 7919) % N for i in range(N)], pa.int64()),
        "name": [f"n{i}" for i in range(N)]}, schema=SCHEMA))
    assert catalog.get_table("db.t").create_global_index("id") == 1


def test_java_reads_through_our_btree_index(native, java, tmp_path):
    warehouse = str(tmp_path / "warehouse")
    _ours(warehouse)
    wanted = [17, 2024]
    specs = [{"projection": ["id", "_ROW_ID"], "filter": ["equal", "id", [k]]} for k in wanted]
    specs += [{"projection": ["id", "_ROW_ID"], "filter": ["equal", "id", [k]],
               "options": {"global-index.enabled": "false"}} for k in wanted]
    dumps = java.dump_many(warehouse, "db.t", specs)
    from paimon_rowid import CatalogFactory
    table = CatalogFactory.create({"warehouse": warehouse}).get_table("db.t")
    for key, indexed, plain in zip(wanted, dumps[:2], dumps[2:]):
        rb = table.new_read_builder().with_projection(["id", "_ROW_ID"]).with_filter(
            table.new_read_builder().new_predicate_builder().equal("id", key))
        ours = rb.new_read().to_arrow(rb.new_scan().plan().splits())
        expected = sorted(zip(ours.column("id").to_pylist(), ours.column("_ROW_ID").to_pylist()))
        assert len(expected) == 1
        assert sorted((int(r[0]), int(r[1])) for r in indexed.rows) == expected, key
        assert len(plain.rows) == N  # stats alone keep the whole file
        assert set(expected) <= {(int(r[0]), int(r[1])) for r in plain.rows}


# --- Java builds, we read -------------------------------------------------------------------

def _spec_ids(table, spec: list) -> list:
    from oracle import build_predicate
    predicate = build_predicate(table.new_read_builder().new_predicate_builder(), spec)
    rb = table.new_read_builder().with_projection(["_ROW_ID"]).with_filter(predicate)
    return sorted(rb.new_read().to_arrow(rb.new_scan().plan().splits()).column(
        "_ROW_ID").to_pylist())


# The rows of _ours (names n0..n39), then 600 rows with null ids and names, so a build sees
# two files and null keys.
FIRST = pa.table({"id": pa.array([(i * 7919) % N for i in range(N)], pa.int64()),
                  "name": [f"n{i % 40}" for i in range(N)]}, schema=SCHEMA)
SECOND = pa.table({
    "id": pa.array([None if i % 9 == 0 else i % 500 for i in range(600)], pa.int64()),
    "name": [None if i % 11 == 0 else f"n{i % 40}" for i in range(600)]}, schema=SCHEMA)


def _ours_two_commits(warehouse: str) -> None:
    import ours
    catalog = _create(warehouse)
    ours.write(catalog.get_table("db.t"), FIRST)
    ours.write(catalog.get_table("db.t"), SECOND)


def _java_indexed(java, tmp_path, index_type: str, options=None):
    """_ours_two_commits, then Java's own build of an `index_type` index on `id`: (warehouse,
    the command's reply, our table)."""
    from paimon_rowid import CatalogFactory
    warehouse = str(tmp_path / "warehouse")
    _ours_two_commits(warehouse)
    built = java.run({"cmd": "create_global_index", "warehouse": warehouse, "identifier": "db.t",
                      "column": "id", "index_type": index_type, "options": options})
    return warehouse, built, CatalogFactory.create({"warehouse": warehouse}).get_table("db.t")


def _plan_stats(table, spec: list):
    from oracle import build_predicate
    from paimon_rowid.global_index import global_index_plan_stats
    return global_index_plan_stats(
        table, build_predicate(table.new_read_builder().new_predicate_builder(), spec))


SPECS = [["equal", "id", [17]], ["equal", "id", [2999]], ["is_in", "id", [[5, 77, 499, 4000]]],
         ["less_than", "id", [40]], ["between", "id", [100, 130]], ["is_null", "id"],
         ["not_equal", "id", [3]],
         ["and", [["equal", "id", [250]], ["equal", "name", ["n10"]]]]]


def test_java_built_btree_index_drives_our_reads(native, java, tmp_path):
    """Java 1.4.2 builds a btree index (BTreeGlobalIndexBuilder, 1000-row files over both
    commits' rows) through its own API; our planned reads and lookups through it equal our
    unindexed reads, and the index does prune."""
    import paimon_rowid
    import paimon_rowid.global_index as gi
    warehouse, built, table = _java_indexed(java, tmp_path, "btree",
                                            {"btree-index.records-per-range": "1000"})
    assert built["files"] >= 3
    entries = gi.list_global_indexes(table)
    assert len(entries) == built["files"]
    assert {e["index_type"] for e in entries} == {"btree"}
    plain = table.copy({"global-index.enabled": "false"})
    for spec in SPECS:
        assert _spec_ids(table, spec) == _spec_ids(plain, spec), spec
    stats = _plan_stats(table, SPECS[0])
    assert stats is not None and stats["rows_selected"] < stats["rows_total"]
    keys = [17, 77, 499, 2999, 4000]
    expected = _spec_ids(plain, ["is_in", "id", [keys]])
    assert gi.lookup_global_index(table, "id", keys).row_ids == expected
    located = paimon_rowid.lookup_row_ids("db.t", keys, "id", {"warehouse": warehouse})
    unindexed = paimon_rowid.lookup_row_ids("db.t", keys, "id", {"warehouse": warehouse},
                                            dynamic_options={"global-index.enabled": "false"})
    assert sorted(located.column("_ROW_ID").to_pylist()) == expected
    assert sorted(unindexed.column("_ROW_ID").to_pylist()) == expected


def test_java_built_bitmap_index_is_scanned_not_misread(native, java, tmp_path):
    """Java 1.4.2's bitmap global index (its factory's writer: the file-index bitmap wrapped,
    not the BGIX layout pypaimon 2.1.0 writes and we read) is registered like any index; our
    reads do not trust it: planned reads and lookups scan the rows it covers and equal the
    unindexed reads (they failed with 'not a bitmap index file' before)."""
    import paimon_rowid
    import paimon_rowid.global_index as gi
    warehouse, built, table = _java_indexed(java, tmp_path, "bitmap")
    assert built["files"] == 1
    (entry,) = gi.list_global_indexes(table)
    assert entry["index_type"] == "bitmap" and entry["row_range"] == (0, N + 599)
    with open(f"{warehouse}/db.db/t/index/{entry['file_name']}", "rb") as f:
        assert f.read()[-4:] != b"BGIX"  # another layout than pypaimon's
    plain = table.copy({"global-index.enabled": "false"})
    for spec in SPECS:
        assert _spec_ids(table, spec) == _spec_ids(plain, spec), spec
        stats = _plan_stats(table, spec)
        assert stats is None or stats["rows_selected"] == stats["rows_total"], spec
    keys = [17, 77, 499, 2999, 4000]
    expected = _spec_ids(plain, ["is_in", "id", [keys]])
    found = gi.lookup_global_index(table, "id", keys)
    assert found.covered == [] and found.row_ids == []
    located = paimon_rowid.lookup_row_ids("db.t", keys, "id", {"warehouse": warehouse})
    assert sorted(located.column("_ROW_ID").to_pylist()) == expected and expected


def test_java_bitmap_beside_ours_leaves_our_part_indexed(native, java, tmp_path):
    """Java's bitmap file covers the first commit's rows, ours (BGIX, built after the second
    commit) only the second's: a lookup answers the second part from our file and reports the
    first part uncovered (scanned), planned reads equal unindexed ones."""
    import ours
    import paimon_rowid
    import paimon_rowid.global_index as gi
    warehouse = str(tmp_path / "warehouse")
    catalog = _create(warehouse)
    ours.write(catalog.get_table("db.t"), FIRST)
    java.run({"cmd": "create_global_index", "warehouse": warehouse, "identifier": "db.t",
              "column": "id", "index_type": "bitmap"})
    ours.write(catalog.get_table("db.t"), SECOND)
    assert catalog.get_table("db.t").create_global_index("id", "bitmap") == 1
    table = catalog.get_table("db.t")
    assert sorted(e["row_range"] for e in gi.list_global_indexes(table)) == [
        (0, N - 1), (N, N + 599)]
    plain = table.copy({"global-index.enabled": "false"})
    keys = [17, 77, 499, 2999, 4000]
    expected = _spec_ids(plain, ["is_in", "id", [keys]])
    assert any(r < N for r in expected) and any(r >= N for r in expected)
    found = gi.lookup_global_index(table, "id", keys)
    assert found.covered == [(N, N + 599)]
    assert found.row_ids == [r for r in expected if r >= N]
    located = paimon_rowid.lookup_row_ids("db.t", keys, "id", {"warehouse": warehouse})
    assert sorted(located.column("_ROW_ID").to_pylist()) == expected
    for spec in SPECS:
        assert _spec_ids(table, spec) == _spec_ids(plain, spec), spec
