"""The examples run end to end: the README's main job as one backfill(...) call
(examples/backfill_demo.py; embedded here: its --ray mode runs the same calls through
paimon_rowid.ray.backfill, which tests/test_ray_backfill.py covers, and a Ray start and a
child driver would add ~50 s), the hand-written embedded job (examples/demo.py) and the seed's
Ray backfill (examples/seed_backfill.py, the seed code with only imports changed)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile

import pytest

pytestmark = pytest.mark.native

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(args, tmp_path, timeout, env=None):
    env = dict(os.environ if env is None else env)
    import paimon_rowid
    package_root = os.path.dirname(os.path.dirname(paimon_rowid.__file__))
    env["PYTHONPATH"] = package_root + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable] + args, cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=timeout)


def test_demo_backfill_and_rerun(tmp_path):
    wh = str(tmp_path / "wh")
    first = _run([os.path.join(ROOT, "examples", "demo.py"), "--warehouse", wh, "--rows", "3000"],
                 tmp_path, 300)
    assert first.returncode == 0, first.stderr
    assert "embeddings written" in first.stdout
    assert "without an embedding: 0" in first.stdout
    # A rerun finds every embedding done: no backfill commit.
    again = _run([os.path.join(ROOT, "examples", "demo.py"), "--warehouse", wh, "--rows", "3000"],
                 tmp_path, 300)
    assert again.returncode == 0, again.stderr
    assert "backfill: 0 commit(s)" in again.stdout


@pytest.fixture
def stale_ray_env():
    """The environment of a machine where another process left a Ray cluster's address in
    ``ray_current_cluster`` (as ``ray start`` and ``cluster_utils.Cluster`` do): a bare
    ``ray.init(num_cpus=2)`` joins that address and raises ValueError. The examples must start
    their own local Ray regardless. A short directory: Ray's socket paths live under it."""
    temp = tempfile.mkdtemp(prefix="rt", dir="/tmp")
    os.makedirs(os.path.join(temp, "ray"))
    with open(os.path.join(temp, "ray", "ray_current_cluster"), "w") as f:
        f.write("127.0.0.1:9")  # nothing listens there
    env = dict(os.environ, RAY_TMPDIR=temp)
    env.pop("RAY_ADDRESS", None)
    yield env
    shutil.rmtree(temp, ignore_errors=True)


@pytest.mark.ray
def test_seed_backfill_on_ray(tmp_path, stale_ray_env):
    pytest.importorskip("ray")
    wh = str(tmp_path / "wh")
    run = _run([os.path.join(ROOT, "examples", "seed_backfill.py"), "--warehouse", wh,
                "--rows", "400", "--rows-per-commit", "200"], tmp_path, 600,
               env=stale_ray_env)  # 2 batches
    assert run.returncode == 0, run.stderr[-3000:]
    assert "rows still without an embedding: 0" in run.stdout


def _check_backfill_demo(run):
    assert run.returncode == 0, run.stderr[-3000:]
    out = run.stdout
    assert "killing the run (SIGKILL) in batch 3 of 5, 2 commit(s) made" in out
    assert "2 range(s) done" in out and "3 pending" in out
    assert re.search(r"resume after a kill: 600 rows computed, 400 rows in 2 finished range\(s\) "
                     r"skipped unread, 3 commit\(s\)", out)
    assert re.search(r"after appending 100 rows: 100 rows computed, 1,000 rows in 5 finished "
                     r"range\(s\) skipped unread, 1 commit\(s\)", out)
    assert "rows without an embedding: 0" in out


def test_backfill_demo_kill_resume_and_append(tmp_path):
    """examples/backfill_demo.py: the seed's job as one backfill(...) call, embedded."""
    _check_backfill_demo(_run([os.path.join(ROOT, "examples", "backfill_demo.py"),
                               "--warehouse", str(tmp_path / "wh"), "--rows", "1000",
                               "--append", "100"], tmp_path, 300))



def _check_locator_pipeline(run, incoming):
    assert run.returncode == 0, run.stderr[-3000:]
    out = run.stdout
    assert f"bucket_join: {incoming:,} key(s) located" in out
    assert f"update_by_row_id: {{'num_updated': {incoming}}}" in out
    assert f"labelled rows: {incoming:,} of" in out and "wrong labels: 0" in out


def test_locator_pipeline_embedded(tmp_path):
    """examples/locator_pipeline.py: locator -> bucket_join -> read_by_row_id(row_id_col=
    "row_id") -> transform -> update_by_row_id, every table written by us."""
    _check_locator_pipeline(_run([os.path.join(ROOT, "examples", "locator_pipeline.py"),
                                  "--warehouse", str(tmp_path / "wh"), "--rows", "20000",
                                  "--incoming", "1500"], tmp_path, 300), 1500)


@pytest.mark.ray
def test_locator_pipeline_on_ray(tmp_path, stale_ray_env):
    pytest.importorskip("ray")
    _check_locator_pipeline(_run([os.path.join(ROOT, "examples", "locator_pipeline.py"),
                                  "--warehouse", str(tmp_path / "wh"), "--rows", "20000",
                                  "--incoming", "1500", "--ray"], tmp_path, 600,
                                 env=stale_ray_env), 1500)


def _check_index_pipeline(run, incoming):
    assert run.returncode == 0, run.stderr[-3000:]
    out = run.stdout
    assert "create_global_index: 1 btree file(s) on image_key" in out
    assert f"lookup_row_ids: {incoming:,} key(s) located" in out
    assert f"read_by_row_id: {incoming:,} matched row(s) read" in out
    assert f"update_by_row_id: {{'num_updated': {incoming}}}" in out
    assert f"labelled rows: {incoming:,} of" in out and "wrong labels: 0" in out


def test_index_pipeline_embedded(tmp_path):
    """examples/index_pipeline.py: create_global_index -> lookup_row_ids -> read_by_row_id ->
    transform -> update_by_row_id, no locator table."""
    _check_index_pipeline(_run([os.path.join(ROOT, "examples", "index_pipeline.py"),
                                "--warehouse", str(tmp_path / "wh"), "--rows", "20000",
                                "--incoming", "1500"], tmp_path, 300), 1500)


@pytest.mark.ray
def test_index_pipeline_on_ray(tmp_path, stale_ray_env):
    pytest.importorskip("ray")
    _check_index_pipeline(_run([os.path.join(ROOT, "examples", "index_pipeline.py"),
                                "--warehouse", str(tmp_path / "wh"), "--rows", "20000",
                                "--incoming", "1500", "--ray"], tmp_path, 600,
                               env=stale_ray_env), 1500)
