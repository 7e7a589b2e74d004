"""The machine description and the markdown report (bench/RESULTS.md)."""
from __future__ import annotations

import os
import platform
import re
import subprocess
from pathlib import Path
from typing import Any, Dict, List, Optional

from bench.runner import REPO

LATER: List = []  # (number, title, what) of issue-7 workloads not built yet
# A report section whose heading ends so was measured by a separate tool (maintenance_series,
# s3_io) or by hand for an issue: regenerating the report keeps it.
KEPT_HEADING_END = "not regenerated)"


def _sections(text: str) -> List[str]:
    """``text`` cut before every ``## `` heading: the part before the first, then each section."""
    return re.split(r"(?m)^(?=## )", text)


def write_markdown(path, text: str) -> None:
    """Writes the regenerated report ``text`` to ``path``, followed by the sections of the file
    it replaces whose heading ends with KEPT_HEADING_END (measured separately, so a re-run of
    the paired workloads must not drop them), unless ``text`` has a section of that heading."""
    path = Path(path)
    old = path.read_text() if path.exists() else ""
    out = text.rstrip("\n") + "\n"
    headings = {s.splitlines()[0] for s in _sections(out)[1:]}
    for section in _sections(old)[1:]:
        heading = section.splitlines()[0]
        if heading.rstrip().endswith(KEPT_HEADING_END) and heading not in headings:
            out += "\n" + section.rstrip("\n") + "\n"
    path.write_text(out)


def replace_section(path, heading_prefix: str, text: str) -> None:
    """Replaces, in the report at ``path``, the section whose heading starts with
    ``heading_prefix`` by ``text`` (a whole section, heading included); appends it when there
    is none."""
    path = Path(path)
    sections = _sections(path.read_text() if path.exists() else "")
    body = text.rstrip("\n") + "\n"
    for i, section in enumerate(sections[1:], start=1):
        if section.startswith(heading_prefix):
            sections[i] = body + ("\n" if i + 1 < len(sections) else "")
            break
    else:
        sections[-1] = sections[-1].rstrip("\n") + "\n\n" if "".join(sections).strip() else ""
        sections.append(body)
    path.write_text("".join(sections))


def load_avg() -> Optional[List[float]]:
    try:
        return [round(v, 2) for v in os.getloadavg()]
    except OSError:
        return None


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _mem_total_gib() -> Optional[float]:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    return None


def _git(*args: str) -> Optional[str]:
    try:
        return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True,
                              timeout=10).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def machine() -> Dict[str, Any]:
    return {"cpu": _cpu_model(), "cores": os.cpu_count(), "memory_gib": _mem_total_gib(),
            "kernel": platform.release(), "os": platform.platform(terse=True),
            "python": platform.python_version(), "load_avg_start": load_avg(),
            "git_commit": _git("rev-parse", "--short", "HEAD"),
            "git_dirty": bool(_git("status", "--porcelain", "--untracked-files=no"))}


def _s(v: Optional[float]) -> str:
    if v is None:
        return "–"
    return f"{v:.3f}" if v < 10 else f"{v:.1f}"


def _bytes(v: Optional[float]) -> str:
    if v is None:
        return "–"
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if v >= scale:
            return f"{v / scale:.1f} {unit}"
    return f"{int(v)} B"


def pair_target_of(pair: Dict[str, Any], workload_target: Optional[Dict[str, Any]]
                   ) -> Optional[Dict[str, Any]]:
    """The target a pair was judged against: its own, else (runs that recorded none per pair)
    the workload's; None when the run judged it against none (e.g. ours-ray vs
    pypaimon-rust-ray where the workload sets no Ray-peer target: neither key recorded)."""
    if "target" not in pair and "target_met" not in pair:
        return None
    return pair.get("target", workload_target)


def _rows(results: Dict[str, Any]) -> List[List[str]]:
    rows = []
    for w in results["workloads"]:
        target = w.get("target")
        for pair in w.get("pairs") or [None]:
            if pair is None or pair.get("status") in ("skipped", "failed"):
                reason = (pair or w).get("reason", "")
                label = (pair or w).get("status", "skipped")
                rows.append([f"{w['title']}" + (f" ({pair['candidate']})" if pair else ""),
                             label.upper() if label == "failed" else label, "", "", "", "",
                             reason.splitlines()[0][:120] if reason else "", "", "", ""])
                continue
            cand, base = pair["sides"][pair["candidate"]], pair["sides"][pair["baseline"]]
            speed = pair["speedup"]
            goal = "–"
            pair_target = pair_target_of(pair, target)
            if pair_target is not None:
                goal = _goal_text(pair_target) + (
                    " **pass**" if pair.get("target_met") else " **miss**")
            plain = (pair["candidate"], pair["baseline"]) == ("ours", "pypaimon")
            name = w["title"] + ("" if plain else
                                 f" ({pair['candidate']} vs {pair['baseline']})")
            if pair.get("note"):
                name += f" [{pair['note']}]"
            if pair.get("rounds") and pair["rounds"] != results["rounds"]:
                name += f" ({pair['rounds']} rounds)"
            rows.append([
                name, "yes" if pair["status"] == "ok" else "**NO**",
                _s(cand["median_s"]), _s(base["median_s"]),
                f"{pair['ratio']:.3f} ({speed:.1f}×)", goal,
                f"{_bytes(cand['peak_rss'])} / {_bytes(base['peak_rss'])}",
                f"{_bytes(cand['rchar'])} / {_bytes(base['rchar'])}",
                f"{_bytes(cand['wchar'])} / {_bytes(base['wchar'])}",
                " / ".join(_s(pair.get("warmup_s", {}).get(e)) for e in
                           (pair["candidate"], pair["baseline"])),
            ])
    return rows


