"""paimon_rowid.bucket_join (embedded): results against pypaimon's reads joined with pyarrow,
pypaimon's checks (order, types, messages), empties, nested payloads, schema drift."""
from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest

from bucket_tables import (
    LEFT_SCHEMA,
    NESTED_LEFT,
    NESTED_RIGHT,
    RIGHT_SCHEMA,
    bucket_options,
    left_rows,
    make_table,
    nested_rows,
    pyarrow_join,
    reference_join,
    right_rows,
    row_set,
)

pytestmark = pytest.mark.native


@pytest.fixture
def pair(oracle, warehouse):
    """db.l (2 commits, 61 rows, keys 0..24 + a NULL) and db.r (41 rows, keys 10..39 with
    duplicates + a NULL), both bucket=4 on k."""
    make_table(oracle, warehouse, "db.l", LEFT_SCHEMA, [left_rows(), left_rows(20, offset=3)])
    make_table(oracle, warehouse, "db.r", RIGHT_SCHEMA, [right_rows()])
    return warehouse


def _expected(oracle, warehouse, left="db.l", right="db.r", on=("k",), lproj=None, rproj=None):
    lt = oracle.read(warehouse, left, projection=lproj)
    rt = oracle.read(warehouse, right, projection=rproj)
    return lt, rt, list(on)


def test_matches_pypaimon_reads_joined(oracle, pair):
    from paimon_rowid import bucket_join
    out = bucket_join("db.l", "db.r", {"warehouse": pair}, on="k")
    lt, rt, on = _expected(oracle, pair)
    assert out.column_names == ["k", "a", "b"]
    assert out.schema.field("k").type == pa.int64()
    assert out.num_rows > 0
    assert row_set(out) == pyarrow_join(lt, rt, on) == reference_join(lt, rt, on)
    # Many-to-many: some key has several rows on both sides.
    counts = {}
    for k in out.column("k").to_pylist():
        counts[k] = counts.get(k, 0) + 1
    assert max(counts.values()) >= 4


def test_projections_and_layout(oracle, pair):
    from paimon_rowid import bucket_join, bucket_join_reader
    out = bucket_join("db.l", "db.r", {"warehouse": pair}, on=["k"], left_projection=["a", "k"],
                      right_projection=["b", "k"])
    assert out.column_names == ["a", "k", "b"]
    lt, rt, on = _expected(oracle, pair, lproj=["a", "k"], rproj=["b", "k"])
    assert row_set(out) == reference_join(lt, rt, on)
    reader = bucket_join_reader("db.l", "db.r", {"warehouse": pair}, on="k",
                                right_projection=["k"])
    assert isinstance(reader, pa.RecordBatchReader)
    assert reader.schema.names == ["k", "a"]
    table = reader.read_all()
    assert row_set(table) == reference_join(*_expected(oracle, pair, rproj=["k"]))


def test_build_side_is_the_smaller_side(oracle, warehouse):
    """Either side may be the smaller one: both give the reference result."""
    from paimon_rowid import bucket_join
    make_table(oracle, warehouse, "db.big", LEFT_SCHEMA, [left_rows(400, keys=50)])
    make_table(oracle, warehouse, "db.small", RIGHT_SCHEMA, [right_rows(12, keys=12, start=5)])
    for left, right in (("db.big", "db.small"), ("db.small", "db.big")):
        out = bucket_join(left, right, {"warehouse": warehouse}, on="k")
        lt = oracle.read(warehouse, left)
        rt = oracle.read(warehouse, right)
        assert row_set(out) == reference_join(lt, rt, ["k"])


def test_composite_string_key(oracle, warehouse):
    from paimon_rowid import bucket_join
    ls = pa.schema([("s", pa.string()), ("i", pa.int32()), ("v", pa.float64())])
    rs = pa.schema([("i", pa.int32()), ("s", pa.string()), ("w", pa.string())])
    lrows = pa.table({"s": [f"s{i % 4}" for i in range(40)], "i": [i % 3 for i in range(40)],
                      "v": [float(i) for i in range(40)]}, schema=ls)
    rrows = pa.table({"i": [i % 5 for i in range(30)], "s": [f"s{i % 6}" for i in range(30)],
                      "w": [f"w{i}" for i in range(30)]}, schema=rs)
    make_table(oracle, warehouse, "db.l", ls, [lrows], bucket_options(3, "s,i"))
    make_table(oracle, warehouse, "db.r", rs, [rrows], bucket_options(3, "s,i"))
    out = bucket_join("db.l", "db.r", {"warehouse": warehouse}, on=["s", "i"])
    assert out.column_names == ["s", "i", "v", "w"]
    lt, rt = oracle.read(warehouse, "db.l"), oracle.read(warehouse, "db.r")
    assert out.num_rows > 0
    assert row_set(out) == pyarrow_join(lt, rt, ["s", "i"])


