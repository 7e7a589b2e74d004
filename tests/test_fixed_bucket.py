"""Fixed-bucket append tables (``bucket`` > 0, ``bucket-key``): every row lands in the bucket
Java Paimon's bucket function chooses, so pypaimon and Java read our tables, prune them by
bucket, and place rows exactly where we do (docs/format.md, "Fixed buckets")."""
from __future__ import annotations

import random
import string
from typing import Dict, List, Tuple

import pyarrow as pa
import pytest

import ours

pytestmark = pytest.mark.native

N_KEYS = 100_000


def _keys(kind: str, n: int, seed: int = 7) -> pa.Table:
    rng = random.Random(seed)
    ints = [rng.randrange(-2**62, 2**62) for _ in range(n)]
    if kind == "int":
        return pa.table({"k": pa.array(ints, pa.int64()), "v": pa.array(range(n), pa.int64())})
    words = ["".join(rng.choices(string.ascii_letters + "é✓", k=rng.randrange(0, 24)))
             for _ in range(n)]
    if kind == "string":
        return pa.table({"k": pa.array(words, pa.string()), "v": pa.array(range(n), pa.int64())})
    return pa.table({"k": pa.array([i % 1000 for i in ints], pa.int32()),
                     "s": pa.array(words, pa.string()), "v": pa.array(range(n), pa.int64())})


KEYS = {"int": ["k"], "string": ["k"], "pair": ["k", "s"]}


def _options(kind: str, buckets: int = 8, **extra) -> Dict[str, str]:
    return {"bucket": str(buckets), "bucket-key": ",".join(KEYS[kind]), **extra}


def _placement(table, key_cols: List[str]) -> Dict[Tuple, int]:
    """Key values -> the bucket of the split our reader found them in."""
    rb = table.new_read_builder().with_projection(key_cols)
    out: Dict[Tuple, int] = {}
    for split in rb.new_scan().plan().splits():
        t = rb.new_read().to_arrow([split])
        for row in zip(*(t.column(c).to_pylist() for c in key_cols)):
            out[row] = split.bucket
    return out


@pytest.fixture(scope="module")
def written(native, oracle, tmp_path_factory):
    """For each key kind, the same 100k rows written by pypaimon (db.<kind>_py) and by us
    (db.<kind>_ours) into 8-bucket tables."""
    warehouse = str(tmp_path_factory.mktemp("fixed_bucket") / "warehouse")
    data = {kind: _keys(kind, N_KEYS) for kind in KEYS}
    cmds = []
    for kind, t in data.items():
        cmds.append(oracle.create_table_cmd(warehouse, f"db.{kind}_py", t.schema,
                                            options=_options(kind)))
        cmds.append(oracle.write_cmd(warehouse, f"db.{kind}_py", t))
    oracle.run_all(cmds)
    for kind, t in data.items():
        ours.write(ours.create_table(warehouse, f"{kind}_ours", t.schema, _options(kind)), t)
    return warehouse, data


@pytest.mark.parametrize("kind", list(KEYS))
def test_every_key_lands_where_pypaimon_puts_it(written, kind):
    warehouse, data = written
    cat = ours.catalog(warehouse)
    theirs = _placement(cat.get_table(f"db.{kind}_py"), KEYS[kind])
    mine = _placement(cat.get_table(f"db.{kind}_ours"), KEYS[kind])
    assert len(mine) == len(theirs) > N_KEYS * 0.8  # (short random strings repeat)
    assert mine == theirs
    assert set(mine.values()) == set(range(8))


