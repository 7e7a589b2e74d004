"""``python -m bench --size small|medium|large --out results.json``: runs every workload with
ours and pypaimon alternately (one warm-up round each, then ``--rounds`` timed rounds each),
checks that both give the same result, and writes the JSON and ``bench/RESULTS.md``."""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

from bench import data, peers, registry, report
from bench.runner import REPO, JobFailed, Side, make_sides, oracle_python, run_job

DATA_VERSION = 1  # bump when data.py changes what it generates


class Context:
    """What ``Workload.prepare`` / ``skip_reason`` may use: sizes, inputs, cached fixtures."""

    def __init__(self, size: str, params: Dict[str, Any], work_dir: Path,
                 sides: Dict[str, Side], timeout_s: float,
                 fixture_writer: str = "pypaimon") -> None:
        self.size, self.params, self.work_dir = size, params, work_dir
        self.sides, self.timeout_s = sides, timeout_s
        # Who writes the base and BLOB tables: pypaimon (neutral, no Parquet page CRCs) or
        # ours (page CRCs, which our reader then verifies).
        self.fixture_writer = fixture_writer
        self.log_dir = work_dir / "logs"

    def input_path(self, name: str) -> Path:
        path = self.work_dir / "inputs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    def fixture(self, name: str, key: Dict[str, Any], build: Callable[[Path], None]) -> Path:
        """A directory built once by ``build`` and reused while ``key`` is unchanged (also
        across runs sharing the work dir)."""
        directory = self.work_dir / "fixtures" / name
        stamp = directory / ".key"
        key_text = json.dumps({**key, "data_version": DATA_VERSION}, sort_keys=True)
        if stamp.exists() and stamp.read_text() == key_text:
            return directory
        shutil.rmtree(directory, ignore_errors=True)
        directory.mkdir(parents=True)
        started = time.perf_counter()
        print(f"  [fixture] building {name} ...", flush=True)
        build(directory)
        print(f"  [fixture] {name} built in {time.perf_counter() - started:.1f} s", flush=True)
        stamp.write_text(key_text)
        return directory

    def _inputs(self, name: str, key: Dict[str, Any], make: Callable[[Path], List[str]]):
        directory = self.fixture(name, key, make)
        return sorted(str(p) for p in directory.glob("*.arrow"))

    def _pypaimon_table(self, name: str, key: Dict[str, Any], inputs: List[str],
                        schema: str, writer: str = "pypaimon",
                        options: Optional[Dict[str, str]] = None) -> str:
        """A table written from ``inputs``, one commit each, by pypaimon (the neutral writer)
        unless ``writer`` says otherwise; ``options`` are extra table options."""
        def build(directory: Path) -> None:
            run_job(self.sides[writer], {
                "workload": "bulk_write", "verify": False,
                "args": {"inputs": inputs, "warehouse": str(directory / "wh"), "schema": schema,
                         "options": options or {}},
            }, self.log_dir / f"fixture-{name}.log", self.timeout_s)
        key = {**key, "writer": self.sides[writer].python, "options": options or {}}
        if writer != "pypaimon":
            key["writer_env"] = self.sides[writer].env.get("PYTHONPATH", "")
        return str(self.fixture(name, key, build) / "wh")

    def base_inputs(self) -> List[str]:
        p = self.params
        key = {"rows": p["rows"], "commits": p["commits"]}
        return self._inputs("base_inputs", key,
                            lambda d: data.base_inputs(d, p["rows"], p["commits"]))

    def base_table(self) -> str:
        """The (id, x, y, s) table every scan, update and read workload starts from."""
        p = self.params
        return self._pypaimon_table("base_table", {"rows": p["rows"], "commits": p["commits"]},
                                    self.base_inputs(), "base", writer=self.fixture_writer)

    def update_inputs(self, updates: int, fraction: float) -> List[str]:
        """``updates`` files of (_ROW_ID, x): each ``fraction`` of the base rows at random
        (distinct within a file, a new draw per file), random new x."""
        p = self.params
        key = {"rows": p["rows"], "updates": updates, "fraction": fraction}
        return self._inputs("update_inputs", key,
                            lambda d: data.update_inputs(d, p["rows"], updates, fraction))

    def evolved_tables(self, updates: int, fraction: float) -> Dict[str, Any]:
        """Issue 17: the base table after ``updates`` update_by_row_id commits of x (the
        ``update_inputs``, in order), and a copy of it after ``paimon_rowid.compact``. Built by
        ours (the only engine here with both calls; pypaimon's update would take minutes):
        the base table's files are hard-linked, the updates and the compaction add files.
        Returns {"updated", "compacted": warehouses, "compaction": compact()'s figures}."""
        from bench.workloads.backfill import link_warehouse
        base = self.base_table()
        inputs = self.update_inputs(updates, fraction)

        def build(directory: Path) -> None:
            updated = link_warehouse(base, directory / "updated")
            self.run_fixture_job("ours", "read_ids_updated", {
                "build": "updates", "warehouse": updated, "updates": inputs}, "evolved-updates")
            compacted = link_warehouse(updated, directory / "compacted")
            reply = self.run_fixture_job("ours", "read_ids_updated", {
                "build": "compact", "warehouse": compacted}, "evolved-compact")
            (directory / "compaction.json").write_text(json.dumps(reply.get("metrics") or {}))
        key = {"updates": updates, "fraction": fraction, "base": base,
               "base_key": (Path(base).parent / ".key").read_text(),
               "writer": self.sides["ours"].python,
               "writer_env": self.sides["ours"].env.get("PYTHONPATH", "")}
        directory = self.fixture("evolved_tables", key, build)
        return {"updated": str(directory / "updated"), "compacted": str(directory / "compacted"),
                "compaction": json.loads((directory / "compaction.json").read_text())}

    def blob_table(self, rows: int, commits: int, payload_bytes: int, name: str) -> str:
        key = {"rows": rows, "commits": commits, "payload_bytes": payload_bytes}
        inputs = self._inputs(name + "_inputs", key,
                              lambda d: data.blob_inputs(d, rows, commits, payload_bytes))
        return self._pypaimon_table(name, key, inputs, "blob", writer=self.fixture_writer)

    def image_table(self, rows: int, commits: int, payload_bytes: int) -> str:
        """6.: (id, image BLOB, embedding VECTOR<FLOAT, 64> NULL), all embeddings NULL.
        Written by ours: pypaimon 2.1.0 writes a NULL VECTOR as a zero-length Parquet
        fixed-size list that neither library can read back ("Expected all lists to be of
        size=64 but index 1 had size=0"); ours writes a Parquet LIST, which both read."""
        key = {"rows": rows, "commits": commits, "payload_bytes": payload_bytes}
        inputs = self.image_inputs(rows, commits, payload_bytes)
        return self._pypaimon_table("image_table", key, inputs, "image", writer="ours")

    def image_inputs(self, rows: int, commits: int, payload_bytes: int) -> List[str]:
        key = {"rows": rows, "commits": commits, "payload_bytes": payload_bytes}
        return self._inputs("image_inputs", key,
                            lambda d: data.image_inputs(d, rows, commits, payload_bytes))

    def many_files_table(self, rows: int, commits: int, target_file_size: str) -> str:
        """7.: an (id, x) table of many tiny files, written by ours with a small
        ``target-file-size`` (pypaimon would take ~10 ms per file)."""
        key = {"rows": rows, "commits": commits}
        inputs = self._inputs("narrow_inputs", key,
                              lambda d: data.narrow_inputs(d, rows, commits))
        return self._pypaimon_table("many_files_table", {**key, "tfs": target_file_size},
                                    inputs, "narrow", writer="ours",
                                    options={"target-file-size": target_file_size})

    def join_tables(self, rows: int, commits: int, incoming: int, buckets: int) -> str:
        """bucket_join: one warehouse with ``bench.locator`` (k -> row_id, ``rows`` rows in
        ``commits`` commits) and ``bench.incoming`` (``incoming`` of its keys with a label),
        both plain append tables with ``buckets`` fixed buckets on k, written by pypaimon."""
        key = {"rows": rows, "commits": commits, "incoming": incoming, "buckets": buckets}
        locator = self._inputs("locator_inputs", {"rows": rows, "commits": commits},
                               lambda d: data.locator_inputs(d, rows, commits))
        arriving = self._inputs("incoming_inputs", {"rows": rows, "incoming": incoming},
                                lambda d: data.incoming_inputs(d, rows, incoming))
        options = {"row-tracking.enabled": "false", "data-evolution.enabled": "false",
                   "bucket": str(buckets), "bucket-key": "k"}

        def build(directory: Path) -> None:
            for identifier, inputs, schema in (("bench.locator", locator, "locator"),
                                               ("bench.incoming", arriving, "incoming")):
                run_job(self.sides["pypaimon"], {
                    "workload": "bulk_write", "verify": False,
                    "args": {"inputs": inputs, "warehouse": str(directory / "wh"),
                             "schema": schema, "options": options, "identifier": identifier},
                }, self.log_dir / f"fixture-join-{schema}.log", self.timeout_s)
        key["writer"] = self.sides["pypaimon"].python
        return str(self.fixture("join_tables", key, build) / "wh")

    def run_fixture_job(self, engine: str, workload: str, args: Dict[str, Any],
                        name: str) -> Dict[str, Any]:
        return run_job(self.sides[engine], {"workload": workload, "args": args,
                                            "verify": False},
                       self.log_dir / f"fixture-{name}.log", self.timeout_s)

    def try_job(self, engine: str, workload: registry.Workload,
                args: Dict[str, Any]) -> Optional[str]:
        """Runs one verified round; None if it worked, else the error's first line."""
        try:
            run_job(self.sides[engine], {"workload": workload.name, "args": args, "verify": True},
                    self.log_dir / f"probe-{workload.name}-{engine}.log", self.timeout_s)
            return None
        except JobFailed as error:
            return str(error).splitlines()[0].split(": ", 1)[-1]


