"""paimon_rowid.ray.update_by_row_id and write_paimon on a local multi-node Ray cluster
(``ray.cluster_utils.Cluster``: a head and two worker nodes, one CPU and 100 MB of object
store each) when a worker node is killed in the middle of the update.

The cluster cannot share a process with the session's ``ray.init`` (conftest's
``ray_session``), so the scenario runs in a child Python process (this file run as a script)
that prints one JSON line per scenario; the test asserts on that and on the warehouse it
leaves behind, read with the embedded reader.

How the kill lands mid-update, deterministically: every task of the update needs the custom
resource ``rowid_worker`` that only the two worker nodes have (one each), the update is cut
into two apply tasks (``num_partitions=2``), and the test seam ``TaskHooks(after_apply=
HoldWhileExists(hold))`` (ray/_task_hooks.py, passed as ``_hooks``) makes each apply task
wait, after writing its files and before returning, while a hold file exists. A watcher
thread waits until both apply tasks have written their files (one per file group, so both are
held, one on each worker node), removes one worker node (every process of it killed, no
graceful shutdown), and then deletes the hold file so the survivor (and a retry) go on at once.

- ``retries``: Ray's default ``max_retries`` re-runs the lost apply task on the surviving
  node. Exactly one new snapshot, every row equal to the expected update, and the killed
  attempt's files (written, never returned) written over by the retry (same names): every
  data file on disk is live.
- ``no-retries``: ``ray_remote_args={"max_retries": 0}``: a clear Ray error naming the lost
  worker, no new snapshot, and the table directory exactly as before (the surviving apply
  task's files and the killed attempt's files all deleted).
- ``write-retries``: ``write_paimon`` of one block; the seam ``TaskHooks(after_write=
  HoldWhileExists(hold, report_node=True))`` holds the write task after its file is written
  and before it reports it, and names its node; that node is removed. Ray re-runs the task on
  the other worker node: one commit with every row once, the killed attempt's file written
  over by the retry.

Each scenario runs twice: with a local warehouse, and with the warehouse on the local S3
server (conftest's ``s3_server``, moto in server mode; marker ``s3``). The child gets the
catalog options (endpoint, keys) as JSON in its arguments; the pickled table carries them to
every worker node, and every node reads and writes the warehouse only through its FileIO.
The hold files of the test seam stay on the local disk that all nodes of a local cluster
share. On S3 the watcher sees a task's file once its PUT completed (a listing with boto3,
the test's, never the job's), and the test asserts that the bucket holds no object that
no snapshot references (pypaimon's view of every snapshot's files, the oracle's ``files``),
and for ``no-retries`` exactly the objects it held before.
"""
from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pyarrow as pa
import pytest

pytestmark = pytest.mark.native

REPO = Path(__file__).resolve().parents[1]
OPTS = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
COMMITS, ROWS = 4, 30                      # four file groups of 30 rows: ids 0..119
UPDATED = [1, 7, 29, 30, 44, 61, 90, 119]  # in every group
METADATA_DIRS = {"snapshot", "manifest", "schema", "index", "tag"}
SCENARIOS = {"retries": "db.a", "no-retries": "db.b", "write-retries": "db.w"}
WRITTEN = list(range(1000, 1040))  # write-retries appends these ids in two blocks


SCHEMA = pa.schema([("id", pa.int64()), ("x", pa.float64()), ("n", pa.int32())])


def _initial(ids: list[int]) -> pa.Table:
    return pa.table({"id": ids, "x": [float(i) for i in ids], "n": [i % 7 for i in ids]},
                    schema=SCHEMA)


def _update_source() -> pa.Table:
    return pa.table({"_ROW_ID": pa.array(UPDATED, pa.int64()),
                     "x": [-1000.0 - i for i in UPDATED]})


def _is_s3(path: str) -> bool:
    return path.startswith(("s3://", "s3a://"))


