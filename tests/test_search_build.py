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


def test_read_parts_cut_the_range_in_row_order():
    from paimon_rowid.table.search_index import MIN_PART_ROWS, read_parts
    assert MIN_PART_ROWS == 10_000
    for start, rows, parts in ((0, 100_000, 2), (7, 30_001, 4), (5, 19_999, 8), (0, 20_000, 8),
                               (3, 1, 2), (100_000, 99_999, 16), (0, 50_000, 1)):
        got = read_parts(start, start + rows - 1, parts)
        sizes = [hi - lo + 1 for lo, hi in got]
        assert got[0][0] == start and got[-1][1] == start + rows - 1, got
        assert all(a[1] + 1 == b[0] for a, b in zip(got, got[1:])), got  # contiguous, in order
        assert len(got) == max(1, min(parts, rows // MIN_PART_ROWS)), got
        assert max(sizes) - min(sizes) <= 1, got
        assert len(got) == 1 or min(sizes) >= MIN_PART_ROWS, got
    assert read_parts(7, 30_007, 4) == [(7, 10_007), (10_008, 20_007), (20_008, 30_007)]


ROWS = 30_001  # an odd count: parts of 10,001 / 10,000 / 10,000 rows


@pytest.fixture(scope="module")
def two_commit_table(tmp_path_factory):
    """ROWS vectors in two commits (two data files, the boundary inside the second part), one
    in 97 NULL."""
    wh = tmp_path_factory.mktemp("parts")
    vectors = _clustered(ROWS, seed=3)
    table = create_table(wh, "t", SCHEMA, DE)
    emb = pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), DIM,
                                            mask=pa.array(np.arange(ROWS) % 97 == 5))
    for lo, hi in ((0, 12_345), (12_345, ROWS)):
        write(table, pa.table({"id": np.arange(lo, hi), "emb": emb[lo:hi]}, schema=SCHEMA))
    return wh, vectors


def test_parallel_read_equals_the_serial_read(two_commit_table):
    """The shard read in parts (the native reader's threads) holds the serial read's rows in
    the same order, whole range and an odd sub-range; the vector blocks equal the vectors of
    one concatenated read."""
    from paimon_rowid.table.search_index import Shard, read_shard, vector_blocks, vectors_of
    wh, vectors = two_commit_table
    table = catalog(wh).get_table("db.t")
    for shard in (Shard(b"", 0, ROWS - 1), Shard(b"", 3, 27_004)):
        serial = read_shard(table, "emb", shard, parts=1)
        parallel = read_shard(table, "emb", shard, parts=3)
        assert parallel.num_rows == shard.end - shard.start + 1
        assert parallel.column(0).num_chunks > serial.column(0).num_chunks  # read in parts
        assert parallel.equals(serial)
        ids, data = vectors_of(serial.column(0), serial.column(1), DIM, shard.start)
        blocks = vector_blocks(parallel, DIM, shard.start)
        assert len(blocks) >= 3
        assert np.array_equal(np.concatenate([b[0] for b in blocks]), ids)
        assert np.array_equal(np.concatenate([b[1] for b in blocks]), data)
        keep = np.arange(shard.start, shard.end + 1)
        keep = keep[keep % 97 != 5]
        assert np.array_equal(ids + shard.start, keep)
        assert np.array_equal(data, vectors[keep])


