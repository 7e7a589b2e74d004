"""bench/report.py's merge of several runs of one size (``python -m bench --render a,b``)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import report  # noqa: E402


def _run(commit, started, workloads, dirty=False):
    return {"size": "medium", "workloads": workloads, "elapsed_s": 10.0, "engines": {},
            "machine": {"git_commit": commit, "git_dirty": dirty, "load_avg_start": [1],
                        "load_avg_end": [2]},
            "ok": True, "runs": 1, "started": started}


def _pair(candidate, baseline, median):
    return {"candidate": candidate, "baseline": baseline, "median": median}


def test_a_rerun_replaces_pairs_one_by_one_and_keeps_the_others():
    first = _run("aaaa111", "2026-12-02 10:00:00 UTC", [
        {"name": "update", "pairs": [_pair("ours", "pypaimon", 1.0),
                                     _pair("ours-ray", "pypaimon-ray", 1.0)]},
        {"name": "scan", "pairs": [_pair("ours", "pypaimon", 1.0)]},
    ])
    # Re-run without the Ray pairs, with the peer, and a workload the first run lacked.
    second = _run("bbbb222", "2026-12-02 12:00:00 UTC", [
        {"name": "update", "pairs": [_pair("ours", "pypaimon", 2.0),
                                     _pair("ours", "pypaimon-rust", 2.0)]},
        {"name": "read", "pairs": [_pair("ours", "pypaimon", 2.0)]},
    ], dirty=True)
    merged = report.merge(first, second)
    shown = [(w["name"], [(p["candidate"], p["baseline"], p["median"]) for p in w["pairs"]])
             for w in merged["workloads"]]
    assert shown == [
        ("update", [("ours", "pypaimon", 2.0), ("ours-ray", "pypaimon-ray", 1.0),
                    ("ours", "pypaimon-rust", 2.0)]),
        ("scan", [("ours", "pypaimon", 1.0)]),
        ("read", [("ours", "pypaimon", 2.0)]),
    ]
    assert merged["runs"] == 2 and merged["elapsed_s"] == 20.0
    assert merged["machine"]["git_commit"] == "aaaa111, bbbb222"
    assert merged["machine"]["git_dirty"] is True
    # A third run at a commit already listed adds no name twice.
    again = report.merge(merged, _run("bbbb222", "2026-12-02 13:00:00 UTC", []))
    assert again["machine"]["git_commit"] == "aaaa111, bbbb222"
    assert report._commits_text("aaaa111") == "commit aaaa111"
    assert report._commits_text("aaaa111, bbbb222").startswith(
        "commit aaaa111 (first run), then bbbb222")
    # The first run's inputs are left as they were.
    assert [p["median"] for p in first["workloads"][0]["pairs"]] == [1.0, 1.0]