@functools.cache
def _s3_client(endpoint: str):
    from s3_server import client_for
    return client_for(endpoint)  # one per process: the watcher polls with it


def _s3_keys(table_path: str, options: dict) -> list[str]:
    """Every object under the table (a boto3 listing: the test's, never the job's), relative
    to the table; empty directory markers left out."""
    from s3_server import split_uri
    bucket, prefix = split_uri(table_path.rstrip("/") + "/")
    pages = _s3_client(options["fs.s3.endpoint"]).get_paginator("list_objects_v2").paginate(
        Bucket=bucket, Prefix=prefix)
    return sorted(item["Key"][len(prefix):] for page in pages
                  for item in page.get("Contents", []) if not item["Key"].endswith("/"))


def _data_files(table_path: str, options: dict | None = None) -> list[str]:
    """Every file under the table's data directories, relative to the table."""
    if _is_s3(table_path):
        return [k for k in _s3_keys(table_path, options or {})
                if k.split("/", 1)[0] not in METADATA_DIRS]
    out = []
    for root, dirs, names in os.walk(table_path):
        if root == table_path:
            dirs[:] = [d for d in dirs if d not in METADATA_DIRS]
        out.extend(os.path.relpath(os.path.join(root, n), table_path) for n in names)
    return sorted(out)


# ------------------------------------------------------------------------- child process

def _make_tables(options: dict) -> None:
    from paimon_rowid import CatalogFactory, Schema
    catalog = CatalogFactory.create(options)
    catalog.create_database("db", True)
    for identifier in SCENARIOS.values():
        catalog.create_table(identifier, Schema.from_pyarrow_schema(SCHEMA, options=OPTS), False)
        table = catalog.get_table(identifier)
        for c in range(COMMITS):
            builder = table.new_batch_write_builder()
            write, commit = builder.new_write(), builder.new_commit()
            write.write_arrow(_initial(list(range(c * ROWS, (c + 1) * ROWS))))
            commit.commit(write.prepare_commit())
            write.close()


def _kill_when_both_held(cluster, victim, table_path: str, options: dict, before: list[str],
                         hold: str, report: dict, files: int = COMMITS) -> None:
    """Removes ``victim`` once both tasks have written their ``files`` files (an update: one
    per group): both are held, one on each worker node. Then releases them."""
    deadline = time.monotonic() + 60
    new: list[str] = []
    # Wait until both tasks have written their files.
    while time.monotonic() < deadline:
        new = sorted(set(_data_files(table_path, options)) - set(before))
        if len(new) >= files:
            break
        time.sleep(0.1 if _is_s3(table_path) else 0.02)
    report["files_when_killed"] = new
    report["killed_at"] = time.monotonic()
    cluster.remove_node(victim, allow_graceful=False)
    report["kill_done_at"] = time.monotonic()
    # Release the survivor only once Ray knows the node is dead: the lost task is then
    # failed (or retried) by Ray, never answered late by a half-dead worker.
    import ray
    while time.monotonic() < deadline and any(
            n["NodeID"] == victim.node_id and n["Alive"] for n in ray.nodes()):
        time.sleep(0.05)
    report["victim_dead"] = not any(n["NodeID"] == victim.node_id and n["Alive"]
                                    for n in ray.nodes())
    os.remove(hold)


def _initial_report(name: str, table, options: dict) -> dict:
    report: dict = {"scenario": name, "snapshot_before": table.latest_snapshot()["id"],
                    "files_before": _data_files(table.path, options)}
    if _is_s3(table.path):
        report["keys_before"] = _s3_keys(table.path, options)
    return report


