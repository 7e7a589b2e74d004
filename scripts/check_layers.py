#!/usr/bin/env python3
"""The layer check: no #include may cross the folder dependencies the CMake files declare.

Each folder cpp/src/paimon_rowid/<folder>/ is one library, declared in its CMakeLists.txt as
`pr_module(<folder> SOURCES ... DEPS pr_a pr_b ...)`. Those DEPS are the single source of
truth for the layering: a source or header of <folder> may include `paimon_rowid/<other>/...`
only when <other> is <folder> itself or reachable from it through DEPS (transitively). Test
files (`*_test.cc`, and `*test_util.h` helpers shared by tests) may in addition include what
the folder's `pr_test(<folder> ... DEPS ...)` links, again transitively, and `testing/`.

Outside the library, the public surface is `paimon_rowid/api.h`: C++ tools (cpp/tools/, none
today: the command line is Python) and the examples (examples/) may include no other
paimon_rowid header, and no
file inside the library may include api.h (the umbrella sits above every folder).

The Python package python/paimon_rowid/ is layered the same way (PY_LAYERS below, bottom to
top, and docs/architecture.md): every module is parsed with `ast`, and each of its imports of
the package (module-level or inside a function, absolute or relative) must name a module of its
own layer or of a layer below; the imports between modules must form no cycle; and no module
imports by name (`importlib.import_module`, `__import__`) except the declared doors
(PY_NAMED_IMPORTS). A module's layer is its folder under paimon_rowid/; the modules directly in
paimon_rowid/ (the package's `__init__`, the command line, the old-path shims) are the facade,
above every folder; `paimon_rowid._native` (the C++ extension) is below every folder. Importing
`a.b.c` also runs the `__init__` of `a` and `a.b`; those implicit parent imports are not edges.

Usage: check_layers.py [--root REPO] [--self-test]. Prints one line per offending #include or
import and exits 1 when there is any; exits 0 otherwise. Standard library only.
"""
from __future__ import annotations

import argparse
import ast
import os
import re
import sys
import tempfile
from typing import Dict, List, Optional, Set, Tuple

LIB = os.path.join("cpp", "src", "paimon_rowid")
PUBLIC_ONLY_DIRS = [os.path.join("cpp", "tools"), "examples"]
API_HEADER = "api.h"
TESTING = "testing"
KEYWORDS = {"SOURCES", "DEPS"}
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"paimon_rowid/([^"]+)"', re.MULTILINE)
SOURCE_SUFFIXES = (".h", ".cc", ".cpp", ".hpp")


def _strip_comments(text: str) -> str:
    return "\n".join(line.split("#", 1)[0] for line in text.splitlines())


def _calls(text: str, function: str) -> List[List[str]]:
    """The argument tokens of every `function(...)` call in a CMake file."""
    calls = []
    for match in re.finditer(r"\b" + function + r"\s*\(", text):
        depth, end = 1, match.end()
        while end < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            end += 1
        calls.append(text[match.end():end - 1].split())
    return calls


def _deps(tokens: List[str]) -> List[str]:
    """The folders named by `pr_<folder>` after DEPS (other keywords end the list)."""
    out, in_deps = [], False
    for token in tokens[1:]:
        if token in KEYWORDS:
            in_deps = token == "DEPS"
        elif in_deps and token.startswith("pr_"):
            out.append(token[len("pr_"):])
    return out


