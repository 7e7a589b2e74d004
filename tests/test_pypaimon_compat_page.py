"""The call-by-call compatibility table at the top of docs/pypaimon-compat.md is what
scripts/gen_pypaimon_compat.py generates from pypaimon 2.1.0 (the oracle's virtualenv) and
the installed paimon_rowid (issue 47 §7): a call added, removed or changed on either side, or
a note for a call that is gone, fails here until the page is regenerated with
``python scripts/gen_pypaimon_compat.py --pypaimon-python <oracle venv>/bin/python --write``."""
from __future__ import annotations

import difflib
import importlib.util
from pathlib import Path

import pytest

pytestmark = [pytest.mark.native, pytest.mark.oracle]

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "gen_pypaimon_compat.py"


def _generator():
    spec = importlib.util.spec_from_file_location("gen_pypaimon_compat", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen = _generator()


def test_checked_in_page_is_the_generated_one(oracle):
    expected = gen.expected_page(str(oracle.python))
    current = gen.PAGE.read_text()
    diff = "".join(difflib.unified_diff(current.splitlines(True), expected.splitlines(True),
                                        "checked in", "generated", n=1))
    assert current == expected, (
        "docs/pypaimon-compat.md is stale; regenerate it with scripts/gen_pypaimon_compat.py "
        f"--write:\n{diff[:6000]}")
    # The page covers the objects users reach, each as its own section.
    for role in ("Catalog", "Table", "ReadBuilder", "TableScan", "TableRead", "PredicateBuilder",
                 "BatchTableWrite", "BatchTableCommit", "TableUpdate", "pypaimon.ray"):
        assert f"\n### {role}: " in current


def test_states_come_from_the_signatures():
    p = [["a", "POSITIONAL_OR_KEYWORD", None], ["b", "KEYWORD_ONLY", "None"]]
    theirs = {"X": {"members": {"f": {"kind": "call", "params": p},
                                "g": {"kind": "call", "params": p},
                                "h": {"kind": "call", "params": p},
                                "attr": {"kind": "attribute"},
                                "gone": {"kind": "call", "params": []}}}}
    ours = {"X": {"members": {
        "f": {"kind": "call", "params": p + [["c", "KEYWORD_ONLY", "1"]]},   # adds optional c
        "g": {"kind": "call", "params": [["a", "POSITIONAL_OR_KEYWORD", None],
                                         ["b", "KEYWORD_ONLY", "2"]]},      # another default
        "h": {"kind": "call", "params": [["x", "POSITIONAL_OR_KEYWORD", None],
                                         ["b", "KEYWORD_ONLY", "None"]]},   # a renamed param
        "attr": {"kind": "call", "params": []},                              # another kind
        "new": {"kind": "attribute"}}}}
    rows = {r[1]: (r[2], r[3]) for r in gen.compare(theirs, ours, {"X.g": "why"})}
    assert rows == {"f": ("same", "adds `c`"), "g": ("differs", "`g(a, *, b=2)`"),
                    "h": ("differs", "`h(x, *, b=None)`"), "attr": ("differs", "`attr()`"),
                    "gone": ("missing", ""), "new": ("beyond", "`new` (attribute)")}
    # A note may mark a behaviour difference; a note for a call neither side has is refused.
    assert gen.compare(theirs, ours, {"X.f": "differs: raises sooner"})[0][2] == "differs"
    with pytest.raises(ValueError, match="X.nothing"):
        gen.compare(theirs, ours, {"X.nothing": "a stale note"})


def test_notes_file_is_well_formed(tmp_path):
    assert gen.load_notes()  # the checked-in file parses
    bad = tmp_path / "notes.txt"
    bad.write_text("Table.copy without a colon\n")
    with pytest.raises(ValueError, match="Object.member: note"):
        gen.load_notes(bad)
