"""Recall@10 / QPS chart of the search bench (bench/RESULTS-search.md links it):

    python bench/search_chart.py RESULTS.json [MORE.json ...] --out bench/search-recall-qps.svg

Input: the ``--json`` files of bench/vector_search.py. One point per (system, setting, index
type): colour = system (ours, pypaimon, LanceDB), marker = index type, label = setting; each
side's nprobe sweep is joined by a line (its ends labelled). Needs
matplotlib (the bench virtualenv has it; the package does not depend on it).
"""
from __future__ import annotations

import argparse
import json
from typing import Dict, List, Tuple

COLOURS = {"ours": "tab:blue", "pypaimon": "tab:orange", "LanceDB": "tab:green"}
MARKERS = {"ivf-flat": "o", "ivf-sq": "s", "ivf-pq": "^"}
LINES = {"ivf-flat": "-", "ivf-sq": "--", "ivf-pq": ":"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("inputs", nargs="+")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    import matplotlib
    matplotlib.use("Agg")
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from vector_search import search_points
    fig, axes = plt.subplots(1, len(args.inputs), figsize=(7 * len(args.inputs), 5.5),
                             squeeze=False)
    for ax, path in zip(axes[0], args.inputs):
        bench = json.load(open(path))
        a = bench["args"]
        for row in bench["rows"]:
            sweeps: Dict[str, List[Tuple[int, float, float]]] = {}
            for system, setting, rec, qps in search_points(row):
                ax.scatter(rec, qps, color=COLOURS[system], marker=MARKERS[row["type"]], s=50,
                           edgecolors="black", linewidths=0.5, zorder=3)
                if setting.startswith("nprobe "):  # a width sweep: one line, ends labelled
                    sweeps.setdefault(system, []).append((int(setting.split()[1]), rec, qps))
                    if setting not in ("nprobe 4", "nprobe 64"):
                        continue
                ax.annotate(setting, (rec, qps), fontsize=6, xytext=(4, 3),
                            textcoords="offset points")
            for system, sweep in sweeps.items():
                sweep.sort()
                ax.plot([r for _, r, _ in sweep], [q for _, _, q in sweep],
                        color=COLOURS[system], linewidth=0.8, alpha=0.7,
                        linestyle=LINES[row["type"]])
        ax.set_xscale("linear")
        ax.set_yscale("log")
        ax.set_xlabel("recall@10")
        ax.set_ylabel("queries per second, one thread (log)")
        load = bench.get("load")
        ax.set_title(f"{a['rows']:,} x {a['dim']}, inner product"
                     + (f"\n{bench.get('date', '')}, load average {load:.1f} on "
                        f"{bench.get('cores')} cores at the end of the run" if load else ""),
                     fontsize=10)
        ax.axvline(0.95, color="grey", linestyle=":", linewidth=1)
        ax.grid(True, which="both", alpha=0.3)
    handles = [Line2D([], [], color=c, marker="o", linestyle="", label=s)
               for s, c in COLOURS.items()]
    handles += [Line2D([], [], color="grey", marker=m, linestyle="", label=t)
                for t, m in MARKERS.items()]
    handles.append(Line2D([], [], color="grey", linestyle=":", label="recall 0.95"))
    fig.legend(handles=handles, loc="lower center", ncol=4, frameon=False)
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    fig.savefig(args.out)


if __name__ == "__main__":
    main()
