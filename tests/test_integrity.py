"""Integrity (issue 12): no accepted write may break a table. Each case reproduces a way a
call used to succeed and leave the table unreadable; now it raises, and the table stays
readable with exactly its committed rows."""
from __future__ import annotations

import os

import pyarrow as pa
import pytest

from ours import catalog, create_table, files, write

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([("id", pa.int64()), ("s", pa.string())])


def _rows(n, start=0):
    return pa.table({"id": pa.array(range(start, start + n), pa.int64()),
                     "s": [f"s{i}" for i in range(start, start + n)]})


def _read(table):
    rb = table.new_read_builder()
    return rb.new_read().to_arrow(rb.new_scan().plan().splits()).sort_by("id")


_files = files


def _prepared(table, data):
    builder = table.new_batch_write_builder()
    writer = builder.new_write()
    writer.write_arrow(data)
    return builder, writer.prepare_commit()


@pytest.mark.parametrize("options", [{}, DE], ids=["append", "data-evolution"])
def test_same_messages_committed_twice_are_refused(warehouse, options):
    table = create_table(warehouse, "t", SCHEMA, options)
    builder, messages = _prepared(table, _rows(5))
    builder.new_commit().commit(messages)
    before = _files(warehouse)
    with pytest.raises(ValueError, match="already committed"):
        builder.new_commit().commit(messages)
    # Refused before anything was written, and the committed files are still there.
    assert _files(warehouse) == before
    table = catalog(warehouse).get_table("db.t")
    assert table.latest_snapshot()["id"] == 1
    assert _read(table) == _rows(5)


def test_serialized_copies_committed_twice_are_refused(warehouse):
    """The check does not rely on the Python objects: a copy that went through bytes (as on
    Ray) is refused too."""
    from paimon_rowid.write import CommitMessage
    table = create_table(warehouse, "t", SCHEMA, DE)
    builder, messages = _prepared(table, _rows(3))
    copies = [CommitMessage.from_bytes(m.to_bytes()) for m in messages]
    builder.new_commit().commit(messages)
    with pytest.raises(ValueError, match="already committed"):
        builder.new_commit().commit(copies)
    assert _read(catalog(warehouse).get_table("db.t")) == _rows(3)


def test_aborted_messages_are_refused(warehouse):
    table = create_table(warehouse, "t", SCHEMA, DE)
    write(table, _rows(2))
    builder, messages = _prepared(table, _rows(3, start=2))
    commit = builder.new_commit()
    commit.abort(messages)
    before = _files(warehouse)
    with pytest.raises(ValueError, match="does not exist.*aborted"):
        commit.commit(messages)
    assert _files(warehouse) == before
    table = catalog(warehouse).get_table("db.t")
    assert table.latest_snapshot()["id"] == 1
    assert _read(table) == _rows(2)


def test_messages_of_another_table_are_refused(warehouse):
    a = create_table(warehouse, "a", SCHEMA, DE)
    b = create_table(warehouse, "b", SCHEMA, DE)
    write(b, _rows(1))
    _, messages = _prepared(a, _rows(4))
    before = _files(warehouse)
    with pytest.raises(ValueError, match="prepared for the table at .*db.db/a"):
        b.new_batch_write_builder().new_commit().commit(messages)
    assert _files(warehouse) == before  # A's files are left for A's own commit or abort
    assert _read(catalog(warehouse).get_table("db.b")) == _rows(1)
    # ... and A can still commit them.
    a.new_batch_write_builder().new_commit().commit(messages)
    assert _read(catalog(warehouse).get_table("db.a")) == _rows(4)


def test_replaced_data_file_is_refused_at_commit(warehouse):
    table = create_table(warehouse, "t", SCHEMA, DE)
    builder, messages = _prepared(table, _rows(3))
    name = messages[0].file_names[0]
    path = next(p for p in _files(warehouse) if p.endswith(name))
    with open(path, "ab") as f:
        f.write(b"junk")
    with pytest.raises(ValueError, match="bytes but its commit message records"):
        builder.new_commit().commit(messages)
    assert catalog(warehouse).get_table("db.t").latest_snapshot() is None


# -- drop_table racing a writer; create_table over leftovers -----------------------------------

