"""Search bench (issue 49, docs/search.md): ours against pypaimon 2.1.0 on the same table.

    python bench/vector_search.py [--rows 100000] [--dim 128] [--queries 1000]
        [--their-queries 200] [--work-dir DIR] [--markdown bench/RESULTS-search.md]

Data: clustered float32 vectors (256 centres, fixed seed) and a generated text corpus (Zipf
words) in one data-evolution table written once by us, copied for pypaimon. Per index type
both sides build the index on their copy (wall time of the call, pypaimon's measured inside its
process after import), then search the same queries one at a time through the public builder
(single thread). Ground truth: exact inner products (numpy). Recall@10 against it; QPS =
queries / wall time of the loop. Filtered searches keep rows with ``sel10 = 0`` (10%) or
``sel100 = 0`` (1%). Full text: BM25 top-10 of both sides compared as id lists.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import pyarrow as pa

ROOT = Path(__file__).resolve().parents[1]
ORACLE = Path(os.environ.get("PAIMON_ROWID_ORACLE_VENV", ROOT / ".venv-oracle")) / "bin" / "python"
WORDS = [f"w{i}" for i in range(5000)]


def make_data(rows: int, dim: int, queries: int, seed: int = 42):
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((256, dim)).astype(np.float32)
    labels = rng.integers(0, 256, rows + queries)
    data = centres[labels] + 0.35 * rng.standard_normal((rows + queries, dim)).astype(np.float32)
    zipf = np.minimum(rng.zipf(1.3, (rows, 12)) - 1, len(WORDS) - 1)
    body = [" ".join(WORDS[j] for j in row) for row in zipf]
    return data[:rows], data[rows:], body


def write_table(warehouse: Path, vectors: np.ndarray, body: List[str]) -> None:
    from paimon_rowid import CatalogFactory, Schema
    dim = vectors.shape[1]
    schema = pa.schema([("id", pa.int64()), ("sel10", pa.int32()), ("sel100", pa.int32()),
                        ("emb", pa.list_(pa.float32(), dim)), ("body", pa.string())])
    catalog = CatalogFactory.create({"warehouse": str(warehouse)})
    catalog.create_database("db", True)
    catalog.create_table("db.v", Schema.from_pyarrow_schema(schema, options={
        "row-tracking.enabled": "true", "data-evolution.enabled": "true"}), False)
    table = catalog.get_table("db.v")
    n = vectors.shape[0]
    ids = np.arange(n)
    builder = table.new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    write.write_arrow(pa.table({
        "id": ids, "sel10": (ids % 10).astype(np.int32), "sel100": (ids % 100).astype(np.int32),
        "emb": pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), dim),
        "body": body}, schema=schema))
    commit.commit(write.prepare_commit())
    write.close()


def truth(vectors: np.ndarray, queries: np.ndarray, k: int, mask=None) -> List[List[int]]:
    out: List[List[int]] = []
    step = max(1, 50_000_000 // max(1, vectors.shape[0]))  # <= 200 MB of scores at a time
    for lo in range(0, queries.shape[0], step):
        scores = queries[lo:lo + step] @ vectors.T
        if mask is not None:
            scores[:, ~mask] = -np.inf
        top = np.argpartition(-scores, k, axis=1)[:, :k]
        out += [sorted(row.tolist(), key=lambda i, q=q: -scores[q, i])
                for q, row in enumerate(top)]
    return out


def cpu_seconds() -> float:
    """User + system CPU of this process, every thread (paimon-vindex trains on its own)."""
    import resource
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def recall(found: List[List[int]], want: List[List[int]], k: int) -> float:
    return float(np.mean([len(set(f[:k]) & set(w[:k])) / k for f, w in zip(found, want)]))


THEIR_SCRIPT = r'''
import json, resource, sys, time
import numpy as np
from pypaimon import CatalogFactory
args = json.loads(sys.stdin.read())
table = CatalogFactory.create({"warehouse": args["warehouse"]}).get_table("db.v")
out = {}
if args.get("build"):
    cpu = lambda: sum(resource.getrusage(resource.RUSAGE_SELF)[:2])
    t0, c0 = time.perf_counter(), cpu()
    table.create_global_index(args["column"], index_type=args["index_type"],
                              options=args.get("options") or {})
    out["build_s"], out["build_cpu_s"] = time.perf_counter() - t0, cpu() - c0
    table = CatalogFactory.create({"warehouse": args["warehouse"]}).get_table("db.v")
pb = table.new_read_builder().new_predicate_builder()


def vector(q):
    b = (table.new_vector_search_builder().with_vector_column("emb").with_query_vector(q)
         .with_limit(10).with_options(args.get("search_options") or {}))
    if args.get("filter"):
        b = b.with_filter(pb.equal(args["filter"], 0))
    r = b.execute_local()
    g = r.score_getter()
    return sorted(r.results(), key=lambda i: (-g(i), i))


def text(t):
    r = (table.new_full_text_search_builder().with_query("body", t).with_limit(10)
         .execute_local())
    g = r.score_getter()
    return sorted(r.results(), key=lambda i: (-g(i), i))


calls = ([(vector, q) for q in args.get("queries", [])]
         + [(text, t) for t in args.get("texts", [])])
if calls and args.get("warm"):
    calls[0][0](calls[0][1])  # opens the index reader (pypaimon opens one per query anyway)
found, latencies = [], []
t0 = time.perf_counter()
for fn, arg in calls:
    s = time.perf_counter()
    found.append(fn(arg))
    latencies.append(time.perf_counter() - s)
out["search_s"] = time.perf_counter() - t0
out["latencies"] = latencies
out["found"] = [[int(i) for i in f] for f in found]
threads = int(args.get("threads") or 1)
if threads > 1 and calls:
    from concurrent.futures import ThreadPoolExecutor
    parts = [calls[i::threads] for i in range(threads)]
    t0 = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(lambda part: [fn(arg) for fn, arg in part], parts))
    out["threads_s"] = time.perf_counter() - t0
print(json.dumps(out))
'''


def theirs(**args: Any) -> Dict[str, Any]:
    done = subprocess.run([str(ORACLE), "-c", THEIR_SCRIPT], input=json.dumps(args),
                          capture_output=True, text=True, timeout=7200)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-3000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def ours_search(table: Any, queries: np.ndarray, flt: Any = None,
                options: Dict[str, str] = None, latencies: List[float] = None) -> tuple:
    found = []
    t0 = time.perf_counter()
    for q in queries:
        s = time.perf_counter()
        b = (table.new_vector_search_builder().with_vector_column("emb").with_query_vector(q)
             .with_limit(10).with_options(options or {}))
        if flt is not None:
            b = b.with_filter(flt)
        found.append(b.execute_local().row_ids)
        if latencies is not None:
            latencies.append(time.perf_counter() - s)
    return found, time.perf_counter() - t0


def threaded_qps(table: Any, queries: np.ndarray, threads: int) -> float:
    """Queries per second with ``threads`` threads each searching its share one at a time."""
    from concurrent.futures import ThreadPoolExecutor
    parts = np.array_split(queries, threads)
    t0 = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(lambda part: ours_search(table, part), parts))
    return len(queries) / (time.perf_counter() - t0)


def lance(args: Any, work: Path, vectors: np.ndarray, queries: np.ndarray, want: list,
          kind: str, partitions: int, sub_vectors: int, nprobes: int, refine: int) -> Dict:
    """bench/lance_search.py in the LanceDB virtualenv; {} without one."""
    if not args.lance_python:
        return {}
    data = work / "lance-data.npz"
    if not data.exists():
        np.savez(data, vectors=vectors, queries=queries, truth=np.asarray(want))
    done = subprocess.run([args.lance_python, str(ROOT / "bench" / "lance_search.py"), str(data),
                           str(work / f"lance-{kind}"), str(partitions), str(sub_vectors),
                           str(nprobes), str(refine), kind], capture_output=True, text=True,
                          timeout=7200)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-3000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


#: Search widths both sides are measured at, besides paimon-vindex's automatic one.
NPROBES = (4, 8, 16, 64)


def load_average() -> float:
    """The 1-minute load average (the chart and tables print it beside the QPS: on a box
    shared with other work, single-thread QPS is the scheduler's as much as ours)."""
    return float(open("/proc/loadavg").read().split()[0])


def percentiles(latencies: List[float]) -> Dict[str, float]:
    return {"p50_ms": float(np.percentile(latencies, 50) * 1000),
            "p99_ms": float(np.percentile(latencies, 99) * 1000)}


def index_bytes(warehouse: Path, prefix: str) -> int:
    return sum(f.stat().st_size for f in (warehouse / "db.db" / "v" / "index").glob(prefix + "*"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=128)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--their-queries", type=int, default=200)
    parser.add_argument("--types", default="ivf-flat,ivf-sq,ivf-pq")
    parser.add_argument("--work-dir", default=None)
    parser.add_argument("--markdown", default=str(ROOT / "bench" / "RESULTS-search.md"))
    parser.add_argument("--json", default=None, help="also write the figures here (the chart's "
                        "input, bench/search_chart.py)")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--lance-python", default=None, help="a Python with lancedb (LanceDB "
                        "IVF_PQ / IVF_FLAT with our nlist and sub-vectors)")
    parser.add_argument("--lance-types", default="ivf-flat,ivf-pq", help="the types LanceDB "
                        "builds too (IVF_FLAT, IVF_PQ)")
    parser.add_argument("--skip-full-text", action="store_true")
    parser.add_argument("--reuse", action="store_true", help="search the index a previous run "
                        "left in --work-dir (ours-<type>) instead of building both sides; "
                        "pypaimon searches a copy of its files; query figures only")
    parser.add_argument("--skip-filters", action="store_true")
    parser.add_argument("--build-only", action="store_true", help="builds only: both sides "
                        "build each type, ours is searched for recall@10; prints the Builds "
                        "table (no QPS, filters, LanceDB or full text)")
    args = parser.parse_args()
    from paimon_rowid import CatalogFactory

    work = Path(args.work_dir or tempfile.mkdtemp(prefix="paimon-rowid-bench-search-"))
    vectors, queries, body = make_data(args.rows, args.dim, args.queries)
    base = work / "base"
    if base.exists():
        shutil.rmtree(base)
    write_table(base, vectors, body)
    want = truth(vectors, queries, 10)
    ids = np.arange(args.rows)
    rows: List[Dict[str, Any]] = []
    nq = args.their_queries
    for kind in args.types.split(","):
        options: Dict[str, str] = {}  # every side at its defaults (ours: refine factor 20)
        ours_wh, their_wh = work / f"ours-{kind}", work / f"theirs-{kind}"
        reuse = args.reuse and (ours_wh / "db.db" / "v" / "index").is_dir()
        if reuse:  # the index a previous run built; pypaimon searches a copy of its files
            shutil.rmtree(their_wh, ignore_errors=True)
            shutil.copytree(ours_wh, their_wh)
        else:
            for wh in (ours_wh, their_wh):
                shutil.rmtree(wh, ignore_errors=True)
                shutil.copytree(base, wh)
        table = CatalogFactory.create({"warehouse": str(ours_wh)}).get_table("db.v")
        t0, c0 = time.perf_counter(), cpu_seconds()
        if not reuse:
            table.create_global_index("emb", index_type=kind, options=options)
        build, build_cpu = time.perf_counter() - t0, cpu_seconds() - c0
        build_load = float(open("/proc/loadavg").read().split()[0])
        table = CatalogFactory.create({"warehouse": str(ours_wh)}).get_table("db.v")
        ours_search(table, queries[:5])  # loads (and caches) the index file
        latencies: List[float] = []
        found, took = ours_search(table, queries, latencies=latencies)
        from paimon_rowid.table._search_exec import index_files, vector_reader
        f0 = index_files(table, "emb", [kind], table.latest_snapshot().id, None)[0]
        meta = vector_reader(table, f0["path"]).metadata()
        if args.build_only:
            rows.append(build_only_row(args, kind, table, build, build_cpu, build_load,
                                       recall(found, want, 10), ours_wh, their_wh))
            print(json.dumps(rows[-1]), flush=True)
            continue
        built = {} if reuse else pypaimon_builds(work, base, their_wh, kind)
        # pypaimon's build at our parameters wrote our bytes: it searches its own files
        got = {**theirs(warehouse=str(their_wh), queries=queries[:nq].tolist(),
                        threads=args.threads, warm=True), **built}
        row = {"type": kind, "ours_build_s": None if reuse else build,
               "their_build_s": got.get("their_build_s"),
               "ours_build_cpu_s": None if reuse else build_cpu,
               "their_build_cpu_s": got.get("their_build_cpu_s"), "build_load": build_load,
               **{k: v for k, v in got.items() if k.startswith("their_default")},
               "same_bytes": same_files(ours_wh, their_wh),
               "files": len(index_files(table, "emb", [kind], table.latest_snapshot().id, None)),
               "ours_bytes": index_bytes(ours_wh, "vector"),
               "their_bytes": index_bytes(their_wh, "vector"),
               "ours_recall": recall(found[:nq], want[:nq], 10),
               "ours_recall_all": recall(found, want, 10), "ours_qps": len(queries) / took,
               "their_recall": recall(got["found"], want[:nq], 10),
               "their_qps": nq / got["search_s"], "same_topk": sum(
                   a == b for a, b in zip(found[:nq], got["found"])) / nq,
               **percentiles(latencies), "threads": args.threads,
               "ours_qps_threads": threaded_qps(table, queries, args.threads),
               "their_qps_threads": nq / got["threads_s"] if "threads_s" in got else None,
               **{"their_" + k: v for k, v in percentiles(got["latencies"]).items()},
               "nlist": meta.nlist, "pq_m": meta.pq_m}
        if kind in args.lance_types.split(","):
            lance_kind = kind.upper().replace("-", "_")
            row["lance"] = lance(args, work, vectors, queries, want, lance_kind, meta.nlist,
                                 meta.pq_m or 0, 20, 0)
            if kind == "ivf-pq" and args.lance_python:
                row["lance_refine20"] = lance(args, work, vectors, queries, want, lance_kind,
                                              meta.nlist, meta.pq_m, 20, 20)
        for nprobe in NPROBES:  # both sides at the same widths: QPS at equal recall
            f2, t2 = ours_search(table, queries, options={"ivf.nprobe": str(nprobe)})
            row[f"ours_recall_nprobe{nprobe}"] = recall(f2[:nq], want[:nq], 10)
            row[f"ours_qps_nprobe{nprobe}"] = len(queries) / t2
            g2 = theirs(warehouse=str(their_wh), queries=queries[:nq].tolist(), warm=True,
                        search_options={"ivf.nprobe": str(nprobe)})
            row[f"their_recall_nprobe{nprobe}"] = recall(g2["found"], want[:nq], 10)
            row[f"their_qps_nprobe{nprobe}"] = nq / g2["search_s"]
        row["load"] = load_average()
        if kind == "ivf-pq":  # without our default refine factor (k hits rescored only)
            f2, t2 = ours_search(table, queries, options={"refine-factor": "1"})
            row["ours_recall_refine1"] = recall(f2[:nq], want[:nq], 10)
            row["ours_qps_refine1"] = len(queries) / t2
        if kind != "ivf-flat":  # pypaimon's refine factor: 10 x k hits rescored exactly
            f2, t2 = ours_search(table, queries, options={"refine-factor": "10"})
            row["ours_recall_refine10"] = recall(f2[:nq], want[:nq], 10)
            row["ours_qps_refine10"] = len(queries) / t2
            g2 = theirs(warehouse=str(their_wh), queries=queries[:nq].tolist(),
                        search_options={"refine-factor": "10"})
            row["their_recall_refine10"] = recall(g2["found"], want[:nq], 10)
            row["their_qps_refine10"] = nq / g2["search_s"]
        if kind == "ivf-flat" and not args.skip_filters:
            pb = table.new_read_builder().new_predicate_builder()
            for column, share in (("sel10", 10), ("sel100", 100)):
                mask = ids % share == 0
                fwant = truth(vectors, queries, 10, mask)
                f3, t3 = ours_search(table, queries[:nq], pb.equal(column, 0))
                g3 = theirs(warehouse=str(their_wh), queries=queries[:nq].tolist(),
                            filter=column, warm=True)
                fl: List[float] = []
                ours_search(table, queries[:nq], pb.equal(column, 0), latencies=fl)
                row[f"filter{share}"] = {
                    "ours_recall": recall(f3, fwant[:nq], 10), "ours_qps": nq / t3,
                    "ours_p50_ms": percentiles(fl)["p50_ms"],
                    "their_p50_ms": percentiles(g3["latencies"])["p50_ms"],
                    "their_recall": recall(g3["found"], fwant[:nq], 10),
                    "their_rows": float(np.mean([len(f) for f in g3["found"]])),
                    "their_qps": nq / g3["search_s"]}
        rows.append(row)
        print(json.dumps(row), flush=True)
        shutil.rmtree(their_wh, ignore_errors=True)
    if args.json:
        write_json(args, rows)
    if args.build_only:
        print("\n".join(build_lines(args, rows)))
        return
    if args.skip_full_text or args.reuse:
        print("\n".join(query_lines(args, rows) + equal_recall_lines(rows)
                        + extra_lines(args, rows) + build_lines(args, rows)))
        if args.skip_full_text:
            return
    # full text
    ours_wh, their_wh = work / "ours-ft", work / "theirs-ft"
    for wh in (ours_wh, their_wh):
        shutil.rmtree(wh, ignore_errors=True)
        shutil.copytree(base, wh)
    table = CatalogFactory.create({"warehouse": str(ours_wh)}).get_table("db.v")
    t0 = time.perf_counter()
    table.create_global_index("body", index_type="full-text")
    ft_build = time.perf_counter() - t0
    rng = np.random.default_rng(3)
    texts = [json.dumps({"match": {"query": f"{WORDS[a]} {WORDS[b]}"}})
             for a, b in rng.integers(0, 200, (nq, 2))]
    table = CatalogFactory.create({"warehouse": str(ours_wh)}).get_table("db.v")
    t0 = time.perf_counter()
    ft_found = [table.new_full_text_search_builder().with_query("body", t).with_limit(10)
                .execute_local().row_ids for t in texts]
    ft_took = time.perf_counter() - t0
    def text_run(handle: Any) -> tuple:
        found, lat = [], []
        t0 = time.perf_counter()
        for t in texts:
            s = time.perf_counter()
            found.append(handle.new_full_text_search_builder().with_query("body", t)
                         .with_limit(10).execute_local().row_ids)
            lat.append(time.perf_counter() - s)
        return found, time.perf_counter() - t0, lat

    ft_found, took2, ft_lat = text_run(table)
    ft_took = min(ft_took, took2)
    # IGNORE: no index trusted; the temporary index over every row is built by the first
    # query of the snapshot and kept (docs/search.md)
    ignoring = table.copy({"global-index.column-update-action": "IGNORE"})
    t0 = time.perf_counter()
    ig_first = ignoring.new_full_text_search_builder().with_query("body", texts[0]) \
        .with_limit(10).execute_local().row_ids
    ig_first_s = time.perf_counter() - t0
    ig_found, ig_took, ig_lat = text_run(ignoring)
    shutil.copytree(ours_wh / "db.db" / "v", their_wh / "db.db" / "v", dirs_exist_ok=True)
    g = theirs(warehouse=str(their_wh), texts=texts, warm=True)
    full_text = {"build_s": ft_build, "queries": nq, "ours_qps": nq / ft_took,
                 "their_qps": nq / g["search_s"],
                 "ours_p50_ms": percentiles(ft_lat)["p50_ms"],
                 "their_p50_ms": percentiles(g["latencies"])["p50_ms"],
                 "equal_top10": sum(a == b for a, b in zip(ft_found, g["found"])) / nq,
                 "ignore_first_s": ig_first_s, "ignore_qps": nq / ig_took,
                 "ignore_p50_ms": percentiles(ig_lat)["p50_ms"],
                 "ignore_equal_top10": sum(a == b for a, b in zip(ig_found, ft_found)) / nq
                 if ig_first == ft_found[0] else 0.0,
                 "bytes": index_bytes(ours_wh, "full-text")}
    print(json.dumps(full_text), flush=True)
    if args.json:
        write_json(args, rows, full_text)
    if args.reuse:
        print("\n".join(full_text_lines(full_text)))
        return
    report(args, rows, full_text)


def write_json(args: Any, rows: List[Dict[str, Any]],
               full_text: Optional[Dict[str, Any]] = None) -> None:
    """The figures, the chart's input (bench/search_chart.py), with the machine's cores and
    the load average at the end of the run."""
    Path(args.json).write_text(json.dumps(
        {"args": vars(args), "rows": rows, "full_text": full_text, "cores": os.cpu_count(),
         "load": load_average(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())},
        indent=1))


def same_parameters(kind: str) -> Dict[str, str]:
    """pypaimon options giving its build our default training bounds (docs/search.md,
    "Training"): with them both engines write the same bytes (tests/test_search.py)."""
    from paimon_rowid.table._search_options import DEFAULT_TRAIN_POINTS
    keys = ["ivf.train.max-points-per-centroid"] + (
        ["pq.train.max-points-per-centroid"] if kind == "ivf-pq" else [])
    return {f"{kind}.{k}": str(DEFAULT_TRAIN_POINTS[k]) for k in keys}


def pypaimon_builds(work: Path, base: Path, their_wh: Path, kind: str) -> Dict[str, Any]:
    """pypaimon builds ``kind`` twice: in ``their_wh`` with our parameters (the index its
    searches then use; its bytes compared with ours) and on another copy at its own defaults
    (every vector trained; timed only). Wall and CPU seconds of both, load after each."""
    same = theirs(warehouse=str(their_wh), build=True, column="emb", index_type=kind,
                  options=same_parameters(kind))
    out = {"their_build_s": same["build_s"], "their_build_cpu_s": same["build_cpu_s"],
           "their_build_load": load_average()}
    default_wh = work / f"theirs-default-{kind}"
    shutil.rmtree(default_wh, ignore_errors=True)
    shutil.copytree(base, default_wh)
    default = theirs(warehouse=str(default_wh), build=True, column="emb", index_type=kind,
                     options={})
    out.update({"their_default_build_s": default["build_s"],
                "their_default_build_cpu_s": default["build_cpu_s"],
                "their_default_bytes": index_bytes(default_wh, "vector")})
    shutil.rmtree(default_wh, ignore_errors=True)
    return out


def same_files(a: Path, b: Path) -> bool:
    """Whether two warehouses hold the same vector index files, byte for byte."""
    files = [sorted(f.read_bytes() for f in (wh / "db.db" / "v" / "index").glob("vector*"))
             for wh in (a, b)]
    return bool(files[0]) and files[0] == files[1]


def build_only_row(args: Any, kind: str, table: Any, build: float, build_cpu: float,
                   build_load: float, ours_recall: float, ours_wh: Path,
                   their_wh: Path) -> Dict[str, Any]:
    """--build-only: pypaimon builds the same type (our parameters, and its defaults), no
    query; both sides' wall, CPU and the load average after each build."""
    from paimon_rowid.table._search_exec import index_files
    row = {"type": kind, "ours_build_s": build, "ours_build_cpu_s": build_cpu,
           "build_load": build_load,
           **pypaimon_builds(their_wh.parent, their_wh.parent / "base", their_wh, kind),
           "files": len(index_files(table, "emb", [kind], table.latest_snapshot().id, None)),
           "ours_bytes": index_bytes(ours_wh, "vector"),
           "their_bytes": index_bytes(their_wh, "vector"),
           "same_bytes": same_files(ours_wh, their_wh), "ours_recall": ours_recall}
    shutil.rmtree(their_wh, ignore_errors=True)
    return row


def ratio(a: Optional[float], b: Optional[float]) -> str:
    return f"{a / b:.1f}x" if a and b else "–"


def query_lines(args: Any, rows: List[Dict[str, Any]]) -> List[str]:
    """The query side, ours against pypaimon on the same index files, at defaults."""
    t = args.threads
    lines = [f"| index | recall@10 ours / pypaimon | QPS 1 thread ours / pypaimon (ratio) | "
             f"QPS {t} threads ours / pypaimon (ratio) | p50 ours / pypaimon | "
             "p99 ours / pypaimon |", "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(
            f"| {r['type']} | {r['ours_recall']:.3f} / {r['their_recall']:.3f} | "
            f"{r['ours_qps']:.0f} / {r['their_qps']:.0f} ({ratio(r['ours_qps'], r['their_qps'])})"
            f" | {r['ours_qps_threads']:.0f} / {r.get('their_qps_threads') or 0:.0f} "
            f"({ratio(r['ours_qps_threads'], r.get('their_qps_threads'))}) | "
            f"{r['p50_ms']:.2f} / {r.get('their_p50_ms', 0):.2f} ms | "
            f"{r['p99_ms']:.2f} / {r.get('their_p99_ms', 0):.2f} ms |")
    for r in rows:
        if r.get("ours_recall_refine10") is not None:
            lines.append(f"| {r['type']} refine 10 | {r['ours_recall_refine10']:.3f} / "
                         f"{r['their_recall_refine10']:.3f} | {r['ours_qps_refine10']:.0f} / "
                         f"{r['their_qps_refine10']:.1f} "
                         f"({ratio(r['ours_qps_refine10'], r['their_qps_refine10'])}) | – | – "
                         "| – |")
    filtered = [(r, s) for r in rows for s in (10, 100) if r.get(f"filter{s}")]
    if filtered:
        lines += ["", "| filter (ivf-flat) | recall@10 ours / pypaimon | rows returned pypaimon "
                  "| QPS ours / pypaimon | p50 ours / pypaimon |", "|---|---|---|---|---|"]
        for r, share in filtered:
            f = r[f"filter{share}"]
            lines.append(f"| {100 / share:g}% kept | {f['ours_recall']:.3f} / "
                         f"{f['their_recall']:.3f} | {f['their_rows']:.1f} | "
                         f"{f['ours_qps']:.0f} / {f['their_qps']:.0f} | "
                         f"{f.get('ours_p50_ms', 0):.2f} / {f.get('their_p50_ms', 0):.2f} ms |")
    return lines + [""]


def equal_recall_lines(rows: List[Dict[str, Any]]) -> List[str]:
    """QPS at equal recall (one thread): at each recall@10 a pypaimon setting reached, the
    fastest setting of each side with at least that recall, and their ratio."""
    lines = ["| index | recall@10 at least | pypaimon fastest: setting, recall / QPS | ours "
             "fastest: setting, recall / QPS | ratio | load avg |", "|---|---|---|---|---|---|"]
    for r in rows:
        points = search_points(r)
        levels = sorted({rec for who, _, rec, _ in points if who == "pypaimon"}, reverse=True)
        for level in levels:
            best = {}
            for who in ("pypaimon", "ours"):
                found = [(qps, label, rec) for w, label, rec, qps in points
                         if w == who and rec >= level - 1e-9]
                best[who] = max(found) if found else None
            p, o = best["pypaimon"], best["ours"]
            assert p is not None
            lines.append(f"| {r['type']} | {level:.3f} | {p[1]}: {p[2]:.3f} / {p[0]:.0f} | "
                         + (f"{o[1]}: {o[2]:.3f} / {o[0]:.0f} | {o[0] / p[0]:.1f}x | "
                            if o else "none | – | ") + f"{r.get('load', 0):.1f} |")
    return lines + [""]


def search_points(row: Dict[str, Any]) -> List[Tuple[str, str, float, float]]:
    """(system, setting, recall@10, one-thread QPS) of one bench row."""
    out = [("ours", "default", row["ours_recall"], row["ours_qps"]),
           ("pypaimon", "default", row["their_recall"], row["their_qps"])]
    for n in NPROBES:
        for who, key in (("ours", "ours"), ("pypaimon", "their")):
            if f"{key}_recall_nprobe{n}" in row:
                out.append((who, f"nprobe {n}", row[f"{key}_recall_nprobe{n}"],
                            row[f"{key}_qps_nprobe{n}"]))
    for key, label in (("refine1", "refine 1"), ("refine10", "refine 10")):
        if f"ours_recall_{key}" in row:
            out.append(("ours", label, row[f"ours_recall_{key}"], row[f"ours_qps_{key}"]))
    if "their_recall_refine10" in row:
        out.append(("pypaimon", "refine 10", row["their_recall_refine10"],
                    row["their_qps_refine10"]))
    for key, label in (("lance", "nprobes 20"), ("lance_refine20", "refine 20")):
        if row.get(key):
            out.append(("LanceDB", label, row[key]["recall"], row[key]["qps"]))
    return out


def full_text_lines(ft: Dict[str, Any]) -> List[str]:
    return ["| full text | QPS ours / pypaimon (ratio) | p50 ours / pypaimon | equal top-10 |",
            "|---|---|---|---|",
            f"| index searched | {ft['ours_qps']:.0f} / {ft['their_qps']:.1f} "
            f"({ratio(ft['ours_qps'], ft['their_qps'])}) | {ft['ours_p50_ms']:.2f} / "
            f"{ft['their_p50_ms']:.2f} ms | {ft['equal_top10']:.2f} |",
            f"| IGNORE (temporary index per snapshot; first query {ft['ignore_first_s']:.2f} s) "
            f"| {ft['ignore_qps']:.0f} / – | {ft['ignore_p50_ms']:.2f} ms / – | "
            f"{ft['ignore_equal_top10']:.2f} (against ours with the index) |", ""]


def report(args: Any, rows: List[Dict[str, Any]], ft: Dict[str, Any]) -> None:
    lines = ["# Search bench (issue 49)", "",
             f"`python bench/vector_search.py --rows {args.rows} --dim {args.dim} "
             f"--queries {args.queries} --their-queries {args.their_queries}` on "
             f"{platform.machine()} with {os.cpu_count()} cores shared with other work "
             f"({time.strftime('%Y-%m-%d', time.gmtime())}; Python {platform.python_version()}, "
             "paimon-vindex 0.5.0, paimon-ftindex 0.1.0, pypaimon 2.1.0).", "",
             f"Data: {args.rows:,} clustered vectors x {args.dim} (256 centres, seed 42), "
             f"{args.queries:,} held-out queries of the same distribution, inner product "
             "(the default metric), ground truth by exact numpy search. Queries run one at a "
             "time through the public builders on one thread; ours ran all "
             f"{args.queries:,} queries, pypaimon the first {args.their_queries} (its "
             "per-query cost makes 1,000 too slow for a shared box). Default search "
             "parameters (paimon-vindex's automatic width) unless the column says `nprobe`.",
             "", "## Vector indexes", "",
             "| index | build ours | build pypaimon (same parameters) | index bytes | "
             "recall@10 ours | recall@10 pypaimon | same top-10 | QPS ours | QPS pypaimon | "
             "ours nprobe 16: recall / QPS | ours nprobe 64: recall / QPS | refine-factor 10: "
             "recall / QPS ours | refine-factor 10: recall / QPS pypaimon |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        size = f"{r['ours_bytes']:,}" + (" (= pypaimon's)" if r.get("same_bytes")
                                          else f" / {r['their_bytes']:,}")
        lines.append(
            f"| {r['type']} | {r['ours_build_s']:.2f} s | {r['their_build_s']:.2f} s | {size} | "
            f"{r['ours_recall']:.3f} | {r['their_recall']:.3f} | {r['same_topk']:.2f} | "
            f"{r['ours_qps']:.0f} | {r['their_qps']:.1f} | "
            f"{r['ours_recall_nprobe16']:.3f} / {r['ours_qps_nprobe16']:.0f} | "
            f"{r['ours_recall_nprobe64']:.3f} / {r['ours_qps_nprobe64']:.0f} | "
            + (f"{r['ours_recall_refine10']:.3f} / {r['ours_qps_refine10']:.0f} | "
               f"{r['their_recall_refine10']:.3f} / {r['their_qps_refine10']:.1f} |"
               if "ours_recall_refine10" in r else "– | – |"))
    lines += ["", "## QPS at equal recall (one thread)", "",
              "At each recall@10 a pypaimon setting reached, each side's fastest setting of at "
              "least that recall "
              "(same index files; both sides at paimon-vindex's automatic width and at nprobe "
              f"{', '.join(map(str, NPROBES))}; recall over the queries both sides ran).",
              ""] + equal_recall_lines(rows)
    lines += ["", "## Filtered search (ivf-flat, default parameters)", "",
              "The filter keeps 10% (`sel10 = 0`) or 1% (`sel100 = 0`) of the rows; no scalar "
              "index on the filter column. Recall against exact search over the kept rows.",
              "", "| kept | recall@10 ours | QPS ours | recall@10 pypaimon | rows returned "
              "pypaimon (of 10) | QPS pypaimon |", "|---|---|---|---|---|---|"]
    for r in rows:
        for share in (10, 100):
            f = r.get(f"filter{share}")
            if f:
                lines.append(f"| {100 / share:g}% | {f['ours_recall']:.3f} | "
                             f"{f['ours_qps']:.0f} | {f['their_recall']:.3f} | "
                             f"{f['their_rows']:.1f} | {f['their_qps']:.1f} |")
    lines += ["", "## Full text (BM25)", "",
              f"{args.rows:,} generated documents of 12 Zipf-distributed words; "
              f"{ft['queries']} two-word `match` queries; one index built by us "
              f"({ft['build_s']:.2f} s, {ft['bytes']:,} bytes), searched by both.", "",
              "| QPS ours | QPS pypaimon | queries with equal top-10 |", "|---|---|---|",
              f"| {ft['ours_qps']:.0f} | {ft['their_qps']:.1f} | {ft['equal_top10']:.2f} |",
              "", "## Reading the figures", "",
              "- Queries: pypaimon builds with our parameters (our training bounds), which "
              "writes our bytes, and searches its own files: both sides call the same library "
              "on the same bytes and recall at equal parameters is equal by construction; the "
              "difference is what happens around the library call. "
              "pypaimon opens and reads the index file and plans a scan on every query; we "
              "cache the opened readers per file and plan nothing when there is no filter.",
              "- Builds: one shard per 100,000 rows (the default), built on one thread each "
              "by pypaimon, on one per core by us; the time is paimon-vindex's training and "
              "assignment on both sides, plus reading the column and writing the file. The "
              "Builds table also times pypaimon at its own defaults (every vector trained).",
              "- Filters: pypaimon evaluates the filter with scalar indexes only; without one "
              "on the filter's column it searches no row. We evaluate the filter exactly and "
              "search with an include bitmap, or score the kept rows directly when they are "
              "few (docs/search.md).",
              ""]
    Path(args.markdown).write_text("\n".join(lines + extra_lines(args, rows)
                                             + build_lines(args, rows)))


def build_lines(args: Any, rows: List[Dict[str, Any]]) -> List[str]:
    """Builds: wall and CPU seconds of ours and pypaimon's at the same parameters (our
    training bounds: the same files) and at its defaults (every vector trained), ratios,
    recall at defaults, files."""
    lines = [f"## Builds ({args.rows:,} x {args.dim})", "",
             "| index | files | ours: wall / CPU | pypaimon, same parameters: wall / CPU "
             "(ratio) | same bytes | pypaimon, its defaults: wall / CPU (ratio) | recall@10 "
             "ours (defaults) | load avg after build (ours / pypaimon) |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r.get("ours_build_s") is None or r.get("their_build_s") is None:
            continue  # --reuse: nothing built
        ow, oc = r["ours_build_s"], r["ours_build_cpu_s"]
        cells = []
        for key in ("their", "their_default"):
            w, c = r.get(f"{key}_build_s"), r.get(f"{key}_build_cpu_s")
            cells.append(f"{w:.2f} / {c:.2f} s ({w / ow:.1f}x / {c / oc:.1f}x)" if w and c
                         else "–")
        lines.append(
            f"| {r['type']} | {r.get('files', '–')} | {ow:.2f} / {oc:.2f} s | {cells[0]} | "
            f"{'yes' if r.get('same_bytes') else 'no'} | {cells[1]} | {r['ours_recall']:.3f} | "
            f"{r.get('build_load', 0):.1f} / {r.get('their_build_load', 0):.1f} |")
    return lines + [""]


def extra_lines(args: Any, rows: List[Dict[str, Any]]) -> List[str]:
    """Latency, threads, the default refine factor and LanceDB."""
    lines = [f"## Latency, {args.threads} threads, LanceDB ({args.rows:,} x {args.dim})", "",
             "Ours at defaults (ivf-pq: our default refine factor 20). LanceDB "
             "(`bench/lance_search.py`, lancedb in its own virtualenv) builds IVF_PQ / IVF_FLAT "
             "with our index's partitions (nlist) and sub-vectors (pq.m), metric dot, and "
             "searches with nprobes 20 (its default), refine factor 0 or 20.", "",
             "| index | nlist / pq.m | p50 ours | p99 ours | QPS ours 1 thread | QPS ours "
             f"{args.threads} threads | ivf-pq refine 1 (no default): recall / QPS | LanceDB "
             "build | LanceDB recall / QPS / p50 / p99 | LanceDB refine 20: recall / QPS |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lc, l20 = r.get("lance") or {}, r.get("lance_refine20") or {}
        lines.append(
            f"| {r['type']} | {r['nlist']} / {r['pq_m'] or '–'} | {r['p50_ms']:.2f} ms | "
            f"{r['p99_ms']:.2f} ms | {r['ours_qps']:.0f} | {r['ours_qps_threads']:.0f} | "
            + (f"{r['ours_recall_refine1']:.3f} / {r['ours_qps_refine1']:.0f} | "
               if "ours_recall_refine1" in r else "– | ")
            + (f"{lc['build_s']:.2f} s | {lc['recall']:.3f} / {lc['qps']:.0f} / "
               f"{lc['p50_ms']:.2f} ms / {lc['p99_ms']:.2f} ms | " if lc else "– | – | ")
            + (f"{l20['recall']:.3f} / {l20['qps']:.0f} |" if l20 else "– |"))
    return lines + [""]


if __name__ == "__main__":
    sys.exit(main())