def _pair_key(pair: Dict[str, Any]) -> tuple:
    return (pair.get("candidate"), pair.get("baseline"))


def _merge_workloads(first: List[Dict[str, Any]],
                     second: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """``second``'s workloads replace ``first``'s pair by pair (a re-run without the Ray
    pairs keeps the earlier run's Ray rows); workloads only in ``second`` follow."""
    later = {w["name"]: w for w in second}
    out = []
    for w in first:
        again = later.pop(w["name"], None)
        if again is None:
            out.append(w)
            continue
        new_pairs = {_pair_key(p): p for p in again.get("pairs") or []}
        pairs = [new_pairs.pop(_pair_key(p), p) for p in w.get("pairs") or []]
        out.append({**again, "pairs": pairs + list(new_pairs.values())})
    return out + [w for w in second if w["name"] in later]


def merge(first: Dict[str, Any], second: Dict[str, Any]) -> Dict[str, Any]:
    """Two runs of the same size as one report: ``second``'s workload pairs replace or follow
    ``first``'s; times add up; the machine and start are ``first``'s, load averages span."""
    if first["size"] != second["size"]:
        raise ValueError(f"cannot merge a {first['size']} run with a {second['size']} run")
    merged = dict(first)
    merged["workloads"] = _merge_workloads(first["workloads"], second["workloads"])
    merged["elapsed_s"] = first["elapsed_s"] + second["elapsed_s"]
    merged["engines"] = {**second.get("engines", {}), **first.get("engines", {})}
    merged["machine"] = {**first["machine"],
                         "load_avg_end": second["machine"].get("load_avg_end")}
    commits = first["machine"].get("git_commit", "").split(", ")
    later = second["machine"].get("git_commit")
    if later and later not in commits:  # each run's commit, first run first
        merged["machine"]["git_commit"] = ", ".join(commits + [later])
    merged["machine"]["git_dirty"] = bool(first["machine"].get("git_dirty")
                                          or second["machine"].get("git_dirty"))
    merged["ok"] = first["ok"] and second["ok"]
    merged["runs"] = first.get("runs", 1) + second.get("runs", 1)
    merged["started"] = min(first["started"], second["started"])  # same format and zone
    merged["machine"]["load_avg_start"] = (first if first["started"] <= second["started"]
                                           else second)["machine"].get("load_avg_start")
    return merged


def _commits_text(commits: str) -> str:
    """'commit X', or for merged runs the first run's commit and the re-runs' in order."""
    first, *later = commits.split(", ")
    if not later:
        return f"commit {first}"
    return (f"commit {first} (first run), then {', '.join(later)} (re-runs; their rows replace "
            f"the first run's)")


def _goal_text(target: Dict[str, Any]) -> str:
    parts = [f"≥ {target['speedup']:g}×"] if target.get("speedup") else []
    if target.get("limit_text"):
        parts.append(target["limit_text"])
    return ", ".join(parts) or "–"


def _metric(value: Optional[float], kind: str) -> str:
    if value is None:
        return "–"
    if kind == "bytes":
        return _bytes(value)
    if kind == "s":
        return _s(value)
    if kind == "fraction":
        return f"{value:.2%}"
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.3f}"


def metrics_lines(results: Dict[str, Any], workloads) -> List[str]:
    """One bullet per workload pair that reported extra metrics (medians over rounds)."""
    labels = {w.name: w.metric_labels for w in workloads}
    lines = []
    for w in results["workloads"]:
        for pair in w.get("pairs") or []:
            sides = pair.get("sides") or {}
            names = labels.get(w["name"]) or {}
            if not names or not any((sides.get(e) or {}).get("metrics") for e in sides):
                continue
            cells = []
            for key, (label, kind) in names.items():
                values = [_metric(((sides.get(e) or {}).get("metrics") or {}).get(key), kind)
                          for e in (pair["candidate"], pair["baseline"])]
                cells.append(f"{label}: {values[0]} / {values[1]}")
            lines.append(f"- `{w['name']}` ({pair['candidate']} / {pair['baseline']}): "
                         + "; ".join(cells))
    return lines


HEADER = ["workload", "same result", "ours median s", "pypaimon median s",
          "ours/pypaimon (speedup)", "target", "peak RSS ours / pyp", "read (rchar) ours / pyp",
          "written (wchar) ours / pyp", "cold 1st call s ours / pyp"]


