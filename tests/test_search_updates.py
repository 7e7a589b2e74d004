"""Search indexes stay true across updates and maintenance (docs/search.md, "Updates and
maintenance"): ``global-index.column-update-action`` for vector and full-text indexes (the
btree path's check and trust rule), through ``update_by_row_id``, ``merge_into`` and
``backfill``; compaction, deletes, snapshot expiration and orphan-file cleaning."""
from __future__ import annotations

import time
from pathlib import Path

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
                    ("body", pa.string()), ("dt", pa.string())])


def _vectors(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)


def _emb(vectors: np.ndarray) -> pa.Array:
    return pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel(), pa.float32()), DIM)


def _setup(warehouse, action=None, n=400):
    """db.t partitioned by dt ("a": rows 0..n/2-1, "b": the rest), ivf-flat on emb and
    full-text on body in both partitions. Returns the vectors."""
    options = dict(DE)
    if action is not None:
        options["global-index.column-update-action"] = action
    table = create_table(warehouse, "t", SCHEMA, options, ["dt"])
    vectors = _vectors(n, 3)
    write(table, pa.table({"id": np.arange(n), "emb": _emb(vectors),
                           "body": [f"word{i % 7} doc{i}" for i in range(n)],
                           "dt": ["a" if i < n // 2 else "b" for i in range(n)]},
                          schema=SCHEMA))
    table = catalog(warehouse).get_table(ID)
    assert table.create_global_index("emb", index_type="ivf-flat") == 2
    assert table.create_global_index("body", index_type="full-text") == 2
    return vectors


def _vsearch(table, query, limit=5):
    return (table.new_vector_search_builder().with_vector_column("emb").with_query_vector(query)
            .with_limit(limit).with_option("ivf.nprobe", "64").execute_local())


def _tsearch(table, text, limit=5):
    return (table.new_full_text_search_builder().with_query("body", text).with_limit(limit)
            .execute_local())


def _files(warehouse):
    return sorted(str(p) for p in Path(warehouse).rglob("*") if p.is_file())


def _live_indexes(warehouse):
    from paimon_rowid.global_index import list_global_indexes
    return sorted((e["column"], e["index_type"], e["partition"]["dt"])
                  for e in list_global_indexes(catalog(warehouse).get_table(ID)))


def _update_vectors(warehouse, how, row_ids, vectors):
    """Writes ``vectors`` into emb of ``row_ids`` through update_by_row_id, merge_into or
    backfill."""
    import paimon_rowid as pr
    opts = {"warehouse": str(warehouse)}
    source = pa.table({"_ROW_ID": pa.array(row_ids, pa.int64()), "emb": _emb(vectors)})
    if how == "update_by_row_id":
        pr.update_by_row_id(ID, source, opts, update_cols=["emb"])
    elif how == "merge_into":
        pr.merge_into(ID, source, opts, on=["_ROW_ID"],
                      when_matched=[pr.WhenMatched.update({"emb": "s.emb"})])
    else:  # backfill of emb over the rows whose id is in row_ids (ids equal row ids here)
        by_id = dict(zip(row_ids, vectors))

        def fn(part: pa.Table) -> pa.Array:
            ids = part.column("id").to_pylist()
            return _emb(np.stack([by_id[i] for i in ids]))

        pb = catalog(warehouse).get_table(ID).new_read_builder().new_predicate_builder()
        pr.backfill(ID, opts, column="emb", fn=fn, input_columns=["id"],
                    where=pb.is_in("id", list(row_ids)), progress=False, only_null=False)


HOWS = ["update_by_row_id", "merge_into", "backfill"]


@pytest.mark.parametrize("how", HOWS)
def test_throw_error_refuses_an_update_of_an_indexed_vector_column(warehouse, how):
    _setup(warehouse)
    table = catalog(warehouse).get_table(ID)
    before, files = table.latest_snapshot().id, _files(warehouse)
    with pytest.raises(RuntimeError, match="Update columns contain globally indexed columns"):
        _update_vectors(warehouse, how, [3, 250], _vectors(2, 9))
    assert catalog(warehouse).get_table(ID).latest_snapshot().id == before
    assert _files(warehouse) == files


def test_throw_error_refuses_an_update_of_an_indexed_text_column(warehouse):
    import paimon_rowid as pr
    _setup(warehouse)
    before, files = catalog(warehouse).get_table(ID).latest_snapshot().id, _files(warehouse)
    source = pa.table({"_ROW_ID": pa.array([5], pa.int64()), "body": ["fresh words"]})
    with pytest.raises(RuntimeError, match=r"Conflicted columns: \['body'\]"):
        pr.update_by_row_id(ID, source, {"warehouse": str(warehouse)}, update_cols=["body"])
    assert catalog(warehouse).get_table(ID).latest_snapshot().id == before
    assert _files(warehouse) == files
    # An unindexed column updates freely, and the indexes stay.
    source = pa.table({"_ROW_ID": pa.array([5], pa.int64()), "id": pa.array([-5], pa.int64())})
    pr.update_by_row_id(ID, source, {"warehouse": str(warehouse)}, update_cols=["id"])
    assert len(_live_indexes(warehouse)) == 4


def test_an_unknown_action_is_refused(warehouse):
    import paimon_rowid as pr
    _setup(warehouse, action="REBUILD")
    before, files = catalog(warehouse).get_table(ID).latest_snapshot().id, _files(warehouse)
    source = pa.table({"_ROW_ID": pa.array([5], pa.int64()), "body": ["x"]})
    with pytest.raises(ValueError, match="column-update-action 'REBUILD'"):
        pr.update_by_row_id(ID, source, {"warehouse": str(warehouse)}, update_cols=["body"])
    assert catalog(warehouse).get_table(ID).latest_snapshot().id == before
    assert _files(warehouse) == files


@pytest.mark.parametrize("how", HOWS)
def test_drop_partition_index_drops_the_stale_vector_index(warehouse, how):
    vectors = _setup(warehouse, action="DROP_PARTITION_INDEX")
    new = _vectors(2, 11) * 20  # far from every old vector
    _update_vectors(warehouse, how, [3, 7], new)  # both in partition "a"
    assert _live_indexes(warehouse) == [("body", "full-text", "a"), ("body", "full-text", "b"),
                                        ("emb", "ivf-flat", "b")]
    table = catalog(warehouse).get_table(ID)
    hits = _vsearch(table, new[0], 3)
    assert hits.row_ids[0] == 3
    assert hits.scores[0] == pytest.approx(float(new[0] @ new[0]), rel=1e-5)
    # The old vector of row 3 no longer finds row 3 with its old score.
    old = _vsearch(table, vectors[3], 10)
    assert 3 not in old.row_ids or \
        old.scores[old.row_ids.index(3)] == pytest.approx(float(new[0] @ vectors[3]), rel=1e-5)
    # Partition "a" is rebuilt from the current values.
    assert table.create_global_index("emb", index_type="ivf-flat") == 1
    assert _vsearch(catalog(warehouse).get_table(ID), new[1], 1).row_ids == [7]


def test_drop_partition_index_drops_the_stale_full_text_index(warehouse):
    import paimon_rowid as pr
    _setup(warehouse, action="DROP_PARTITION_INDEX")
    source = pa.table({"_ROW_ID": pa.array([250], pa.int64()), "body": ["zebra quokka"]})
    pr.update_by_row_id(ID, source, {"warehouse": str(warehouse)}, update_cols=["body"])
    assert _live_indexes(warehouse) == [("body", "full-text", "a"), ("emb", "ivf-flat", "a"),
                                        ("emb", "ivf-flat", "b")]
    table = catalog(warehouse).get_table(ID)
    assert _tsearch(table, "quokka").row_ids == [250]
    assert _tsearch(table, "doc250").row_ids == []
    assert _tsearch(table, "doc10").row_ids == [10]  # through the kept index of "a"


@pytest.mark.parametrize("how", HOWS)
def test_ignore_keeps_the_index_but_search_never_returns_stale_values(warehouse, how):
    vectors = _setup(warehouse, action="IGNORE")
    new = _vectors(2, 13) * 20
    _update_vectors(warehouse, how, [3, 250], new)
    assert len(_live_indexes(warehouse)) == 4  # kept, as pypaimon keeps it
    table = catalog(warehouse).get_table(ID)
    current = vectors.copy()
    current[[3, 250]] = new
    for query in (new[0], new[1], vectors[3], vectors[250], _vectors(1, 21)[0]):
        hits = _vsearch(table, query, 10)
        scores = current @ query
        want = sorted(range(len(current)), key=lambda i: (-scores[i], i))[:10]
        assert hits.row_ids == want
        assert hits.scores == pytest.approx([float(scores[i]) for i in want], rel=1e-5)


def test_ignore_full_text_search_sees_the_updated_text(warehouse):
    import paimon_rowid as pr
    _setup(warehouse, action="IGNORE")
    source = pa.table({"_ROW_ID": pa.array([4], pa.int64()), "body": ["zebra quokka"]})
    pr.update_by_row_id(ID, source, {"warehouse": str(warehouse)}, update_cols=["body"])
    assert len(_live_indexes(warehouse)) == 4
    table = catalog(warehouse).get_table(ID)
    assert _tsearch(table, "quokka").row_ids == [4]
    assert _tsearch(table, "doc4").row_ids == []
    assert _tsearch(table, "doc40").row_ids == [40]


def test_compaction_deletes_expiration_and_orphan_cleaning_keep_search_true(warehouse):
    import paimon_rowid as pr
    opts = {"warehouse": str(warehouse)}
    table = create_table(warehouse, "t", SCHEMA, {**DE, "deletion-vectors.enabled": "true"})
    vectors = _vectors(600, 5)
    for lo in range(0, 600, 200):
        write(table, pa.table({"id": np.arange(lo, lo + 200), "emb": _emb(vectors[lo:lo + 200]),
                               "body": [f"doc{i}" for i in range(lo, lo + 200)],
                               "dt": ["a"] * 200}, schema=SCHEMA))
    table = catalog(warehouse).get_table(ID)
    assert table.create_global_index("emb", index_type="ivf-flat") == 1
    for round_ in range(3):  # partial-column files of the unindexed body for the compaction
        pr.update_by_row_id(ID, pa.table({"_ROW_ID": pa.array(np.arange(600), pa.int64()),
                                          "body": [f"v{round_}"] * 600}),
                            opts, update_cols=["body"])
    queries = _vectors(4, 17)

    def exact(live):
        out = []
        for q in queries:
            s = vectors[live] @ q
            out.append([int(live[i]) for i in sorted(range(len(live)),
                                                      key=lambda i: (-s[i], live[i]))[:10]])
        return out

    def searched():
        t = catalog(warehouse).get_table(ID)
        return [_vsearch(t, q, 10).row_ids for q in queries]

    live = np.arange(600)
    assert searched() == exact(live)
    result = pr.compact(ID, opts, full=True)
    assert result["files_removed"] >= 12
    assert searched() == exact(live)
    gone = searched()[0][:3]
    builder = catalog(warehouse).get_table(ID).new_batch_write_builder()
    builder.new_commit().commit(builder.new_update().delete_by_row_id(gone))
    live = np.setdiff1d(live, gone)
    assert searched() == exact(live)
    index_files = sorted((Path(warehouse) / "db.db" / "t" / "index").glob("*global-index*"))
    pr.expire_snapshots(ID, opts, retain_max=1, retain_min=1,
                        older_than_ms=int(time.time() * 1000) + 60_000)
    assert all(p.exists() for p in index_files)  # live index files survive expiration
    orphans = pr.remove_orphan_files(ID, opts, older_than_ms=int(time.time() * 1000) + 60_000)
    assert not [p for p in orphans["paths"] if "global-index" in p]
    assert searched() == exact(live)
    # A dropped index's files go with the snapshots that listed them.
    assert catalog(warehouse).get_table(ID).drop_global_index("emb", index_type="ivf-flat") == 1
    write(catalog(warehouse).get_table(ID), pa.table(
        {"id": [600], "emb": _emb(_vectors(1, 1)), "body": ["x"], "dt": ["a"]}, schema=SCHEMA))
    pr.expire_snapshots(ID, opts, retain_max=1, retain_min=1,
                        older_than_ms=int(time.time() * 1000) + 60_000)
    assert not any(p.exists() for p in index_files)
    vectors = np.concatenate([vectors, _vectors(1, 1)])
    assert searched() == exact(np.append(live, 600))


def _renamed(warehouse):
    from paimon_rowid.schema.schema_change import SchemaChange
    catalog(warehouse).alter_table(ID, [SchemaChange.rename_column("emb", "vec"),
                                        SchemaChange.rename_column("body", "text")], False)
    return catalog(warehouse).get_table(ID)


def test_search_by_a_column_renamed_after_the_snapshot(warehouse):
    """The latest snapshot predates the rename (no commit since): the search pins it and
    keeps the handle's schema, so the new names work."""
    vectors = _setup(warehouse)
    table = _renamed(warehouse)
    pb = table.new_read_builder().new_predicate_builder()
    query = vectors[42] * 3
    for flt in (None, pb.less_than("id", 100)):
        builder = (table.new_vector_search_builder().with_vector_column("vec")
                   .with_query_vector(query).with_limit(3))
        hits = (builder if flt is None else builder.with_filter(flt)).execute_local()
        assert hits.row_ids[0] == 42
    assert hits.to_arrow(table, ["id", "text"]).column("id").to_pylist()[0] == 42
    text = (table.new_full_text_search_builder().with_query("text", "doc77").with_limit(3)
            .with_filter(pb.greater_than("id", 10)).execute_local())
    assert text.row_ids == [77]


@pytest.mark.parametrize("column, index_type", [("vec", "ivf-sq"), ("text", "full-text")])
def test_build_by_a_column_renamed_after_the_snapshot(warehouse, column, index_type):
    table = create_table(warehouse, "t", SCHEMA, DE)
    vectors = _vectors(300, 3)
    write(table, pa.table({"id": np.arange(300), "emb": _emb(vectors),
                           "body": [f"doc{i}" for i in range(300)], "dt": ["a"] * 300},
                          schema=SCHEMA))
    table = _renamed(warehouse)
    assert table.create_global_index(column, index_type=index_type) == 1
    table = catalog(warehouse).get_table(ID)
    if column == "vec":
        hits = (table.new_vector_search_builder().with_vector_column("vec")
                .with_query_vector(vectors[42] * 3).with_limit(3).execute_local())
        assert hits.row_ids[0] == 42
    else:
        hits = (table.new_full_text_search_builder().with_query("text", "doc77").with_limit(3)
                .execute_local())
        assert hits.row_ids == [77]


def test_a_commit_landing_mid_search_does_not_mix_snapshots(warehouse, monkeypatch):
    """A search on the latest snapshot answers for the snapshot it started at: a commit landing
    after it resolved its snapshot and listed its index files, before its filter scan (here:
    the top hit's filter column changed) does not leak into the answer; the next search sees
    the commit."""
    import paimon_rowid as pr
    from paimon_rowid.table import _search_io

    vectors = _setup(warehouse, "DROP_PARTITION_INDEX")
    table = catalog(warehouse).get_table(ID)
    query = vectors[17]  # any query: its top hit is the row the commit changes
    pb = table.new_read_builder().new_predicate_builder()

    def search(handle, bound):  # a new bound each time: no cached filter scan
        flt = pb.less_than("id", bound)
        return (handle.new_vector_search_builder().with_vector_column("emb")
                .with_query_vector(query).with_limit(5).with_filter(flt)
                .with_option("ivf.nprobe", "64").execute_local().row_ids)

    before = search(table, 1000)
    top = before[0]
    started_at = table.latest_snapshot().id
    scanned = _search_io.matching_rows
    commits = []

    def commit_then_scan(*args, **kwargs):
        if not commits:  # the top hit leaves the filter while the search runs
            pr.update_by_row_id(ID, pa.table({"_ROW_ID": pa.array([top], pa.int64()),
                                              "id": pa.array([5000], pa.int64())}),
                                {"warehouse": str(warehouse)}, update_cols=["id"])
            commits.append(1)
        return scanned(*args, **kwargs)

    monkeypatch.setattr(_search_io, "matching_rows", commit_then_scan)
    assert search(table, 999) == before  # answered at the snapshot it started at
    assert commits and catalog(warehouse).get_table(ID).latest_snapshot().id > started_at
    monkeypatch.setattr(_search_io, "matching_rows", scanned)
    after = search(catalog(warehouse).get_table(ID), 998)
    assert top not in after and after[:4] == before[1:]


def test_ignore_full_text_equals_a_fresh_build_and_builds_once_per_snapshot(warehouse, tmp_path,
                                                                          monkeypatch):
    """Under IGNORE the rows are searched through a temporary index kept per snapshot: equal
    (ids and BM25 scores) to an index built from scratch at that snapshot, built once for the
    queries of a snapshot, and rebuilt after the next commit (which the next search sees)."""
    import shutil

    import paimon_rowid as pr
    from paimon_rowid.table import _search_text
    opts = {"warehouse": str(warehouse)}
    table = create_table(warehouse, "t", SCHEMA,
                         {**DE, "global-index.column-update-action": "IGNORE"})
    n = 300
    write(table, pa.table({"id": np.arange(n), "emb": _emb(_vectors(n, 1)),
                           "body": [f"word{i % 7} doc{i} word{i % 5}" for i in range(n)],
                           "dt": ["a"] * n}, schema=SCHEMA))
    table = catalog(warehouse).get_table(ID)
    assert table.create_global_index("body", index_type="full-text") == 1
    pr.update_by_row_id(ID, pa.table({"_ROW_ID": pa.array([4, 9], pa.int64()),
                                      "body": ["word3 zebra", "zebra zebra word1"]}),
                        opts, update_cols=["body"])
    queries = ["word3", "zebra", "word1 word2", "doc19", "word4 doc17"]
    builds = []
    build = _search_text._build_temporary
    monkeypatch.setattr(_search_text, "_build_temporary",
                        lambda *a, **k: builds.append(1) or build(*a, **k))
    table = catalog(warehouse).get_table(ID)
    ours = [_tsearch(table, q, 10) for q in queries]
    again = [_tsearch(catalog(warehouse).get_table(ID), q, 10) for q in queries]
    assert [list(r) for r in again] == [list(r) for r in ours]
    assert len(builds) == 1  # one temporary index for the ten queries of one snapshot

    fresh_wh = tmp_path / "fresh"
    shutil.copytree(warehouse, fresh_wh)
    fresh = catalog(fresh_wh).get_table(ID)
    assert fresh.drop_global_index("body", index_type="full-text") == 1
    assert fresh.create_global_index("body", index_type="full-text") == 1
    trusted = catalog(fresh_wh).get_table(ID).copy(
        {"global-index.column-update-action": "THROW_ERROR"})
    for q, got in zip(queries, ours):
        want = _tsearch(trusted, q, 10)
        assert got.row_ids == want.row_ids and got.row_ids
        assert np.allclose(got.scores, want.scores, rtol=1e-6)
    assert ours[1].row_ids[:2] == [9, 4]

    pr.update_by_row_id(ID, pa.table({"_ROW_ID": pa.array([20], pa.int64()),
                                      "body": ["zebra zebra zebra"]}), opts,
                        update_cols=["body"])
    assert _tsearch(catalog(warehouse).get_table(ID), "zebra", 10).row_ids[0] == 20
    assert len(builds) == 2  # the commit made a new snapshot: a new temporary index
