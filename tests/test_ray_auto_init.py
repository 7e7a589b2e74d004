"""Every ``paimon_rowid.ray`` call starts Ray by itself when the caller has not called
``ray.init()``, as Ray Data does (``ray/_runtime.py``: ``start_ray``, ``cluster_cpus``; docs
ray-cluster.md section 3). The session's Ray is already up in this process, so each door runs
in a fresh driver process of its own, which checks Ray is not initialized before the call,
runs it with no sizing argument (the default task count reads the cluster's CPUs, the call
Ray does not auto-init for), and prints its result; ``RAY_ADDRESS=local`` makes the bare
``ray.init()`` start a private local Ray rather than join a cluster another run has up."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

import ours

pytest.importorskip("ray")

pytestmark = pytest.mark.native

TESTS = Path(__file__).resolve().parent

PRELUDE = """
import json, sys
import pyarrow as pa
import ray
import paimon_rowid.ray as pr
opts = {"warehouse": sys.argv[1]}
assert not ray.is_initialized()
"""

EPILOGUE = """
print("RESULT " + json.dumps({"result": result, "started": ray.is_initialized()}), flush=True)
"""

#: One door each: the call (no num_partitions / num_tasks) and a JSON-able ``result``.
DOORS = {
    "compact": """
out = pr.compact("db.t", opts, full=True)
result = [out["groups_compacted"], out["files_written"], out["snapshot_id"] is not None]
""",
    "create_global_index": """
result = pr.create_global_index("db.t", opts, "id")
from paimon_rowid import CatalogFactory
from paimon_rowid.global_index import lookup_global_index
table = CatalogFactory.create(opts).get_table("db.t")
result = [result, sorted(lookup_global_index(table, "id", [3, 17, 28]).row_ids)]
""",
    "backfill": """
import pyarrow.compute as pc
out = pr.backfill("db.t", opts, column="name", fn=lambda b: pc.utf8_upper(b.column("name")),
                  input_columns=["name"], only_null=False, progress=False)
result = [out.rows_computed, out.commits]
""",
    "create_search_index": """
result = pr.create_search_index("db.t", opts, "emb", "ivf-flat")
""",
    "batch_vector_search": """
out = pr.batch_vector_search("db.t", opts, "emb", [[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]], 3)
result = [out[0].row_ids, out[1].row_ids]
""",
    "bucket_join": """
ds = pr.bucket_join("db.l", "db.r", opts, on="k", ray_remote_args={"num_cpus": 1})
result = sorted([r["k"], r["a"], r["b"]] for r in ds.take_all())
""",
    "compact_refused": """
try:
    pr.compact("db.t", opts, full=True)
    result = None
except Exception as error:  # noqa: BLE001 - the type is the result
    result = [type(error).__module__, type(error).__name__]
""",
    "update_by_row_id": """
pr.update_by_row_id("db.t", pa.table({"_ROW_ID": pa.array([5], pa.int64()), "name": ["z"]}),
                    opts, update_cols=["name"])
result = 1
""",
    "read_by_row_id": """
ds = pr.read_by_row_id("db.t", pa.array([2, 11, 29], pa.int64()), opts,
                       projection=["id", "name"])
