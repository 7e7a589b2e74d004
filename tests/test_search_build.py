"""Building vector indexes (docs/search.md, "Training"): our default training bounds, which
options replace them, the recall they keep, and the vector checks of the build."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from ours import catalog, create_table, write

pytest.importorskip("paimon_vindex")

DIM = 32
DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([("id", pa.int64()), ("emb", pa.list_(pa.float32(), DIM))])
IVF_KEY, PQ_KEY = "ivf.train.max-points-per-centroid", "pq.train.max-points-per-centroid"


def _native(index_type, table_options=None, call_options=None):
    from paimon_rowid.table._search_options import vector_native_options
    return vector_native_options(table_options or {}, call_options or {}, index_type, "emb", DIM)


def test_default_training_bounds_and_their_overrides():
    assert _native("ivf-flat")[IVF_KEY] == "40" and PQ_KEY not in _native("ivf-flat")
    assert _native("ivf-sq")[IVF_KEY] == "40" and _native("ivf-rq")[IVF_KEY] == "40"
    assert (_native("ivf-pq")[IVF_KEY], _native("ivf-pq")[PQ_KEY]) == ("40", "32")
    diskann = _native("diskann")
    assert IVF_KEY not in diskann and PQ_KEY not in diskann
    # any spelling pypaimon takes replaces ours: bare, per type, per field; call over table
    assert _native("ivf-pq", {IVF_KEY: "7"})[IVF_KEY] == "7"
    assert _native("ivf-pq", {"ivf-pq." + PQ_KEY: "9"})[PQ_KEY] == "9"
    assert _native("ivf-flat", {"fields.emb." + IVF_KEY: "5"},
                   {"ivf-flat." + IVF_KEY: "6"})[IVF_KEY] == "6"  # the call's after the table's
    assert _native("ivf-flat", None, {"fields.emb." + IVF_KEY: "5",
                                      "ivf-flat." + IVF_KEY: "6"})[IVF_KEY] == "5"
    with pytest.raises(ValueError, match="not supported for index type 'ivf-flat'"):
        _native("ivf-flat", None, {PQ_KEY: "8"})


def _clustered(n, seed=5):
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((64, DIM)).astype(np.float32)
    return (centres[rng.integers(0, 64, n)]
            + 0.35 * rng.standard_normal((n, DIM))).astype(np.float32)


@pytest.fixture(scope="module")
def clustered_table(tmp_path_factory):
    wh = tmp_path_factory.mktemp("clustered")
    vectors = _clustered(20_000)
    table = create_table(wh, "t", SCHEMA, DE)
    write(table, pa.table({"id": np.arange(len(vectors)), "emb": pa.FixedSizeListArray.from_arrays(
        pa.array(vectors.ravel()), DIM)}, schema=SCHEMA))
    return wh, vectors


@pytest.mark.parametrize("index_type", ["ivf-flat", "ivf-sq", "ivf-pq"])
def test_default_sample_keeps_recall(clustered_table, tmp_path, index_type):
    """20,000 rows (nlist 128: 5,120 training points at 40 per list, a quarter of the rows):
    recall@10 within 0.03 of a build trained on every vector, at the automatic search width and
    at nprobe 32 (ivf-pq: our refine factor 20); the files differ (the bound was applied). The
    absolute recall at our defaults is the bench's (bench/RESULTS-search.md)."""
    import shutil
    src, vectors = clustered_table
    queries = _clustered(50, seed=9)
    want = np.argsort(-(queries @ vectors.T), axis=1)[:, :10]
    files, recall = {}, {}
    for name, options in (("sample", {}), ("full", {
            f"{index_type}.{IVF_KEY}": "100000",
            **({f"{index_type}.{PQ_KEY}": "100000"} if index_type == "ivf-pq" else {})})):
        wh = tmp_path / name
        shutil.copytree(src, wh)
        table = catalog(wh).get_table("db.t")
        assert table.create_global_index("emb", index_type=index_type, options=options) == 1
        files[name] = [f.read_bytes() for f in (wh / "db.db" / "t" / "index").glob("vector-*")]
        for width in ({}, {"ivf.nprobe": "32"}):
            found = [table.new_vector_search_builder().with_vector_column("emb")
                     .with_query_vector(q).with_limit(10).with_options(width).execute_local()
                     .row_ids for q in queries]
            recall[name, bool(width)] = np.mean(
                [len(set(f) & set(w.tolist())) / 10 for f, w in zip(found, want)])
    assert files["sample"] != files["full"]
    for width in (False, True):
        assert recall["sample", width] >= recall["full", width] - 0.03, recall


def test_vectors_of_checks_every_element():
    """The row-sum check: a NaN or an infinity anywhere is refused with its position; finite
    values whose row sum overflows are accepted."""
    from paimon_rowid.table.search_index import vectors_of
    data = np.ones((4, 3), np.float32)
    ids = pa.chunked_array([pa.array([10, 11, 12, 13], pa.int64())])

    def column(values):
        return pa.chunked_array([pa.FixedSizeListArray.from_arrays(pa.array(values.ravel()), 3)])

    big = data.copy()
    big[2] = [3e38, 3e38, -1.0]  # the row sums to inf in float32, each element is finite
    rel, got = vectors_of(column(big), ids, 3, 10)
    assert rel.tolist() == [0, 1, 2, 3] and np.array_equal(got, big)
    for bad in (np.nan, np.inf, -np.inf):
        broken = big.copy()
        broken[3, 1] = bad
        with pytest.raises(ValueError, match=r"rowId=3, index=1 is"):
            vectors_of(column(broken), ids, 3, 10)
