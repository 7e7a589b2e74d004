"""The speed-up chart (``bench/speedups.png``): one horizontal bar per workload and pair,
speed-up = baseline median / ours median on a log axis, the workload's target marked.

Run as ``<python with matplotlib> -m bench.chart RESULTS.json OUT.png``: the orchestrator runs
it under the peer's virtualenv (bench/peers.py installs matplotlib there), so our own
environment needs no plotting library."""
from __future__ import annotations

import json
import sys
from typing import Any, Dict, List, Tuple

from bench.report import pair_target_of


def bars(results: Dict[str, Any]) -> List[Tuple[str, float, float, bool]]:
    """(label, speed-up, target or 0, met) per measured pair, in the report's order."""
    out = []
    for w in results["workloads"]:
        for pair in w.get("pairs") or []:
            target = (pair_target_of(pair, w.get("target")) or {}).get("speedup") or 0.0
            if pair.get("status") not in ("ok", "mismatch") or not pair.get("speedup"):
                continue
            label = f"{w['name']}  ({pair['candidate']} vs {pair['baseline']})"
            out.append((label, float(pair["speedup"]), float(target),
                        bool(pair.get("target_met", target == 0.0))))
    return out


def render(results: Dict[str, Any], path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = bars(results)
    if not rows:
        return
    fig, ax = plt.subplots(figsize=(10, 0.32 * len(rows) + 1.4))
    y = list(range(len(rows)))[::-1]
    ax.barh(y, [r[1] for r in rows], color=["#3a7d44" if r[3] else "#c0392b" for r in rows])
    for yi, (_, speed, target, _) in zip(y, rows):
        if target:
            ax.plot([target, target], [yi - 0.4, yi + 0.4], color="black", linewidth=1.2)
        ax.text(speed * 1.05, yi, f"{speed:.1f}×", va="center", fontsize=7)
    ax.set_yticks(y)
    ax.set_yticklabels([r[0] for r in rows], fontsize=7)
    ax.set_xscale("log")
    ax.axvline(1.0, color="grey", linewidth=0.8)
    ax.set_xlabel("speed-up (baseline median / ours median, log scale)")
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    ax.legend(handles=[Patch(color="#3a7d44", label="target met (or none)"),
                       Patch(color="#c0392b", label="target missed"),
                       Line2D([], [], color="black", linewidth=1.2, label="target"),
                       Line2D([], [], color="grey", linewidth=0.8, label="1× (parity)")],
              loc="lower right", fontsize=7, framealpha=0.9)
    ax.set_title(f"paimon-rowid vs pypaimon, size {results['size']} "
                 f"({results.get('started', '')})", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    render(json.loads(open(sys.argv[1]).read()), sys.argv[2])
