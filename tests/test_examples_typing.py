"""The examples are typed against the package (issue 47 §3): ``mypy --strict examples/`` passes
in the test suite (as in ``scripts/lint.sh``), it catches a wrong argument type in the tour
(so the package's signatures are seen, not ``Any``), and ``examples/public_api_tour.py`` names
every public name of ``paimon_rowid`` and ``paimon_rowid.ray`` (a new public call without a
place in the tour fails here). ``tests/test_wheel_install.py`` runs the tour and mypy against
an installed wheel in a fresh virtualenv."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from typing import Set

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
TOUR = EXAMPLES / "public_api_tour.py"

pytestmark = pytest.mark.native


def _mypy(*paths: Path, cache: Path) -> subprocess.CompletedProcess:
    pytest.importorskip("mypy")
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cache),
                           *map(str, paths)], capture_output=True, text=True, timeout=600,
                          cwd=ROOT)


def test_mypy_strict_passes_on_every_example_and_catches_a_wrong_call(tmp_path):
    done = _mypy(EXAMPLES, cache=tmp_path / "cache")
    count = len(list(EXAMPLES.glob("*.py")))
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"Success: no issues found in {count} source files" in done.stdout, done.stdout
    wrong = tmp_path / "wrong_tour.py"  # the tour with one argument of the wrong type
    text = TOUR.read_text()
    call = 'lookup_row_ids("db.t", ["n4", "n5", "absent"], "name", opts)'
    assert call in text
    wrong.write_text(text.replace(call, call.replace('"name"', "5")))
    refused = _mypy(wrong, cache=tmp_path / "cache")
    assert refused.returncode == 1
    assert 'Argument 3 to "lookup_row_ids" has incompatible type "int"' in refused.stdout, \
        refused.stdout


def _names_used(tree: ast.AST) -> Set[str]:
    """Names imported from paimon_rowid, and attributes read from ``pray`` / ``paimon_rowid``."""
    used: Set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "paimon_rowid":
            used.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            used.add(f"{node.value.id}.{node.attr}")
    return used


def test_the_tour_names_every_public_name():
    import paimon_rowid
    used = _names_used(ast.parse(TOUR.read_text()))
    missing = [n for n in paimon_rowid.__all__ if n not in used]
    assert not missing, f"examples/public_api_tour.py does not use {missing}"
    ray_all = ast.parse((ROOT / "python" / "paimon_rowid" / "ray" / "__init__.py").read_text())
    names = next(ast.literal_eval(node.value) for node in ast.walk(ray_all)
                 if isinstance(node, ast.Assign)
                 and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets))
    missing = [n for n in names if f"pray.{n}" not in used]
    assert not missing, f"examples/public_api_tour.py does not use paimon_rowid.ray's {missing}"