@pytest.mark.parametrize("kind", list(KEYS))
def test_pypaimon_reads_and_prunes_our_buckets(written, oracle, kind):
    """pypaimon skips every bucket but the key's one for an equality filter, so a row we put
    in the wrong bucket would be missing from its filtered read."""
    warehouse, data = written
    t = data[kind]
    full = oracle.read(warehouse, f"db.{kind}_ours")
    assert full.num_rows == N_KEYS
    assert sorted(full.column("v").to_pylist()) == list(range(N_KEYS))
    rows = t.to_pylist()
    sample = random.Random(3).sample(rows, 25)
    specs = []
    for row in sample:
        leaves = [["equal", c, [row[c]]] for c in KEYS[kind]]
        specs.append({"filter": leaves[0] if len(leaves) == 1 else ["and", leaves]})
    for row, got in zip(sample, oracle.read_many(warehouse, f"db.{kind}_ours", specs)):
        assert row["v"] in got.column("v").to_pylist(), row


def test_our_equality_filter_reads_one_bucket(written):
    warehouse, data = written
    from paimon_rowid import CatalogFactory
    table = CatalogFactory.create({"warehouse": warehouse}).get_table("db.int_ours")
    rb = table.new_read_builder()
    pb = rb.new_predicate_builder()
    key = data["int"].column("k")[123].as_py()
    splits = rb.with_filter(pb.equal("k", key)).new_scan().plan().splits()
    assert len({s.bucket for s in splits}) == 1
    got = rb.with_filter(pb.equal("k", key)).new_read().to_arrow(splits)
    assert 123 in got.column("v").to_pylist()
    keys = [data["int"].column("k")[i].as_py() for i in (1, 2, 3)]
    splits = rb.with_filter(pb.is_in("k", keys)).new_scan().plan().splits()
    assert 1 <= len({s.bucket for s in splits}) <= 3
    got = rb.with_filter(pb.is_in("k", keys)).new_read().to_arrow(splits)
    assert {1, 2, 3} <= set(got.column("v").to_pylist())
    # A range predicate prunes nothing.
    splits = rb.with_filter(pb.greater_than("k", 0)).new_scan().plan().splits()
    assert {s.bucket for s in splits} == set(range(8))


def test_partitioned_fixed_bucket_table_matches_pypaimon(native, oracle, warehouse):
    rng = random.Random(11)
    n = 20_000
    t = pa.table({"dt": pa.array([rng.choice(["2026-01-01", "2026-01-02", "x/y"])
                                  for _ in range(n)]),
                  "k": pa.array([rng.randrange(10**9) for _ in range(n)], pa.int64()),
                  "v": pa.array(range(n), pa.int64())})
    opts = {"bucket": "5", "bucket-key": "k"}
    oracle.run_all([oracle.create_table_cmd(warehouse, "db.py", t.schema, partition_keys=["dt"],
                                            options=opts),
                    oracle.write_cmd(warehouse, "db.py", t)])
    ours.write(ours.create_table(warehouse, "mine", t.schema, opts, partition_keys=["dt"]), t)
    cat = ours.catalog(warehouse)
    assert (_placement(cat.get_table("db.mine"), ["dt", "k"])
            == _placement(cat.get_table("db.py"), ["dt", "k"]))
    got = oracle.read(warehouse, "db.mine")
    assert sorted(got.column("v").to_pylist()) == list(range(n))
    files = oracle.files(warehouse, "db.mine")["data_files"]
    assert all("/bucket-" in f and f.startswith("dt=") for f in files)
    assert "dt=x%2Fy" in {f.split("/")[0] for f in files}


@pytest.mark.parametrize("options, error", [
    ({"bucket": "4"}, "You should define a 'bucket-key' for bucketed append mode"),
    ({"bucket-key": "k"}, "Cannot define 'bucket-key' with bucket = -1"),
    ({"bucket": "0", "bucket-key": "k"}, "The number of buckets needs to be greater than 0"),
    ({"bucket": "4", "bucket-key": "nope"}, "should contains all bucket keys"),
    ({"bucket": "4", "bucket-key": "dt"}, "should not in partition keys"),
    ({"bucket": "4", "bucket-key": "s", "bucket-function.type": "mod"},
     "bucket key type must be INT or BIGINT in mod bucket function"),
    ({"bucket": "4", "bucket-key": "k", "bucket-function.type": "crc"},
     "bucket-function.type"),
    ({"bucket": "4", "bucket-key": "k", "row-tracking.enabled": "true"},
     "Cannot define bucket for row tracking table"),
])
def test_invalid_bucket_layouts_are_refused(native, warehouse, options, error):
    schema = pa.schema([("dt", pa.string()), ("k", pa.int64()), ("s", pa.string())])
    with pytest.raises(ValueError, match=error):
        ours.create_table(warehouse, "bad", schema, options, partition_keys=["dt"])
    assert not ours.catalog(warehouse).list_tables("db")


