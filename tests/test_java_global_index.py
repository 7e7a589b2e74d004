"""Java Paimon 1.4.2 (the second oracle, tests/java) reads through our btree global index
(docs/java-oracle.md, "Global indexes"): Java's filtered scan of a data-evolution table
evaluates the index and plans only the matching row ranges, so an `=` read returns the
matching rows and none of the rest of the file (its value-stats pruning alone returns the
whole file); with `global-index.enabled=false` Java returns the whole file, and every read
holds the rows our read returns.

Needs JDK 17 + Maven (see docs/java-oracle.md); skips without them unless CI is set."""
from __future__ import annotations

import pyarrow as pa
import pytest

pytestmark = [pytest.mark.native, pytest.mark.java]

N = 3000
SCHEMA = pa.schema([pa.field("id", pa.int64()), pa.field("name", pa.string())])


def _ours(warehouse: str) -> None:
    from paimon_rowid import CatalogFactory
    from paimon_rowid.schema import Schema
    catalog = CatalogFactory.create({"warehouse": warehouse})
    catalog.create_database("db", True)
    catalog.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA, options={
        "row-tracking.enabled": "true", "data-evolution.enabled": "true"}), False)
    table = catalog.get_table("db.t")
    builder = table.new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    # ids shuffled so that value stats cannot prune the single file
    write.write_arrow(pa.table({"id": pa.array([(i * 7919) % N for i in range(N)], pa.int64()),
                                "name": [f"n{i}" for i in range(N)]}, schema=SCHEMA))
    commit.commit(write.prepare_commit())
    write.close()
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