def test_nested_payloads(oracle, warehouse):
    """ARRAY, MAP, ROW, fixed-size-list (VECTOR) and large_binary payloads: pypaimon's
    pyarrow join refuses the nested ones; ours carries them."""
    from paimon_rowid import bucket_join
    lrows, rrows = nested_rows()
    make_table(oracle, warehouse, "db.l", NESTED_LEFT, [lrows])
    try:
        make_table(oracle, warehouse, "db.r", NESTED_RIGHT, [rrows])
    except Exception as error:  # pypaimon may map fixed_size_list to VECTOR only with options
        pytest.skip(f"pypaimon cannot write the fixed-size-list payload table: {error}")
    out = bucket_join("db.l", "db.r", {"warehouse": warehouse}, on="k")
    lt, rt = oracle.read(warehouse, "db.l"), oracle.read(warehouse, "db.r")
    assert out.column_names == ["k", "arr", "m", "row", "vec", "blobish"]
    assert out.schema.field("vec").type == pa.list_(pa.float32(), 3)  # VECTOR<FLOAT, 3>
    assert out.num_rows == len(reference_join(lt, rt, ["k"])) > 0
    assert row_set(out) == reference_join(lt, rt, ["k"])
    with pytest.raises(pa.ArrowInvalid):  # what pypaimon's bucket_join would hit
        lt.join(rt, keys=["k"], join_type="inner")


def test_blob_payload(oracle, warehouse):
    """A BLOB column (large_binary, in .blob files of a data-evolution table) as payload."""
    from paimon_rowid import bucket_join
    blob_schema = pa.schema([("k", pa.int64()), ("img", pa.large_binary())])
    blobs = pa.table({"k": [1, 2, 3, 1, 7], "img": [b"x" * 10, b"y", b"z" * 3, b"w", b""]},
                     schema=blob_schema)
    make_table(oracle, warehouse, "db.b", blob_schema, [blobs],
               bucket_options(**{"row-tracking.enabled": "true",
                                 "data-evolution.enabled": "true"}))
    make_table(oracle, warehouse, "db.l", LEFT_SCHEMA, [left_rows(12, keys=6)])
    out = bucket_join("db.l", "db.b", {"warehouse": warehouse}, on="k")
    assert out.schema.field("img").type == pa.large_binary()
    lt, bt = oracle.read(warehouse, "db.l"), oracle.read(warehouse, "db.b")
    assert row_set(out) == reference_join(lt, bt, ["k"])
    assert out.num_rows == 8  # keys 1 (2 x 2), 2 (2 x 1) and 3 (2 x 1)


def test_native_hash_join_errors(native):
    """The kernel's Status codes arrive as ValueError / TypeError (common.cc's map)."""
    left = pa.table({"k": pa.array([1, 2], pa.int64()), "a": ["x", "y"]})
    right = pa.table({"k": pa.array([1, 2], pa.int32()), "b": [1.0, 2.0]})
    with pytest.raises(TypeError, match="has type int64 on the left"):
        native.hash_join_inner(left, right, ["k"], ["k"])
    with pytest.raises(ValueError, match="is not in the right schema"):
        native.hash_join_inner(left, right, ["k"], ["nope"])
    with pytest.raises(ValueError, match="build must be"):
        native.hash_join_inner(left, right, ["k"], ["k"], "middle")
    from paimon_rowid._internal._arrow import stream_reader
    out = stream_reader(native.hash_join_inner(left, right.cast(pa.schema(
        [("k", pa.int64()), ("b", pa.float64())])), ["k"], ["k"], "right")).read_all()
    assert out.column_names == ["k", "a", "b"] and out.num_rows == 2


