"""The row-id jobs on Ray on a table of the REST catalog (docs/rest-catalog.md), on Java
Paimon's own REST test server (tests/rest_server.py): the catalog options travel to the Ray
tasks, which open the table through the server, and the driver's one commit goes through it.
``driver_max_bytes=0`` makes the jobs run their work in Ray tasks even for these small tables.
"""
from __future__ import annotations

import uuid

import pyarrow as pa
import pytest

ray = pytest.importorskip("ray")

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string()), ("v", pa.float64())])


def _table(server, rows: int = 40):
    from paimon_rowid import CatalogFactory, Schema

    options = server.catalog_options()
    catalog = CatalogFactory.create(options)
    db = f"db_{uuid.uuid4().hex[:10]}"
    catalog.create_database(db, False)
    catalog.create_table(f"{db}.t", Schema.from_pyarrow_schema(SCHEMA, options=DE), False)
    for start in (0, rows // 2):
        builder = catalog.get_table(f"{db}.t").new_batch_write_builder()
        write, commit = builder.new_write(), builder.new_commit()
        ids = range(start, start + rows // 2)
        write.write_arrow(pa.table({"id": pa.array(ids, pa.int64()),
                                    "name": [f"n{i}" for i in ids],
                                    "v": [float(i) for i in ids]}, schema=SCHEMA))
        commit.commit(write.prepare_commit())
        write.close()
    return catalog, options, f"{db}.t"


def test_ray_row_id_jobs_on_a_rest_table(ray_session, rest_server, oracle):
    from paimon_rowid import ray as pr

    catalog, options, identifier = _table(rest_server)
    source = pa.table({"_ROW_ID": pa.array([1, 25, 39], pa.int64()),
                       "name": ["r1", "r25", "r39"]})
    assert pr.update_by_row_id(identifier, source, options, update_cols=["name"],
                               driver_max_bytes=0, driver_routing_max_bytes=0) == \
        {"num_updated": 3}
    assert catalog.get_table(identifier).latest_snapshot().id == 3
    read = pr.read_by_row_id(identifier, pa.table({"_ROW_ID": pa.array([25, 1], pa.int64())}),
                             options, projection=["id", "name"], driver_max_bytes=0,
                             driver_routing_max_bytes=0)
    rows = sorted(read.take_all(), key=lambda r: r["id"])  # not to_pandas: Ray 2.50 + pandas 3
    assert [(r["id"], r["name"]) for r in rows] == [(1, "r1"), (25, "r25")]
    theirs = oracle.with_catalog_options(options).read(rest_server.warehouse, identifier)
    names = theirs.sort_by("id")["name"].to_pylist()
    assert names[1] == "r1" and names[25] == "r25" and names[39] == "r39"
    assert names[0] == "n0"


def test_ray_backfill_on_a_rest_table(ray_session, rest_server):
    from paimon_rowid import ray as pr
    from paimon_rowid.schema.schema_change import SchemaChange

    catalog, options, identifier = _table(rest_server)
    catalog.alter_table(identifier, [SchemaChange.add_column("neg", pa.float64())])

    def negate(batch: pa.Table) -> pa.Array:
        return pa.array([-v for v in batch["v"].to_pylist()], pa.float64())

    result = pr.backfill(identifier, options, column="neg", fn=negate, input_columns=["v"],
                         rows_per_commit=20, progress=False)
    assert result.rows_computed == 40 and result.commits == 2
    table = catalog.get_table(identifier)
    builder = table.new_read_builder().with_projection(["id", "neg"])
    got = builder.new_read().to_arrow(builder.new_scan().plan().splits()).sort_by("id")
    assert got["neg"].to_pylist() == [-float(i) for i in range(40)]