def _scenario(cluster, victim, options: dict, hold_dir: str, name: str) -> dict:
    from paimon_rowid import CatalogFactory
    from paimon_rowid.ray import update_by_row_id
    from paimon_rowid.ray._task_hooks import HoldWhileExists, TaskHooks
    identifier = SCENARIOS[name]
    table = CatalogFactory.create(options).get_table(identifier)
    report = _initial_report(name, table, options)
    before = report["files_before"]
    remote_args: dict = {"resources": {"rowid_worker": 1}}
    if name == "no-retries":
        remote_args["max_retries"] = 0
    hold = str(Path(hold_dir) / f"hold-apply-{name}")
    Path(hold).touch()
    killer = threading.Thread(target=_kill_when_both_held,
                              args=(cluster, victim, table.path, options, before, hold, report))
    return _run_while_killing(killer, report, lambda: update_by_row_id(
        identifier, _update_source(), options, update_cols=["x"],
        num_partitions=2, ray_remote_args=remote_args,
        _hooks=TaskHooks(after_apply=HoldWhileExists(hold))))


def _run_while_killing(killer: threading.Thread, report: dict, job) -> dict:
    """Starts ``killer``, runs ``job`` and records its result or error, the times and the
    nodes still alive in ``report``."""
    import ray
    killer.start()
    report["started_at"] = time.monotonic()
    try:
        report["result"] = job()
    except Exception as error:  # noqa: BLE001 - reported to the test
        report["error_mro"] = [c.__name__ for c in type(error).__mro__]
        report["error"] = str(error)
    report["returned_at"] = time.monotonic()
    killer.join()
    report["alive_nodes"] = sum(1 for n in ray.nodes() if n["Alive"])
    return report


def _kill_write_node(cluster, workers, table_path: str, options: dict, before: list[str],
                     hold: str, report: dict) -> None:
    """Removes the worker node whose write task has written its file and is held before
    reporting it (the hook names the node in ``hold + ".node"``). Then releases it."""
    deadline = time.monotonic() + 60
    node_file = hold + ".node"
    new: list[str] = []
    while time.monotonic() < deadline:
        new = sorted(set(_data_files(table_path, options)) - set(before))
        if new and os.path.exists(node_file) and os.path.getsize(node_file):
            break
        time.sleep(0.1 if _is_s3(table_path) else 0.02)
    report["files_when_killed"] = new
    node_id = Path(node_file).read_text() if os.path.exists(node_file) else ""
    victims = [w for w in workers if w.node_id == node_id]
    report["victim_found"] = bool(victims)
    report["killed_at"] = time.monotonic()
    import ray
    if victims:
        cluster.remove_node(victims[0], allow_graceful=False)
        while time.monotonic() < deadline and any(
                n["NodeID"] == node_id and n["Alive"] for n in ray.nodes()):
            time.sleep(0.05)
    report["victim_dead"] = not any(n["NodeID"] == node_id and n["Alive"] for n in ray.nodes())
    os.remove(hold)


def _write_scenario(cluster, workers, options: dict, hold_dir: str) -> dict:
    """write_paimon of one block (one write task, on a worker node); that node removed once
    the task wrote its file and before it reports it."""
    import ray

    from paimon_rowid import CatalogFactory
    from paimon_rowid.ray import write_paimon
    from paimon_rowid.ray._task_hooks import HoldWhileExists, TaskHooks
    identifier = SCENARIOS["write-retries"]
    table = CatalogFactory.create(options).get_table(identifier)
    report = _initial_report("write-retries", table, options)
    before = report["files_before"]
    hold = str(Path(hold_dir) / "hold-write")
    Path(hold).touch()
    killer = threading.Thread(target=_kill_write_node,
                              args=(cluster, workers, table.path, options, before, hold, report))
    ds = ray.data.from_arrow(_initial(WRITTEN))

    def write() -> list:
        result = write_paimon(ds, identifier, options,
                              ray_remote_args={"resources": {"rowid_worker": 1}},
                              _hooks=TaskHooks(after_write=HoldWhileExists(hold,
                                                                           report_node=True)))
        return [result.row_count, result.snapshot_id]

    return _run_while_killing(killer, report, write)


