"""One measured round in its own process: ``python bench/worker.py`` with a JSON job on stdin.

Job: ``{"workload", "engine", "args", "verify", "preimport"}``. Runs, in order: engine import
(timed as ``import_s``), ``workload.setup`` and the import of the ``preimport`` modules
(untimed), ``workload.run`` (timed as ``op_s``, with the /proc/self/io delta and the RSS
high-water mark around it), then ``workload.check`` if ``verify``.

Libraries import modules lazily on first use (pypaimon pulls in ~1,100 modules — pandas,
polars, fastavro, asyncio — inside its first scan). A fresh process per round would charge
that to every round, so the reply lists the modules the operation imported
(``imported_during_op``); the orchestrator passes the warm-up round's list as ``preimport`` to
the timed rounds. Timed rounds thus measure the work, not first-call imports.

Prints one line ``BENCH-RESULT <json>`` on stdout, also on failure (``{"ok": false, "error":
...}``); anything else on stdout/stderr is the log.
"""
from __future__ import annotations

import importlib
import json
import os
import sys
import time
import traceback

MARKER = "BENCH-RESULT "

# Run as a script: drop bench/ itself from sys.path (its modules must not shadow top-level
# names) and make the package importable from the repository root, after anything on
# PYTHONPATH so the library under test is the one the orchestrator chose.
_HERE = os.path.dirname(os.path.abspath(__file__))
if sys.path and os.path.abspath(sys.path[0] or ".") == _HERE:
    sys.path.pop(0)
sys.path.append(os.path.dirname(_HERE))


def run_job(job):
    from bench import engines, measure, registry

    workload = registry.get(job["workload"])
    started = time.perf_counter()
    engine = engines.load(job["engine"])
    import_s = time.perf_counter() - started

    started = time.perf_counter()
    state = workload.setup(engine, job["args"])
    for name in job.get("preimport") or ():
        try:
            importlib.import_module(name)
        except BaseException:  # noqa: BLE001 - optional or order-dependent modules
            pass
    setup_s = time.perf_counter() - started
    modules_before = set(sys.modules)

    setup_hwm = measure.hwm_bytes()  # this process image's peak so far (import, setup)
    hwm_reset = measure.reset_peak_rss()
    rss_before = measure.rss_bytes()
    io_before = measure.proc_io()
    started = time.perf_counter()
    result = workload.run(engine, state)
    op_s = time.perf_counter() - started
    io = measure.io_delta(io_before, measure.proc_io())
    op_hwm = measure.hwm_bytes() if hwm_reset else None
    imported = sorted(set(sys.modules) - modules_before)

    reply = {"ok": True, "op_s": op_s, "import_s": import_s, "setup_s": setup_s, "io": io,
             "rss_before_op": rss_before, "op_peak_rss": op_hwm,
             "imports_during_op": len(imported), "imported_during_op": imported,
             "engine_info": engine.describe(),
             "metrics": workload.metrics(engine, state, result)}
    if job.get("verify"):
        started = time.perf_counter()
        reply.update(workload.check(engine, state, result))
        reply["check_s"] = time.perf_counter() - started
    # Peak RSS of this process image: VmHWM (before the reset and since). Not ru_maxrss: Linux
    # carries the parent's high-water mark across fork+exec into ru_maxrss, so a worker
    # started by an orchestrator that once held GiBs (generating inputs) would report those.
    end_hwm = measure.hwm_bytes()
    reply["peak_rss"] = (max(setup_hwm, end_hwm) if setup_hwm is not None and end_hwm is not None
                         else measure.maxrss_bytes())
    return reply


def main() -> int:
    job = json.loads(sys.stdin.read())
    try:
        reply = run_job(job)
    except BaseException as error:  # noqa: BLE001 - everything goes back to the orchestrator
        traceback.print_exc()
        reply = {"ok": False, "error_type": type(error).__name__,
                 "error": f"{type(error).__name__}: {error}",
                 "unavailable": type(error).__name__ == "EngineUnavailable"}
    sys.stdout.flush()
    sys.stdout.write("\n" + MARKER + json.dumps(reply) + "\n")
    sys.stdout.flush()
    return 0 if reply["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
