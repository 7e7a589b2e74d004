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

Usage: check_layers.py [--root REPO] [--self-test]. Prints one line per offending #include
and exits 1 when there is any; exits 0 otherwise. Standard library only.
"""
from __future__ import annotations

import argparse
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
        if check(root):
            failures.append(f"a clean tree reported: {check(root)}")
        _write(os.path.join(lib, "low", "bad.cc"), '#include "paimon_rowid/mid/b.h"\n')
        _write(os.path.join(lib, "top", "bad.cc"), '#include "paimon_rowid/side/d.h"\n')
        _write(os.path.join(lib, "mid", "bad.cc"), '#include "paimon_rowid/api.h"\n')
        _write(os.path.join(root, "cpp", "tools", "cli.cc"), '#include "paimon_rowid/low/a.h"\n')
        found = check(root)
        for expected in ("low/bad.cc:1", "top/bad.cc:1", "mid/bad.cc:1", "tools/cli.cc:1"):
            if not any(expected in line for line in found):
                failures.append(f"missed {expected}: {found}")
        if len(found) != 4:
            failures.append(f"expected 4 problems, got {found}")
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
    problems = check(args.root)
    for problem in problems:
        print(problem)
    if problems:
        print(f"check_layers: {len(problems)} include(s) cross the layers declared in "
              f"{LIB}/*/CMakeLists.txt", file=sys.stderr)
        return 1
    print(f"check_layers: ok ({len(Layers(os.path.join(args.root, LIB)).modules)} modules)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
