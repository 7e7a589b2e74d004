"""A user's install (issue 47 §1 and §3): the built wheel goes into a fresh virtualenv with pip
alone (no apt step, no JDK or Maven, nothing of this checkout on the path), and there
``paimon-rowid --help`` and ``paimon-rowid scan --help`` work, an unknown flag exits 2,
``examples/public_api_tour.py`` (every public call) runs, ``paimon-rowid scan`` reads the
table it wrote, and ``mypy --strict`` passes on the tour against the installed package (its
``py.typed``) while it rejects a call with a wrong argument type (so the signatures are
really seen, not ``Any``).

The wheel is build/wheelhouse's (what scripts/setup.sh built) when its Python files are this
checkout's; otherwise one is built here (incremental through build/<wheel tag> and ccache).
pip installs the dependencies at constraints.txt's versions, from its cache when warm."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import List, Optional

import pytest

import ours

pytestmark = [pytest.mark.native, pytest.mark.timeout(1800)]

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "python" / "paimon_rowid"
TOUR = ROOT / "examples" / "public_api_tour.py"


def _stale(wheel: Path) -> bool:
    """True when a .py/.pyi of the package differs from the wheel's copy (or is missing)."""
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        for path in PACKAGE.rglob("*.py*"):
            if path.suffix not in (".py", ".pyi") or "__pycache__" in path.parts:
                continue
            name = "paimon_rowid/" + path.relative_to(PACKAGE).as_posix()
            if name not in names or z.read(name) != path.read_bytes():
                return True
    return False


def _wheel(tmp: Path) -> Path:
    built = sorted((ROOT / "build" / "wheelhouse").glob("paimon_rowid-*.whl"))
    if built and not _stale(built[-1]):
        return built[-1]
    out = tmp / "wheelhouse"
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-build-isolation", "--no-deps",
          "--wheel-dir", str(out), str(ROOT)], timeout=1500)
    return next(out.glob("paimon_rowid-*.whl"))


def _run(argv: List[str], timeout: float = 600, cwd: Optional[Path] = None,
         check: bool = True) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=cwd,
                          env=env)
    if check:
        assert done.returncode == 0, f"{argv}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def _constraints() -> List[str]:
    """constraints.txt when it pins this Python (its '# pinned-for-python: X.Y' line)."""
    text = (ROOT / "constraints.txt").read_text()
    here = f"{sys.version_info.major}.{sys.version_info.minor}"
    return ["-c", str(ROOT / "constraints.txt")] if f"pinned-for-python: {here}" in text else []


def test_the_wheel_installs_with_pip_alone_and_its_cli_and_types_work(tmp_path):
    wheel = _wheel(tmp_path)
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)])
    python, cli = venv / "bin" / "python", venv / "bin" / "paimon-rowid"
    _run([str(python), "-m", "pip", "install", "-q", *_constraints(), str(wheel)], timeout=1200)
    # nothing of this checkout is imported: the package is the installed one
    where = _run([str(python), "-c", "import paimon_rowid, sys; print(paimon_rowid.__file__)"],
                 cwd=tmp_path).stdout.strip()
    assert where.startswith(str(venv)), where

    top = _run([str(cli), "--help"], cwd=tmp_path).stdout
    assert "scan" in top and "compact" in top and "update-by-row-id" in top
    assert "--range" in _run([str(cli), "scan", "--help"], cwd=tmp_path).stdout
    bad = _run([str(cli), "scan", "--no-such-flag", "wh", "db.t"], cwd=tmp_path, check=False)
    assert bad.returncode == 2 and "unrecognized arguments: --no-such-flag" in bad.stderr

    warehouse = tmp_path / "warehouse"
    tour = _run([str(python), str(TOUR), "--warehouse", str(warehouse)], cwd=tmp_path)
    assert "public API tour: OK" in tour.stdout
    scanned = _run([str(cli), "scan", str(warehouse), "db.t", "--columns", "id,name", "--json"],
                   cwd=tmp_path).stdout.splitlines()
    rows = [json.loads(line) for line in scanned]
    want = ours.catalog(warehouse).get_table("db.t")
    builder = want.new_read_builder().with_projection(["id", "name", "_ROW_ID"])
    expected = builder.new_read().to_arrow(builder.new_scan().plan().splits()).to_pylist()
    assert sorted(rows, key=lambda r: r["_ROW_ID"]) == \
        sorted(expected, key=lambda r: r["_ROW_ID"]) and len(rows) == 31

    mypy = [sys.executable, "-m", "mypy", "--strict", "--ignore-missing-imports",
            "--no-incremental", "--python-executable", str(python)]
    checked = _run(mypy + [str(TOUR)], cwd=tmp_path)
    assert "Success: no issues found in 1 source file" in checked.stdout
    wrong = tmp_path / "wrong.py"
    wrong.write_text("from paimon_rowid import compact\n\ncompact(1, {})\n")
    refused = _run(mypy + [str(wrong)], cwd=tmp_path, check=False)
    assert refused.returncode == 1 and 'Argument 1 to "compact" has incompatible type "int"' \
        in refused.stdout, refused.stdout