def test_drop_table_while_a_writer_commits(warehouse):
    """Dropping never fails half-way: the table disappears at once; the writer's next commit
    fails cleanly (its files deleted); the name is free again, or create_table says why not."""
    import threading
    cat = catalog(warehouse)
    table = create_table(warehouse, "t", SCHEMA, DE)
    errors, commits = [], []
    started = threading.Event()

    def writer():
        try:
            for i in range(10_000):
                builder, messages = _prepared(table, _rows(20, start=i * 20))
                started.set()
                builder.new_commit().commit(messages)
                commits.append(i)
        except Exception as error:  # noqa: BLE001 - the failure is the point
            errors.append(error)
        finally:
            started.set()

    thread = threading.Thread(target=writer)
    thread.start()
    started.wait(30)
    while len(commits) < 3 and thread.is_alive():
        pass
    cat.drop_table("db.t", False)  # must not raise
    thread.join(60)
    assert not thread.is_alive() and errors, "the writer must fail once its table is gone"
    assert "t" not in cat.list_tables("db")
    try:
        cat.create_table("db.t", __import__("paimon_rowid").Schema.from_pyarrow_schema(
            SCHEMA, options=DE), False)
    except ValueError as error:  # a commit landed in the old place after the drop
        assert "still holds files" in str(error)
        return
    fresh = cat.get_table("db.t")
    assert fresh.latest_snapshot() is None and _read(fresh).num_rows == 0


def test_create_table_refuses_a_directory_with_leftover_files(warehouse):
    from paimon_rowid import Schema
    cat = catalog(warehouse)
    cat.create_database("db", True)
    leftover = os.path.join(warehouse, "db.db", "t", "snapshot")
    os.makedirs(leftover)
    with open(os.path.join(leftover, "snapshot-1"), "w") as f:
        f.write("{}")
    with pytest.raises(ValueError, match="still holds files"):
        cat.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA, options=DE), False)
    assert os.listdir(os.path.join(warehouse, "db.db", "t")) == ["snapshot"]  # untouched
    # Empty directories alone are no table and no leftover: adopted.
    os.remove(os.path.join(leftover, "snapshot-1"))
    cat.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA, options=DE), False)
    assert cat.get_table("db.t").latest_snapshot() is None


# -- names -----------------------------------------------------------------------------------

def test_dots_in_database_names_are_refused(warehouse):
    cat = catalog(warehouse)
    with pytest.raises(ValueError, match="must not contain '.'"):
        cat.create_database("a.b", False)
    assert not os.path.exists(os.path.join(warehouse, "a.b.db"))
    # A dot in a table name stays allowed: "db.a.b" is table "a.b" of "db" (as in pypaimon).
    create_table(warehouse, "a.b", SCHEMA, DE)
    assert "a.b" in cat.list_tables("db")


def test_nul_in_names_and_paths_is_refused(warehouse):
    from paimon_rowid import CatalogFactory, Schema
    cat = catalog(warehouse)
    cat.create_database("db", True)
    bad = pa.schema([("a\0b", pa.int64())])
    with pytest.raises(ValueError, match="NUL"):
        cat.create_table("db.t", Schema.from_pyarrow_schema(bad, options=DE), False)
    assert "t" not in cat.list_tables("db")
    cut = os.path.join(warehouse, "cut")
    with pytest.raises(ValueError, match="NUL"):
        CatalogFactory.create({"warehouse": cut + "\0tail"}).create_database("x", True)
    assert not os.path.exists(cut)


def test_unknown_projection_columns_are_refused(warehouse):
    table = create_table(warehouse, "t", SCHEMA, DE)
    with pytest.raises(ValueError, match=r"unknown column\(s\) \['nope'\]"):
        table.new_read_builder().with_projection(["id", "nope"])
    rb = table.new_read_builder().with_projection(["s", "_ROW_ID", "s"])
    assert [f.name for f in rb.read_type()] == ["s", "_ROW_ID"]


# -- the user's own exceptions ---------------------------------------------------------------

class Boom(Exception):
    pass


def _failing_reader(schema, good_batches):
    def batches():
        yield from good_batches
        raise Boom("the user's generator failed")
    return pa.RecordBatchReader.from_batches(schema, batches())


def test_user_exception_in_a_write_keeps_its_type(warehouse):
    table = create_table(warehouse, "t", SCHEMA, DE)
    before = _files(warehouse)
    writer = table.new_batch_write_builder().new_write()
    with pytest.raises(Boom, match="the user's generator failed"):
        writer.write(_failing_reader(SCHEMA, _rows(4).to_batches()))
    writer.close()
    assert _files(warehouse) == before


@pytest.mark.parametrize("job", ["update", "read", "table-update"])
def test_user_exception_in_a_row_id_job_keeps_its_type(warehouse, job):
    from paimon_rowid.row_id_jobs import read_by_row_id, update_by_row_id
    table = create_table(warehouse, "t", SCHEMA, DE)
    write(table, _rows(5))
    before = _files(warehouse)
    good = pa.table({"_ROW_ID": pa.array([1], pa.int64()), "s": ["x"]})
    reader = _failing_reader(good.schema, good.to_batches())
    with pytest.raises(Boom):
        if job == "update":
            update_by_row_id("db.t", reader, {"warehouse": warehouse}, update_cols=["s"])
        elif job == "read":
            read_by_row_id("db.t", reader, {"warehouse": warehouse}, projection=["s"])
        else:
            table.new_batch_write_builder().new_update().with_update_type(
                ["s"]).update_by_arrow_with_row_id(reader)
    assert _files(warehouse) == before
