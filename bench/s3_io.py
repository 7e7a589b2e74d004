"""Reads on an object store: requests and bytes next to the local figures (issue 14 item 2).

``python -m bench.s3_io [--size medium] [--rounds 3] [--results]`` measures, for ours and for
pypaimon 2.1.0 (its virtualenv, as the rest of bench/):

- ``read_ids``: ``read_by_row_id`` of (x, s) for ``read_few`` random ids of the base table
  (medium: 1M rows in 10 commits, 10k ids; the same fixture and ids as ``read_ids_few``);
- ``read_blob``: ``read_by_row_id`` of the BLOB column of a (id, payload BLOB) table for random
  ids (``--blob-rows`` x ``--blob-bytes``, ``--blob-reads`` ids);

each on the local warehouse and on the same warehouse copied into a local S3 server (moto,
tests/s3_server.py) reached through the counting proxy (tests/s3_proxy.py). Every round is its
own process (``--worker``): it opens the catalog, resets the proxy's counters, runs the read
(timed), then reads the counters, so the figures are exactly the operation's requests (planning
included: snapshot, manifests, data files) and its response bytes; locally ``rchar`` (bytes
through read syscalls). Both sides' results must have the same digest.

Output: a markdown table, the JSON (``--json``, default ``<work-dir>/s3_io.json``), the request
log of each cell's last round (``<work-dir>/s3_io-requests-<cell>.json``) and, with
``--results``, the section "Object-store reads" of bench/RESULTS.md (replaced if present).
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any, Dict, List, Optional

REPO = Path(__file__).resolve().parents[1]
IDENTIFIER = "bench.t"
SECTION = "## Object-store reads"
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _load_test_module(name: str):
    """tests/<name>.py by path (tests/ is not a package, and must not shadow anything)."""
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", REPO / "tests" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


# -- worker side (runs under ours' or pypaimon's interpreter) --------------------------------

def _proxy_call(endpoint: str, what: str) -> Dict[str, int]:
    method = "POST" if what == "reset" else "GET"
    request = urllib.request.Request(f"{endpoint}/__s3proxy__/{what}",
                                     data=b"" if method == "POST" else None, method=method)
    with _DIRECT.open(request, timeout=30) as response:
        return json.loads(response.read() or b"{}")


def worker(job: Dict[str, Any]) -> Dict[str, Any]:
    from bench import data, engines, measure
    from bench.digest import table_digest

    engine = engines.load(job["engine"])
    ids = data.read_ipc(job["ids"])
    for name in job.get("preimport") or ():
        try:
            importlib.import_module(name)
        except BaseException:  # noqa: BLE001 - optional or order-dependent modules
            pass
    modules_before = set(sys.modules)
    proxy = job.get("proxy")
    if proxy:
        _proxy_call(proxy, "reset")
    io_before = measure.proc_io()
    started = time.perf_counter()
    result = engine.read_by_row_id(job["catalog"], IDENTIFIER, ids, job["projection"])
    op_s = time.perf_counter() - started
    io = measure.io_delta(io_before, measure.proc_io())
    counts = _proxy_call(proxy, "counts") if proxy else None
    problems = [] if result.num_rows == ids.num_rows else [
        f"{result.num_rows} rows for {ids.num_rows} ids"]
    return {"ok": True, "op_s": op_s, "io": io, "counts": counts, "rows": result.num_rows,
            "digest": table_digest(result, ["_ROW_ID"]), "problems": problems,
            "imported_during_op": sorted(set(sys.modules) - modules_before)}


def worker_main() -> int:
    job = json.loads(sys.stdin.read())
    try:
        reply = worker(job)
    except BaseException as error:  # noqa: BLE001 - everything goes back to the orchestrator
        import traceback
        traceback.print_exc()
        reply = {"ok": False, "error": f"{type(error).__name__}: {error}"}
    sys.stdout.write("\nS3IO-RESULT " + json.dumps(reply) + "\n")
    return 0 if reply["ok"] else 1


# -- orchestrator ------------------------------------------------------------------------------

def _upload(server, local_warehouse: str, uri: str) -> int:
    """Copies a local warehouse into ``uri`` (same relative keys); returns the bytes."""
    bucket, prefix = _load_test_module("s3_server").split_uri(uri)
    client = server.client()
    total = 0
    for root, _dirs, files in os.walk(local_warehouse):
        for name in files:
            path = Path(root) / name
            rel = path.relative_to(local_warehouse).as_posix()
            if name.startswith(".") or "/." in rel:
                continue
            body = path.read_bytes()
            client.put_object(Bucket=bucket, Key=f"{prefix}/{rel}", Body=body)
            total += len(body)
    return total


def _run_worker(python: str, env: Dict[str, str], job: Dict[str, Any], log: Path,
                timeout_s: float) -> Dict[str, Any]:
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "w") as err:
        proc = subprocess.run([python, "-m", "bench.s3_io", "--worker"], input=json.dumps(job),
                              text=True, stdout=subprocess.PIPE, stderr=err, env=env,
                              cwd=str(REPO), timeout=timeout_s)
    reply = None
    for line in proc.stdout.splitlines():
        if line.startswith("S3IO-RESULT "):
            reply = json.loads(line[len("S3IO-RESULT "):])
    if reply is None or not reply.get("ok"):
        tail = "\n    ".join(log.read_text(errors="replace").splitlines()[-15:])
        raise RuntimeError(f"{job['engine']}: {reply['error'] if reply else 'no result'}"
                           f"\n    {tail}")
    return reply


def _summarize_log(entries: List[Dict[str, Any]]) -> Dict[str, Any]:
    """Per file kind (by name): requests and response bytes of the last round."""
    kinds: Dict[str, Dict[str, int]] = {}
    for e in entries:
        path = e["path"].split("?", 1)[0]
        name = path.rsplit("/", 1)[-1]
        if e["kind"] == "LIST":
            kind = "list"
        elif name.endswith(".parquet"):
            kind = "parquet"
        elif name.endswith(".blob"):
            kind = "blob"
        elif name.startswith("manifest-list"):
            kind = "manifest-list"
        elif name.startswith("manifest") or name.startswith("index-manifest"):
            kind = "manifest"
        elif name.startswith(("snapshot", "LATEST", "EARLIEST")):
            kind = "snapshot"
        elif name.startswith("schema"):
            kind = "schema"
        else:
            kind = "other"
        slot = kinds.setdefault(kind, {"requests": 0, "bytes": 0, "HEAD": 0, "GET": 0})
        slot["requests"] += 1
        slot["bytes"] += e["response_bytes"]
        if e["kind"] in ("HEAD", "GET"):
            slot[e["kind"]] += 1
    return kinds


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--size", default="medium", help="bench size of the base table")
    parser.add_argument("--blob-rows", type=int, default=100_000)
    parser.add_argument("--blob-commits", type=int, default=2)
    parser.add_argument("--blob-bytes", type=int, default=1024)
    parser.add_argument("--blob-reads", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds per cell")
    parser.add_argument("--workloads", default="read_ids,read_blob")
    parser.add_argument("--engines", default="ours,pypaimon")
    parser.add_argument("--storages", default="local,s3")
    parser.add_argument("--work-dir", default=None)
    parser.add_argument("--json", default=None)
    parser.add_argument("--label", default="", help="a name for this run in the report")
    parser.add_argument("--note", default="", help="a remark printed under the run's heading")
    parser.add_argument("--results", nargs="?", const=str(REPO / "bench" / "RESULTS.md"),
                        default=None, help="write the section into this markdown file")
    parser.add_argument("--render", default=None,
                        help="only render the section from these JSON files (a.json,b.json)")
    parser.add_argument("--timeout", type=float, default=1800)
    return parser.parse_args(argv)


def run(args) -> Dict[str, Any]:
    from bench import data, registry
    from bench.cli import Context
    from bench.runner import make_sides, oracle_python

    params = dict(registry.SIZES[args.size])
    work_dir = Path(args.work_dir or Path(tempfile.gettempdir()) /
                    f"paimon-rowid-s3io-{args.size}").resolve()
    work_dir.mkdir(parents=True, exist_ok=True)
    sides = make_sides(sys.executable, str(oracle_python()), dev=False)
    ctx = Context(args.size, params, work_dir, sides, args.timeout)
    rows, few = params["rows"], params["read_few"]
    ids_path = ctx.input_path("read_ids.arrow")
    data.row_id_input(ids_path, data.random_ids(rows, few, 5, few))
    blob_ids = ctx.input_path("read_blob.arrow")
    data.row_id_input(blob_ids, data.random_ids(args.blob_rows, args.blob_reads, 6, 1))
    workloads = {
        "read_ids": {"warehouse": ctx.base_table(), "ids": str(ids_path),
                     "projection": ["x", "s"],
                     "title": f"read_by_row_id (x, s), {few:,} random ids of {rows:,} rows "
                              f"({params['commits']} commits)"},
        "read_blob": {"warehouse": ctx.blob_table(args.blob_rows, args.blob_commits,
                                                  args.blob_bytes, "s3io_blob_table"),
                      "ids": str(blob_ids), "projection": ["payload"],
                      "title": f"read_by_row_id BLOB, {args.blob_reads:,} random of "
                               f"{args.blob_rows:,} x {args.blob_bytes:,} B "
                               f"({args.blob_commits} commits)"},
    }
    wanted = args.workloads.split(",")
    storages = args.storages.split(",")
    server = proxy = None
    if "s3" in storages:
        s3_server = _load_test_module("s3_server")
        s3_proxy = _load_test_module("s3_proxy")
        server = s3_server.S3Server.start()
        proxy = s3_proxy.S3Proxy.start(server.endpoint, record=True)
    cells: List[Dict[str, Any]] = []
    try:
        for name in wanted:
            w = workloads[name]
            catalogs: Dict[str, Any] = {"local": w["warehouse"]}
            if server is not None:
                uri = server.fresh_warehouse(name)
                started = time.perf_counter()
                size = _upload(server, w["warehouse"], uri)
                print(f"  uploaded {name} ({size / 1e6:.1f} MB) in "
                      f"{time.perf_counter() - started:.1f} s", flush=True)
                catalogs["s3"] = proxy.catalog_options(server, uri)
            for storage in storages:
                digests = set()
                for engine in args.engines.split(","):
                    side = sides[engine]
                    job = {"engine": engine, "catalog": catalogs[storage], "ids": w["ids"],
                           "projection": w["projection"],
                           "proxy": proxy.endpoint if storage == "s3" else None}
                    rounds = []
                    preimport: List[str] = []
                    for r in range(args.rounds + 1):
                        reply = _run_worker(side.python, side.env, {**job, "preimport": preimport},
                                            work_dir / "logs" / f"s3io-{name}-{storage}-"
                                            f"{engine}-{r}.log", args.timeout)
                        if r == 0:
                            preimport = reply["imported_during_op"]
                        else:
                            rounds.append(reply)
                        digests.add(reply["digest"]["hash"])
                        if reply["problems"]:
                            raise RuntimeError(f"{name}/{storage}/{engine}: {reply['problems']}")
                    cell = {"workload": name, "storage": storage, "engine": engine,
                            "op_s": statistics.median(x["op_s"] for x in rounds),
                            "op_s_all": [x["op_s"] for x in rounds],
                            "rchar": statistics.median(x["io"].get("rchar", 0) for x in rounds),
                            "counts": rounds[-1]["counts"], "rows": rounds[-1]["rows"],
                            "digest": rounds[-1]["digest"]["hash"]}
                    if storage == "s3":
                        log = proxy.requests()
                        cell["by_file"] = _summarize_log(log)
                        (work_dir / f"s3_io-requests-{name}-{engine}.json").write_text(
                            json.dumps(log))
                    cells.append(cell)
                    print(f"  {name:<9} {storage:<5} {engine:<8} {cell['op_s']:.3f} s  "
                          f"{_counts_text(cell)}", flush=True)
                if len(digests) != 1:
                    raise RuntimeError(f"{name}/{storage}: results differ ({digests})")
    finally:
        if proxy is not None:
            proxy.stop()
        if server is not None:
            server.stop()
    return {"label": args.label, "note": args.note, "size": args.size,
            "work_dir": str(work_dir), "params": params,
            "blob": {"rows": args.blob_rows, "commits": args.blob_commits,
                     "bytes": args.blob_bytes, "reads": args.blob_reads},
            "titles": {k: workloads[k]["title"] for k in wanted}, "rounds": args.rounds,
            "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "cells": cells}


def _mb(n: Optional[float]) -> str:
    return "–" if n is None else f"{n / 1e6:,.2f} MB"


def _counts_text(cell: Dict[str, Any]) -> str:
    c = cell.get("counts")
    if not c:
        return f"rchar {_mb(cell['rchar'])}"
    kinds = ", ".join(f"{k} {c[k]}" for k in ("GET", "HEAD", "LIST", "PUT", "POST", "DELETE")
                      if c.get(k))
    return f"{c['requests']} requests ({kinds}), {_mb(c['response_bytes'])}"


def section(results: List[Dict[str, Any]], command: str) -> str:
    lines = [f"{SECTION} (issue 14 item 2; `bench/s3_io.py`, measured separately, "
             "not regenerated)", ""]
    lines += ["Each cell: median op time of the timed rounds (one process per round, modules "
              "pre-imported as in the main bench). **S3** is a local moto server behind the "
              "counting proxy `tests/s3_proxy.py` (all on loopback: the seconds are the client's, "
              "moto's and the proxy's CPU per request, not network latency, which a real store "
              "adds to every request). Requests: everything the call sends, planning included "
              "(snapshot hint, snapshot, schema, manifest list, manifests, data files); bytes: "
              "response bodies. **local**: `rchar` (bytes through read syscalls).", ""]
    for result in results:
        label = f" — {result['label']}" if result.get("label") else ""
        lines += [f"### {result['started']}{label}", ""]
        if result.get("note"):
            lines += [result["note"], ""]
        for name, title in result["titles"].items():
            lines += [f"**{title}**", "",
                      "| engine | local s | local rchar | S3 s | S3 requests | "
                      "GET / HEAD / LIST | S3 bytes |",
                      "|---|---|---|---|---|---|---|"]
            by = {(c["storage"], c["engine"]): c for c in result["cells"]
                  if c["workload"] == name}
            for engine in dict.fromkeys(c["engine"] for c in result["cells"]):
                loc, s3 = by.get(("local", engine)), by.get(("s3", engine))
                cs = (s3 or {}).get("counts") or {}
                lines.append(
                    f"| {engine} | {loc['op_s']:.3f} | {_mb(loc['rchar'])} | " if loc else
                    f"| {engine} | – | – | ")
                lines[-1] += (f"{s3['op_s']:.3f} | {cs['requests']:,} | {cs['GET']:,} / "
                              f"{cs['HEAD']:,} / {cs['LIST']:,} | {_mb(cs['response_bytes'])} |"
                              if s3 else "– | – | – | – |")
            details = []
            for engine in dict.fromkeys(c["engine"] for c in result["cells"]):
                s3 = by.get(("s3", engine))
                if s3 and s3.get("by_file"):
                    parts = ", ".join(f"{k} {v['requests']} ({_mb(v['bytes'])})"
                                      for k, v in sorted(s3["by_file"].items()))
                    details.append(f"- {engine} on S3, by file: {parts}")
            lines += [""] + details + [""]
    commands = [r["command"] for r in results if r.get("command")] or [command]
    lines += ["Reproduce (from the repository root; `<ours>` = the built package, e.g. a "
              "`pip install --target` directory):", "", "```bash", *commands, "```", ""]
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.worker:
        return worker_main()
    import shlex
    command = ("PYTHONPATH=<ours> python -m bench.s3_io " + " ".join(
        shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv)
        if not a.startswith("--render"))).strip()
    if args.render:
        results = [json.loads(Path(p).read_text()) for p in args.render.split(",")]
    else:
        result = run(args)
        result["command"] = command
        out = Path(args.json or Path(result["work_dir"]) / "s3_io.json")
        out.write_text(json.dumps(result, indent=2) + "\n")
        print(f"json: {out}")
        results = [result]
    text = section(results, command)
    print("\n" + text)
    if args.results:
        from bench import report
        report.replace_section(args.results, SECTION, text)
        print(f"section written to {args.results}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
