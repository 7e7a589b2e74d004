"""update_by_row_id of a few clustered rows copies the Parquet pages that hold none of them
(format/page_splice.h): only the pages holding updated rows are decoded and encoded again.

The base table is pypaimon's (one file of 200,000 rows, pyarrow's pages, page index and
dictionaries). A clustered update of x (DOUBLE) and n (INT, NULLs) writes a partial file whose
x chunk keeps pypaimon's dictionary page -- a whole rewrite of a DOUBLE column never writes
one (format/parquet_io.cc) -- and that pypaimon, Java and we read as the updated table, with
the value stats of the updated column. A second update splices our own partial file."""
from __future__ import annotations

import glob
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import ours

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([("id", pa.int64()), ("x", pa.float64()), ("n", pa.int32()),
                    ("s", pa.string())])
ROWS = 200_000


def _base() -> pa.Table:
    ids = list(range(ROWS))
    return pa.table({"id": ids, "x": [i * 0.25 for i in ids],
                     "n": [None if i % 11 == 0 else i % 1000 for i in ids],
                     "s": [f"s{i}" for i in ids]}, schema=SCHEMA)


def _update(first: int, count: int, scale: float) -> pa.Table:
    ids = list(range(first, first + count))
    return pa.table({"_ROW_ID": pa.array(ids, pa.int64()),
                     "x": [-i * scale for i in ids],
                     "n": pa.array([None if i % 3 == 0 else i for i in ids], pa.int32())})


def _apply(expected: pa.Table, update: pa.Table) -> pa.Table:
    x = expected.column("x").to_pylist()
    n = expected.column("n").to_pylist()
    for rid, nx, nn in zip(update.column("_ROW_ID").to_pylist(), update.column("x").to_pylist(),
                           update.column("n").to_pylist()):
        x[rid], n[rid] = nx, nn
    return expected.set_column(1, "x", pa.array(x, pa.float64())).set_column(
        2, "n", pa.array(n, pa.int32()))


def _our_read(warehouse) -> pa.Table:
    table = ours.catalog(warehouse).get_table("db.t")
    builder = table.new_read_builder().with_projection(SCHEMA.names)
    return builder.new_read().to_arrow(builder.new_scan().plan().splits()).sort_by("id")


def _parquet_files(warehouse):
    return set(glob.glob(os.path.join(warehouse, "db.db", "t", "bucket-0", "*.parquet")))


def _new_file_stats(oracle, warehouse, name):
    entries = oracle.run({"cmd": "entries", "warehouse": warehouse, "identifier": "db.t",
                          "stats": True})
    (entry,) = [e for e in entries if e["file_name"] == name]
    return entry["value_stats"]


@pytest.mark.oracle
def test_a_clustered_update_copies_the_pages_it_does_not_change(oracle, warehouse):
    from paimon_rowid.row_id_jobs import update_by_row_id

    oracle.create_table(warehouse, "db.t", SCHEMA, options=DE)
    oracle.write(warehouse, "db.t", _base())
    (base_file,) = _parquet_files(warehouse)
    assert pq.ParquetFile(base_file).metadata.num_row_groups == 1
    expected = _base()
    for first, count, scale in [(120_000, 2_000, 1.5), (120_500, 300, 3.0)]:
        before = _parquet_files(warehouse)
        update = _update(first, count, scale)
        update_by_row_id("db.t", update, {"warehouse": warehouse}, update_cols=["x", "n"])
        expected = _apply(expected, update)
        (new_file,) = _parquet_files(warehouse) - before
        meta = pq.ParquetFile(new_file).metadata
        assert meta.num_rows == ROWS
        # x's chunk keeps its source's dictionary page: the file was spliced, not rewritten.
        x_chunk = meta.row_group(0).column(0)
        assert x_chunk.has_dictionary_page == pq.ParquetFile(base_file).metadata.row_group(
            0).column(1).has_dictionary_page
        assert x_chunk.has_offset_index and x_chunk.has_column_index
        # Everyone reads the updated table.
        assert _our_read(warehouse).equals(expected)
        theirs = oracle.read(warehouse, "db.t", projection=SCHEMA.names).sort_by("id")
        assert theirs.equals(expected)
        assert pq.read_table(new_file).column("x").equals(expected.column("x"))
        # The value stats are those of the new column.
        stats = _new_file_stats(oracle, warehouse, os.path.basename(new_file))
        assert stats["cols"] == ["x", "n"]
        xs = [v for v in expected.column("x").to_pylist()]
        ns = [v for v in expected.column("n").to_pylist() if v is not None]
        assert stats["min"] == [min(xs), min(ns)]
        assert stats["max"] == [max(xs), max(ns)]
        assert stats["null_counts"] == [0, expected.column("n").null_count]


@pytest.mark.java
def test_java_reads_a_spliced_file(java, oracle, warehouse):
    from paimon_rowid.row_id_jobs import update_by_row_id

    oracle.create_table(warehouse, "db.t", SCHEMA, options=DE)
    oracle.write(warehouse, "db.t", _base())
    update = _update(60_000, 1_000, 2.0)
    update_by_row_id("db.t", update, {"warehouse": warehouse}, update_cols=["x", "n"])
    expected = _apply(_base(), update)
    dump = java.dump(warehouse, "db.t", projection=["id", "x", "n"])
    rows = sorted(zip(dump.column("id"), dump.column("x"), dump.column("n")))
    assert [r[1] for r in rows] == expected.column("x").to_pylist()
    assert [r[2] for r in rows] == expected.column("n").to_pylist()


def test_a_damaged_page_the_splice_would_copy_fails_the_update(warehouse):
    """Copied pages are not decoded, so their CRCs are checked: an update must not carry a
    damaged page of our file into its own, and it leaves nothing behind."""
    from paimon_rowid.row_id_jobs import update_by_row_id
    from test_checksums import parquet_pages

    table = ours.create_table(warehouse, "t", SCHEMA, DE)
    ours.write(table, _base())
    (base_file,) = _parquet_files(warehouse)
    pages = [p for p in parquet_pages(Path(base_file)) if p.column == "x" and p.kind == 0]
    assert len(pages) > 4 and all(p.has_crc for p in pages)
    victim = pages[-1]  # far from the updated rows
    with open(base_file, "r+b") as f:
        f.seek(victim.body[0] + 3)
        byte = f.read(1)
        f.seek(victim.body[0] + 3)
        f.write(bytes([byte[0] ^ 0x5A]))
    snapshots = sorted(os.listdir(os.path.join(warehouse, "db.db", "t", "snapshot")))
    # The splice's own check (a whole rewrite would fail later, decoding the page).
    with pytest.raises(OSError, match=r"CRC checksum verification failed for the page at"):
        update_by_row_id("db.t", _update(1_000, 500, 1.0), {"warehouse": warehouse},
                         update_cols=["x", "n"])
    assert sorted(os.listdir(os.path.join(warehouse, "db.db", "t", "snapshot"))) == snapshots
    assert _parquet_files(warehouse) == {base_file}
