"""The strongest peer a performance-minded pypaimon user would pick (issue 18): pypaimon 2.1.0
with its Rust backend (``pypaimon-rust``, switched on with the table options of
``NATIVE_OPTIONS``) and Ray, in a virtualenv of its own (``.venv-bench-peer``, or
``$PAIMON_ROWID_BENCH_PEER_VENV``), which the bench creates on first use: no manual step.

Its pins are the oracle's (``constraints-oracle.txt``: pypaimon pins pyarrow < 20), Ray is
constraints.txt's, pypaimon-rust is ``RUST_VERSION``; matplotlib draws bench/speedups.png.
Creating it needs the package index (a minute once; a stamp file makes later runs skip it).
"""
from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Optional, Tuple

REPO = Path(__file__).resolve().parent.parent
RUST_VERSION = "0.4.0"
# pypaimon 2.1.0's options for its Rust backend, set as a user would (on the table handle).
NATIVE_OPTIONS = {"read.native.enabled": "true", "scan.native-plan.enabled": "true",
                  "write.native.enabled": "true", "commit.native.enabled": "true"}


def peer_venv() -> Path:
    venv = os.environ.get("PAIMON_ROWID_BENCH_PEER_VENV")
    return Path(venv).expanduser() if venv else REPO / ".venv-bench-peer"


def _requirements() -> Tuple[str, ...]:
    ray = re.search(r"^ray==(\S+)$", (REPO / "constraints.txt").read_text(), re.M)
    return ("pypaimon[datafusion]==2.1.0", f"pypaimon-rust=={RUST_VERSION}",
            f"ray[data]=={ray.group(1)}" if ray else "ray[data]>=2.50,<3",
            "matplotlib>=3.8")  # bench/chart.py renders speedups.png here


def ensure_peer_venv() -> Tuple[Optional[Path], str]:
    """(the peer's python, "") once it is installed, else (None, why not)."""
    venv = peer_venv()
    python = venv / "bin" / "python"
    reqs = _requirements()
    constraints = REPO / "constraints-oracle.txt"
    want = hashlib.sha256("\n".join(reqs).encode() + constraints.read_bytes()).hexdigest()[:16]
    stamp = venv / ".paimon-rowid-bench-peer"
    if python.exists() and stamp.exists() and stamp.read_text() == want:
        return python, ""
    print(f"bench: installing the peer (pypaimon + pypaimon-rust + Ray) into {venv} ...",
          flush=True)
    base = Path(sys.base_prefix) / "bin" / "python3"
    try:
        if not python.exists():
            subprocess.run([str(base if base.exists() else sys.executable), "-m", "venv",
                            str(venv)], check=True, capture_output=True, text=True)
        # The oracle's pins, except those Ray needs newer (pip reports a conflict otherwise).
        subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                        "-c", str(constraints), *reqs], check=True, capture_output=True,
                       text=True)
    except (OSError, subprocess.CalledProcessError) as error:
        detail = getattr(error, "stderr", "") or str(error)
        return None, f"cannot install the peer into {venv}: {detail.strip().splitlines()[-1:]}"
    stamp.write_text(want)
    return python, ""
