"""Corrupted metadata and data files must give a clear Python exception (ValueError, OSError or
RuntimeError) — never a crash, a hang, or another exception type. Truncated files must always
fail (a missing tail can't go unnoticed); bit flips may also read "successfully" (e.g. a
flipped data value), but must not crash. A garbage LATEST hint must be tolerated.

Each case corrupts a fresh copy of a pypaimon-written table; reads run in a worker process
(tests/corrupt_worker.py) so a crash or hang is reported against its case instead of killing
pytest. Native tests: they ERROR while paimon_rowid._native is not built.
"""
from __future__ import annotations

import json
import os
import queue
import random
import shutil
import subprocess
import sys
import threading
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional

import pytest

import de_tables

pytestmark = [pytest.mark.native, pytest.mark.oracle, pytest.mark.slow]

IDENTIFIER = "db.t"
ALLOWED = ("builtins.ValueError", "builtins.OSError", "builtins.RuntimeError")
CASE_TIMEOUT_S = float(os.environ.get("PAIMON_ROWID_CORRUPT_CASE_TIMEOUT", "60"))
WORKER = Path(__file__).with_name("corrupt_worker.py")
PROJECTION = [f.name for f in de_tables.SCHEMA] + ["_ROW_ID", "_SEQUENCE_NUMBER"]


@dataclass
class Case:
    id: str
    kind: str
    mode: str
    target: str  # path relative to the table directory
    mutate: Callable[[bytes], bytes]
    must_fail: bool
    must_succeed: bool = False


@pytest.fixture(scope="module")
def source(native, oracle, tmp_path_factory):
    """A pypaimon-written DE table (partitioned, updated, tagged) and the files its latest
    snapshot reads."""
    warehouse = tmp_path_factory.mktemp("corrupt-src") / "warehouse"
    de_tables.build(oracle, str(warehouse), IDENTIFIER, ["p_str", "p_int"])
    files = oracle.files(str(warehouse), IDENTIFIER)
    table_dir = warehouse / "db.db" / "t"
    sizes = {p: (table_dir / p).stat().st_size for p in files["data_files"]}
    manifests = files["base_manifests"] + files["delta_manifests"]
    targets = {
        "snapshot": f"snapshot/snapshot-{files['snapshot_id']}",
        "schema": f"schema/schema-{files['schema_id']}",
        "manifest_list": f"manifest/{files['base_manifest_list']}",
        "delta_manifest_list": f"manifest/{files['delta_manifest_list']}",
        "manifest": "manifest/" + max(manifests,
                                      key=lambda m: (table_dir / "manifest" / m).stat().st_size),
        "parquet_large": max(sizes, key=sizes.get),
        "parquet_small": min(sizes, key=sizes.get),
        "latest_hint": "snapshot/LATEST",
    }
    for relative in targets.values():
        assert (table_dir / relative).is_file(), relative
    return table_dir, targets


def _truncations(size: int) -> List[int]:
    points = {0, 1, 2, 3, 4, 7, 8, 16, size // 4, size // 3, size // 2, 2 * size // 3,
              3 * size // 4, size - 17, size - 16, size - 9, size - 8, size - 4, size - 2,
              size - 1}
    return sorted(p for p in points if 0 <= p < size)