def test_empty_sides_and_disjoint_buckets(oracle, warehouse):
    from paimon_rowid import bucket_join, bucket_join_reader
    make_table(oracle, warehouse, "db.l", LEFT_SCHEMA, [left_rows()])
    make_table(oracle, warehouse, "db.e", RIGHT_SCHEMA, [])  # no snapshot
    for left, right, names in (("db.l", "db.e", ["k", "a", "b"]),
                               ("db.e", "db.l", ["b", "k", "a"])):
        out = bucket_join(left, right, {"warehouse": warehouse}, on="k")
        assert out.num_rows == 0 and out.column_names == names
    assert bucket_join_reader("db.e", "db.l", {"warehouse": warehouse},
                              on="k").read_all().num_rows == 0
    # Find two keys in different buckets (from our plan of the left table), then one table
    # per key: no bucket on both sides.
    from paimon_rowid import CatalogFactory
    table = CatalogFactory.create({"warehouse": warehouse}).get_table("db.l")
    read = table.new_read_builder().new_read()
    bucket_of = {}
    for split in table.new_read_builder().new_scan().plan().splits():
        for k in read.to_arrow([split]).column("k").to_pylist():
            bucket_of[k] = split._native.bucket
    by_bucket = {}
    for k, b in bucket_of.items():
        if k is not None:
            by_bucket.setdefault(b, k)
    assert len(by_bucket) >= 2
    (b1, k1), (b2, k2) = sorted(by_bucket.items())[:2]
    make_table(oracle, warehouse, "db.x", LEFT_SCHEMA,
               [pa.table({"k": [k1, k1], "a": ["p", "q"]}, schema=LEFT_SCHEMA)])
    make_table(oracle, warehouse, "db.y", RIGHT_SCHEMA,
               [pa.table({"b": [1], "k": [k2]}, schema=RIGHT_SCHEMA)])
    out = bucket_join("db.x", "db.y", {"warehouse": warehouse}, on="k")
    assert out.num_rows == 0 and out.column_names == ["k", "a", "b"]
    assert out.schema.field("b").type == pa.int32()


def test_each_side_pinned_to_its_latest_snapshot(oracle, warehouse):
    """Time-travel options are ignored: each side reads its latest snapshot (here the left
    table's persisted options say scan.snapshot-id=1; pypaimon cannot write such a table, so
    the option is added to its schema file after the writes)."""
    from paimon_rowid import bucket_join
    make_table(oracle, warehouse, "db.l", LEFT_SCHEMA, [left_rows(10), left_rows(10, offset=10)])
    make_table(oracle, warehouse, "db.r", RIGHT_SCHEMA, [right_rows(30, start=0)])
    lt = oracle.read(warehouse, "db.l")
    rt = oracle.read(warehouse, "db.r")
    assert lt.num_rows == 22
    schema_file = Path(warehouse) / "db.db" / "l" / "schema" / "schema-0"
    schema = json.loads(schema_file.read_text())
    schema["options"]["scan.snapshot-id"] = "1"
    schema_file.write_text(json.dumps(schema))
    out = bucket_join("db.l", "db.r", {"warehouse": warehouse}, on="k")
    assert row_set(out) == reference_join(lt, rt, ["k"])


def test_schema_change_after_planning(oracle, pair):
    """pypaimon's worker check: the schema id moved between planning and reading."""
    from paimon_rowid import bucket_join_reader
    reader = bucket_join_reader("db.l", "db.r", {"warehouse": pair}, on="k")
    oracle.run({"cmd": "add_columns", "warehouse": pair, "identifier": "db.r",
                "schema_ipc": _schema_ipc(oracle, pa.schema([("extra", pa.string())]))})
    with pytest.raises(ValueError, match=r"^db\.r schema changed during bucket_join "
                                         r"\(planned 0, now 1\); retry\.$"):
        reader.read_all()


def _schema_ipc(oracle, schema: pa.Schema) -> str:
    from oracle import write_ipc
    path = oracle._path(".arrow")
    write_ipc(path, schema.empty_table())
    return str(path)


# -- pypaimon's checks (memo §3.2), in order ----------------------------------------------------

CASES = {
    "partitioned": (
        "bucket_join does not support partitioned tables yet; got partition keys "
        "db.p=['p'], db.r=[]."),
    "unbucketed": (
        "bucket_join requires both tables to be fixed-bucket (bucket > 0); "
        "got db.u=-1, db.r=4."),
    "count": "bucket_join requires the same bucket count; db.l=4, db.c3=3.",
    "key": "bucket_join requires the same bucket-key; db.l2=['k', 'a'], db.r2=['k', 'b'].",
    "function": ("bucket_join requires the same bucket-function.type; db.l=default, "
                 "db.fm=mod."),
    "on": ("bucket_join requires the join key to be the bucket-key ['k']; got on=['a']. "
           "Equal keys only co-locate by bucket when joining on the bucket-key "
           "(the comparison is order-sensitive for composite keys)."),
    "key_type": ("bucket_join requires the bucket-key columns to have the same type on both "
                 "sides; mismatched (column, left, right): [('k', 'BIGINT', 'INT')]."),
    "join_type": "bucket_join currently supports only join_type='inner'; got 'left'.",
    "left_projection": "left_projection must include the join key ['k']; got ['a'].",
    "right_projection": "right_projection must include the join key ['k']; got ['b'].",
    "collision": ("bucket_join sides must not share columns other than the join key ['k']; "
                  "both have ['a']. Project or rename them away."),
    "rescale": ("bucket_join needs db.rs fully in bucket count 2, but files exist under [4] "
                "(rescale in progress); rewrite first."),
}