def _median(values: List[float]) -> Optional[float]:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _side_stats(rounds: List[Dict[str, Any]]) -> Dict[str, Any]:
    op = [r["op_s"] for r in rounds]
    stats = {
        "rounds": len(rounds), "op_s": op, "median_s": _median(op), "min_s": min(op),
        "max_s": max(op), "proc_median_s": _median([r["proc_s"] for r in rounds]),
        "import_median_s": _median([r["import_s"] for r in rounds]),
        "imports_during_op": max(r["imports_during_op"] for r in rounds),
        "peak_rss": _median([r["peak_rss"] for r in rounds]),
        "op_peak_rss": _median([r.get("op_peak_rss") for r in rounds]),
        "rss_before_op": _median([r.get("rss_before_op") for r in rounds]),
    }
    for key in ("rchar", "wchar", "read_bytes", "write_bytes", "syscr", "syscw"):
        stats[key] = _median([r["io"].get(key) for r in rounds])
    names = sorted({k for r in rounds for k in (r.get("metrics") or {})})
    if names:
        stats["metrics"] = {k: _median([(r.get("metrics") or {}).get(k) for r in rounds])
                            for k in names}
    return stats


class Bench:
    def __init__(self, ctx: Context, rounds: int, verify: str, keep_work: bool,
                 rounds_forced: bool = False) -> None:
        self.ctx, self.rounds, self.verify, self.keep_work = ctx, rounds, verify, keep_work
        self.rounds_forced = rounds_forced
        self.peer = False  # compare with pypaimon-rust too (bench/peers.py)
        self.engine_info: Dict[str, Any] = {}

    def _round(self, workload, args, engine: str, tag: str, verify: bool,
               preimport: List[str] = ()) -> Dict[str, Any]:
        round_dir = self.ctx.work_dir / "rounds" / workload.name / f"{engine}-{tag}"
        shutil.rmtree(round_dir, ignore_errors=True)
        round_dir.mkdir(parents=True)
        try:
            job = {"workload": workload.name, "verify": verify, "preimport": list(preimport),
                   "args": workload.round_args(self.ctx, args, round_dir)}
            log = self.ctx.log_dir / workload.name / f"{engine}-{tag}.log"
            reply = run_job(self.ctx.sides[engine], job, log, self.ctx.timeout_s)
        finally:
            if not self.keep_work:
                shutil.rmtree(round_dir, ignore_errors=True)
        self.engine_info.setdefault(engine, reply.get("engine_info"))
        check = (f" check {reply['digest']['hash']}" if "digest" in reply else "")
        print(f"    {engine:<13} {tag:<7} {reply['op_s']:9.3f} s  (process "
              f"{reply['proc_s']:.2f} s, {reply['imports_during_op']} lazy imports){check}",
              flush=True)
        return reply

    def run_pair(self, workload, args, pair) -> Dict[str, Any]:
        result: Dict[str, Any] = {"candidate": pair[0], "baseline": pair[1]}
        replies: Dict[str, List[Dict[str, Any]]] = {engine: [] for engine in pair}
        checks: List[Dict[str, Any]] = []
        preimport: Dict[str, List[str]] = {}
        try:
            for engine in pair:  # warm-up: page cache and lazy imports; always verified
                reply = self._round(workload, args, engine, "warmup", True)
                preimport[engine] = reply.pop("imported_during_op")
                result.setdefault("warmup_s", {})[engine] = reply["op_s"]
                checks.append({"engine": engine, "round": "warmup", **reply})
            rounds = self.rounds
            if not self.rounds_forced and workload.rounds(self.ctx.params):
                rounds = min(rounds, workload.rounds(self.ctx.params))
            result["rounds"] = rounds
            for i in range(rounds):
                for engine in (pair if i % 2 == 0 else pair[::-1]):
                    reply = self._round(workload, args, engine, f"r{i + 1}",
                                        self.verify == "all", preimport[engine])
                    reply.pop("imported_during_op")
                    replies[engine].append(reply)
                    if "digest" in reply:
                        checks.append({"engine": engine, "round": f"r{i + 1}", **reply})
        except JobFailed as error:
            unavailable = error.reply.get("unavailable")
            result.update(status="skipped" if unavailable else "failed", reason=str(error),
                          log=str(error.log), unavailable_engine=unavailable and error.engine)
            print(("    skipped: " if unavailable else "    FAILED: ") + str(error), flush=True)
            return result
        hashes = {c["digest"]["hash"] for c in checks}
        problems = sorted({f"{c['engine']}: {p}" for c in checks for p in c.get("problems", [])})
        result["match"] = len(hashes) == 1
        result["digest"] = checks[0]["digest"]
        result["problems"] = problems
        if not result["match"]:
            result["digests"] = [{"engine": c["engine"], "round": c["round"], **c["digest"]}
                                 for c in checks]
        result["status"] = "ok" if result["match"] and not problems else "mismatch"
        result["sides"] = {engine: _side_stats(replies[engine]) for engine in pair}
        cand, base = (result["sides"][e]["median_s"] for e in pair)
        result["ratio"] = cand / base if base else None
        result["speedup"] = base / cand if cand else None
        target = workload.target_for(pair[1])
        if target is not None:
            result["target"] = target.describe()
        if target is not None and result["speedup"] is not None:
            result["target_met"] = target.met(result["speedup"],
                                                       result["sides"][pair[0]].get("metrics"))
        verdict = "results match" if result["status"] == "ok" else "RESULTS DIFFER " + "; ".join(
            problems or ["digests differ"])
        print(f"    => {pair[0]} {cand:.3f} s vs {pair[1]} {base:.3f} s: ratio "
              f"{result['ratio']:.3f} (speedup {result['speedup']:.1f}x), {verdict}", flush=True)
        return result

    def run_workload(self, workload, use_ray: bool) -> Dict[str, Any]:
        p = self.ctx.params
        entry = {"name": workload.name, "title": workload.title(p), "group": workload.group,
                 "description": workload.description,
                 "target": None if workload.target is None else workload.target.describe()}
        print(f"\n== {workload.name}: {entry['title']}", flush=True)
        started = time.perf_counter()
        try:
            reason = workload.skip_reason(self.ctx)
        except JobFailed as error:
            reason = f"capability check failed: {error}"
        if reason:
            print(f"  skipped: {reason}", flush=True)
            entry.update(status="skipped", reason=reason, pairs=[])
            return entry
        try:
            args = workload.prepare(self.ctx)
        except JobFailed as error:
            print(f"  FAILED preparing: {error}", flush=True)
            entry.update(status="failed", reason=f"prepare: {error}", pairs=[])
            return entry
        pairs = list(workload.pairs) + (list(workload.ray_pairs) if use_ray else [])
        if self.peer:
            pairs += [(c, registry.PEER_BASELINES[b]) for c, b in
                      list(workload.pairs) + (list(workload.ray_pairs) if use_ray else [])
                      if b in registry.PEER_BASELINES]
        entry["pairs"] = []
        for pair in pairs:
            result = self.run_pair(workload, args, pair)
            fallback = registry.FALLBACK_BASELINE.get(pair[1])
            if result.get("unavailable_engine") == pair[1] and fallback:
                reason = result["reason"].splitlines()[0]
                print(f"    comparing {pair[0]} with {fallback} instead", flush=True)
                result = self.run_pair(workload, args, (pair[0], fallback))
                result.update(note=f"{pair[1]} unavailable", note_reason=reason)
            entry["pairs"].append(result)
        statuses = [r["status"] for r in entry["pairs"]]
        entry["status"] = ("failed" if "failed" in statuses else
                           "mismatch" if "mismatch" in statuses else
                           "ok" if "ok" in statuses else "skipped")
        entry["elapsed_s"] = time.perf_counter() - started
        return entry