def _child(options: dict, hold_dir: str) -> None:
    import ray
    from ray.cluster_utils import Cluster
    _make_tables(options)
    store = 100 * 1024 * 1024
    cluster = Cluster(initialize_head=True, connect=True, head_node_args={
        "num_cpus": 1, "object_store_memory": store, "include_dashboard": False,
        # Detect a dead node in about a second instead of the default 30 s.
        "_system_config": {"health_check_initial_delay_ms": 0, "health_check_period_ms": 100,
                           "health_check_failure_threshold": 10,
                           "task_retry_delay_ms": 100}})
    workers = [cluster.add_node(num_cpus=1, object_store_memory=store,
                                resources={"rowid_worker": 1}) for _ in range(2)]
    cluster.wait_for_nodes()
    try:
        print(json.dumps(_scenario(cluster, workers[0], options, hold_dir, "retries")),
              flush=True)
        # A fresh second worker node, then the same kill with retries disabled.
        workers.append(cluster.add_node(num_cpus=1, object_store_memory=store,
                                        resources={"rowid_worker": 1}))
        cluster.wait_for_nodes()
        print(json.dumps(_scenario(cluster, workers[1], options, hold_dir, "no-retries")),
              flush=True)
        workers.append(cluster.add_node(num_cpus=1, object_store_memory=store,
                                        resources={"rowid_worker": 1}))
        cluster.wait_for_nodes()
        print(json.dumps(_write_scenario(cluster, workers[-2:], options, hold_dir)),
              flush=True)
    finally:
        ray.shutdown()
        cluster.shutdown()


# ------------------------------------------------------------------------- the test

