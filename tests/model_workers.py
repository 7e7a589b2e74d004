"""The worker processes of tests/test_multiprocess_model.py: one operation on the model table
``db.m`` (``id BIGINT NOT NULL, x BIGINT, d BIGINT``; data evolution, row tracking, deletion
vectors) per process, started with ``multiprocessing`` (fork or spawn), so it must be
importable from a fresh interpreter. The outcome goes to ``spec["result"]`` as JSON
(``{"ok": true}`` or the exception's class, its cause's class and its message); a process
killed with SIGKILL (a commit fault point or the parent's kill) writes nothing."""
from __future__ import annotations

import json
import os
import time
from typing import Any, Callable, Dict

import pyarrow as pa

TABLE = "db.m"
BACKFILL_VERSION = "v1"
SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), ("x", pa.int64()),
                    ("d", pa.int64())])


def derive(batch: pa.Table) -> pa.Array:
    """The backfilled column: d = 2 * id."""
    return pa.compute.multiply(batch["id"], 2)


def _opts(spec) -> Dict[str, str]:
    return {"warehouse": spec["warehouse"]}


def _table(spec):
    from paimon_rowid import CatalogFactory
    return CatalogFactory.create(_opts(spec)).get_table(TABLE)


def append(spec) -> None:
    ids = spec["ids"]
    builder = _table(spec).new_batch_write_builder()
    writer, committer = builder.new_write(), builder.new_commit()
    writer.write_arrow(pa.table({"id": ids, "x": [0] * len(ids),
                                 "d": pa.nulls(len(ids), pa.int64())}, schema=SCHEMA))
    committer.commit(writer.prepare_commit())


def update(spec) -> None:
    from paimon_rowid import update_by_row_id
    rids = spec["row_ids"]
    update_by_row_id(TABLE, pa.table({"_ROW_ID": pa.array(rids, pa.int64()),
                                      "x": pa.array([spec["value"]] * len(rids), pa.int64())}),
                     _opts(spec), update_cols=["x"])


def delete(spec) -> None:
    builder = _table(spec).new_batch_write_builder()
    builder.new_commit().commit(builder.new_update().delete_by_row_id(spec["row_ids"]))


def merge(spec) -> None:
    from paimon_rowid import WhenMatched, WhenNotMatched, merge_into
    ids = spec["matched"] + spec["new"]
    source = pa.table({"id": pa.array(ids, pa.int64()),
                       "x": pa.array([spec["value"]] * len(ids), pa.int64())})
    merge_into(TABLE, source, _opts(spec), on=["id"],
               when_matched=[WhenMatched.update({"x": "s.x"})],
               when_not_matched=[WhenNotMatched({"id": "s.id", "x": "s.x"})])


def backfill(spec) -> None:
    from paimon_rowid import backfill as run
    run(TABLE, _opts(spec), column="d", fn=derive, input_columns=["id"],
        version=BACKFILL_VERSION, rows_per_commit=spec["rows_per_commit"], progress=False)


def compact(spec) -> None:
    from paimon_rowid import compact as run
    run(TABLE, _opts(spec), **spec["kwargs"])


def expire(spec) -> None:
    from paimon_rowid import expire_snapshots
    keep = spec["keep"]
    expire_snapshots(TABLE, _opts(spec), retain_min=keep, retain_max=keep,
                     older_than_ms=int(time.time() * 1000) + 60_000)


def clean_orphans(spec) -> None:
    """Only files older than the margin go: a commit in flight in another process keeps its
    files as long as it takes less than the margin."""
    from paimon_rowid import remove_orphan_files
    remove_orphan_files(TABLE, _opts(spec),
                        older_than_ms=int(time.time() * 1000) - spec["margin_ms"])


OPS: Dict[str, Callable[[Dict[str, Any]], None]] = {
    "append": append, "update": update, "delete": delete, "merge": merge,
    "backfill": backfill, "compact": compact, "expire": expire, "orphans": clean_orphans}


def run(spec: Dict[str, Any]) -> None:
    """The process's target: arms ``spec["crash_at"]`` (a commit fault point: the process
    SIGKILLs itself there), runs the operation and writes its outcome."""
    outcome: Dict[str, Any] = {"ok": True}
    try:
        if spec.get("crash_at"):
            from paimon_rowid._internal._lib import native
            native()._arm_crash_point(spec["crash_at"])
        OPS[spec["op"]](spec)
    except Exception as error:  # reported to the parent, which decides what is allowed
        outcome = {"ok": False, "error": type(error).__name__,
                   "cause": type(error.__cause__).__name__ if error.__cause__ else None,
                   "message": str(error).splitlines()[0][:500] if str(error) else ""}
    partial = spec["result"] + ".part"
    with open(partial, "w") as f:
        json.dump(outcome, f)
    os.replace(partial, spec["result"])
