"""paimon_rowid.remove_orphan_files (docs/maintenance.md, "Orphan files").

Unreferenced files older than the margin go; young, referenced and out-of-table files stay;
a dry run deletes nothing; error paths raise and delete nothing; after cleaning, a table we
wrote and updated reads identically in ours, pypaimon and Java Paimon.
"""
from __future__ import annotations

import os
import time
from typing import Dict, List

import pyarrow as pa
import pytest

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string())])
TWO_DAYS = 2 * 24 * 3600


def _files(root: str) -> List[str]:
    out = []
    for dirpath, _dirs, names in os.walk(root):
        out.extend(os.path.relpath(os.path.join(dirpath, n), root) for n in names)
    return sorted(out)


def _age(root: str) -> None:
    """Every file below ``root`` two days old (beyond the default one-day margin)."""
    old = time.time() - TWO_DAYS
    for dirpath, _dirs, names in os.walk(root):
        for n in names:
            os.utime(os.path.join(dirpath, n), (old, old))


def _touch(path: str, content: bytes = b"junk") -> str:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as out:
        out.write(content)
    return path


def _catalog(warehouse):
    from paimon_rowid import CatalogFactory
    return CatalogFactory.create({"warehouse": warehouse})


def _read(warehouse: str) -> pa.Table:
    table = _catalog(warehouse).get_table("db.t")
    builder = table.new_read_builder().with_projection(["id", "name", "_ROW_ID"])
    return builder.new_read().to_arrow(builder.new_scan().plan().splits()).sort_by("_ROW_ID")


@pytest.fixture
def table_dir(warehouse):
    """db.t written by us (2 commits) and updated once; returns the table directory."""
    from paimon_rowid import Schema, update_by_row_id
    c = _catalog(warehouse)
    c.create_database("db", True)
    c.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA, options=DE), False)
    for start in (0, 10):
        builder = c.get_table("db.t").new_batch_write_builder()
        write, commit = builder.new_write(), builder.new_commit()
        write.write_arrow(pa.table({"id": pa.array(range(start, start + 10), pa.int64()),
                                    "name": [f"n{i}" for i in range(start, start + 10)]}))
        commit.commit(write.prepare_commit())
        write.close()
    update_by_row_id("db.t", pa.table({"_ROW_ID": pa.array([4, 15], pa.int64()),
                                       "name": ["u4", "u15"]}), {"warehouse": warehouse},
                     update_cols=["name"])
    return os.path.join(warehouse, "db.db", "t")


def test_deletes_old_unreferenced_files_only(table_dir):
    from paimon_rowid import remove_orphan_files
    warehouse = os.path.dirname(os.path.dirname(table_dir))
    rows = _read(warehouse)
    orphans = sorted([
        _touch(os.path.join(table_dir, "bucket-0", "data-dead-0.parquet"), b"0123456789"),
        _touch(os.path.join(table_dir, "manifest", "manifest-dead-0")),
        _touch(os.path.join(table_dir, "snapshot", ".snapshot-9.tmp")),
    ])
    _age(table_dir)  # referenced files are old too
    young = _touch(os.path.join(table_dir, "bucket-0", "data-young-0.parquet"))
    outside = _touch(os.path.join(warehouse, "db.db", "stray-file"))
    _age(os.path.dirname(outside))
    os.utime(young, None)

    dry = remove_orphan_files("db.t", {"warehouse": warehouse}, dry_run=True)
    assert dry["paths"] == orphans and dry["files"] == 3 and dry["dry_run"] is True
    assert dry["bytes"] == 10 + 4 + 4
    assert all(os.path.exists(p) for p in orphans)

    result = remove_orphan_files("db.t", {"warehouse": warehouse})
    assert result["paths"] == orphans and result["dry_run"] is False
    assert not any(os.path.exists(p) for p in orphans)
    assert os.path.exists(young) and os.path.exists(outside)
    assert _read(warehouse).equals(rows)
    assert remove_orphan_files("db.t", {"warehouse": warehouse})["files"] == 0


def test_empty_partition_directories_go(warehouse):
    from paimon_rowid import Schema, remove_orphan_files
    c = _catalog(warehouse)
    c.create_database("db", True)
    c.create_table("db.p", Schema.from_pyarrow_schema(
        pa.schema([("id", pa.int64()), ("dt", pa.string())]), partition_keys=["dt"],
        options=DE), False)
    builder = c.get_table("db.p").new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    write.write_arrow(pa.table({"id": pa.array([1, 2], pa.int64()), "dt": ["a", "a"]}))
    commit.commit(write.prepare_commit())
    write.close()
    root = os.path.join(warehouse, "db.db", "p")
    dead = _touch(os.path.join(root, "dt=z", "bucket-0", "data-dead-0.parquet"))
    _age(root)
    result = remove_orphan_files("db.p", {"warehouse": warehouse})
    assert result["paths"] == [dead] and result["dirs_removed"] == 2
    assert not os.path.exists(os.path.join(root, "dt=z"))
    assert os.path.isdir(os.path.join(root, "dt=a", "bucket-0"))


@pytest.mark.parametrize("kwargs, error", [
    ({"older_than_ms": "yesterday"}, TypeError),
    ({"older_than_ms": 1.0}, TypeError),
    ({"dry_run": "yes"}, TypeError),
])
def test_bad_arguments_raise_and_delete_nothing(table_dir, kwargs, error):
    from paimon_rowid import remove_orphan_files
    warehouse = os.path.dirname(os.path.dirname(table_dir))
    _touch(os.path.join(table_dir, "bucket-0", "data-dead-0.parquet"))
    _age(table_dir)
    files = _files(table_dir)
    with pytest.raises(error):
        remove_orphan_files("db.t", {"warehouse": warehouse}, **kwargs)
    assert _files(table_dir) == files


def test_unknown_table_raises(table_dir):
    from paimon_rowid import TableNotExistException, remove_orphan_files
    warehouse = os.path.dirname(os.path.dirname(table_dir))
    files = _files(table_dir)
    with pytest.raises(TableNotExistException):
        remove_orphan_files("db.nope", {"warehouse": warehouse}, older_than_ms=2 ** 62)
    assert _files(table_dir) == files


def _by_id(table: pa.Table) -> Dict[int, dict]:
    return {r["_ROW_ID"]: {k: v for k, v in r.items() if k != "_ROW_ID"}
            for r in table.to_pylist()}


def test_pypaimon_and_java_read_the_same_after_cleaning(table_dir, oracle, java):
    from paimon_rowid import expire_snapshots, remove_orphan_files
    warehouse = os.path.dirname(os.path.dirname(table_dir))
    cols = ["id", "name", "_ROW_ID"]
    ours = _read(warehouse)
    java_before = java.dump(warehouse, "db.t", projection=cols)
    # Expire everything but the latest, then leave junk as a killed job would.
    expire_snapshots("db.t", {"warehouse": warehouse}, retain_min=1, older_than_ms=2 ** 62)
    _touch(os.path.join(table_dir, "bucket-0", "data-killed-0.parquet"))
    _touch(os.path.join(table_dir, "manifest", "manifest-killed-0"))
    result = remove_orphan_files("db.t", {"warehouse": warehouse},
                                 older_than_ms=int(time.time() * 1000) + 60_000)
    assert result["files"] == 2
    assert _read(warehouse).equals(ours)
    assert _by_id(oracle.read(warehouse, "db.t", projection=cols)) == _by_id(ours)
    java_after = java.dump(warehouse, "db.t", projection=cols)
    assert java_after.rows == java_before.rows