class Layers:
    """Module and test dependencies of every folder, read from the CMake files."""

    def __init__(self, lib_dir: str):
        self.lib_dir = lib_dir
        self.modules: Dict[str, List[str]] = {}
        self.tests: Dict[str, List[str]] = {}
        self.folders: List[str] = sorted(
            d for d in os.listdir(lib_dir) if os.path.isdir(os.path.join(lib_dir, d)))
        self.errors: List[str] = []
        for folder in self.folders:
            cmake = os.path.join(lib_dir, folder, "CMakeLists.txt")
            if not os.path.exists(cmake):
                continue
            with open(cmake, encoding="utf-8") as f:
                text = _strip_comments(f.read())
            for tokens in _calls(text, "pr_module"):
                if tokens and tokens[0] == folder:
                    self.modules[folder] = _deps(tokens)
                elif tokens:
                    self.errors.append(f"{cmake}: pr_module({tokens[0]} ...) in folder {folder}")
            for tokens in _calls(text, "pr_test"):
                if tokens and tokens[0] == folder:
                    self.tests[folder] = _deps(tokens)
        for folder, deps in list(self.modules.items()) + list(self.tests.items()):
            for dep in deps:
                if dep not in self.modules and dep != TESTING:
                    self.errors.append(f"{folder}/CMakeLists.txt: DEPS pr_{dep} is not a module")

    def closure(self, roots: List[str]) -> Set[str]:
        seen: Set[str] = set()
        stack = list(roots)
        while stack:
            folder = stack.pop()
            if folder in seen:
                continue
            seen.add(folder)
            stack.extend(self.modules.get(folder, []))
        return seen

    def allowed(self, folder: str, is_test: bool) -> Optional[Set[str]]:
        """Folders `folder` may include; None when the folder declares no module."""
        if folder == TESTING:
            return {TESTING}
        if folder not in self.modules:
            return None
        allowed = self.closure([folder])
        if is_test:
            allowed |= self.closure(self.tests.get(folder, [])) | {TESTING}
        return allowed


def _is_test_file(name: str) -> bool:
    return name.endswith("_test.cc") or name.endswith("test_util.h")


def _includes(path: str) -> List[Tuple[int, str]]:
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    return [(text.count("\n", 0, m.start()) + 1, m.group(1)) for m in INCLUDE_RE.finditer(text)]


def _sources(directory: str):
    for dirpath, dirnames, filenames in os.walk(directory):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "build")))
        for name in sorted(filenames):
            if name.endswith(SOURCE_SUFFIXES):
                yield os.path.join(dirpath, name)


def check(root: str) -> List[str]:
    """Every problem: the C++ includes, then the Python imports."""
    return check_cpp(root) + check_python(root)[0]


def check_cpp(root: str) -> List[str]:
    lib_dir = os.path.join(root, LIB)
    layers = Layers(lib_dir)
    problems = list(layers.errors)
    for path in _sources(lib_dir):
        rel = os.path.relpath(path, lib_dir)
        parts = rel.split(os.sep)
        shown = os.path.relpath(path, root)
        if len(parts) == 1:  # api.h and other top-level headers: the umbrella, above all
            continue
        folder = parts[0]
        allowed = layers.allowed(folder, _is_test_file(parts[-1]))
        if allowed is None:
            problems.append(f"{shown}: folder {folder}/ declares no pr_module({folder} ...) "
                            "in its CMakeLists.txt")
            continue
        for line, target in _includes(path):
            target_parts = target.split("/")
            if len(target_parts) == 1:
                problems.append(f"{shown}:{line}: includes paimon_rowid/{target}; inside the "
                                "library include the folder headers, not the umbrella")
            elif target_parts[0] not in allowed:
                kind = "test files of " if _is_test_file(parts[-1]) else ""
                problems.append(
                    f"{shown}:{line}: includes paimon_rowid/{target}, but {kind}{folder}/ may "
                    f"include only {', '.join(sorted(allowed))} (DEPS in "
                    f"{LIB}/{folder}/CMakeLists.txt, transitively)")
    for directory in PUBLIC_ONLY_DIRS:
        for path in _sources(os.path.join(root, directory)):
            for line, target in _includes(path):
                if target != API_HEADER:
                    problems.append(f"{os.path.relpath(path, root)}:{line}: includes "
                                    f"paimon_rowid/{target}; tools and examples use only "
                                    f"paimon_rowid/{API_HEADER}")
    return problems


# --- the Python package ----------------------------------------------------------------------

