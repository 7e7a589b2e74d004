"""The global-index bench's chart (``bench/global-index.png``): per indexed column, the build,
the 10k-key lookup and the single-key read of ours and pypaimon 2.1.0, side by side on a log
time axis, with a legend.

``<python with matplotlib> -m bench.global_index_chart RESULTS.json OUT.png`` where
RESULTS.json is ``{"rows": N, "columns": [one result line of bench.global_index per
column]}``. Our own environment needs no plotting library (as bench/chart.py)."""
from __future__ import annotations

import json
import sys
from typing import Any, Dict, List, Tuple

STEPS: List[Tuple[str, str, str]] = [
    ("build", "ours_build", "pypaimon_build"),
    ("10k keys (ours: lookup_row_ids)", "ours_lookup", "pypaimon_lookup"),
    ("1 key, filtered read", "ours_single_read", "pypaimon_single"),
]


def render(results: Dict[str, Any], path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels, ours, theirs = [], [], []
    for column in results["columns"]:
        for step, mine, other in STEPS:
            labels.append(f"`{column['column']}`: {step}")
            ours.append(column[mine])
            theirs.append(column[other])
    fig, ax = plt.subplots(figsize=(9, 0.55 * len(labels) + 1.4))
    y = list(range(len(labels)))[::-1]
    h = 0.38
    ax.barh([v + h / 2 for v in y], ours, height=h, color="#3a7d44", label="paimon-rowid")
    ax.barh([v - h / 2 for v in y], theirs, height=h, color="#7f8c8d", label="pypaimon 2.1.0")
    for yi, a, b in zip(y, ours, theirs):
        ax.text(a * 1.1, yi + h / 2, f"{a:.3g} s", va="center", fontsize=7)
        ax.text(b * 1.1, yi - h / 2, f"{b:.3g} s  ({b / a:.0f}x)", va="center", fontsize=7)
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=8)
    ax.set_xscale("log")
    ax.set_xlabel("seconds (log scale); lower is better")
    ax.legend(loc="lower right", fontsize=8, framealpha=0.9)
    ax.set_title(f"Global btree indexes, {results['rows']:,} rows: ours vs pypaimon 2.1.0",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    with open(sys.argv[1]) as f:
        render(json.load(f), sys.argv[2])


if __name__ == "__main__":
    main()
