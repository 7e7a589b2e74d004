"""Re-measures ours on an ivf-pq index bench/vector_search.py left in its work dir (no
rebuild): recall@10, single-thread QPS and p50/p99 at our default refine factor (20), at
refine 1 (pypaimon's ranking) and at refine 10.

    python bench/search_refine_qps.py WORK_DIR/ours-ivf-pq [--rows 100000] [--dim 128]
        [--queries 500]

The data and queries are regenerated from the bench's seed, so the ground truth is the bench's.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from vector_search import make_data, recall, truth  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("warehouse")
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=128)
    parser.add_argument("--queries", type=int, default=500)
    args = parser.parse_args()
    from paimon_rowid import CatalogFactory
    vectors, queries, _ = make_data(args.rows, args.dim, args.queries)
    want = truth(vectors, queries, 10)
    table = CatalogFactory.create({"warehouse": args.warehouse}).get_table("db.v")

    def run(options):
        found, latencies = [], []
        t0 = time.perf_counter()
        for q in queries:
            s = time.perf_counter()
            found.append(table.new_vector_search_builder().with_vector_column("emb")
                         .with_query_vector(q).with_limit(10).with_options(options)
                         .execute_local().row_ids)
            latencies.append(time.perf_counter() - s)
        took = time.perf_counter() - t0
        return {"options": options, "recall": round(recall(found, want, 10), 3),
                "qps": round(len(queries) / took, 1),
                "p50_ms": round(float(np.percentile(latencies, 50)) * 1000, 2),
                "p99_ms": round(float(np.percentile(latencies, 99)) * 1000, 2)}

    run({})  # warm: the index reader and the refine block
    for options in ({}, {"refine-factor": "1"}, {"refine-factor": "10"}):
        print(json.dumps(run(options)), flush=True)


if __name__ == "__main__":
    main()