def make_validation_tables(oracle, warehouse):
    """Every table the check cases need, in one oracle process."""
    ops = bucket_options
    one = [left_rows(8)]
    cmds = []

    def table(identifier, schema, options, batches=(), partition_keys=()):
        cmds.append(oracle.create_table_cmd(warehouse, identifier, schema, options=options,
                                            partition_keys=list(partition_keys)))
        cmds.extend(oracle.write_cmd(warehouse, identifier, b) for b in batches)

    table("db.l", LEFT_SCHEMA, ops(), one)
    table("db.r", RIGHT_SCHEMA, ops(), [right_rows(8)])
    table("db.p", pa.schema([("k", pa.int64()), ("p", pa.string())]), ops(), [],
          partition_keys=["p"])
    table("db.u", LEFT_SCHEMA, {})
    table("db.c3", RIGHT_SCHEMA, ops(3))
    three = pa.schema([("k", pa.int64()), ("a", pa.string()), ("b", pa.string())])
    table("db.l2", three, ops(key="k,a"))
    table("db.r2", three, ops(key="k,b"))
    table("db.fm", RIGHT_SCHEMA, ops(**{"bucket-function.type": "mod"}))
    table("db.ri", pa.schema([("k", pa.int32()), ("b", pa.int32())]), ops())
    table("db.ra", pa.schema([("k", pa.int64()), ("a", pa.string())]), ops())
    table("db.rs", LEFT_SCHEMA, ops(4), one)
    table("db.r2b", RIGHT_SCHEMA, ops(2))
    oracle.run_all(cmds)
    # A "rescaled" table: files written under 4 buckets, the schema now says 2.
    schema_file = Path(warehouse) / "db.db" / "rs" / "schema" / "schema-0"
    schema = json.loads(schema_file.read_text())
    schema["options"]["bucket"] = "2"
    schema_file.write_text(json.dumps(schema))


def validation_call(case):
    """(left, right, kwargs) of a check case."""
    return {
        "partitioned": ("db.p", "db.r", {"on": "k"}),
        "unbucketed": ("db.u", "db.r", {"on": "k"}),
        "count": ("db.l", "db.c3", {"on": "k"}),
        "key": ("db.l2", "db.r2", {"on": "k"}),
        "function": ("db.l", "db.fm", {"on": "k"}),
        "on": ("db.l", "db.r", {"on": ["a"]}),
        "key_type": ("db.l", "db.ri", {"on": "k"}),
        "join_type": ("db.l", "db.r", {"on": "k", "join_type": "left"}),
        "left_projection": ("db.l", "db.r", {"on": "k", "left_projection": ["a"]}),
        "right_projection": ("db.l", "db.r", {"on": "k", "right_projection": ["b"]}),
        "collision": ("db.l", "db.ra", {"on": "k"}),
        "rescale": ("db.rs", "db.r2b", {"on": "k"}),
    }[case]


@pytest.fixture(scope="module")
def validation_warehouse(oracle, tmp_path_factory):
    warehouse = str(tmp_path_factory.mktemp("bucket-join-checks"))
    make_validation_tables(oracle, warehouse)
    return warehouse


@pytest.mark.parametrize("case", list(CASES))
def test_checks(validation_warehouse, case):
    from paimon_rowid import bucket_join, bucket_join_reader
    left, right, kwargs = validation_call(case)
    for fn in (bucket_join, bucket_join_reader):
        with pytest.raises(ValueError) as info:
            fn(left, right, {"warehouse": validation_warehouse}, **kwargs)
        assert type(info.value) is ValueError
        assert str(info.value) == CASES[case]


def test_check_order(validation_warehouse):
    """A call failing several checks reports the first in pypaimon's order."""
    from paimon_rowid import bucket_join
    with pytest.raises(ValueError, match="same bucket count"):
        bucket_join("db.l", "db.c3", {"warehouse": validation_warehouse}, on="a",
                    join_type="left")
    with pytest.raises(ValueError, match="join_type='inner'"):
        bucket_join("db.l", "db.r", {"warehouse": validation_warehouse}, on="k",
                    join_type="outer", left_projection=["a"])


def test_missing_table_passes_through(validation_warehouse):
    from paimon_rowid import TableNotExistException, bucket_join
    with pytest.raises(TableNotExistException):
        bucket_join("db.nope", "db.r", {"warehouse": validation_warehouse}, on="k")
