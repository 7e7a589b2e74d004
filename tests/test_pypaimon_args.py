"""pypaimon 2.1.0 arguments we used to refuse (issue 47, docs/pypaimon-compat.md): ``to_arrow`` /
``to_arrow_batch_reader`` / ``to_pandas`` with ``parallelism=`` and ``blob_parallelism=`` (and
the table option ``read.parallelism``), ``write_arrow`` / ``write_arrow_batch`` with
``bucket=`` (checked, not trusted), ``update_by_arrow_with_row_id(table=...)`` and
``TableSchema.from_json(json_str=...)``: same results as the calls without them, pypaimon's
messages for bad values, and nothing written by a refused call."""
from __future__ import annotations

import re

import pyarrow as pa
import pytest

import ours

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string())])


def _rows(lo, hi):
    return pa.table({"id": pa.array(range(lo, hi), pa.int64()),
                     "name": [f"n{i}" for i in range(lo, hi)]})


def _read(table, **kwargs):
    rb = table.new_read_builder()
    return rb.new_read().to_arrow(rb.new_scan().plan().splits(), **kwargs)


def test_parallelism_gives_the_same_rows_in_the_same_order(warehouse):
    table = ours.three_commit_table(warehouse)
    rb = table.new_read_builder()
    splits = rb.new_scan().plan().splits()
    read = rb.new_read()
    want = read.to_arrow(splits)
    assert want.num_rows == 30
    for n in (1, 2, 8):
        assert read.to_arrow(splits, parallelism=n, blob_parallelism=n).equals(want)
        assert read.to_arrow_batch_reader(splits, blob_parallelism=n,
                                          parallelism=n).read_all().equals(want)
        assert read.to_pandas(splits, parallelism=n).equals(want.to_pandas())
    assert read.to_arrow(splits, None, None).equals(want)  # pypaimon's positional order
    option = table.copy({"read.parallelism": "2"})
    assert _read(option).equals(want)


def test_bad_parallelism_is_refused_with_pypaimons_message(warehouse):
    table = ours.three_commit_table(warehouse)
    rb = table.new_read_builder()
    splits, read = rb.new_scan().plan().splits(), rb.new_read()
    with pytest.raises(ValueError, match=r"^parallelism must be >= 1, got 0$"):
        read.to_arrow(splits, parallelism=0)
    with pytest.raises(ValueError, match=r"^blob_parallelism must be >= 1, got -1$"):
        read.to_arrow_batch_reader(splits, blob_parallelism=-1)
    with pytest.raises(TypeError, match="parallelism must be an int or None, got str"):
        read.to_pandas(splits, parallelism="2")
    with pytest.raises(ValueError, match=r"^read.parallelism must be >= 1, got 0$"):
        _read(table.copy({"read.parallelism": "0"}))


def test_write_arrow_takes_bucket_none_positionally_and_by_name(warehouse):
    table = ours.create_table(warehouse, "t", SCHEMA, dict(DE))
    builder = table.new_batch_write_builder()
    with builder.new_write() as write:
        write.write_arrow(_rows(0, 5), None)
        write.write_arrow_batch(_rows(5, 10).to_batches()[0], bucket=None)
        builder.new_commit().commit(write.prepare_commit())
    assert sorted(_read(table)["id"].to_pylist()) == list(range(10))


def _bucket_of_each_id(warehouse, ids):
    """Where our writer places each id of db.probe (4 buckets on ``id``)."""
    probe = ours.create_table(warehouse, "probe", SCHEMA, {"bucket": "4", "bucket-key": "id"})
    ours.write(probe, _rows(min(ids), max(ids) + 1))
    rb = probe.new_read_builder()
    read, out = rb.new_read(), {}
    for split in rb.new_scan().plan().splits():
        for i in read.to_arrow([split])["id"].to_pylist():
            out[i] = split.bucket
    return out


def test_bucket_groups_are_written_when_every_row_belongs_there(warehouse, oracle):
    buckets = _bucket_of_each_id(warehouse, list(range(40)))
    table = ours.create_table(warehouse, "t", SCHEMA, {"bucket": "4", "bucket-key": "id"})
    builder = table.new_batch_write_builder()
    with builder.new_write() as write:
        for b in range(4):
            ids = [i for i in range(40) if buckets[i] == b]
            group = pa.table({"id": pa.array(ids, pa.int64()), "name": [f"n{i}" for i in ids]})
            write.write_arrow(group, bucket=b)
        write.write_arrow(_rows(40, 45))  # ungrouped rows in the same write
        messages = write.prepare_commit()
        builder.new_commit().commit(messages)
    assert sorted(_read(table)["id"].to_pylist()) == list(range(45))
    theirs = oracle.read(warehouse, "db.t")
    assert sorted(theirs["id"].to_pylist()) == list(range(45))
    rb = table.new_read_builder()
    for split in rb.new_scan().plan().splits():
        ids = rb.new_read().to_arrow([split])["id"].to_pylist()
        assert all(buckets.get(i, split.bucket) == split.bucket for i in ids)


def test_a_group_with_rows_of_another_bucket_is_refused_and_leaves_nothing(warehouse):
    buckets = _bucket_of_each_id(warehouse, list(range(40)))
    table = ours.create_table(warehouse, "t", SCHEMA, {"bucket": "4", "bucket-key": "id"})
    builder = table.new_batch_write_builder()
    before = ours.files(warehouse)
    write = builder.new_write()
    wrong = sorted({buckets[i] for i in range(10)} - {0})
    with pytest.raises(ValueError, match=rf"write_arrow\(bucket=0\): rows of this group belong "
                                         rf"to bucket\(s\) {re.escape(str(wrong))}"):
        write.write_arrow(_rows(0, 10), bucket=0)
    assert ours.files(warehouse) == before
    with pytest.raises(ValueError, match=r"^Bucket id must be between 0 and 3$"):
        write.write_arrow(_rows(0, 1), bucket=4)
    with pytest.raises(TypeError, match="bucket must be an int or None, got str"):
        write.write_arrow(_rows(0, 1), bucket="0")
    write.write_arrow(_rows(0, 10))  # the writer is still usable
    builder.new_commit().commit(write.prepare_commit())
    write.close()
    assert sorted(_read(table)["id"].to_pylist()) == list(range(10))


def test_bucket_on_a_table_without_fixed_buckets_is_pypaimons_error(warehouse):
    table = ours.create_table(warehouse, "t", SCHEMA, dict(DE))
    before = ours.files(warehouse)
    with table.new_batch_write_builder().new_write() as write:
        with pytest.raises(ValueError, match="^Precomputed bucket writes are only valid for "
                                             "HASH_FIXED or HASH_DYNAMIC tables$"):
            write.write_arrow_batch(_rows(0, 3).to_batches()[0], bucket=0)
    assert ours.files(warehouse) == before and table.latest_snapshot() is None


def test_keyword_names_of_update_and_from_json_are_pypaimons(warehouse):
    from paimon_rowid.schema import TableSchema
    table = ours.three_commit_table(warehouse)
    builder = table.new_batch_write_builder()
    update = builder.new_update().with_update_type(["name"])
    messages = update.update_by_arrow_with_row_id(
        table=pa.table({"_ROW_ID": pa.array([3], pa.int64()), "name": ["three"]}))
    builder.new_commit().commit(messages)
    assert _read(table).sort_by("id")["name"][3].as_py() == "three"
    schema_json = open(f"{warehouse}/db.db/t/schema/schema-0").read()
    assert TableSchema.from_json(json_str=schema_json).fields == table.fields