def _chart_path(args) -> str:
    """--chart, else speedups.png next to --markdown; '' for none."""
    if args.chart is not None:
        return args.chart
    return str(Path(args.markdown).with_name("speedups.png")) if args.markdown else ""


def _chart_link(args, chart: Optional[str]) -> Optional[str]:
    """The drawn chart's path relative to the report, for the report to embed; None when no
    chart was drawn (an image of an earlier run must not pass for this one's)."""
    if not chart or not args.markdown:
        return None
    return os.path.relpath(Path(chart).resolve(), Path(args.markdown).resolve().parent)


def _draw_chart(python, results: Dict[str, Any], path: str) -> Optional[str]:
    """bench/chart.py under the peer's python (it has matplotlib); ``path`` when drawn, None
    (and a warning) when not."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(results, f)
    done = subprocess.run([str(python), "-m", "bench.chart", f.name, path], cwd=str(REPO),
                          capture_output=True, text=True)
    Path(f.name).unlink()
    if done.returncode != 0:
        print(f"bench: warning: no chart: {done.stderr.strip().splitlines()[-1:]}", flush=True)
        return None
    print(f"bench: chart {path}", flush=True)
    return path


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--size", choices=sorted(registry.SIZES), default="small")
    parser.add_argument("--out", default=None, help="JSON results (default: none)")
    parser.add_argument("--markdown", default=str(REPO / "bench" / "RESULTS.md"),
                        help="markdown report to regenerate ('' for none)")
    parser.add_argument("--workloads", default="",
                        help="comma-separated names or groups (default: all)")
    parser.add_argument("--list", action="store_true", help="list the workloads and exit")
    parser.add_argument("--render", metavar="JSON", default=None,
                        help="only rewrite --markdown from an earlier run's --out file "
                             "(a,b,...: several runs of one size, merged)")
    parser.add_argument("--rounds", type=int, default=None,
                        help="timed rounds per side (default: the size's, 5)")
    parser.add_argument("--verify", choices=["all", "first"], default=None,
                        help="check results every round, or only in the warm-up round")
    parser.add_argument("--dev", action="store_true",
                        help="ours = the source tree's python/ (ahead of any installed package)")
    parser.add_argument("--ray", action=argparse.BooleanOptionalAction, default=True,
                        help="also run the Ray pairs (ours-ray vs pypaimon-ray) where defined "
                             "(default; --no-ray skips them)")
    parser.add_argument("--peer", choices=["on", "off"], default="on",
                        help="also compare with pypaimon + its Rust backend (pypaimon-rust), "
                             "in a virtualenv the bench installs (bench/peers.py; default on; "
                             "it also gives --ray a pypaimon with Ray)")
    parser.add_argument("--ours-python", default=sys.executable)
    parser.add_argument("--pypaimon-python", default=str(oracle_python()))
    parser.add_argument("--work-dir", default=None,
                        help="inputs, fixtures and logs (default: $TMPDIR/paimon-rowid-bench-"
                             "<size>; fixtures are reused across runs)")
    parser.add_argument("--fixture-writer", choices=["pypaimon", "ours"], default="pypaimon",
                        help="who writes the base and BLOB fixture tables (default pypaimon, "
                             "the neutral writer; ours adds Parquet page CRCs)")
    parser.add_argument("--chart", default=None,
                        help="the speed-up chart (default: speedups.png next to --markdown; "
                             "'' for none); drawn with the peer's matplotlib")
    parser.add_argument("--keep-work", action="store_true", help="keep each round's warehouse")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per round")
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    selected = registry.workloads()
    if args.list:
        for w in selected:
            print(f"{w.name:<18} {w.group:<16} {w.title(registry.SIZES[args.size])}")
        return 0
    if args.render:  # one results JSON, or several runs of one size merged (a,b,...)
        runs = [json.loads(Path(p).read_text()) for p in args.render.split(",")]
        results = runs[0]
        for extra in runs[1:]:
            results = report.merge(results, extra)
        chart, drawn = _chart_path(args), None
        if chart and args.peer == "on":
            peer_python, why = peers.ensure_peer_venv()
            if peer_python is None:
                print(f"bench: warning: no chart: {why}", flush=True)
            else:
                drawn = _draw_chart(peer_python, results, chart)
        report.write_markdown(args.markdown, report.markdown(
            results, registry.workloads(), chart=_chart_link(args, drawn)))
        return 0
    if args.workloads:
        wanted = set(args.workloads.split(","))
        names = {w.name for w in selected}
        # A workload's name selects that workload alone, even where a group shares it
        # ("backfill" is both); other words select their group.
        selected = [w for w in selected
                    if w.name in wanted or (w.group in wanted and w.group not in names)]
        unknown = wanted - {w.name for w in selected} - {w.group for w in selected}
        if unknown:
            print(f"unknown workloads: {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
    if not Path(args.pypaimon_python).exists():
        print(f"pypaimon's python {args.pypaimon_python} is missing: run scripts/setup.sh or "
              "set PAIMON_ROWID_ORACLE_VENV / --pypaimon-python", file=sys.stderr)
        return 2
    params = dict(registry.SIZES[args.size])
    rounds = args.rounds or params["rounds"]
    if rounds < 5:
        print(f"warning: {rounds} timed rounds (< 5): medians are not meaningful")
    work_dir = Path(args.work_dir or Path(tempfile.gettempdir()) /
                    f"paimon-rowid-bench-{args.size}").resolve()
    work_dir.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(work_dir / "rounds", ignore_errors=True)
    peer_python = None
    if args.peer == "on":
        peer_python, why = peers.ensure_peer_venv()
        if peer_python is None:
            print(f"bench: warning: no peer side: {why}", flush=True)
    sides = make_sides(args.ours_python, args.pypaimon_python, args.dev,
                       None if peer_python is None else str(peer_python))
    ctx = Context(args.size, params, work_dir, sides, args.timeout, args.fixture_writer)
    bench = Bench(ctx, rounds, args.verify or params["verify"], args.keep_work,
                  rounds_forced=args.rounds is not None)
    bench.peer = peer_python is not None and args.peer == "on"

    started, machine = time.time(), report.machine()
    print(f"bench: size {args.size}, {rounds} rounds, work dir {work_dir}, ours = "
          f"{'dev tree' if args.dev else 'installed package'}", flush=True)
    entries = [bench.run_workload(w, args.ray) for w in selected]
    machine["load_avg_end"] = report.load_avg()
    results = {
        "size": args.size, "params": params, "rounds": rounds, "verify": bench.verify,
        "dev": args.dev, "ray": args.ray, "started": time.strftime(
            "%Y-%m-%d %H:%M:%S %Z", time.localtime(started)),
        "elapsed_s": time.time() - started, "machine": machine,
        "engines": bench.engine_info, "workloads": entries,
        "ok": all(e["status"] in ("ok", "skipped") for e in entries),
    }
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=2) + "\n")
    chart, drawn = _chart_path(args), None
    if chart and peer_python is not None:
        drawn = _draw_chart(peer_python, results, chart)
    if args.markdown:
        report.write_markdown(args.markdown, report.markdown(
            results, registry.workloads(), chart=_chart_link(args, drawn)))
    print("\n" + report.summary_table(results))
    print(f"\nbench: {'OK' if results['ok'] else 'FAILED'} in {results['elapsed_s']:.0f} s",
          flush=True)
    return 0 if results["ok"] else 1
