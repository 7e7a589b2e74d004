"""The README's Python blocks run as written, in order, in one namespace (the second example
backfills a new column of the first example's table). Only the warehouse path is moved into
a temporary directory."""
from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.native

README = Path(__file__).resolve().parents[1] / "README.md"


def _python_blocks():
    return re.findall(r"^```python\n(.*?)^```", README.read_text(), re.S | re.M)


def test_readme_python_blocks_run_in_order(tmp_path):
    blocks = _python_blocks()
    assert len(blocks) >= 2, "the README's two Python examples are gone"
    assert all("/tmp/warehouse" in b for b in blocks)
    namespace: dict = {"__name__": "readme"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for block in blocks:
            exec(compile(block.replace("/tmp/warehouse", str(tmp_path / "wh")), "README.md",
                         "exec"), namespace)
    # The backfill computed the three rows in one commit, and the column holds their lengths.
    assert out.getvalue().splitlines()[-1] == "3 1"
    table = namespace["catalog"].get_table("db.docs")
    rb = table.new_read_builder().with_projection(["id", "text_len"])
    rows = rb.new_read().to_arrow(rb.new_scan().plan().splits()).sort_by("id").to_pydict()
    assert rows == {"id": [1, 2, 3], "text_len": [1, 1, 1]}
    # Run again: the column exists, nothing is added or computed.
    schemas = sorted((tmp_path / "wh" / "db.db" / "docs" / "schema").iterdir())
    with contextlib.redirect_stdout(io.StringIO()) as again:
        exec(compile(blocks[1].replace("/tmp/warehouse", str(tmp_path / "wh")), "README.md",
                     "exec"), namespace)
    assert again.getvalue().splitlines()[-1] == "0 0"
    assert sorted((tmp_path / "wh" / "db.db" / "docs" / "schema").iterdir()) == schemas