PY_PACKAGE = os.path.join("python", "paimon_rowid")
PY_NAME = "paimon_rowid"
NATIVE = "_native"
FACADE = ""
#: Bottom to top. A module may import modules of its own layer and of the layers below it.
PY_LAYERS = [NATIVE, "_internal", "schema", "table", "catalog", "jobs", "ray", FACADE]
#: The only modules that may import by name, and why: Ray is an optional extra above the table
#: layer, whose TableRead.to_ray / BatchTableWrite.write_ray reach it through this door.
PY_NAMED_IMPORTS = {"paimon_rowid._internal._ray_door"}
NAMED_IMPORT_CALLS = {"import_module", "__import__"}


def _py_modules(package_dir: str) -> Dict[str, Tuple[str, bool]]:
    """Dotted module name -> (path, is_package) for every .py file of the package."""
    modules: Dict[str, Tuple[str, bool]] = {}
    base = os.path.dirname(package_dir)
    for dirpath, dirnames, filenames in os.walk(package_dir):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "__pycache__")))
        for name in sorted(filenames):
            if name.endswith(".py"):
                path = os.path.join(dirpath, name)
                parts = os.path.relpath(path, base)[:-len(".py")].split(os.sep)
                is_package = parts[-1] == "__init__"
                modules[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return modules


def _py_layer(module: str, modules: Dict[str, Tuple[str, bool]]) -> Optional[str]:
    """The layer of a module (None for a folder that is not a layer)."""
    parts = module.split(".")
    if parts[1:] == [NATIVE]:
        return NATIVE
    if len(parts) == 1 or (len(parts) == 2 and not modules[module][1]):
        return FACADE
    return parts[1] if parts[1] in PY_LAYERS else None


def _py_target(name: str, known: Set[str]) -> str:
    """The module an imported dotted name runs: itself, else its nearest known parent."""
    while name not in known and "." in name:
        name = name.rsplit(".", 1)[0]
    return name


def _py_imports(module: str, path: str, is_package: bool,
                known: Set[str]) -> Tuple[List[Tuple[int, str]], List[int]]:
    """(line, imported module) of every import of the package in the module, and the lines of
    imports by name."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    edges: List[Tuple[int, str]] = []
    named: List[int] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = module.split(".")
                keep = len(parts) - node.level + (1 if is_package else 0)
                base = ".".join(parts[:keep] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            # "from p import m" imports the submodule p.m; "from p import name" imports p.
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                     for alias in node.names]
        elif isinstance(node, ast.Call):
            function = node.func
            called = function.attr if isinstance(function, ast.Attribute) else \
                function.id if isinstance(function, ast.Name) else ""
            if called in NAMED_IMPORT_CALLS:
                named.append(node.lineno)
            continue
        else:
            continue
        for name in names:
            if name == PY_NAME or name.startswith(PY_NAME + "."):
                target = _py_target(name, known)
                if target != module:
                    edges.append((node.lineno, target))
    return edges, named


def _py_cycles(graph: Dict[str, Set[str]]) -> List[List[str]]:
    """One cycle per strongly connected component with more than one module (Tarjan)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    cycles: List[List[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(_cycle_path(sorted(component), graph))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return cycles


def _cycle_path(component: List[str], graph: Dict[str, Set[str]]) -> List[str]:
    """A shortest closed path through a strongly connected component, from its first module."""
    members, start = set(component), component[0]
    parents: Dict[str, Optional[str]] = {start: None}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for nxt in sorted(graph.get(node, ())):
            if nxt == start:
                path = [node]
                while parents[path[-1]] is not None:
                    path.append(parents[path[-1]])  # type: ignore[arg-type]
                return path[::-1] + [start]
            if nxt in members and nxt not in parents:
                parents[nxt] = node
                queue.append(nxt)
    return component


def check_python(root: str) -> Tuple[List[str], int]:
    """The problems of the Python package's layering, and how many modules it has."""
    package_dir = os.path.join(root, PY_PACKAGE)
    if not os.path.isdir(package_dir):
        return [f"{PY_PACKAGE}: no Python package there"], 0
    modules = _py_modules(package_dir)
    known = set(modules) | {f"{PY_NAME}.{NATIVE}"}
    rank = {layer: i for i, layer in enumerate(PY_LAYERS)}
    problems: List[str] = []
    graph: Dict[str, Set[str]] = {}
    for module, (path, is_package) in sorted(modules.items()):
        shown = os.path.relpath(path, root)
        layer = _py_layer(module, modules)
        if layer is None:
            problems.append(f"{shown}: folder {module.split('.')[1]}/ is not a layer (add it to "
                            "PY_LAYERS in scripts/check_layers.py and docs/architecture.md)")
            continue
        edges, named = _py_imports(module, path, is_package, known)
        graph[module] = {target for _, target in edges}
        for line, target in edges:
            target_layer = _py_layer(target, modules) if target in modules else \
                NATIVE if target == f"{PY_NAME}.{NATIVE}" else None
            if target_layer is not None and rank[target_layer] > rank[layer]:
                problems.append(
                    f"{shown}:{line}: imports {target} (layer {target_layer or 'facade'}), above "
                    f"its own layer {layer or 'facade'}; a module imports only its own layer and "
                    f"those below: {' < '.join(x or 'facade' for x in PY_LAYERS)}")
        if module not in PY_NAMED_IMPORTS:
            for line in named:
                problems.append(f"{shown}:{line}: imports by name; only "
                                f"{', '.join(sorted(PY_NAMED_IMPORTS))} may (PY_NAMED_IMPORTS)")
    for cycle in _py_cycles(graph):
        problems.append(f"{PY_PACKAGE}: import cycle {' -> '.join(cycle)}")
    return problems, len(modules)


def _write(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def self_test() -> List[str]:
    """Runs check() on a small synthetic tree; returns what did not behave as expected."""
    failures = []
    with tempfile.TemporaryDirectory() as root:
        lib = os.path.join(root, LIB)
        _write(os.path.join(lib, "low", "CMakeLists.txt"), "pr_module(low SOURCES a.cc)\n")
        _write(os.path.join(lib, "mid", "CMakeLists.txt"),
               "pr_module(mid SOURCES b.cc  # comment (with a paren\n DEPS pr_low x)\n")
        _write(os.path.join(lib, "top", "CMakeLists.txt"),
               "pr_module(top SOURCES c.cc DEPS pr_mid)\n"
               "pr_test(top SOURCES t_test.cc DEPS pr_side)\n")
        _write(os.path.join(lib, "side", "CMakeLists.txt"), "pr_module(side SOURCES d.cc)\n")
        _write(os.path.join(lib, "low", "a.h"), "#pragma once\n")
        _write(os.path.join(lib, "mid", "b.h"), '#include "paimon_rowid/low/a.h"\n')
        _write(os.path.join(lib, "top", "c.cc"), '#include "paimon_rowid/low/a.h"\n')
        _write(os.path.join(lib, "top", "t_test.cc"),
               '#include "paimon_rowid/side/d.h"\n#include "paimon_rowid/testing/x.h"\n')
        _write(os.path.join(lib, API_HEADER), '#include "paimon_rowid/top/c.h"\n')
        _write(os.path.join(root, "examples", "e.cc"), '#include "paimon_rowid/api.h"\n')
        pkg = os.path.join(root, PY_PACKAGE)
        _write(os.path.join(pkg, "__init__.py"), "from .jobs.j import run\n")
        _write(os.path.join(pkg, "_internal", "__init__.py"), "")
        _write(os.path.join(pkg, "_internal", "a.py"),
               "from .. import _native\n\ndef f():\n    from . import b\n")
        _write(os.path.join(pkg, "_internal", "b.py"), "import os\n")
        _write(os.path.join(pkg, "_internal", "door.py"),
               "import importlib\n\ndef load():\n    importlib.import_module('paimon_rowid.ray')\n")
        _write(os.path.join(pkg, "table", "__init__.py"), "from .t import T\n")
        _write(os.path.join(pkg, "table", "t.py"), "from .._internal.a import f\nT = 1\n")
        _write(os.path.join(pkg, "jobs", "j.py"),
               "import paimon_rowid.table.t\nfrom ..table import T\nfrom . import k\n")
        _write(os.path.join(pkg, "jobs", "k.py"), "")
        _write(os.path.join(pkg, "shim.py"), "from .jobs import j\n")
        global PY_NAMED_IMPORTS
        saved, PY_NAMED_IMPORTS = PY_NAMED_IMPORTS, {"paimon_rowid._internal.door"}
        if check(root):
            failures.append(f"a clean tree reported: {check(root)}")
        _write(os.path.join(lib, "low", "bad.cc"), '#include "paimon_rowid/mid/b.h"\n')
        _write(os.path.join(lib, "top", "bad.cc"), '#include "paimon_rowid/side/d.h"\n')
        _write(os.path.join(lib, "mid", "bad.cc"), '#include "paimon_rowid/api.h"\n')
        _write(os.path.join(root, "cpp", "tools", "cli.cc"), '#include "paimon_rowid/low/a.h"\n')
        # Python: an upward import inside a function, an upward relative import at module
        # level, an absolute upward import, a cycle (one edge inside a function), an import by
        # name outside the doors, a folder that is no layer.
        _write(os.path.join(pkg, "_internal", "up.py"),
               "def f():\n    from ..table.t import T\n")
        _write(os.path.join(pkg, "table", "up.py"), "from ..jobs import k\n")
        _write(os.path.join(pkg, "schema", "__init__.py"), "import paimon_rowid.catalog\n")
        _write(os.path.join(pkg, "catalog", "__init__.py"), "")
        _write(os.path.join(pkg, "jobs", "c1.py"), "from . import c2\n")
        _write(os.path.join(pkg, "jobs", "c2.py"),
               "def g():\n    import paimon_rowid.jobs.c1\n")
        _write(os.path.join(pkg, "jobs", "named.py"), "__import__('paimon_rowid.ray')\n")
        _write(os.path.join(pkg, "misc", "m.py"), "")
        found = check(root)
        PY_NAMED_IMPORTS = saved
        for expected in ("low/bad.cc:1", "top/bad.cc:1", "mid/bad.cc:1", "tools/cli.cc:1",
                         "_internal/up.py:2: imports paimon_rowid.table.t",
                         "table/up.py:1: imports paimon_rowid.jobs.k",
                         "schema/__init__.py:1: imports paimon_rowid.catalog",
                         "cycle paimon_rowid.jobs.c1 -> paimon_rowid.jobs.c2 -> "
                         "paimon_rowid.jobs.c1",
                         "jobs/named.py:1: imports by name", "folder misc/ is not a layer"):
            if not any(expected in line for line in found):
                failures.append(f"missed {expected}: {found}")
        if len(found) != 10:
            failures.append(f"expected 10 problems, got {found}")
    return failures


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--root", default=os.path.dirname(here),
                        help="repository root (default: the parent of scripts/)")
    parser.add_argument("--self-test", action="store_true",
                        help="check the checker on a synthetic tree first")
    args = parser.parse_args(argv)
    if args.self_test:
        failures = self_test()
        for failure in failures:
            print(f"check_layers self-test: {failure}", file=sys.stderr)
        if failures:
            return 1
    problems = check_cpp(args.root)
    py_problems, py_modules = check_python(args.root)
    for problem in problems + py_problems:
        print(problem)
    if problems:
        print(f"check_layers: {len(problems)} include(s) cross the layers declared in "
              f"{LIB}/*/CMakeLists.txt", file=sys.stderr)
    if py_problems:
        print(f"check_layers: {len(py_problems)} problem(s) with the layers of {PY_PACKAGE} "
              "(PY_LAYERS)", file=sys.stderr)
    if problems or py_problems:
        return 1
    print(f"check_layers: ok ({len(Layers(os.path.join(args.root, LIB)).modules)} C++ modules, "
          f"{py_modules} Python modules)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
