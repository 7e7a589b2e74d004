"""docs/ray-cluster.md's example runs as written on a multi-node local Ray cluster (issue 47
§4): a head and two worker nodes of one CPU each (``ray.cluster_utils.Cluster``), the
driver joining it through ``RAY_ADDRESS`` as the page says, the warehouse on the local S3
server (the page's placeholder endpoint, bucket and keys replaced by the server's, as
tests/test_docs_blocks.py does for every page on an object store).

The cluster cannot share a process with the session's ``ray.init`` (conftest's
``ray_session``), so the page runs in a child Python process (this file run as a script),
which prints the page's output and what the driver saw of the cluster as one JSON line; the
test asserts on that and on the table, read with the embedded reader.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.native, pytest.mark.ray, pytest.mark.s3]

REPO = Path(__file__).resolve().parents[1]
PAGE = "docs/ray-cluster.md"


def _child(endpoint: str, warehouse_uri: str, local_dir: str) -> None:
    import ray
    from ray.cluster_utils import Cluster

    from test_docs_blocks import run_page
    store = 100 * 1024 * 1024
    cluster = Cluster(initialize_head=True, connect=False, head_node_args={
        "num_cpus": 1, "object_store_memory": store, "include_dashboard": False})
    for _ in range(2):
        cluster.add_node(num_cpus=1, object_store_memory=store)
    cluster.wait_for_nodes()
    os.environ["RAY_ADDRESS"] = cluster.address
    try:
        _, out = run_page(PAGE, Path(local_dir), (endpoint, warehouse_uri))
        print(json.dumps({"stdout": out.splitlines(),
                          "nodes": sum(1 for n in ray.nodes() if n["Alive"]),
                          "cpus": ray.cluster_resources().get("CPU")}), flush=True)
    finally:
        ray.shutdown()
        cluster.shutdown()


def test_ray_cluster_page_runs_on_a_three_node_cluster(tmp_path, native, s3_server):
    import paimon_rowid
    from paimon_rowid import CatalogFactory
    warehouse = s3_server.fresh_warehouse("ray-cluster-docs")
    env = dict(os.environ)
    # The child and every node's workers import the paimon_rowid this session tests.
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(paimon_rowid.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(
        [package_root, str(REPO / "tests")] + ([env["PYTHONPATH"]]
                                               if env.get("PYTHONPATH") else []))
    env.pop("RAY_ADDRESS", None)
    proc = subprocess.run([sys.executable, __file__, s3_server.endpoint, warehouse,
                           str(tmp_path / "local")], env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    assert proc.returncode == 0 and lines, (
        f"child exited {proc.returncode}\nstdout:\n{proc.stdout[-3000:]}\n"
        f"stderr:\n{proc.stderr[-6000:]}")
    report = json.loads(lines[-1])
    # The driver ran on the cluster of three one-CPU nodes, not on a Ray of its own.
    assert report["nodes"] == 3 and report["cpus"] == 3, report
    # The page's printed results are what its comments say.
    assert report["stdout"] == ["1000", "[3, 7, 9]"], report
    options = s3_server.catalog_options(warehouse)
    table = CatalogFactory.create(options).get_table("db.docs")
    rb = table.new_read_builder().with_projection(["id", "text", "text_len"])
    rows = rb.new_read().to_arrow(rb.new_scan().plan().splits()).sort_by("id").to_pydict()
    assert rows["id"] == list(range(1000))
    assert rows["text_len"] == [len(t) for t in rows["text"]] == [i % 10 for i in range(1000)]
    # One snapshot for the write (one block: one task, one file group of 1,000 rows) and one
    # for the backfill's one batch (whole groups, never split), nothing more.
    assert table.latest_snapshot()["id"] == 2


if __name__ == "__main__":
    _child(sys.argv[1], sys.argv[2], sys.argv[3])