def test_mod_bucket_function_is_honoured(native, warehouse):
    """Java's `mod` function: bucket = floorMod(key, n). pypaimon ignores the option and
    hashes; we do what Java does (docs/format.md)."""
    t = pa.table({"k": pa.array([-7, -1, 0, 3, 10, 11, 2**40], pa.int64()),
                  "v": pa.array(range(7), pa.int64())})
    table = ours.create_table(warehouse, "m", t.schema,
                              {"bucket": "4", "bucket-key": "k", "bucket-function.type": "mod"})
    ours.write(table, t)
    placement = _placement(table, ["k"])
    assert placement == {(k,): k % 4 for k in t.column("k").to_pylist()}


# ------------------------------------------------------------------------------ Java Paimon

JAVA_TYPES = {"int": [("k", "BIGINT"), ("v", "BIGINT")],
              "string": [("k", "STRING"), ("v", "BIGINT")],
              "pair": [("k", "INT"), ("s", "STRING"), ("v", "BIGINT")]}


@pytest.mark.java
@pytest.mark.parametrize("kind, function", [("int", None), ("string", None), ("pair", None),
                                            ("int", "mod")])
def test_java_places_keys_where_we_do(written, java, kind, function):
    """Java writes the same rows into a table of the same layout (its own bucket function,
    `mod` included, which pypaimon ignores); every key is in the same bucket as in ours, Java
    reads all of our table, and Java's bucket-pruned reads of it find the rows."""
    warehouse, data = written
    t = data[kind]
    n = N_KEYS if function is None else 5_000
    rows = t.slice(0, n).to_pylist()
    extra = {} if function is None else {"bucket-function.type": function}
    name = f"{kind}_java" + ("" if function is None else f"_{function}")
    fields = [{"name": c, "type": ty} for c, ty in JAVA_TYPES[kind]]
    java.run_all([java.create_table_cmd(warehouse, f"db.{name}", fields,
                                        options=_options(kind, **extra)),
                  java.write_cmd(warehouse, f"db.{name}", rows)])
    cat = ours.catalog(warehouse)
    theirs = _placement(cat.get_table(f"db.{name}"), KEYS[kind])
    if function is None:
        mine = _placement(cat.get_table(f"db.{kind}_ours"), KEYS[kind])
        assert all(mine[key] == bucket for key, bucket in theirs.items())
    else:
        mine_table = ours.create_table(warehouse, f"{name}_ours", t.schema,
                                       _options(kind, **extra))
        ours.write(mine_table, t.slice(0, n))
        assert _placement(mine_table, KEYS[kind]) == theirs
        assert theirs == {(k,): k % 8 for (k,) in theirs}
    if function is None:  # Java reads our whole table
        dump = java.dump(warehouse, f"db.{kind}_ours", projection=["v"])
        assert sorted(dump.column("v")) == list(range(N_KEYS))
    if kind != "pair":  # the oracle's filter is one comparison
        sample = random.Random(5).sample(rows, 10)
        dumps = java.dump_many(warehouse, f"db.{kind}_ours",
                               [{"projection": ["k", "v"], "filter": ["equal", "k", [r["k"]]]}
                                for r in sample])
        for row, dump in zip(sample, dumps):
            assert row["v"] in dump.column("v"), row
