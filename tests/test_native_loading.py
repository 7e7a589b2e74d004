"""When the native module is loaded: with the package when it is built (so a process's first
call does not pay for loading it), and never required by the pure-Python parts.

Each case runs in a fresh interpreter: the module can be loaded only once per process."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.native

PYTHON_DIR = str(Path(__file__).resolve().parents[1] / "python")


def run(code: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    # The package under test: the installed one when tests run against it, else the tree's.
    import paimon_rowid
    env["PYTHONPATH"] = os.pathsep.join(
        [str(Path(paimon_rowid.__file__).resolve().parents[1]), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=120)


def test_import_loads_the_native_module():
    result = run("""
        import sys
        import paimon_rowid
        from paimon_rowid import _lib
        assert "paimon_rowid._native" in sys.modules, "not loaded by the import"
        assert _lib._module is sys.modules["paimon_rowid._native"]
        print("ok")
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_missing_native_module_fails_only_the_first_native_call():
    result = run("""
        import importlib.abc, sys

        class NoNative(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name == "paimon_rowid._native":
                    raise ImportError("simulated: the extension is not built")
                return None

        sys.meta_path.insert(0, NoNative())
        import paimon_rowid  # the import itself succeeds
        from paimon_rowid import CatalogFactory, Range
        assert Range(0, 9).count() == 10
        try:
            CatalogFactory.create({"warehouse": "/tmp/never-created"})
        except ImportError as error:
            assert "paimon_rowid._native is not available" in str(error), error
            print("ok")
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
    assert not os.path.exists("/tmp/never-created")