def summary_table(results: Dict[str, Any]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(row) + " |" for row in _rows(results)]
    return "\n".join(lines)


#: What the chart's marks mean (bench/chart.py draws the same legend into the image).
CHART_LEGEND = (
    "**Legend.** One bar per workload and pair (ours vs the baseline in brackets); its length is "
    "the speed-up, baseline median / ours median, on a log axis. Green: the pair's target is "
    "met (or it has none); red: missed. Black tick: the target. Grey line: 1× (as fast as the "
    "baseline). The figures are in the table below.")


def chart_section(chart: str) -> List[str]:
    """The report's lines that embed the speed-up chart ``chart`` (a path relative to the
    report) with its legend."""
    return ["## Speed-ups at a glance", "",
            f"![Speed-up of paimon_rowid over each baseline, per workload]({chart})", "",
            CHART_LEGEND, ""]


def markdown(results: Dict[str, Any], workloads, chart: Optional[str] = None) -> str:
    m = results["machine"]
    p = results["params"]
    engines = results.get("engines", {})
    out = [
        "# Benchmark results: paimon_rowid vs pypaimon 2.1.0",
        "",
        "Regenerated by `python -m bench` (see `bench/README.md`); do not edit by hand.",
        "",
        f"- **size** `{results['size']}` ({p['rows']:,} base rows in {p['commits']} commits); "
        f"{results['rounds']} timed rounds per side after one warm-up round each, sides "
        f"alternating; results checked "
        f"{'every round' if results['verify'] == 'all' else 'in the warm-up round'}; "
        f"run took {results['elapsed_s']:.0f} s"
        f"{' in {} runs (merged)'.format(results['runs']) if results.get('runs', 1) > 1 else ''}, "
        f"started {results['started']}",
        f"- **machine** {m['cpu']}, {m['cores']} cores, {m['memory_gib']} GiB RAM, Linux "
        f"{m['kernel']}; load average {m['load_avg_start']} at start, "
        f"{m.get('load_avg_end')} at end",
        f"- **code** {_commits_text(m['git_commit'])}"
        f"{' + uncommitted changes' if m['git_dirty'] else ''}"
        f"; ours = {'the dev tree (`--dev`)' if results['dev'] else 'the installed package'}",
    ]
    for name, info in sorted(engines.items()):
        if info:
            native = info.get("native_module")
            extra = f", native module `{native}`" if native else ""
            out.append(f"- **{name}** {info['library']} {info.get('version') or ''} from "
                       f"`{info['library_file']}`, pyarrow {info['pyarrow']}{extra}")
    out += [
        "",
        "Times are the median wall time of the operation itself inside a fresh process per "
        "round (imports and input loading excluded; modules the libraries import lazily on "
        "first use are imported before the clock starts, see `bench/README.md`). \"cold 1st "
        "call\" is the warm-up round's time: the same call in a fresh process, lazy imports "
        "included (what a one-shot script pays). Peak RSS is the worker process's "
        "`VmHWM` (interpreter and libraries included); read/written are the "
        "`/proc/self/io` `rchar`/`wchar` deltas around the operation (syscall bytes, page-cache "
        "hits included; memory-mapped reads are not counted). Speedup = pypaimon / ours.",
        "",
        "**Noise.** This machine's cores are shared with other engineers' builds and tests "
        "while it runs (see the load averages): single figures can be off by tens of percent. "
        "The ratios between sides, measured alternately, are more stable than absolute times.",
        "",
    ]
    if chart:
        out += chart_section(chart)
    out += [
        summary_table(results),
        "",
    ]
    extra = metrics_lines(results, workloads)
    if extra:
        out += ["## Workload figures (medians of the timed rounds, ours / pypaimon)", ""]
        out += extra + [""]
    out += [
        "## Workloads",
        "",
    ]
    for w in workloads:
        target = ("" if w.target is None else
                  f" Target: {_goal_text(w.target.describe())} ({w.target.source}).")
        out.append(f"- `{w.name}` — {w.title(p)}: {w.description}{target}")
    for number, title, what in LATER:
        out.append(f"- ({number}, not yet built) {title}: {what}.")
    skipped = [(w, pair) for w in results["workloads"] for pair in (w.get("pairs") or [w])
               if pair.get("status") in ("skipped", "failed")]
    notes = [(w, pair) for w in results["workloads"] for pair in (w.get("pairs") or [])
             if pair.get("note")]
    skipped += [(w, {"candidate": pair["candidate"], "status": pair["note"],
                     "reason": pair["note_reason"]}) for w, pair in notes]
    if skipped:
        out += ["", "## Skipped, failed or substituted", ""]
        for w, pair in skipped:
            reason = pair.get("reason", "").strip().splitlines()
            out.append(f"- `{w['name']}` ({pair.get('candidate', 'all')}): "
                       f"{pair.get('status')}: {reason[0] if reason else ''}")
    return "\n".join(out) + "\n"
