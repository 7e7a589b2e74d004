"""LanceDB side of the search bench (bench/vector_search.py runs it in its own virtualenv,
``--lance-python``): IVF_PQ with the partitions and sub-vectors of our index, inner product
("dot"), the same vectors and queries (an .npz the bench writes).

    python bench/lance_search.py DATA.npz WORK_DIR PARTITIONS SUB_VECTORS NPROBES REFINE [TYPE]

TYPE: IVF_PQ (default) or IVF_FLAT (SUB_VECTORS ignored).

Prints one JSON object: build_s, recall (@10 against the .npz's truth), qps (one thread,
one query at a time), p50_ms, p99_ms, bytes (the index files, ``_indices``).
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa


def main() -> None:
    data_path, work, partitions, sub_vectors, nprobes, refine = sys.argv[1:7]
    kind = sys.argv[7] if len(sys.argv) > 7 else "IVF_PQ"
    import lancedb
    data = np.load(data_path)
    vectors, queries, want = data["vectors"], data["queries"], data["truth"]
    dim = vectors.shape[1]
    db = lancedb.connect(work)
    table = db.create_table("v", pa.table({
        "id": np.arange(vectors.shape[0]),
        "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), dim)}),
        mode="overwrite")
    t0 = time.perf_counter()
    extra = {"num_sub_vectors": int(sub_vectors)} if kind == "IVF_PQ" else {}
    table.create_index(metric="dot", num_partitions=int(partitions), index_type=kind, **extra)
    build = time.perf_counter() - t0
    for q in queries[:5]:  # warm the index
        table.search(q).limit(10).nprobes(int(nprobes)).to_arrow()
    found, lat = [], []
    t0 = time.perf_counter()
    for q in queries:
        s = time.perf_counter()
        search = table.search(q).metric("dot").limit(10).nprobes(int(nprobes))
        if int(refine) > 0:
            search = search.refine_factor(int(refine))
        found.append(search.select(["id"]).to_arrow().column("id").to_pylist())
        lat.append(time.perf_counter() - s)
    took = time.perf_counter() - t0
    recall = float(np.mean([len(set(f) & set(w[:10].tolist())) / 10
                            for f, w in zip(found, want)]))
    size = sum(p.stat().st_size for p in Path(work).rglob("*")
               if p.is_file() and "_indices" in p.parts)
    print(json.dumps({"build_s": build, "recall": recall, "qps": len(queries) / took,
                      "p50_ms": float(np.percentile(lat, 50) * 1000),
                      "p99_ms": float(np.percentile(lat, 99) * 1000), "bytes": size}))


if __name__ == "__main__":
    main()
