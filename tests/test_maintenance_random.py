"""A randomized interleaving of appends, partial-column updates, tags, snapshot expirations and
orphan cleaning (issue 17): no row is ever lost, every retained snapshot and every tag reads
what a model of the table recorded for it, and nothing a retained snapshot or tag needs is
deleted (the reads would fail)."""
from __future__ import annotations

import os
import random
from typing import Dict

import pyarrow as pa
import pytest

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string()), ("score", pa.int64())])
FUTURE = 2 ** 62


def _read(catalog, options=None) -> Dict[int, tuple]:
    table = catalog.get_table("db.t")
    if options:
        table = table.copy(options)
    builder = table.new_read_builder().with_projection(["name", "score", "_ROW_ID"])
    got = builder.new_read().to_arrow(builder.new_scan().plan().splits())
    return {r["_ROW_ID"]: (r["name"], r["score"]) for r in got.to_pylist()}


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_random_maintenance_never_loses_what_is_retained(warehouse, seed):
    from paimon_rowid import (
        CatalogFactory,
        Schema,
        expire_snapshots,
        remove_orphan_files,
        update_by_row_id,
    )
    rng = random.Random(seed)
    opts = {"warehouse": warehouse}
    catalog = CatalogFactory.create(opts)
    catalog.create_database("db", True)
    catalog.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA, options=DE), False)
    snapshot_dir = os.path.join(warehouse, "db.db", "t", "snapshot")
    model: Dict[int, tuple] = {}
    at_snapshot: Dict[int, Dict[int, tuple]] = {}
    tags: Dict[str, Dict[int, tuple]] = {}
    latest = 0

    def snapshots():
        return sorted(int(n.split("-")[1]) for n in os.listdir(snapshot_dir)
                      if n.startswith("snapshot-"))

    for step in range(40):
        op = rng.choice(["append", "append", "update", "update", "tag", "untag", "expire",
                         "orphans"]) if model else "append"
        if op == "append":
            n = rng.randint(1, 8)
            start = len(model)
            data = pa.table({"id": pa.array(range(start, start + n), pa.int64()),
                             "name": [f"n{i}" for i in range(start, start + n)],
                             "score": pa.array(range(n), pa.int64())}, schema=SCHEMA)
            builder = catalog.get_table("db.t").new_batch_write_builder()
            write, commit = builder.new_write(), builder.new_commit()
            write.write_arrow(data)
            commit.commit(write.prepare_commit())
            write.close()
            for i in range(n):
                model[start + i] = (f"n{start + i}", i)
        elif op == "update":
            column = rng.choice(["name", "score"])
            ids = sorted(rng.sample(sorted(model), rng.randint(1, min(5, len(model)))))
            values = ([f"u{step}-{i}" for i in ids] if column == "name"
                      else pa.array([step * 100 + i for i in ids], pa.int64()))
            update_by_row_id("db.t", pa.table({"_ROW_ID": pa.array(ids, pa.int64()),
                                               column: values}), opts, update_cols=[column])
            for i, v in zip(ids, values.to_pylist() if column == "score" else values):
                model[i] = (v, model[i][1]) if column == "name" else (model[i][0], v)
        elif op == "tag":
            name = f"t{step}"
            catalog.get_table("db.t").create_tag(name, latest)
            tags[name] = at_snapshot[latest]
        elif op == "untag" and tags:
            name = rng.choice(sorted(tags))
            catalog.get_table("db.t").delete_tag(name)
            del tags[name]
        elif op == "expire":
            expire_snapshots("db.t", opts, retain_min=rng.randint(1, 3), older_than_ms=FUTURE,
                             max_deletes=rng.randint(1, 10))
        elif op == "orphans":
            remove_orphan_files("db.t", opts, older_than_ms=FUTURE)
        ids = snapshots()
        if ids and ids[-1] != latest:
            latest = ids[-1]
            at_snapshot[latest] = dict(model)
        context = f"seed {seed} step {step} ({op})"
        assert _read(catalog) == model, context
        for sid in ids:
            assert _read(catalog, {"scan.snapshot-id": str(sid)}) == at_snapshot[sid], (
                f"{context}: snapshot {sid}")
        for name, rows in tags.items():
            assert _read(catalog, {"scan.tag-name": name}) == rows, f"{context}: tag {name}"
    # Finally: everything but the latest expires, orphans go, and the table still reads.
    expire_snapshots("db.t", opts, retain_min=1, older_than_ms=FUTURE, max_deletes=1000)
    remove_orphan_files("db.t", opts, older_than_ms=FUTURE)
    assert _read(catalog) == model
    for name, rows in tags.items():
        assert _read(catalog, {"scan.tag-name": name}) == rows
