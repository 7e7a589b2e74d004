"""process_row_id_ranges(resume_key=...): progress recorded in snapshot properties; a rerun
after a failure skips finished batches without reading them (beyond pypaimon)."""
from __future__ import annotations

import json

import pyarrow as pa
import pytest

pytestmark = pytest.mark.native


@pytest.fixture
def table(warehouse):
    from paimon_rowid import CatalogFactory, Schema
    c = CatalogFactory.create({"warehouse": warehouse})
    c.create_database("db", True)
    c.create_table("db.t", Schema.from_pyarrow_schema(
        pa.schema([("id", pa.int64()), ("e", pa.float64())]),
        options={"row-tracking.enabled": "true", "data-evolution.enabled": "true"}), False)
    t = c.get_table("db.t")
    for start in range(0, 40, 10):
        wb = t.new_batch_write_builder()
        w, cm = wb.new_write(), wb.new_commit()
        w.write_arrow(pa.table({"id": pa.array(range(start, start + 10), pa.int64()),
                                "e": pa.nulls(10, pa.float64())}))
        cm.commit(w.prepare_commit())
    return warehouse


def _processor(wh, calls, fail_after=None):
    from paimon_rowid import CatalogFactory
    from paimon_rowid.row_id_jobs import update_by_row_id

    def process(ranges):
        if fail_after is not None and len(calls) == fail_after:
            raise RuntimeError("killed")
        calls.append(list(ranges))
        t = CatalogFactory.create({"warehouse": wh}).get_table("db.t")
        rb = t.new_read_builder().with_projection(["e", "_ROW_ID"])
        rb.with_filter(rb.new_predicate_builder().is_null("e"))
        pending = rb.new_read().to_arrow(rb.new_scan().with_row_ranges(ranges).plan().splits())
        if pending.num_rows:
            update_by_row_id("db.t", pa.table({"_ROW_ID": pending["_ROW_ID"],
                                               "e": pa.array([1.0] * pending.num_rows)}),
                             {"warehouse": wh}, update_cols=["e"])
    return process


def test_rerun_skips_finished_batches(table):
    from paimon_rowid import CatalogFactory, Range
    from paimon_rowid.row_id_ranges import process_row_id_ranges
    calls = []
    with pytest.raises(RuntimeError, match="killed"):
        process_row_id_ranges("db.t", {"warehouse": table}, rows_per_commit=10,
                              processor=_processor(table, calls, fail_after=2),
                              resume_key="embed-v1")
    assert calls == [[Range(0, 9)], [Range(10, 19)]]
    t = CatalogFactory.create({"warehouse": table}).get_table("db.t")
    props = t.latest_snapshot()["properties"]
    assert json.loads(props["paimon-rowid.backfill.embed-v1"]) == [[0, 19]]
    rerun = []
    process_row_id_ranges("db.t", {"warehouse": table}, rows_per_commit=10,
                          processor=_processor(table, rerun), resume_key="embed-v1")
    assert rerun == [[Range(20, 29)], [Range(30, 39)]]  # finished batches never reach the processor
    rb = t.new_read_builder().with_projection(["e"])
    assert rb.new_read().to_arrow(rb.new_scan().plan().splits())["e"].to_pylist() == [1.0] * 40
    # Another key starts from scratch; without a key nothing is skipped (pypaimon's behaviour).
    fresh = []
    process_row_id_ranges("db.t", {"warehouse": table}, rows_per_commit=40,
                          processor=fresh.append, resume_key="embed-v2")
    assert fresh == [[Range(0, 9), Range(10, 19), Range(20, 29), Range(30, 39)]]
    with pytest.raises(ValueError, match="resume_key"):
        process_row_id_ranges("db.t", {"warehouse": table}, rows_per_commit=1,
                              processor=fresh.append, resume_key="")


def test_resume_record_survives_other_commits_and_expiration(table):
    """Every later commit carries the record (issue 44 §4), so expiring every snapshot but the
    newest one, an append's, still lets the rerun skip the finished batches."""
    import time

    from paimon_rowid import CatalogFactory, Range, expire_snapshots
    from paimon_rowid.row_id_ranges import process_row_id_ranges
    opts = {"warehouse": table}
    process_row_id_ranges("db.t", opts, rows_per_commit=10, processor=_processor(table, []),
                          resume_key="embed-v1")
    t = CatalogFactory.create(opts).get_table("db.t")
    wb = t.new_batch_write_builder()
    w, cm = wb.new_write(), wb.new_commit()
    w.write_arrow(pa.table({"id": pa.array(range(40, 45), pa.int64()),
                            "e": pa.nulls(5, pa.float64())}))
    cm.commit(w.prepare_commit())
    expire_snapshots("db.t", opts, retain_min=1, retain_max=1,
                     older_than_ms=int(time.time() * 1000) + 60_000)
    rerun = []
    process_row_id_ranges("db.t", opts, rows_per_commit=10, processor=_processor(table, rerun),
                          resume_key="embed-v1")
    assert rerun == [[Range(40, 44)]]