def _run_child(options: dict, hold_dir: str) -> dict[str, dict]:
    import paimon_rowid
    env = dict(os.environ)
    # The child (and its Ray workers) must import the paimon_rowid this session tests: the
    # installed package in CI, the source tree's python/ in development.
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(paimon_rowid.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(
        [package_root, str(REPO / "tests")] + ([env["PYTHONPATH"]]
                                               if env.get("PYTHONPATH") else []))
    env.pop("RAY_ADDRESS", None)
    proc = subprocess.run([sys.executable, __file__, json.dumps(options), hold_dir], env=env,
                          capture_output=True, text=True, timeout=240, check=False)
    reports = {}
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            report = json.loads(line)
            reports[report["scenario"]] = report
    assert proc.returncode == 0 and set(reports) == set(SCENARIOS), (
        f"child exited {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr[-6000:]}")
    return reports


def _rows(options: dict, identifier: str) -> dict[int, tuple]:
    from paimon_rowid import CatalogFactory
    table = CatalogFactory.create(options).get_table(identifier)
    builder = table.new_read_builder().with_projection(["_ROW_ID", "id", "x", "n"])
    got = builder.new_read().to_arrow(builder.new_scan().plan().splits())
    return {r["_ROW_ID"]: (r["id"], r["x"], r["n"]) for r in got.to_pylist()}


def _live_files(options: dict, identifier: str) -> list[str]:
    from paimon_rowid import CatalogFactory
    table = CatalogFactory.create(options).get_table(identifier)
    splits = table.new_read_builder().new_scan().plan().splits()
    root = table.path.rstrip("/") + "/"
    assert all(p.startswith(root) for s in splits for p in s.file_paths)
    return sorted(p[len(root):] for s in splits for p in s.file_paths)


def _assert_killed_mid_update(report: dict) -> None:
    assert len(report["files_when_killed"]) == COMMITS, report  # both apply tasks wrote
    assert report["started_at"] < report["killed_at"] < report["returned_at"], report
    assert report["victim_dead"] and report["alive_nodes"] == 2, report  # head + survivor


@pytest.mark.parametrize("store", ["local", pytest.param("s3", marks=pytest.mark.s3)])
def test_worker_node_killed_mid_update_or_write(tmp_path, native, store, request):
    from paimon_rowid import CatalogFactory
    if store == "s3":
        s3_server = request.getfixturevalue("s3_server")
        oracle = request.getfixturevalue("oracle")
        options = s3_server.catalog_options(s3_server.fresh_warehouse("ray-cluster"))
    else:
        options = {"warehouse": str(tmp_path / "warehouse")}
        os.makedirs(options["warehouse"])
    hold_dir = tmp_path / "holds"  # the test seam: local, shared by every node
    hold_dir.mkdir()
    reports = _run_child(options, str(hold_dir))
    catalog = CatalogFactory.create(options)

    def no_leftovers(identifier: str) -> None:
        if store == "s3":
            from ours import s3_unreferenced_keys
            assert s3_unreferenced_keys(oracle, s3_server, options, identifier) == [], (
                "objects no snapshot references remain")
    initial = {i: (i, float(i), i % 7) for i in range(COMMITS * ROWS)}

    # Ray retried the lost apply task: exactly one commit, every row as expected, nothing
    # left of the killed attempt.
    report = reports["retries"]
    _assert_killed_mid_update(report)
    assert "error" not in report, report
    assert report["result"] == {"num_updated": len(UPDATED)}
    table = catalog.get_table("db.a")
    snapshot = table.latest_snapshot()
    assert snapshot["id"] == report["snapshot_before"] + 1 == COMMITS + 1
    assert snapshot["commitKind"] == "APPEND"
    expected = dict(initial)
    for i in UPDATED:
        expected[i] = (i, -1000.0 - i, i % 7)
    assert _rows(options, "db.a") == expected
    on_disk = _data_files(table.path, options)
    assert on_disk == _live_files(options, "db.a"), "files no snapshot references remain"
    no_leftovers("db.a")
    added = sorted(set(on_disk) - set(report["files_before"]))
    assert len(added) == COMMITS  # one partial-column file per touched group
    assert set(report["files_before"]) <= set(on_disk)
    # The killed attempt's files (written, never returned) were written over by the retry,
    # which names its files from the job and the file group: no stray file, no cleanup.
    assert set(report["files_when_killed"]) <= set(on_disk), report

    # No retries: a clear error about the lost worker, nothing committed, nothing left.
    report = reports["no-retries"]
    _assert_killed_mid_update(report)
    assert "result" not in report, report
    assert "RayError" in report["error_mro"], report
    assert any(w in report["error"].lower() for w in ("dead", "died", "crash", "lost")), report
    table = catalog.get_table("db.b")
    assert table.latest_snapshot()["id"] == report["snapshot_before"] == COMMITS
    assert _data_files(table.path, options) == report["files_before"]
    if store == "s3":  # every object (metadata too) exactly as before the job
        assert _s3_keys(table.path, options) == report["keys_before"]
    assert _rows(options, "db.b") == initial

    # write_paimon: Ray retried the lost write task; one commit with every row once, and the
    # killed attempt's file (written, never reported) deleted.
    report = reports["write-retries"]
    assert len(report["files_when_killed"]) == 1, report  # the write task wrote its file
    assert report["started_at"] < report["killed_at"] < report["returned_at"], report
    assert report["victim_found"] and report["victim_dead"], report
    assert report["alive_nodes"] == 2, report
    assert "error" not in report, report
    table = catalog.get_table("db.w")
    assert report["result"] == [len(WRITTEN), report["snapshot_before"] + 1]
    assert table.latest_snapshot()["id"] == report["snapshot_before"] + 1
    rows = _rows(options, "db.w")
    assert sorted(v[0] for v in rows.values()) == list(range(COMMITS * ROWS)) + WRITTEN
    on_disk = _data_files(table.path, options)
    assert on_disk == _live_files(options, "db.w"), "files no snapshot references remain"
    no_leftovers("db.w")
    # The retry wrote the same name over the killed attempt's file.
    assert set(report["files_when_killed"]) <= set(on_disk), report


if __name__ == "__main__":
    _child(json.loads(sys.argv[1]), sys.argv[2])
