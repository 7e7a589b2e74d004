"""``backfill(..., column_type=...)`` in both namespaces: a missing column is added (nullable)
before the first batch, once, also when two backfills race to add it; a column that exists
with another type, a NOT NULL type or a bad type value is refused with nothing written."""
from __future__ import annotations

import os
import threading

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from ours import catalog, create_table, write

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}


def _docs(warehouse, n=50, commits=2):
    table = create_table(warehouse, "docs", pa.schema([("id", pa.int64()), ("text", pa.string())]),
                         DE)
    for c in range(commits):
        ids = list(range(c * n, (c + 1) * n))
        write(table, pa.table({"id": pa.array(ids, pa.int64()),
                               "text": ["x" * (i % 7) for i in ids]}))
    return {"warehouse": str(warehouse)}


def _schemas(warehouse):
    return sorted(os.listdir(os.path.join(str(warehouse), "db.db", "docs", "schema")))


def _lengths(opts):
    table = catalog(opts).get_table("db.docs")
    rb = table.new_read_builder().with_projection(["id", "text", "text_len"])
    t = rb.new_read().to_arrow(rb.new_scan().plan().splits()).sort_by("id")
    return t


def _length(batch):
    return pc.utf8_length(batch["text"])


def test_missing_column_is_added_once_and_filled(warehouse):
    from paimon_rowid import backfill
    opts = _docs(warehouse)
    result = backfill("db.docs", opts, column="text_len", column_type=pa.int32(), fn=_length,
                      input_columns=["text"], progress=False)
    assert result.rows_computed == 100
    assert _schemas(warehouse) == ["schema-0", "schema-1"]
    table = catalog(opts).get_table("db.docs")
    field = table.fields[-1]
    assert (field.name, str(field.type), field.id) == ("text_len", "INT", 2)
    t = _lengths(opts)
    assert t["text_len"].to_pylist() == [len(s) for s in t["text"].to_pylist()]
    again = backfill("db.docs", opts, column="text_len", column_type="INT", fn=_length,
                     input_columns=["text"], progress=False)
    assert again.rows_computed == 0
    assert _schemas(warehouse) == ["schema-0", "schema-1"]


def test_two_concurrent_backfills_add_the_column_once(warehouse):
    from paimon_rowid import backfill
    opts = _docs(warehouse)
    errors = []

    def run():
        try:
            backfill("db.docs", opts, column="text_len", column_type=pa.int32(), fn=_length,
                     input_columns=["text"], progress=False)
        except Exception as error:  # a commit conflict between the two is allowed
            errors.append(error)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all("add" not in str(e) and "already exists" not in str(e) for e in errors), errors
    assert len(errors) < 2
    assert _schemas(warehouse) == ["schema-0", "schema-1"]
    names = catalog(opts).get_table("db.docs").field_names
    assert names == ["id", "text", "text_len"]
    t = _lengths(opts)
    assert t["text_len"].to_pylist() == [len(s) for s in t["text"].to_pylist()]


def test_bad_column_types_are_refused_before_anything_is_written(warehouse):
    from paimon_rowid import backfill
    from paimon_rowid.schema.schema_change import SchemaChange
    opts = _docs(warehouse, commits=1)
    catalog(opts).alter_table("db.docs", [SchemaChange.add_column("text_len", "BIGINT")])
    snapshots = sorted(os.listdir(os.path.join(str(warehouse), "db.db", "docs", "snapshot")))
    with pytest.raises(ValueError, match="column 'text_len' of 'db.docs' is BIGINT, not the "
                                         "column_type INT"):
        backfill("db.docs", opts, column="text_len", column_type=pa.int32(), fn=_length,
                 input_columns=["text"], progress=False)
    with pytest.raises(ValueError, match="must be nullable"):
        backfill("db.docs", opts, column="other", column_type="INT NOT NULL", fn=_length,
                 input_columns=["text"], progress=False)
    with pytest.raises(TypeError, match="column_type must be a pyarrow type"):
        backfill("db.docs", opts, column="other", column_type=3, fn=_length,
                 input_columns=["text"], progress=False)
    assert _schemas(warehouse) == ["schema-0", "schema-1"]
    assert sorted(os.listdir(os.path.join(str(warehouse), "db.db", "docs", "snapshot"))) \
        == snapshots


@pytest.mark.ray
def test_ray_backfill_adds_the_column(warehouse, ray_session):
    from paimon_rowid.ray import backfill
    opts = _docs(warehouse)
    # A lambda: Ray workers cannot import this test module to find _length.
    result = backfill("db.docs", opts, column="text_len", column_type=pa.int32(),
                      fn=lambda batch: pc.utf8_length(batch["text"]),
                      input_columns=["text"], progress=False, concurrency=1)
    assert result.rows_computed == 100
    assert _schemas(warehouse) == ["schema-0", "schema-1"]
    t = _lengths(opts)
    assert t["text_len"].to_pylist() == [len(s) for s in t["text"].to_pylist()]
