"""Issue 17's maintenance series: does planning stay flat over many small update commits when
the table is compacted periodically?

``python -m bench.maintenance_series --size small|medium [--commits 2000] [--compact-every 100]``

Builds a fresh (id, x, y, s) table with ours (the base inputs of ``bench.data``: 100k rows in
10 commits at small, 1M at medium), then makes ``--commits`` small ``update_by_row_id``
commits (``--rows-per-update`` random ids, column x, each a new random draw) and calls
``paimon_rowid.compact`` every ``--compact-every`` commits. Every ``--compact-every`` commits,
just before compacting and just after, it measures on the latest snapshot:

- planning time: ``table.new_read_builder().new_scan().plan()`` (median of 3, each on a fresh
  ``get_table``, so the snapshot and manifests are read every time);
- data files a full scan reads: the sum of ``len(split.file_paths)`` over that plan's splits;
- manifest files the snapshot lists: the entries of its base + delta manifest lists (counted
  from the Avro container's block headers, no decoding of the records).

With ``--control`` (default on) a second table gets the same updates and is never compacted:
the series without maintenance. Both tables get each commit in turn, so machine load hits
both alike. Output: a markdown table on stdout, ``--json`` (default
``<work-dir>/maintenance-<size>.json``) and, with ``--results``, the section
"Maintenance: planning over N update commits" of bench/RESULTS.md (replaced if present).

Ours only: pypaimon 2.1.0 has no data-evolution compaction to compare with.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

import numpy as np
import pyarrow as pa

from bench import data, report
from bench.measure import io_delta, proc_io
from bench.registry import IDENTIFIER, SIZES, TABLE_OPTIONS
from bench.runner import REPO

SECTION = "## Maintenance: planning over"


# -- Avro object container files: the record count without decoding the records -------------

def _read_long(buf: bytes, pos: int) -> tuple[int, int]:
    """An Avro long (zig-zag varint) at ``pos``: (value, next position)."""
    shift = result = 0
    while True:
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            break
        shift += 7
    return (result >> 1) ^ -(result & 1), pos


def avro_record_count(path: str) -> int:
    """The number of records in an Avro object container file: the header (magic, metadata
    map, 16-byte sync marker), then blocks of (record count, byte size, data, sync); only the
    counts are read, so the codec does not matter."""
    buf = Path(path).read_bytes()
    if buf[:4] != b"Obj\x01":
        raise ValueError(f"{path} is not an Avro container file")
    pos = 4
    while True:  # the metadata map: blocks of (key string, value bytes) pairs, 0 ends it
        count, pos = _read_long(buf, pos)
        if count == 0:
            break
        if count < 0:
            count = -count
            _size, pos = _read_long(buf, pos)
        for _ in range(2 * count):
            length, pos = _read_long(buf, pos)
            pos += length
    pos += 16  # sync marker
    records = 0
    while pos < len(buf):
        count, pos = _read_long(buf, pos)
        size, pos = _read_long(buf, pos)
        records += count
        pos += size + 16
    return records


def manifest_count(table) -> Optional[int]:
    """Manifest files the latest snapshot lists (base + delta manifest lists)."""
    snapshot = table.latest_snapshot()
    if snapshot is None:
        return None
    manifest_dir = Path(table.path) / "manifest"
    return sum(avro_record_count(str(manifest_dir / name))
               for name in (snapshot.base_manifest_list, snapshot.delta_manifest_list) if name)


# -- the series -----------------------------------------------------------------------------

def measure(lib, warehouse: str, repeats: int = 3) -> Dict[str, Any]:
    times: List[float] = []
    reads: List[int] = []
    files = splits = None
    for _ in range(repeats):
        table = lib.CatalogFactory.create({"warehouse": warehouse}).get_table(IDENTIFIER)
        io_before = proc_io()
        started = time.perf_counter()
        plan = table.new_read_builder().new_scan().plan()
        times.append(time.perf_counter() - started)
        rchar = io_delta(io_before, proc_io()).get("rchar")
        if rchar is not None:  # None where /proc/self/io is unreadable
            reads.append(rchar)
        found = plan.splits()
        files = sum(len(s.file_paths) for s in found)
        splits = len(found)
    snapshot = table.latest_snapshot()
    return {"plan_s": statistics.median(times),
            "plan_rchar": statistics.median(reads) if reads else None,
            "files": files, "splits": splits,
            "manifests": manifest_count(table), "snapshot": snapshot.id,
            "kind": snapshot.commit_kind}


def create_table(lib, warehouse: str, inputs: List[str]) -> None:
    catalog = lib.CatalogFactory.create({"warehouse": warehouse})
    catalog.create_database(IDENTIFIER.split(".", 1)[0], True)
    catalog.create_table(IDENTIFIER, lib.Schema.from_pyarrow_schema(
        data.BASE_SCHEMA, options=dict(TABLE_OPTIONS)), False)
    table = catalog.get_table(IDENTIFIER)
    for path in inputs:
        builder = table.new_batch_write_builder()
        write, commit = builder.new_write(), builder.new_commit()
        try:
            write.write_arrow(data.read_ipc(path))
            commit.commit(write.prepare_commit())
        finally:
            write.close()
            commit.close()


def run_series(size: str, commits: int, compact_every: int, rows_per_update: int,
               work_dir: Path, control: bool, log=print) -> Dict[str, Any]:
    import paimon_rowid as lib
    from paimon_rowid.row_id_jobs import update_by_row_id

    p = SIZES[size]
    rows = p["rows"]
    inputs = data.base_inputs(work_dir / "inputs", rows, p["commits"])
    tables = {"compacted": str(work_dir / "wh-compacted")}
    if control:
        tables["control"] = str(work_dir / "wh-control")
    for warehouse in tables.values():
        shutil.rmtree(warehouse, ignore_errors=True)
        create_table(lib, warehouse, inputs)

    points: List[Dict[str, Any]] = []
    update_s: Dict[str, List[float]] = {name: [] for name in tables}
    compactions: List[Dict[str, Any]] = []

    def record(commit: int, when: str) -> None:
        for name, warehouse in tables.items():
            if name == "control" and when == "after compact":
                continue
            points.append({"commit": commit, "table": name, "when": when,
                           **measure(lib, warehouse)})

    record(0, "start")
    started = time.perf_counter()
    for i in range(1, commits + 1):
        gen = data.rng(9, i)
        ids = gen.choice(rows, size=rows_per_update, replace=False).astype(np.int64)
        source = pa.table({"_ROW_ID": pa.array(ids), "x": pa.array(gen.random(rows_per_update))})
        for name, warehouse in tables.items():
            t0 = time.perf_counter()
            update_by_row_id(IDENTIFIER, source, {"warehouse": warehouse}, update_cols=["x"])
            update_s[name].append(time.perf_counter() - t0)
        if i % compact_every == 0:
            record(i, "before compact")
            t0 = time.perf_counter()
            result = lib.compact(IDENTIFIER, {"warehouse": tables["compacted"]})
            compactions.append({"commit": i, "compact_s": time.perf_counter() - t0,
                                **{k: result.get(k) for k in (
                                    "groups_compacted", "files_removed", "files_written",
                                    "rows_rewritten", "bytes_before", "bytes_written")}})
            record(i, "after compact")
            last, ctl = points[-1], points[-2]
            line = (f"  commit {i:5d}: {time.perf_counter() - started:7.1f} s elapsed; "
                    f"compacted {result.get('files_removed')} -> {result.get('files_written')} "
                    f"files in {compactions[-1]['compact_s']:.2f} s; plan "
                    f"{last['plan_s'] * 1e3:.1f} ms, {last['files']} files, "
                    f"{last['manifests']} manifests, {_bytes(last['plan_rchar'])} read")
            if control:
                line += (f"; control plan {ctl['plan_s'] * 1e3:.1f} ms, {ctl['files']} files, "
                         f"{ctl['manifests']} manifests, {_bytes(ctl['plan_rchar'])} read")
            log(line, flush=True)
    elapsed = time.perf_counter() - started
    return {"size": size, "rows": rows, "base_commits": p["commits"], "commits": commits,
            "compact_every": compact_every, "rows_per_update": rows_per_update,
            "control": control, "elapsed_s": elapsed, "points": points,
            "compactions": compactions,
            "update_s": {name: _quantiles(v) for name, v in update_s.items()},
            "update_s_by_block": {name: [statistics.median(v[j:j + compact_every])
                                         for j in range(0, len(v), compact_every)]
                                  for name, v in update_s.items()},
            "machine": report.machine()}


def _quantiles(values: List[float]) -> Dict[str, float]:
    if not values:
        return {}
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "first_100_median": statistics.median(values[:100]),
            "last_100_median": statistics.median(values[-100:])}


# -- report ---------------------------------------------------------------------------------

def _ms(v: Optional[float]) -> str:
    return "–" if v is None else f"{v * 1e3:.1f}"


def _bytes(v: Optional[float]) -> str:
    return report._bytes(v)


def markdown_table(result: Dict[str, Any]) -> str:
    by_key = {(pt["commit"], pt["table"], pt["when"]): pt for pt in result["points"]}
    control = result["control"]
    header = ["commits", "compacted: plan ms before / after compact",
              "plan reads before / after", "files read before / after",
              "manifests before / after"]
    if control:
        header += ["no compaction: plan ms", "plan reads", "files read", "manifests"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    start = by_key.get((0, "compacted", "start"))
    commits = sorted({pt["commit"] for pt in result["points"] if pt["commit"]})
    rows = [(0, start, start, by_key.get((0, "control", "start")))] + [
        (c, by_key.get((c, "compacted", "before compact")),
         by_key.get((c, "compacted", "after compact")),
         by_key.get((c, "control", "before compact"))) for c in commits]
    for commit, before, after, ctl in rows:
        if before is None or after is None:
            continue
        cells = [f"{commit:,}", f"{_ms(before['plan_s'])} / {_ms(after['plan_s'])}",
                 f"{_bytes(before['plan_rchar'])} / {_bytes(after['plan_rchar'])}",
                 f"{before['files']:,} / {after['files']:,}",
                 f"{before['manifests']} / {after['manifests']}"]
        if commit == 0:
            cells[1:] = [_ms(before["plan_s"]), _bytes(before["plan_rchar"]),
                         f"{before['files']:,}", str(before["manifests"])]
        if control:
            cells += ([_ms(ctl["plan_s"]), _bytes(ctl["plan_rchar"]), f"{ctl['files']:,}",
                       str(ctl["manifests"])] if ctl else ["–"] * 4)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def section(result: Dict[str, Any], command: str) -> str:
    m = result["machine"]
    comp = result["compactions"]
    upd = result["update_s"]
    lines = [
        f"{SECTION} {result['commits']:,} update commits (issue 17; "
        "`bench/maintenance_series.py`, measured separately, not regenerated)",
        "",
        f"`{command}` — ours only (pypaimon 2.1.0 has no data-evolution compaction), commit "
        f"{m['git_commit']}, {m['cores']} shared cores, load average {m['load_avg_start']} at "
        f"start; the series took {result['elapsed_s']:.0f} s.",
        f"A table of {result['rows']:,} rows written by ours in {result['base_commits']} "
        f"commits (one file group per commit), then {result['commits']:,} "
        f"`update_by_row_id` commits of column x for {result['rows_per_update']:,} random ids "
        f"each, `paimon_rowid.compact` (default `compaction.min.file-num` 5) every "
        f"{result['compact_every']} commits. Plan = `new_read_builder().new_scan().plan()` on "
        "a fresh `get_table` (median of 3); plan reads = its `/proc/self/io` rchar (snapshot, "
        "manifest lists and manifests); files read = the data files of the full scan's "
        "splits; manifests = the entries of the latest snapshot's base + delta manifest lists."
        + (" \"No compaction\" is a second table given the same updates, never compacted "
           "(measured at the same points)." if result["control"] else ""),
        "",
        markdown_table(result),
        "",
    ]
    if comp:
        lines.append(
            f"Each compaction rewrote {comp[-1]['groups_compacted']} groups "
            f"({comp[-1]['files_removed']} files → {comp[-1]['files_written']}); compact took "
            f"{statistics.median(c['compact_s'] for c in comp):.2f} s median "
            f"({min(c['compact_s'] for c in comp):.2f}–{max(c['compact_s'] for c in comp):.2f}).")
    for name, q in upd.items():
        if q:
            label = "compacted table" if name == "compacted" else "no-compaction table"
            lines.append(
                f"One update commit on the {label}: {q['median'] * 1e3:.0f} ms median (first "
                f"100: {q['first_100_median'] * 1e3:.0f} ms, last 100: "
                f"{q['last_100_median'] * 1e3:.0f} ms).")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.maintenance_series",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", choices=["small", "medium"], default="small")
    parser.add_argument("--commits", type=int, default=2000)
    parser.add_argument("--compact-every", type=int, default=100)
    parser.add_argument("--rows-per-update", type=int, default=100)
    parser.add_argument("--no-control", dest="control", action="store_false",
                        help="skip the never-compacted control table")
    parser.add_argument("--work-dir", default=None,
                        help="default: $TMPDIR/paimon-rowid-maintenance-<size> (wiped)")
    parser.add_argument("--json", default=None, help="default: <work-dir>/maintenance-<size>.json")
    parser.add_argument("--results", default=None, nargs="?",
                        const=str(REPO / "bench" / "RESULTS.md"),
                        help="replace (or append) the section in this markdown file "
                             "(no value: bench/RESULTS.md)")
    parser.add_argument("--keep", action="store_true", help="keep the warehouses afterwards")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.compact_every < 1 or args.commits < 1:
        parser.error("--commits and --compact-every must be positive")
    work_dir = Path(args.work_dir or Path(tempfile.gettempdir()) /
                    f"paimon-rowid-maintenance-{args.size}").resolve()
    work_dir.mkdir(parents=True, exist_ok=True)
    print(f"maintenance series: {args.size}, {args.commits} commits, compact every "
          f"{args.compact_every}, work dir {work_dir}", flush=True)
    result = run_series(args.size, args.commits, args.compact_every, args.rows_per_update,
                        work_dir, args.control)
    out = Path(args.json or work_dir / f"maintenance-{args.size}.json")
    out.write_text(json.dumps(result, indent=2) + "\n")
    command = "python -m bench.maintenance_series " + " ".join(
        a for a in (sys.argv[1:] if argv is None else argv) if not a.startswith("--results"))
    text = section(result, command.strip())
    print("\n" + text)
    print(f"JSON: {out}")
    if args.results:
        report.replace_section(args.results, SECTION, text)
        print(f"section written to {args.results}")
    if not args.keep:
        for name in ("wh-compacted", "wh-control"):
            shutil.rmtree(work_dir / name, ignore_errors=True)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