result = sorted((r["id"], r["name"]) for r in ds.take_all())
""",
}


def _warehouse(path: Path) -> str:
    """db.t: ids 0..29 in three commits, then an update of rows 1 and 21 (two groups with
    two files each, so a full compaction has work)."""
    from paimon_rowid import update_by_row_id
    ours.three_commit_table(path)
    update_by_row_id("db.t", pa.table({"_ROW_ID": pa.array([1, 21], pa.int64()),
                                       "name": ["u1", "u21"]}),
                     {"warehouse": str(path)}, update_cols=["name"])
    return str(path)


def run_door(door: str, warehouse: str, auto_connect: bool = True
             ) -> subprocess.CompletedProcess:
    """``door`` in a fresh driver process with Ray not initialized (``auto_connect=False``:
    with ``RAY_ENABLE_AUTO_CONNECT=0``, Ray's switch for its auto-init)."""
    import paimon_rowid
    env = dict(os.environ)
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(paimon_rowid.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(
        [package_root, str(TESTS)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env["RAY_ADDRESS"] = "local"
    env.pop("RAY_ENABLE_AUTO_CONNECT", None)
    if not auto_connect:
        env["RAY_ENABLE_AUTO_CONNECT"] = "0"
    return subprocess.run([sys.executable, "-c", PRELUDE + DOORS[door] + EPILOGUE, warehouse],
                          env=env, capture_output=True, text=True, timeout=240, check=False)


def _result(proc: subprocess.CompletedProcess, started: bool = True):
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert proc.returncode == 0 and lines, (
        f"exited {proc.returncode}\nstdout:\n{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-6000:]}")
    out = json.loads(lines[-1][len("RESULT "):])
    assert out["started"] is started  # Ray was not up before the call
    return out["result"]


def test_ray_compact_starts_ray(tmp_path):
    warehouse = _warehouse(tmp_path / "wh")
    groups, written, committed = _result(run_door("compact", warehouse))
    assert (groups, written, committed) == (2, 2, True)
    table = ours.catalog(warehouse).get_table("db.t")
    assert table.latest_snapshot().commit_kind == "COMPACT"
    builder = table.new_read_builder().with_projection(["_ROW_ID", "name"])
    names = builder.new_read().to_arrow(builder.new_scan().plan().splits()).sort_by("_ROW_ID")
    assert names.column("name").to_pylist() == [
        {1: "u1", 21: "u21"}.get(i, f"n{i}") for i in range(30)]


def test_ray_create_global_index_starts_ray(tmp_path):
    warehouse = _warehouse(tmp_path / "wh")
    files, row_ids = _result(run_door("create_global_index", warehouse))
    assert files >= 1 and row_ids == [3, 17, 28]


def test_ray_read_by_row_id_starts_ray(tmp_path):
    """A door that already started Ray through Ray's own auto-init keeps doing so."""
    warehouse = _warehouse(tmp_path / "wh")
    got = _result(run_door("read_by_row_id", warehouse))
    assert got == [[2, "n2"], [11, "n11"], [29, "n29"]]


def test_ray_backfill_starts_ray(tmp_path):
    warehouse = _warehouse(tmp_path / "wh")
    assert _result(run_door("backfill", warehouse)) == [30, 1]
    table = ours.catalog(warehouse).get_table("db.t")
    builder = table.new_read_builder().with_projection(["_ROW_ID", "name"])
    names = builder.new_read().to_arrow(builder.new_scan().plan().splits()).sort_by("_ROW_ID")
    assert names.column("name").to_pylist() == [
        {1: "U1", 21: "U21"}.get(i, f"N{i}") for i in range(30)]


def test_ray_create_search_index_starts_ray(tmp_path):
    pytest.importorskip("paimon_vindex")
    from test_search import _table
    _table(tmp_path / "wh", n=300)
    assert _result(run_door("create_search_index", str(tmp_path / "wh"))) == 1
    entries = ours.catalog(tmp_path / "wh").get_table("db.t")
    from paimon_rowid.global_index import list_global_indexes
    assert [e["index_type"] for e in list_global_indexes(entries)] == ["ivf-flat"]


def test_ray_batch_vector_search_starts_ray(tmp_path):
    """``batch_vector_search`` with no ``num_tasks`` sizes its tasks by the cluster's CPUs:
    it starts Ray itself and answers as the embedded batch search does."""
    pytest.importorskip("paimon_vindex")
    schema = pa.schema([("id", pa.int64()), ("emb", pa.list_(pa.float32(), 4))])
    table = ours.create_table(tmp_path, "t", schema, {"row-tracking.enabled": "true",
                                                      "data-evolution.enabled": "true"})
    vectors = [[float(i % 4 == j) * (1 + i / 100) for j in range(4)] for i in range(40)]
    ours.write(table, pa.table({"id": pa.array(range(40), pa.int64()),
                                "emb": pa.array(vectors, schema.field("emb").type)}))
    table = ours.catalog(tmp_path).get_table("db.t")
    assert table.create_global_index("emb", index_type="ivf-flat") == 1
    got = _result(run_door("batch_vector_search", str(tmp_path)))
    embedded = (table.new_batch_vector_search_builder().with_vector_column("emb")
                .with_query_vectors([[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]])
                .with_limit(3).execute_batch_local())
    assert got == [r.row_ids for r in embedded]
    assert got == [[36, 32, 28], [39, 35, 31]]


def test_ray_update_on_the_driver_starts_no_ray(tmp_path):
    """A row-id update small enough to run in the driver's process needs no Ray: it runs
    without starting one (sizing its tasks, which would, comes after that check)."""
    warehouse = _warehouse(tmp_path / "wh")
    assert _result(run_door("update_by_row_id", warehouse), started=False) == 1
    table = ours.catalog(warehouse).get_table("db.t")
    builder = table.new_read_builder().with_projection(["_ROW_ID", "name"])
    names = builder.new_read().to_arrow(builder.new_scan().plan().splits()).sort_by("_ROW_ID")
    assert names.column("name").to_pylist()[5] == "z"


def test_ray_bucket_join_in_tasks_starts_ray(tmp_path):
    """``ray_remote_args`` sends the join to read tasks, sized by the cluster's CPUs."""
    options = {"bucket": "2", "bucket-key": "k"}
    left = ours.create_table(tmp_path, "l", pa.schema([("k", pa.int64()), ("a", pa.string())]),
                             options)
    right = ours.create_table(tmp_path, "r", pa.schema([("k", pa.int64()), ("b", pa.string())]),
                              options)
    ours.write(left, pa.table({"k": pa.array(range(10), pa.int64()),
                               "a": [f"a{i}" for i in range(10)]}))
    ours.write(right, pa.table({"k": pa.array(range(5, 15), pa.int64()),
                                "b": [f"b{i}" for i in range(5, 15)]}))
    got = _result(run_door("bucket_join", str(tmp_path)))
    assert got == [[k, f"a{k}", f"b{k}"] for k in range(5, 10)]


def test_ray_compact_without_auto_connect_fails_clean(tmp_path):
    """``RAY_ENABLE_AUTO_CONNECT=0`` turns Ray's auto-init off, and ours with it: ``compact``
    raises Ray's own ``RaySystemError`` before any task, leaving no file and no commit."""
    warehouse = _warehouse(tmp_path / "wh")
    before = ours.files(warehouse)
    got = _result(run_door("compact_refused", warehouse, auto_connect=False), started=False)
    assert got == ["ray.exceptions", "RaySystemError"]
    assert ours.files(warehouse) == before
