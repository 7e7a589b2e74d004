"""pypaimon's search modes (docs/search.md, "Search modes"): ``vector-index.search-mode``,
``full-text-index.search-mode`` and their fallback ``global-index.search-mode`` (``fast``,
``full``, ``detail``), read from the vector builders' ``with_option(s)`` and from table
options; ``fast`` searches only what index files cover, as pypaimon does by default."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from ours import catalog, create_table, write

pytest.importorskip("paimon_vindex")
pytest.importorskip("paimon_ftindex")

DIM = 8
ID = "db.t"
DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([("id", pa.int64()), ("emb", pa.list_(pa.float32(), DIM)),
                    ("body", pa.string())])
INDEXED = 500  # rows 0..499 indexed, 500..559 appended after the build


def _rows(lo: int, vectors: np.ndarray) -> pa.Table:
    n = vectors.shape[0]
    return pa.table({"id": np.arange(lo, lo + n),
                     "emb": pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), DIM),
                     "body": [f"common doc{i}" for i in range(lo, lo + n)]}, schema=SCHEMA)


@pytest.fixture
def table_and_vectors(warehouse):
    rng = np.random.default_rng(4)
    vectors = rng.standard_normal((INDEXED + 60, DIM)).astype(np.float32)
    vectors[INDEXED:] *= 10  # the appended rows win every inner-product query
    table = create_table(warehouse, "t", SCHEMA, DE)
    write(table, _rows(0, vectors[:INDEXED]))
    table = catalog(warehouse).get_table(ID)
    assert table.create_global_index("emb", index_type="ivf-flat") == 1
    assert table.create_global_index("body", index_type="full-text") == 1
    write(table, _rows(INDEXED, vectors[INDEXED:]))
    return catalog(warehouse).get_table(ID), vectors


def _exact(vectors, ids, query, k=10):
    scores = vectors[ids] @ query
    return [int(ids[i]) for i in sorted(range(len(ids)), key=lambda i: (-scores[i], ids[i]))[:k]]


def _vsearch(table, query, options):
    return (table.new_vector_search_builder().with_vector_column("emb").with_query_vector(query)
            .with_limit(10).with_option("ivf.nprobe", "64").with_options(options)
            .execute_local().row_ids)


def test_vector_search_modes_from_call_and_table_options(table_and_vectors):
    table, vectors = table_and_vectors
    query = np.random.default_rng(9).standard_normal(DIM).astype(np.float32)
    every, indexed = np.arange(len(vectors)), np.arange(INDEXED)
    assert _vsearch(table, query, {}) == _exact(vectors, every, query)  # ours: full
    for options in ({"vector-index.search-mode": "fast"}, {"global-index.search-mode": "FAST"},
                    {"global-index.search-mode": "full", "vector-index.search-mode": "fast"}):
        assert _vsearch(table, query, options) == _exact(vectors, indexed, query), options
    for options in ({"vector-index.search-mode": "full"}, {"vector-index.search-mode": "detail"},
                    {"global-index.search-mode": "fast", "vector-index.search-mode": "full"}):
        assert _vsearch(table, query, options) == _exact(vectors, every, query), options
    # A table option, and a call option over it.
    fast = table.copy({"vector-index.search-mode": "fast"})
    assert _vsearch(fast, query, {}) == _exact(vectors, indexed, query)
    assert _vsearch(fast, query, {"global-index.search-mode": "full"}) == \
        _exact(vectors, every, query)
    # Batch search and filters follow the mode.
    pb = table.new_read_builder().new_predicate_builder()
    got = (fast.new_batch_vector_search_builder().with_vector_column("emb")
           .with_query_vectors(np.stack([query, -query])).with_limit(5)
           .with_filter(pb.greater_than("id", 250)).with_option("ivf.nprobe", "64")
           .execute_batch_local())
    assert [r.row_ids for r in got] == [_exact(vectors, np.arange(251, INDEXED), q, 5)
                                        for q in (query, -query)]


def test_fast_mode_does_not_hide_rows_when_no_index_is_trusted(table_and_vectors):
    table, vectors = table_and_vectors
    query = np.random.default_rng(10).standard_normal(DIM).astype(np.float32)
    untrusted = table.copy({"global-index.column-update-action": "IGNORE",
                            "vector-index.search-mode": "fast"})
    assert _vsearch(untrusted, query, {}) == _exact(vectors, np.arange(len(vectors)), query)


def test_full_text_search_modes_from_table_options(table_and_vectors):
    table, _ = table_and_vectors

    def search(t, text):
        return (t.new_full_text_search_builder().with_query("body", text).with_limit(5)
                .execute_local().row_ids)

    assert search(table, "doc530") == [530]
    assert search(table, "doc30") == [30]
    for options in ({"full-text-index.search-mode": "fast"}, {"global-index.search-mode": "fast"}):
        assert search(table.copy(options), "doc530") == [], options
        assert search(table.copy(options), "doc30") == [30], options
    both = {"global-index.search-mode": "fast", "full-text-index.search-mode": "detail"}
    assert search(table.copy(both), "doc530") == [530]


@pytest.mark.parametrize("where", ["call", "table", "full_text"])
def test_an_invalid_search_mode_is_refused(table_and_vectors, where):
    table, vectors = table_and_vectors
    with pytest.raises(ValueError, match="Invalid .*search-mode 'quick'"):
        if where == "call":
            _vsearch(table, vectors[0], {"vector-index.search-mode": "quick"})
        elif where == "table":
            _vsearch(table.copy({"global-index.search-mode": "quick"}), vectors[0], {})
        else:
            (table.copy({"full-text-index.search-mode": "quick"}).new_full_text_search_builder()
             .with_query("body", "doc1").with_limit(3).execute_local())


def test_fast_mode_equals_pypaimons_default(table_and_vectors, oracle):
    """pypaimon searches only the indexed rows by default: our fast mode returns its top-k."""
    from oracle import OracleUnavailable, ensure_search_packages
    try:
        ensure_search_packages(oracle)
    except OracleUnavailable as error:
        pytest.skip(str(error))
    table, vectors = table_and_vectors
    queries = np.random.default_rng(11).standard_normal((3, DIM)).astype(np.float32)
    theirs = oracle.run({"cmd": "vector_search", "warehouse": str(table.path).rsplit(
        "/db.db/", 1)[0], "identifier": ID, "column": "emb", "queries": queries.tolist(),
        "limit": 10, "search_options": {"ivf.nprobe": "64"}})
    ours = [_vsearch(table, q, {"vector-index.search-mode": "fast"}) for q in queries]
    assert ours == [[r for r, _ in q] for q in theirs]
    assert ours == [_exact(vectors, np.arange(INDEXED), q) for q in queries]
