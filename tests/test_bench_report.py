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


def test_a_pair_judged_against_no_target_shows_no_verdict():
    def side(median):
        return {"median_s": median, "peak_rss": 1 << 20, "rchar": 0, "wchar": 0}

    def pair(baseline, **verdict):
        return {"candidate": "ours-ray", "baseline": baseline, "status": "ok", "match": True,
                "speedup": 6.0, "ratio": 1 / 6, "rounds": 3,
                "sides": {"ours-ray": side(1.0), baseline: side(6.0)}, **verdict}

    target = {"speedup": 5.0, "source": "x", "metric": None, "limit": None, "limit_text": ""}
    results = _run("aaaa111", "2026-12-02 10:00:00 UTC", [
        {"name": "read", "title": "read", "target": target, "pairs": [
            pair("pypaimon-ray", target=target, target_met=True),
            pair("pypaimon-rust-ray")]}])
    results["rounds"] = 3
    goals = [row[5] for row in report._rows(results)]
    assert goals[0].endswith("**pass**")
    assert goals[1] == "–"  # no Ray-peer target: neither pass nor miss


def test_the_chart_colours_a_pair_without_target_as_met():
    from bench import chart
    target = {"speedup": 5.0}
    results = {"workloads": [{"name": "read", "target": target, "pairs": [
        {"candidate": "ours-ray", "baseline": "pypaimon-ray", "status": "ok", "speedup": 3.0,
         "target": target, "target_met": False},
        {"candidate": "ours-ray", "baseline": "pypaimon-rust-ray", "status": "ok",
         "speedup": 3.0}]}]}
    assert [(b[2], b[3]) for b in chart.bars(results)] == [(5.0, False), (0.0, True)]


KEPT = "## Object-store reads (issue 14; `bench/s3_io.py`, measured separately, not regenerated)"


def test_regenerating_the_report_keeps_the_separately_measured_sections(tmp_path):
    path = tmp_path / "RESULTS.md"
    path.write_text("# old\n\n| old table |\n\n## Workloads\n\n- old list\n\n"
                    f"{KEPT}\n\nrequests: 3\n\n## Skipped\n\n- nothing\n")
    report.write_markdown(path, "# new\n\n| new table |\n\n## Workloads\n\n- new list\n")
    assert path.read_text() == ("# new\n\n| new table |\n\n## Workloads\n\n- new list\n\n"
                                f"{KEPT}\n\nrequests: 3\n")
    # A report that has the section itself is written as it is, and nothing is duplicated.
    report.write_markdown(path, f"# newer\n\n{KEPT}\n\nrequests: 4\n")
    assert path.read_text() == f"# newer\n\n{KEPT}\n\nrequests: 4\n"


def test_replace_section_replaces_in_place_or_appends(tmp_path):
    path = tmp_path / "RESULTS.md"
    report.replace_section(path, "## Object-store reads", f"{KEPT}\n\nrequests: 1\n")
    assert path.read_text() == f"{KEPT}\n\nrequests: 1\n"
    path.write_text(f"# report\n\n## A\n\na\n\n{KEPT}\n\nrequests: 1\n\n## B\n\nb\n")
    report.replace_section(path, "## Object-store reads", f"{KEPT}\n\nrequests: 2\n")
    assert path.read_text() == f"# report\n\n## A\n\na\n\n{KEPT}\n\nrequests: 2\n\n## B\n\nb\n"
    report.replace_section(path, "## Maintenance", "## Maintenance: 2 commits\n\nfine\n")
    assert path.read_text().endswith("## B\n\nb\n\n## Maintenance: 2 commits\n\nfine\n")


def test_the_report_embeds_the_chart_with_its_legend_only_when_one_was_drawn():
    results = _run("aaaa111", "2026-12-02 10:00:00 UTC", [])
    results.update(rounds=3, verify="first", dev=False,
                   params={"rows": 1_000_000, "commits": 10})
    results["machine"].update(cpu="x", cores=2, memory_gib=1, kernel="k")
    with_chart = report.markdown(results, [], chart="speedups.png")
    assert "![Speed-up of paimon_rowid over each baseline, per workload](speedups.png)" in \
        with_chart
    assert report.CHART_LEGEND in with_chart
    assert with_chart.index("## Speed-ups at a glance") < with_chart.index("| workload |")
    without = report.markdown(results, [])
    assert "![" not in without and report.CHART_LEGEND not in without


def test_the_committed_reports_embed_their_charts():
    root = Path(__file__).resolve().parents[1] / "bench"
    for page, chart in (("RESULTS.md", "speedups-large.png"),
                        ("RESULTS-medium.md", "speedups.png")):
        text = (root / page).read_text()
        assert "\n".join(report.chart_section(chart)) in text, page
        assert (root / chart).is_file()
