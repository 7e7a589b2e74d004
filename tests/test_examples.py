"""The examples run end to end: the README's main job (examples/demo.py, embedded) and the
seed's Ray backfill (examples/seed_backfill.py, the seed code with only imports changed)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.native

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(args, tmp_path, timeout):
    env = dict(os.environ)
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


@pytest.mark.ray
def test_seed_backfill_on_ray(tmp_path):
    pytest.importorskip("ray")
    wh = str(tmp_path / "wh")
    run = _run([os.path.join(ROOT, "examples", "seed_backfill.py"), "--warehouse", wh,
                "--rows", "400", "--rows-per-commit", "200"], tmp_path, 600)  # 2 batches
    assert run.returncode == 0, run.stderr[-3000:]
    assert "rows still without an embedding: 0" in run.stdout
