"""The process-wide cache of decoded manifests (paimon_rowid.manifest_cache).

A snapshot's manifests are decoded once per process and shared while their files keep the same
bytes: reads and updates give the same results with the cache on or off, a replaced or
damaged manifest is seen at once, and the capacity bounds what it holds.
"""
from __future__ import annotations

import glob
import os

import pyarrow as pa
import pytest

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([("id", pa.int64()), ("x", pa.float64())])


def _table(warehouse: str, commits: int = 4, rows: int = 50):
    from paimon_rowid import CatalogFactory, Schema
    catalog = CatalogFactory.create({"warehouse": warehouse})
    catalog.create_database("db", True)
    catalog.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA, options=DE), False)
    for c in range(commits):
        table = catalog.get_table("db.t")
        builder = table.new_batch_write_builder()
        write, commit = builder.new_write(), builder.new_commit()
        ids = range(c * rows, (c + 1) * rows)
        write.write_arrow(pa.table({"id": pa.array(ids, pa.int64()),
                                    "x": pa.array([float(i) for i in ids])}, schema=SCHEMA))
        commit.commit(write.prepare_commit())
        write.close()
    return catalog


def _read(warehouse: str) -> pa.Table:
    from paimon_rowid import CatalogFactory
    table = CatalogFactory.create({"warehouse": warehouse}).get_table("db.t")
    builder = table.new_read_builder().with_projection(["id", "x", "_ROW_ID"])
    return builder.new_read().to_arrow(builder.new_scan().plan().splits()).sort_by("_ROW_ID")


@pytest.fixture
def capacity():
    """Restores the default capacity after a test that changes it."""
    from paimon_rowid import manifest_cache_stats, set_manifest_cache_capacity
    before = manifest_cache_stats()["capacity"]
    yield
    set_manifest_cache_capacity(before)


def _update(warehouse: str, ids, value: float) -> None:
    from paimon_rowid import update_by_row_id
    update_by_row_id("db.t", pa.table({"_ROW_ID": pa.array(ids, pa.int64()),
                                       "x": pa.array([value] * len(ids))}),
                     {"warehouse": warehouse}, update_cols=["x"])


def test_updates_decode_each_manifest_once(tmp_path, capacity):
    from paimon_rowid import manifest_cache_stats
    warehouse = str(tmp_path / "wh")
    _table(warehouse)
    _read(warehouse)  # every manifest of the table is now held
    before = manifest_cache_stats()
    _update(warehouse, [3, 77, 160], -1.0)
    after = manifest_cache_stats()
    # The update's index and its commit's checks read the 4 manifests: all hits.
    assert after["hits"] - before["hits"] >= 8
    assert after["misses"] == before["misses"]
    assert 0 < after["bytes"] <= after["capacity"]
    got = _read(warehouse)
    expected = [-1.0 if i in (3, 77, 160) else float(i) for i in range(200)]
    assert got.column("x").to_pylist() == expected


def test_results_are_the_same_with_the_cache_off(tmp_path, capacity):
    from paimon_rowid import manifest_cache_stats, set_manifest_cache_capacity
    on, off = str(tmp_path / "on"), str(tmp_path / "off")
    for warehouse in (on, off):
        _table(warehouse)
    _update(on, [1, 2, 120], 5.0)
    _update(on, [2, 199], 6.0)
    set_manifest_cache_capacity(0)
    assert manifest_cache_stats()["manifests"] == 0
    assert manifest_cache_stats()["bytes"] == 0
    _update(off, [1, 2, 120], 5.0)
    _update(off, [2, 199], 6.0)
    assert manifest_cache_stats()["manifests"] == 0
    assert _read(off).equals(_read(on))


def test_a_damaged_manifest_fails_although_it_was_cached(tmp_path, capacity):
    from paimon_rowid import manifest_cache_stats
    warehouse = str(tmp_path / "wh")
    _table(warehouse, commits=2)
    good = _read(warehouse)
    assert manifest_cache_stats()["manifests"] > 0
    manifests = [p for p in glob.glob(os.path.join(warehouse, "db.db", "t", "manifest", "*"))
                 if not os.path.basename(p).startswith(("manifest-list-", "index-manifest-"))]
    assert manifests
    saved = {}
    for path in manifests:
        with open(path, "rb") as f:
            saved[path] = f.read()
        with open(path, "wb") as f:
            f.write(saved[path][: len(saved[path]) // 2])
    files_before = sorted(glob.glob(os.path.join(warehouse, "**"), recursive=True))
    with pytest.raises(ValueError, match="Avro"):
        _read(warehouse)
    with pytest.raises(ValueError, match="Avro"):
        _update(warehouse, [1], 0.5)
    # The failed update committed nothing and left no file behind.
    assert sorted(glob.glob(os.path.join(warehouse, "**"), recursive=True)) == files_before
    for path, data in saved.items():
        with open(path, "wb") as f:
            f.write(data)
    assert _read(warehouse).equals(good)


def test_capacity_validation(capacity):
    from paimon_rowid import manifest_cache_stats, set_manifest_cache_capacity
    with pytest.raises(TypeError):
        set_manifest_cache_capacity("1GB")
    with pytest.raises(TypeError):
        set_manifest_cache_capacity(True)
    with pytest.raises(ValueError):
        set_manifest_cache_capacity(-1)
    set_manifest_cache_capacity(1 << 20)
    assert manifest_cache_stats()["capacity"] == 1 << 20
