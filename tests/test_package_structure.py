"""The Python package's shape (docs/architecture.md, "Python modules"): imports run one way
with no cycle, no import of the package hides inside a function (except the optional Ray
integration), and the package never parses bytes or walks directories itself (C++ does)."""
from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, Set

PACKAGE = Path(__file__).resolve().parents[1] / "python" / "paimon_rowid"

# Function-local imports of the package that are there on purpose: none. Ray is an optional
# extra, but the table layer reaches it through _internal/_ray_door.py (the Ray modules register
# to_ray's and write_ray's functions there), not through an import; scripts/check_layers.py
# checks the layers themselves.
LAZY_ALLOWED: Set[tuple] = set()


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> Set[str]:
    """The package modules an ``from ... import ...`` names (submodules included)."""
    if node.level == 0:
        base = node.module or ""
    else:
        parts = module.split(".")
        keep = len(parts) - node.level + (1 if is_package else 0)
        base = ".".join(parts[:keep] + ([node.module] if node.module else []))
    if not base.startswith("paimon_rowid"):
        return set()
    submodules = {f"{base}.{alias.name}" for alias in node.names}
    # "from . import x" names submodules only; "from .m import x" imports m itself too.
    return submodules if node.module is None else {base} | submodules


def _imports() -> Dict[str, Dict[str, Set[str]]]:
    """module -> {"top": modules imported at module level, "lazy": inside functions}."""
    found: Dict[str, Dict[str, Set[str]]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module_name(path)
        tree = ast.parse(path.read_text(), str(path))
        top: Set[str] = set()
        lazy: Set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                names = _resolve(module, path.name == "__init__.py", node)
            elif isinstance(node, ast.Import):
                names = {a.name for a in node.names if a.name.startswith("paimon_rowid")}
            else:
                continue
            (top if node.col_offset == 0 else lazy).update(names)
        found[module] = {"top": top, "lazy": lazy}
    modules = set(found)
    for entry in found.values():
        for kind in entry:
            entry[kind] = {m for m in entry[kind] if m in modules}
    return found


def test_no_import_cycle():
    graph = {m: e["top"] - {m} for m, e in _imports().items()}
    # A package imports its submodules' parents implicitly; only edges between modules count.
    state: Dict[str, int] = {}
    path: list = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if nxt.startswith(node + "."):
                continue  # a package importing its own submodule
            if state.get(nxt) == 1:
                cycle = path[path.index(nxt):] + [nxt]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt)
        path.pop()
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)


def test_no_hidden_function_local_imports():
    hidden = sorted((m, target) for m, e in _imports().items() for target in e["lazy"]
                    if (m, target) not in LAZY_ALLOWED)
    assert not hidden, f"function-local imports of the package: {hidden}"


def test_python_does_not_walk_directories():
    offenders = sorted(str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
                       if "os.walk" in p.read_text())
    assert not offenders, f"os.walk in {offenders}: job files are known by name"


def test_python_does_not_parse_bytes():
    """Descriptors, manifests and snapshots are decoded in C++: no ``struct`` in the package,
    and JSON is decoded only by schema/__init__.py (the schema JSON behind pypaimon's ``Schema`` /
    ``TableSchema`` objects), never a snapshot's or a manifest's."""
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text()
        name = str(path.relative_to(PACKAGE))
        if "import struct" in text or "from struct" in text:
            offenders.append(f"{name}: struct")
        if ("json.loads" in text or "json.load(" in text) and name != "schema/__init__.py":
            offenders.append(f"{name}: json decoding")
    assert not offenders, offenders


def test_row_id_jobs_are_exported_at_the_top_level():
    import paimon_rowid
    from paimon_rowid import row_id_jobs, row_id_ranges
    assert paimon_rowid.update_by_row_id is row_id_jobs.update_by_row_id
    assert paimon_rowid.read_by_row_id is row_id_jobs.read_by_row_id
    assert paimon_rowid.process_row_id_ranges is row_id_ranges.process_row_id_ranges
    for name in ("update_by_row_id", "read_by_row_id", "process_row_id_ranges", "backfill",
                 "backfill_status"):
        assert name in paimon_rowid.__all__
    from paimon_rowid import backfill_job
    assert paimon_rowid.backfill is backfill_job.backfill
    assert paimon_rowid.backfill_status is backfill_job.backfill_status


