"""Starting worker subprocesses: which interpreter and environment each engine runs under."""
from __future__ import annotations

import json
import os
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Optional

from bench.worker import MARKER

WORKER = Path(__file__).resolve().with_name("worker.py")
REPO = WORKER.parent.parent


def oracle_python() -> Path:
    """pypaimon's virtualenv (``$PAIMON_ROWID_ORACLE_VENV``, as scripts/setup.sh makes it)."""
    venv = os.environ.get("PAIMON_ROWID_ORACLE_VENV")
    venv_path = Path(venv).expanduser() if venv else REPO / ".venv-oracle"
    return venv_path / "bin" / "python"


@dataclass
class Side:
    """An interpreter + environment; ``engine`` names the adapter the worker loads."""
    engine: str
    python: str
    env: Dict[str, str] = field(default_factory=dict)


def make_sides(ours_python: str, pypaimon_python: str, dev: bool,
               peer_python: Optional[str] = None) -> Dict[str, Side]:
    """``peer_python``: the peer's virtualenv (bench/peers.py), which runs pypaimon-rust and,
    having Ray, pypaimon-ray; without it pypaimon-ray runs under ``pypaimon_python``."""
    base = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    ours_env = dict(os.environ)
    if dev:  # the package under development first, ahead of any installed paimon_rowid
        dev_path = str(REPO / "python")
        ours_env["PYTHONPATH"] = os.pathsep.join(
            [dev_path] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    pyp_env = dict(base)
    return {
        "ours": Side("ours", ours_python, ours_env),
        "ours-ray": Side("ours-ray", ours_python, ours_env),
        "ours-backfill": Side("ours-backfill", ours_python, ours_env),
        "pypaimon": Side("pypaimon", pypaimon_python, pyp_env),
        "pypaimon-ray": Side("pypaimon-ray", peer_python or pypaimon_python, pyp_env),
        "pypaimon-rust": Side("pypaimon-rust", peer_python or pypaimon_python, pyp_env),
        "pypaimon-rust-ray": Side("pypaimon-rust-ray", peer_python or pypaimon_python, pyp_env),
    }


class JobFailed(RuntimeError):
    def __init__(self, engine: str, message: str, reply: Optional[Dict[str, Any]],
                 log: Path) -> None:
        super().__init__(message)
        self.engine = engine
        self.reply = reply or {}
        self.log = log


def run_job(side: Side, job: Dict[str, Any], log: Path, timeout_s: float) -> Dict[str, Any]:
    """Runs one worker; returns its reply (plus ``proc_s``, the process's wall time).
    Raises JobFailed with the log's tail when the worker fails or says nothing."""
    log.parent.mkdir(parents=True, exist_ok=True)
    job = {**job, "engine": side.engine}
    started = time.perf_counter()
    with open(log, "w") as err:
        try:
            proc = subprocess.run([side.python, str(WORKER)], input=json.dumps(job), text=True,
                                  stdout=subprocess.PIPE, stderr=err, env=side.env,
                                  timeout=timeout_s)
            stdout = proc.stdout
        except subprocess.TimeoutExpired as error:
            stdout = error.stdout.decode() if isinstance(error.stdout, bytes) else (
                error.stdout or "")
            stdout += f"\n[bench] timed out after {timeout_s:.0f} s"
        except OSError as error:
            stdout = f"[bench] cannot start {side.python}: {error}"
    proc_s = time.perf_counter() - started
    reply = None
    lines = stdout.splitlines()
    for line in lines:
        if line.startswith(MARKER):
            reply = json.loads(line[len(MARKER):])
    with open(log, "a") as err:
        err.write("\n".join(line for line in lines if not line.startswith(MARKER)))
    if reply is None or not reply.get("ok"):
        tail = log.read_text(errors="replace").strip().splitlines()[-15:]
        message = reply["error"] if reply else "worker gave no result"
        raise JobFailed(side.engine, f"{side.engine}: {message}\n    " + "\n    ".join(tail),
                        reply, log)
    reply["proc_s"] = proc_s
    return reply