def _flips(size: int, seed: int, count: int = 24) -> List[tuple]:
    rnd = random.Random(seed)
    positions = {0, size - 1, size // 2} | {rnd.randrange(size) for _ in range(count)}
    return [(p, rnd.randrange(8)) for p in sorted(positions)]


def _still_valid_json(data: bytes) -> bool:
    try:
        json.loads(data)
    except ValueError:
        return False
    return True


def make_cases(kind: str, mode: str, target: str, original: bytes) -> List[Case]:
    is_json = kind in ("snapshot", "schema")
    tolerant = kind == "latest_hint"
    cases = []
    if mode == "truncate":
        for point in _truncations(len(original)):
            truncated = original[:point]
            cases.append(Case(f"{kind}-truncate-{point}", kind, mode, target,
                              lambda data, p=point: data[:p],
                              must_fail=not tolerant and not (
                                  is_json and _still_valid_json(truncated)),
                              must_succeed=tolerant))
    else:
        for position, bit in _flips(len(original), seed=zlib.crc32(kind.encode())):
            cases.append(Case(f"{kind}-flip-{position}.{bit}", kind, mode, target,
                              lambda data, p=position, b=bit: (
                                  data[:p] + bytes([data[p] ^ (1 << b)]) + data[p + 1:]),
                              must_fail=False, must_succeed=tolerant))
    return cases


def run_cases(cases: List[dict], timeout_s: float = CASE_TIMEOUT_S) -> Dict[str, dict]:
    """Runs the cases in worker processes; a case whose worker dies is reported as a crash,
    one that does not answer in time as a hang, and the remaining cases go to a new worker."""
    import paimon_rowid
    package_root = str(Path(paimon_rowid.__file__).resolve().parents[1])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
    results: Dict[str, dict] = {}
    pending = list(cases)
    while pending:
        proc = subprocess.Popen([sys.executable, "-X", "faulthandler", str(WORKER)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env)
        lines: queue.Queue[Optional[str]] = queue.Queue()
        stderr_tail: List[str] = []

        def pump_stdout(proc=proc, lines=lines):
            for line in proc.stdout:
                lines.put(line.rstrip("\n"))
            lines.put(None)

        def pump_stderr(proc=proc, stderr_tail=stderr_tail):
            for line in proc.stderr:
                stderr_tail.append(line)
                del stderr_tail[:-40]

        threading.Thread(target=pump_stdout, daemon=True).start()
        threading.Thread(target=pump_stderr, daemon=True).start()
        proc.stdin.write(json.dumps(pending))
        proc.stdin.close()
        current = None
        while True:
            try:
                line = lines.get(timeout=timeout_s)
            except queue.Empty:
                proc.kill()
                proc.wait()
                stuck = current or pending[0]["id"]
                results[stuck] = {"case": stuck, "outcome": "hang"}
                break
            if line is None:
                code = proc.wait()
                if current is not None or code != 0:
                    stuck = current or next(c["id"] for c in pending if c["id"] not in results)
                    results[stuck] = {"case": stuck, "outcome": "crash", "returncode": code,
                                      "stderr": "".join(stderr_tail)[-3000:]}
                break
            if line.startswith("START "):
                current = line[len("START "):]
            elif line.startswith("RESULT "):
                reply = json.loads(line[len("RESULT "):])
                results[reply["case"]] = reply
                current = None
        pending = [c for c in pending if c["id"] not in results]
    return results


def classify(case: Case, result: dict, baseline_rows: int) -> Optional[str]:
    """None if the outcome is acceptable, else why not."""
    outcome = result["outcome"]
    if outcome in ("crash", "hang"):
        return f"{outcome}: {result.get('stderr', '')[-1500:]}"
    if outcome == "ok":
        if case.must_fail:
            return f"read succeeded ({result['num_rows']} rows) on a truncated file"
        if case.must_succeed and result["num_rows"] != baseline_rows:
            return f"read {result['num_rows']} rows, expected {baseline_rows}"
        return None
    if case.must_succeed:
        return f"a damaged LATEST hint must be tolerated, got {result['type']}: " \
               f"{result['message']}"
    if not any(name in ALLOWED for name in result["mro"]):
        return f"unexpected exception type {result['type']}: {result['message']}"
    if not result["message"].strip():
        return f"{result['type']} without a message"
    return None


KINDS = ["snapshot", "schema", "manifest_list", "delta_manifest_list", "manifest",
         "parquet_large", "parquet_small", "latest_hint"]


@pytest.mark.parametrize("mode", ["truncate", "flip"])
@pytest.mark.parametrize("kind", KINDS)
def test_corrupted_file_gives_clear_error(source, tmp_path, kind, mode):
    table_dir, targets = source
    target = targets[kind]
    original = (table_dir / target).read_bytes()
    cases = make_cases(kind, mode, target, original)
    payload = [{"id": "baseline", "warehouse": str(table_dir.parents[1]),
                "identifier": IDENTIFIER, "projection": PROJECTION}]
    for index, case in enumerate(cases):
        warehouse = tmp_path / f"c{index}" / "warehouse"
        copy = warehouse / "db.db" / "t"
        shutil.copytree(table_dir, copy)
        victim = copy / case.target
        victim.write_bytes(case.mutate(original))
        payload.append({"id": case.id, "warehouse": str(warehouse), "identifier": IDENTIFIER,
                        "projection": PROJECTION})
    results = run_cases(payload)
    baseline = results["baseline"]
    assert baseline["outcome"] == "ok", f"the uncorrupted table does not read: {baseline}"
    problems = []
    for case in cases:
        why = classify(case, results[case.id], baseline["num_rows"])
        if why:
            problems.append(f"{case.id}: {why}")
    assert not problems, f"{len(problems)}/{len(cases)} {kind} {mode} case(s) misbehaved:\n" + \
        "\n".join(problems[:30])