def test_maintenance_is_exported_at_the_top_level():
    import paimon_rowid
    from paimon_rowid import maintenance
    assert paimon_rowid.expire_snapshots is maintenance.expire_snapshots
    assert paimon_rowid.remove_orphan_files is maintenance.remove_orphan_files
    for name in ("expire_snapshots", "remove_orphan_files"):
        assert name in paimon_rowid.__all__


def test_import_loads_no_optional_heavy_modules():
    """``import paimon_rowid`` stays light: DataFusion (and the pandas it imports, ~0.25 s)
    load on the first conditional merge, not with the package."""
    code = ("import sys, paimon_rowid; "
            "print(sorted(m for m in ('datafusion', 'pandas', 'ray') if m in sys.modules))")
    env = dict(os.environ, PYTHONPATH=str(PACKAGE.parent))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]", f"import paimon_rowid loaded {out}"


def test_a_filtered_scan_loads_no_pandas(tmp_path):
    """Predicates with the common literal types (ints, strings, dates, ...) do not go through
    pyarrow's conversion of Python objects, which imports pandas (~0.3 s on a process's first
    filtered read)."""
    import datetime

    import pyarrow as pa

    import paimon_rowid
    from paimon_rowid import CatalogFactory, Schema
    catalog = CatalogFactory.create({"warehouse": str(tmp_path)})
    catalog.create_database("db", True)
    catalog.create_table("db.t", Schema.from_pyarrow_schema(pa.schema(
        [("k", pa.int64()), ("s", pa.string()), ("d", pa.date32())])), True)
    builder = catalog.get_table("db.t").new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    write.write_arrow(pa.table({"k": [1, 20], "s": ["a", "b"],
                                "d": [datetime.date(2023, 1, 1), datetime.date(2025, 1, 1)]}))
    commit.commit(write.prepare_commit())
    code = f"""
import sys, datetime
from paimon_rowid import CatalogFactory
catalog = CatalogFactory.create({{"warehouse": {str(tmp_path)!r}}})
read = catalog.get_table("db.t").new_read_builder()
p = read.new_predicate_builder()
read.with_filter(p.and_predicates([p.between("k", 0, 9), p.is_in("s", ["a", None]),
                                   p.less_than("d", datetime.date(2024, 1, 1))]))
rows = read.new_read().to_arrow(read.new_scan().plan().splits()).num_rows
print(rows, "pandas" in sys.modules)
"""
    # The package this test imported (the source tree in development, the installed one in
    # CI), which has the native module.
    env = dict(os.environ, PYTHONPATH=str(Path(paimon_rowid.__file__).resolve().parents[1]))
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "1 False"


def _check_layers_module():
    import importlib.util
    path = PACKAGE.parents[1] / "scripts" / "check_layers.py"
    spec = importlib.util.spec_from_file_location("check_layers", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_tree_matches_the_layers_and_the_docs():
    """Every folder of the package is a layer of scripts/check_layers.py and is drawn, with
    every module directly in the package, in docs/architecture.md's tree (and nothing else
    is); the layer check passes."""
    check_layers = _check_layers_module()
    folders = {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    top_files = {p.name for p in PACKAGE.glob("*.py")}
    assert folders == set(check_layers.PY_LAYERS) - {check_layers.NATIVE, check_layers.FACADE}
    text = (PACKAGE.parents[1] / "docs" / "architecture.md").read_text()
    section = text[text.index("## Python modules"):]
    picture = section[section.index("```\n") + 4:section.index("\n```", section.index("```\n"))]
    drawn_folders = {line.split("/")[0].strip() for line in picture.splitlines()
                     if line.startswith("  ") and line.strip().split(" ")[0].endswith("/")}
    drawn_files = set()
    for line in picture.splitlines():
        if line.startswith("  ") and line.strip().split(" ")[0].endswith("/"):
            break  # the folders come after the files directly in the package
        drawn_files.update(word.strip(",") for word in line.split()
                           if word.strip(",").endswith(".py"))
    assert drawn_folders == folders, picture
    assert drawn_files == top_files, picture
    problems, count = check_layers.check_python(str(PACKAGE.parents[1]))
    assert not problems and count == len(list(PACKAGE.rglob("*.py")))