def test_training_sample_of_blocks_equals_the_whole_arrays():
    from paimon_rowid.table.search_index import training_sample
    data = np.arange(1003 * 2, dtype=np.float32).reshape(1003, 2)
    ids = np.arange(1003, dtype=np.int64)
    cuts = [0, 1, 400, 401, 1003]
    blocks = [(ids[a:b], data[a:b]) for a, b in zip(cuts, cuts[1:])]
    for ratio in (1.0, 0.5, 0.3, 0.001):
        count = max(1, int(np.ceil(1003 * ratio)))
        want = data[np.arange(count) * 1003 // count]
        assert np.array_equal(np.concatenate(training_sample(blocks, ratio)), want)
        assert np.array_equal(np.concatenate(training_sample([(ids, data)], ratio)), want)


@pytest.mark.parametrize("index_type,options", [
    ("ivf-flat", {}), ("ivf-sq", {"ivf-sq.train.sample-ratio": "0.3"})])
def test_parallel_build_writes_the_serial_build_file(two_commit_table, tmp_path, monkeypatch,
                                                     index_type, options):
    """A build whose shard is read in 3 parts writes the file, byte for byte, of one read
    in one part (the training sample gathered across the parts included)."""
    import shutil

    from paimon_rowid.table import search_index
    src, _ = two_commit_table
    cut = search_index.read_parts
    files, seen = {}, {}
    for parts in (1, 3):
        monkeypatch.setattr(search_index, "default_read_parts", lambda parts=parts: parts)
        seen[parts] = []
        monkeypatch.setattr(search_index, "read_parts",
                            lambda *a, seen=seen[parts]: seen.append(cut(*a)) or seen[-1])
        wh = tmp_path / str(parts)
        shutil.copytree(src, wh)
        table = catalog(wh).get_table("db.t")
        assert table.create_global_index("emb", index_type=index_type, options=options) == 1
        files[parts] = [f.read_bytes() for f in (wh / "db.db" / "t" / "index").glob("vector-*")]
    assert [len(p) for p in seen[1]] == [1] and [len(p) for p in seen[3]] == [3]
    assert len(files[1]) == 1 and files[3] == files[1]


def _output_callbacks(out):
    """IndexFileOutput's C callbacks as paimon-vindex calls them (through ctypes)."""
    from paimon_vindex import _ffi
    context, write, _, position = out.callbacks()
    return context, _ffi.WRITE_FN(write), _ffi.GET_POS_FN(position)


def test_index_file_output_writes_every_piece_in_order(tmp_path):
    """Pieces of many sizes (across its 8 MiB buffers) land in order; position counts them;
    finish returns the size. An existing name is refused and left as it was; abort deletes
    the file."""
    import ctypes

    from paimon_rowid._internal._lib import native
    table = create_table(tmp_path, "t", SCHEMA, DE)
    path = str(tmp_path / "out.index")
    out = native().IndexFileOutput(table._native, path)
    context, write, position = _output_callbacks(out)
    rng = np.random.default_rng(5)
    payload = rng.integers(0, 256, 21 << 20, dtype=np.uint8)
    at = 0
    for size in [1, 7, 8 << 20, 3, (8 << 20) - 11, 0, 100_000]:
        piece = np.ascontiguousarray(payload[at:at + size])
        assert write(context, piece.ctypes.data_as(ctypes.POINTER(ctypes.c_uint8)), size) == 0
        at += size
        assert position(context) == at
    rest = np.ascontiguousarray(payload[at:])
    assert write(context, rest.ctypes.data_as(ctypes.POINTER(ctypes.c_uint8)), rest.size) == 0
    assert out.finish() == payload.size
    assert (tmp_path / "out.index").read_bytes() == payload.tobytes()
    with pytest.raises(ValueError, match="exists"):
        native().IndexFileOutput(table._native, path)
    assert (tmp_path / "out.index").read_bytes() == payload.tobytes()
    aborted = tmp_path / "aborted.index"
    out = native().IndexFileOutput(table._native, str(aborted))
    context, write, _ = _output_callbacks(out)
    assert write(context, payload.ctypes.data_as(ctypes.POINTER(ctypes.c_uint8)), 9 << 20) == 0
    out.abort()
    assert not aborted.exists()


def test_failed_vector_file_write_leaves_no_file(two_commit_table, tmp_path, monkeypatch):
    """paimon-vindex failing while it writes the index (here: after the first pieces) fails
    the build: nothing committed, no index file left; a second build then succeeds."""
    import shutil

    from paimon_rowid.table import search_index
    src, _ = two_commit_table
    wh = tmp_path / "wh"
    shutil.copytree(src, wh)
    table = catalog(wh).get_table("db.t")
    before = table.latest_snapshot().id
    real = search_index._write_index

    def failing(writer, out):
        import ctypes
        context, write, _ = _output_callbacks(out)
        piece = (ctypes.c_uint8 * 4096)()
        assert write(context, piece, 4096) == 0
        raise RuntimeError("injected vindex failure")

    monkeypatch.setattr(search_index, "_write_index", failing)
    with pytest.raises(RuntimeError, match="injected vindex failure"):
        table.create_global_index("emb", index_type="ivf-flat")
    assert catalog(wh).get_table("db.t").latest_snapshot().id == before
    assert not list((wh / "db.db" / "t" / "index").glob("vector-*"))
    monkeypatch.setattr(search_index, "_write_index", real)
    assert catalog(wh).get_table("db.t").create_global_index("emb", index_type="ivf-flat") == 1
    assert len(list((wh / "db.db" / "t" / "index").glob("vector-*"))) == 1
