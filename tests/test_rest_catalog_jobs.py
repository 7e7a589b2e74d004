"""Schema changes and the jobs on tables of the REST catalog (docs/rest-catalog.md), on Java
Paimon's own REST test server (tests/rest_server.py), pypaimon reading the results.

(a) alter_table through the server: a new column read by us and by pypaimon; a refused change
    (a column that exists) raises as on the filesystem catalog and changes nothing; a missing
    table raises TableNotExistException.
(b) backfill, merge_into and compact on a REST table: every commit goes through the server,
    pypaimon reads the same rows.
(c) Tags made by either client are seen by the other; a rollback by either goes through the
    server, and the other reads the rolled-back table.
"""
from __future__ import annotations

import uuid

import pyarrow as pa
import pytest

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string()), ("v", pa.float64())])


def _setup(server, rows: int = 30, commits: int = 3):
    from paimon_rowid import CatalogFactory, Schema

    options = server.catalog_options()
    catalog = CatalogFactory.create(options)
    db = f"db_{uuid.uuid4().hex[:10]}"
    identifier = f"{db}.t"
    catalog.create_database(db, False)
    catalog.create_table(identifier, Schema.from_pyarrow_schema(SCHEMA, options=DE), False)
    per = rows // commits
    for c in range(commits):
        table = catalog.get_table(identifier)
        builder = table.new_batch_write_builder()
        write, commit = builder.new_write(), builder.new_commit()
        ids = range(c * per, (c + 1) * per)
        write.write_arrow(pa.table({"id": pa.array(ids, pa.int64()),
                                    "name": [f"n{i}" for i in ids],
                                    "v": [float(i) for i in ids]}, schema=SCHEMA))
        commit.commit(write.prepare_commit())
        write.close()
    return catalog, options, identifier


def _read(catalog, identifier, columns):
    table = catalog.get_table(identifier)
    builder = table.new_read_builder().with_projection(list(columns))
    return builder.new_read().to_arrow(builder.new_scan().plan().splits()).sort_by("id")


def test_alter_table_through_the_server(rest_server, oracle):
    from paimon_rowid import TableNotExistException
    from paimon_rowid.exceptions import ColumnAlreadyExistException
    from paimon_rowid.schema.schema_change import SchemaChange

    catalog, options, identifier = _setup(rest_server, rows=6, commits=1)
    catalog.alter_table(identifier, [SchemaChange.add_column("score", pa.int32()),
                                     SchemaChange.set_option("snapshot.num-retained.max", "70")])
    table = catalog.get_table(identifier)
    assert table.options["snapshot.num-retained.max"] == "70"
    got = _read(catalog, identifier, ["id", "score"])
    assert got["score"].to_pylist() == [None] * 6
    theirs = oracle.with_catalog_options(options).read(rest_server.warehouse, identifier)
    assert theirs.column_names == ["id", "name", "v", "score"]
    schema_files = [f for f in rest_server.table_files(*identifier.split("."))
                    if f.startswith("schema/")]
    with pytest.raises(RuntimeError, match=f"Failed to alter table {identifier}") as raised:
        catalog.alter_table(identifier, [SchemaChange.add_column("name", pa.string())])
    assert isinstance(raised.value.__cause__, ColumnAlreadyExistException)
    assert [f for f in rest_server.table_files(*identifier.split("."))
            if f.startswith("schema/")] == schema_files
    with pytest.raises(TableNotExistException):
        catalog.alter_table(identifier + "_missing", [SchemaChange.set_option("a", "b")])
    catalog.alter_table(identifier + "_missing", [SchemaChange.set_option("a", "b")],
                        ignore_if_not_exists=True)


def test_backfill_merge_and_compact(rest_server, oracle):
    from paimon_rowid import WhenMatched, backfill, compact, merge_into
    from paimon_rowid.schema.schema_change import SchemaChange

    catalog, options, identifier = _setup(rest_server, rows=30, commits=3)
    catalog.alter_table(identifier, [SchemaChange.add_column("twice", pa.float64())])

    def twice(batch: pa.Table) -> pa.Array:
        return pa.array([v * 2 for v in batch["v"].to_pylist()], pa.float64())

    result = backfill(identifier, options, column="twice", fn=twice, input_columns=["v"],
                      rows_per_commit=10, progress=False)
    assert result.rows_computed == 30 and result.commits == 3
    source = pa.table({"id": pa.array([4, 17], pa.int64()), "name": ["m4", "m17"]})
    merged = merge_into(identifier, source, options, on=["id"],
                        when_matched=[WhenMatched.update({"name": "s.name"})])
    assert merged["num_matched"] == 2 and merged["num_inserted"] == 0
    before = catalog.get_table(identifier).latest_snapshot().id
    compacted = compact(identifier, options, full=True)
    assert compacted["snapshot_id"] == before + 1
    snapshot = catalog.get_table(identifier).latest_snapshot()
    assert snapshot.commit_kind == "COMPACT"
    expected = [{"id": i, "name": {4: "m4", 17: "m17"}.get(i, f"n{i}"), "v": float(i),
                 "twice": 2.0 * i} for i in range(30)]
    assert _read(catalog, identifier, ["id", "name", "v", "twice"]).to_pylist() == expected
    theirs = oracle.with_catalog_options(options).read(rest_server.warehouse, identifier)
    assert theirs.sort_by("id").to_pylist() == expected


def test_tags_and_rollback_seen_by_both_clients(rest_server, oracle):
    catalog, options, identifier = _setup(rest_server, rows=30, commits=3)
    pypaimon = oracle.with_catalog_options(options)
    wh = rest_server.warehouse
    # Our tag (catalog call) is one pypaimon's REST client lists; its tag is one we get.
    catalog.create_tag(identifier, "ours_1", snapshot_id=1)
    pypaimon.tag_op(wh, identifier, "create", tag="theirs_2", snapshot_id=2)
    assert pypaimon.tag_op(wh, identifier, "list")["tags"] == ["ours_1", "theirs_2"]
    assert catalog.get_tag(identifier, "theirs_2").snapshot.id == 2
    assert catalog.list_tags_paged(identifier).elements == ["ours_1", "theirs_2"]
    # pypaimon rolls back through the server; we read the tagged rows and commit after them.
    pypaimon.tag_op(wh, identifier, "rollback", target="theirs_2")
    table = catalog.get_table(identifier)
    assert table.latest_snapshot().id == 2
    assert _read(catalog, identifier, ["id"])["id"].to_pylist() == list(range(20))
    builder = table.new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    write.write_arrow(pa.table({"id": pa.array([99], pa.int64()), "name": ["x"], "v": [0.0]},
                               schema=SCHEMA))
    commit.commit(write.prepare_commit())
    write.close()
    assert catalog.get_table(identifier).latest_snapshot().id == 3
    assert sorted(pypaimon.read(wh, identifier)["id"].to_pylist()) == list(range(20)) + [99]
    # Our rollback goes through the server too (pypaimon's REST reads take the latest snapshot
    # from the server's record, which a rollback on the files alone would leave stale).
    assert catalog.get_table(identifier).rollback_to("ours_1")["snapshot_id"] == 1
    assert sorted(pypaimon.read(wh, identifier)["id"].to_pylist()) == list(range(10))
    assert catalog.get_table(identifier).latest_snapshot().id == 1
    assert pypaimon.tag_op(wh, identifier, "list")["tags"] == ["ours_1"]
