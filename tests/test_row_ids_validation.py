"""Validations of the row-id jobs against pypaimon's (docs/pypaimon-compat.md §1.2, §2.2,
§9): the exception type, the condition, the message (its key part, pypaimon's wording), and that a
refused call adds no snapshot and no file (every file under the warehouse is listed before
and after).

Every refusal table runs on three paths (the ``path`` parameter):
- ``embedded``: ``paimon_rowid.row_id_jobs`` (no Ray);
- ``ray``: ``paimon_rowid.ray`` with the same pyarrow sources (pypaimon's Ray signatures);
- ``ray-dataset``: ``paimon_rowid.ray`` with each pyarrow source turned into a *lazy*
  ``ray.data.Dataset`` (a map step whose schema is unknown until it runs); only for cases
  whose source is a pyarrow Table.
Where the Ray path legitimately differs the difference is asserted, not skipped (see
``_read_moment``): ``read_by_row_id`` on Ray returns a lazy Dataset, so errors that come from
the ids (null, foreign) and, for lazy sources, a missing id column, surface only when the
Dataset is consumed, wrapped by Ray (§2.2, last note); an empty lazy source has no schema at
all, so there is nothing to check and nothing to do.

Tables are built once per module: ours (our catalog and writer) for the data-evolution
tables, pypaimon's (the oracle) for the tables our catalog refuses to create (data evolution
without row tracking) or cannot write (BLOB columns), and for the
partition drop that leaves a hole in the valid row-id ranges.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import List

import pyarrow as pa
import pytest

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), ("v", pa.int32()),
                    pa.field("nn", pa.int32(), nullable=False), ("s", pa.string()),
                    ("dt", pa.string())])
BLOB_SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), ("v", pa.int32()),
                         ("b", pa.large_binary()), ("ab", pa.list_(pa.large_binary()))])
T = "db.t"  # partitioned by dt; rows 0..9, partition 'y' (ids 3..5) dropped: a hole


def _rows(ids, dts) -> pa.Table:
    return pa.table({"id": ids, "v": [i * 10 for i in ids], "nn": ids,
                     "s": [f"s{i}" for i in ids], "dt": dts}, schema=SCHEMA)


def _write(table, data) -> int:
    builder = table.new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    write.write_arrow(data)
    snapshot = commit.commit(write.prepare_commit())
    write.close()
    return snapshot


def _files(root) -> List[str]:
    root = Path(root)
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


@pytest.fixture(scope="module")
def wh(tmp_path_factory, oracle, native):
    """The module warehouse (see the module docstring)."""
    from paimon_rowid import CatalogFactory, Schema
    path = str(tmp_path_factory.mktemp("rowid-validation"))
    catalog = CatalogFactory.create({"warehouse": path})
    catalog.create_database("db", True)

    def create(name, options, partition_keys=("dt",)):
        catalog.create_table(f"db.{name}", Schema.from_pyarrow_schema(
            SCHEMA, partition_keys=list(partition_keys), options=options), False)
        return catalog.get_table(f"db.{name}")

    table = create("t", DE)
    # Row ids: x -> 0..2, y -> 3..5 (one commit, grouped by partition), z -> 6..9.
    _write(table, _rows([0, 1, 2, 3, 4, 5], ["x", "y"] * 3))
    _write(table, _rows([6, 7, 8, 9], ["z"] * 4))
    create("empty", DE)
    for name, options in [("nde", {"row-tracking.enabled": "true"}), ("plain", {})]:
        _write(create(name, options), _rows([0, 1], ["x", "x"]))
    oracle.run_all([
        {"cmd": "truncate_partitions", "warehouse": path, "identifier": T,
         "partitions": [{"dt": "y"}]},
        oracle.create_table_cmd(path, "db.nrt", SCHEMA, partition_keys=["dt"],
                                options={"data-evolution.enabled": "true"}),
        oracle.write_cmd(path, "db.nrt", _rows([0, 1], ["x", "x"])),
        oracle.create_table_cmd(path, "db.blob", BLOB_SCHEMA, options=DE),
        oracle.write_cmd(path, "db.blob", pa.table(
            {"id": [0, 1], "v": [1, 2], "b": [b"x", b"y"], "ab": [[b"a"], None]},
            schema=BLOB_SCHEMA)),
    ])
    return path


EMBEDDED, RAY, RAY_DATASET = "embedded", "ray", "ray-dataset"


def _paths(source=None):
    """The paths a case runs on: ray-dataset only when the source is a pyarrow Table."""
    return [EMBEDDED, RAY] + ([RAY_DATASET] if isinstance(source, pa.Table) else [])


def _source_for(source, path):
    if path == RAY_DATASET and isinstance(source, pa.Table):
        import ray.data
        # A lambda: pickled by value (the test module is not importable on Ray workers).
        return ray.data.from_arrow(source).map_batches(lambda batch: batch,
                                                       batch_format="pyarrow")
    return source


@pytest.fixture
def path(request):
    """The path parameter; the Ray paths share the session's one local Ray."""
    if request.param != EMBEDDED:
        request.getfixturevalue("ray_session")
    return request.param


def _update(wh, source, cols, target=T, path=EMBEDDED, **kwargs):
    if path == EMBEDDED:
        from paimon_rowid.row_id_jobs import update_by_row_id
    else:
        from paimon_rowid.ray import update_by_row_id
    return update_by_row_id(target, _source_for(source, path), {"warehouse": wh},
                            update_cols=cols, **kwargs)


def _read(wh, source, projection, target=T, path=EMBEDDED, **kwargs):
    """The embedded result, or the Ray Dataset (lazy: not consumed here)."""
    if path == EMBEDDED:
        from paimon_rowid.row_id_jobs import read_by_row_id
    else:
        from paimon_rowid.ray import read_by_row_id
    return read_by_row_id(target, _source_for(source, path), {"warehouse": wh},
                          projection=projection, **kwargs)


def _read_table(wh, source, projection, target=T, path=EMBEDDED, **kwargs) -> pa.Table:
    """read_by_row_id consumed into one pyarrow Table on any path."""
    got = _read(wh, source, projection, target=target, path=path, **kwargs)
    if path == EMBEDDED:
        return got
    import ray
    blocks = [b for b in ray.get(got.to_arrow_refs()) if b.num_columns]
    return pa.concat_tables(blocks)


def _exact(message: str) -> str:
    return "^" + re.escape(message) + "$"


def _refused(wh, call, exc, match):
    """``call()`` raises ``exc`` matching ``match`` and leaves the warehouse untouched."""
    before = _files(wh)
    with pytest.raises(exc, match=match) as info:
        call()
    assert _files(wh) == before, "a refused call added or removed files"
    return info.value


def _src(ids, **cols) -> pa.Table:
    data = {"_ROW_ID": pa.array(ids, pa.int64())}
    data.update(cols)
    return pa.table(data)


RANGES = "['[0, 2]', '[6, 9]']"
# Where valid ids come from (pypaimon blames a "stale planner snapshot" instead: issue 47).
UPD_STALE = READ_STALE = (
    "row ids must name rows of this table at the planned snapshot: take them from its _ROW_ID "
    "column (ids of another table, of rows an overwrite dropped, or past the last row name no "
    "row).")


@pytest.mark.parametrize("path", [EMBEDDED, RAY], indirect=True)
def test_fixture_layout(wh, path):
    """The valid ranges the other tests rely on: [0, 2] and [6, 9] (partition y dropped)."""
    got = _read_table(wh, _src([0, 1, 2, 6, 9]), ["id", "dt"], path=path)
    assert sorted(got.to_pylist(), key=lambda r: r["_ROW_ID"]) == [
        {"id": 0, "dt": "x", "_ROW_ID": 0}, {"id": 2, "dt": "x", "_ROW_ID": 1},
        {"id": 4, "dt": "x", "_ROW_ID": 2}, {"id": 6, "dt": "z", "_ROW_ID": 6},
        {"id": 9, "dt": "z", "_ROW_ID": 9}]


# -- update_by_row_id: refused calls (§1.2) --------------------------------------------------

UPDATE_REFUSALS = {
    # name: (target, source, update_cols, exception, message regex)
    "empty-update-cols": (T, _src([0], v=[1]), [], ValueError,
                          _exact("update_cols must be non-empty.")),
    "de-off": ("db.nde", _src([0], v=[1]), ["v"], ValueError, _exact(
        "update_by_row_id requires 'data-evolution.enabled'='true' on 'db.nde'.")),
    # pypaimon names data evolution only; we name both (issue 47).
    "de-and-rt-off": ("db.plain", _src([0], v=[1]), ["v"], ValueError, _exact(
        "update_by_row_id requires 'data-evolution.enabled'='true' and "
        "'row-tracking.enabled'='true' on 'db.plain' (both are set when the table is "
        "created).")),
    "rt-off": ("db.nrt", _src([0], v=[1]), ["v"], ValueError, _exact(
        "update_by_row_id requires 'row-tracking.enabled'='true' on 'db.nrt'.")),
    "unknown-column": (T, _src([0], v=[1], zz=[1]), ["v", "zz"], ValueError,
                       _exact("update column 'zz' is not in target 'db.t'.")),
    "row-id-as-update-column": (T, _src([0], v=[1]), ["_ROW_ID"], ValueError,
                                _exact("update column '_ROW_ID' is not in target 'db.t'.")),
    "blob-column": ("db.blob", _src([0], b=pa.array([b"z"], pa.large_binary())), ["v", "b"],
                    ValueError, _exact("update_by_row_id cannot update blob column 'b'.")),
    "array-of-blob-column": ("db.blob", _src([0], ab=[[b"z"]]), ["ab"], ValueError,
                             _exact("update_by_row_id cannot update blob column 'ab'.")),
    "partition-column": (T, _src([0], dt=["z"]), ["dt"], ValueError, _exact(
        "update_by_row_id cannot update partition column 'dt'; cross-partition row movement "
        "is not supported.")),
    "str-source": (T, "db.t", ["v"], ValueError, _exact(
        "update_by_row_id does not accept a table-name source; pass a ray.data.Dataset / "
        "pyarrow.Table / pandas.DataFrame carrying the target _ROW_ID.")),
    # A mapping of columns is a source (beyond pypaimon); its ids must be integers.
    "dict-source-float-ids": (T, {"_ROW_ID": [0.5], "v": [1]}, ["v"], TypeError, _exact(
        "row ids must be integers: '_ROW_ID' has 0.5 (float) at position 0")),
    # pypaimon's message lists "a Paimon table identifier string", which it refuses.
    "int-source": (T, 42, ["v"], TypeError,
                   r"^update_by_row_id's source must be a table carrying _ROW_ID and the "
                   r"update columns: a pyarrow\.Table, .*; got int\.$"),
    "list-of-ints-source": (T, [1, 2], ["v"], TypeError,
                            r"^update_by_row_id's source must be .*; got list\.$"),
    "missing-row-id": (T, pa.table({"v": [1]}), ["v"], ValueError, _exact(
        "source is missing columns ['_ROW_ID']; it must carry _ROW_ID and ['v'].")),
    "missing-update-columns": (T, _src([0], v=[1]), ["s", "v", "nn"], ValueError, _exact(
        "source is missing columns ['s', 'nn']; it must carry _ROW_ID and ['s', 'v', 'nn'].")),
    "missing-columns-empty-source": (T, pa.table({"v": pa.array([], pa.int32())}), ["v"],
                                     ValueError, r"source is missing columns \['_ROW_ID'\]"),
    "empty-target": ("db.empty", _src([0], v=[1]), ["v"], ValueError, _exact(
        "target 'db.empty' has no rows; every _ROW_ID in the source is foreign.")),
    "null-row-id": (T, pa.table({"_ROW_ID": pa.array([0, None], pa.int64()), "v": [1, 2]}),
                    ["v"], ValueError,
                    # pypaimon (Ray): pyarrow's "Casting field '_ROW_ID' with null values to
                    # non-nullable"; its worker check says "_ROW_ID is null; ...".
                    r"_ROW_ID' with null values|^_ROW_ID is null"),
    "negative-id": (T, _src([0, -1], v=[1, 2]), ["v"], ValueError,
                    _exact(f"_ROW_ID -1 does not belong to any valid range {RANGES}; "
                           f"{UPD_STALE}")),
    "id-beyond-next-row-id": (T, _src([9, 10], v=[1, 2]), ["v"], ValueError,
                              _exact(f"_ROW_ID 10 does not belong to any valid range "
                                     f"{RANGES}; {UPD_STALE}")),
    "id-in-hole": (T, _src([0, 4], v=[1, 2]), ["v"], ValueError,
                   _exact(f"_ROW_ID 4 does not belong to any valid range {RANGES}; "
                          f"{UPD_STALE}")),
    "duplicate-ids-in-a-group": (T, _src([6, 7, 6], v=[1, 2, 3]), ["v"], ValueError, _exact(
        "MERGE matched multiple source rows to the same target _ROW_ID. Deduplicate the "
        "source before merging.")),
    # Group x is valid and is written first; group z fails: x's file must be deleted too.
    "duplicate-ids-after-a-valid-group": (T, _src([0, 1, 8, 8], v=[1, 2, 3, 4]), ["v"],
                                          ValueError, "Deduplicate the source"),
    "null-into-not-null": (T, _src([0], nn=pa.array([None], pa.int32())), ["nn"], ValueError,
                           _exact("Casting field 'nn' with null values to non-nullable")),
}


# On Ray, an empty *lazy* source has no schema once it ran (Ray drops the schema of empty
# blocks), so its columns cannot be checked: the update does nothing and says so
# ({"num_updated": 0}, no commit). A pyarrow/pandas source keeps its schema and is refused.
UPDATE_NOTHING_TO_CHECK_ON_LAZY = {"missing-columns-empty-source"}


def _cases(table, source_index):
    return [pytest.param(case, path, id=f"{path}-{case}")
            for case, spec in table.items() for path in _paths(spec[source_index])]


@pytest.mark.parametrize("case,path", _cases(UPDATE_REFUSALS, 1), indirect=["path"])
def test_update_refused(wh, case, path):
    target, source, cols, exc, match = UPDATE_REFUSALS[case]
    if path == RAY_DATASET and case in UPDATE_NOTHING_TO_CHECK_ON_LAZY:
        before = _files(wh)
        assert _update(wh, source, cols, target=target, path=path) == {"num_updated": 0}
        assert _files(wh) == before
        return
    _refused(wh, lambda: _update(wh, source, cols, target=target, path=path), exc, match)


@pytest.mark.parametrize("path", _paths(pa.table({})), indirect=True)
def test_update_refused_for_every_thread_count(wh, path):
    """Errors found while writing groups in parallel (threads embedded, apply tasks on Ray)
    still delete every written file."""
    source = _src([0, 1, 2, 6, 7, 7], v=[1] * 6)
    for threads in (1, 2, 4):
        _refused(wh, lambda t=threads: _update(wh, source, ["v"], num_partitions=t, path=path),
                 ValueError, _exact("MERGE matched multiple source rows to the same target "
                                    "_ROW_ID. Deduplicate the source before merging."))


@pytest.mark.parametrize("path", _paths(), indirect=True)
def test_update_checks_run_in_pypaimon_order(wh, path):
    """Empty update_cols before the table is even loaded; table checks before column checks;
    column checks before the source; source columns before the empty-target check."""
    _refused(wh, lambda: _update(wh, "x", [], target="db.missing", path=path), ValueError,
             "update_cols must be non-empty")
    _refused(wh, lambda: _update(wh, "x", ["zz"], target="db.nde", path=path), ValueError,
             "data-evolution.enabled")
    _refused(wh, lambda: _update(wh, "x", ["dt", "zz"], path=path), ValueError,
             "cannot update partition column 'dt'")
    _refused(wh, lambda: _update(wh, "x", ["v"], path=path), ValueError, "table-name source")
    _refused(wh, lambda: _update(wh, pa.table({"x": [1]}), ["v"], target="db.empty",
                                 path=path),
             ValueError, "source is missing columns")


CAST_FAILURES = {
    # name: (source, column, the exception class pypaimon raises (pyarrow's safe cast))
    "int64-overflows-int32": (_src([0], v=[2 ** 40]), "v", pa.ArrowInvalid),
    "unparsable-string": (_src([0], v=["abc"]), "v", pa.ArrowInvalid),
    "list-into-int": (_src([0], v=[[1]]), "v", pa.ArrowNotImplementedError),
}


@pytest.mark.parametrize("case,path", _cases(CAST_FAILURES, 0), indirect=["path"])
def test_update_uncastable_value_refused(wh, case, path):
    source, column, _ = CAST_FAILURES[case]
    _refused(wh, lambda: _update(wh, source, [column], path=path),
             (TypeError, ValueError, NotImplementedError), column)


@pytest.mark.parametrize("case,path", _cases(CAST_FAILURES, 0), indirect=["path"])
def test_update_uncastable_value_exception_class(wh, case, path):
    source, column, pypaimon_class = CAST_FAILURES[case]
    base = ValueError if issubclass(pypaimon_class, ValueError) else NotImplementedError
    _refused(wh, lambda: _update(wh, source, [column], path=path), base, None)


def test_ray_dataset_refused_without_running_it(wh):
    """The embedded jobs do not take a Ray Dataset (paimon_rowid.ray does); they say so at
    once instead of iterating (executing) it and failing on its rows."""
    ray_data = pytest.importorskip("ray.data")
    dataset = ray_data.Dataset.__new__(ray_data.Dataset)  # never executed: no Ray needed
    dataset._current_executor = None  # what Dataset.__del__ looks at
    _refused(wh, lambda: _update(wh, dataset, ["v"]), TypeError,
             r"paimon_rowid\.ray\.update_by_row_id")
    _refused(wh, lambda: _read(wh, dataset, ["v"]), TypeError,
             r"paimon_rowid\.ray\.read_by_row_id")


@pytest.mark.parametrize("path", _paths(), indirect=True)
def test_pandas_source_columns_checked_at_call(wh, path):
    """A pandas source's columns are known without running anything, even with no rows: a
    missing column is refused by the call itself on every path."""
    pd = pytest.importorskip("pandas")
    empty_v = pd.DataFrame({"v": pd.Series([], dtype="int32")})
    _refused(wh, lambda: _update(wh, pd.DataFrame({"v": [1]}), ["v"], path=path), ValueError,
             _exact("source is missing columns ['_ROW_ID']; it must carry _ROW_ID and ['v']."))
    _refused(wh, lambda: _update(wh, empty_v, ["v"], path=path), ValueError,
             _exact("source is missing columns ['_ROW_ID']; it must carry _ROW_ID and ['v']."))
    _refused(wh, lambda: _read(wh, empty_v, ["v"], path=path), ValueError,
             _exact("row_ids source is missing the '_ROW_ID' column."))
    _refused(wh, lambda: _read(wh, pd.DataFrame({"_ROW_ID": [0]}), ["v"], row_id_col="rid",
                               path=path), ValueError,
             _exact("row_ids source is missing the 'rid' column."))


@pytest.mark.parametrize("operation", ["update", "read"])
def test_ray_older_than_2_50_refused(wh, ray_session, monkeypatch, operation):
    """§1.2 row 1 / §2.2 row 1, Ray path only (the embedded jobs do not use Ray): the first
    check, before update_cols / projection and before the table is loaded."""
    monkeypatch.setattr(ray_session, "__version__", "2.49.2")
    message = _exact("this Ray operation requires ray>=2.50; installed ray is 2.49.2.")
    if operation == "update":
        _refused(wh, lambda: _update(wh, _src([0], v=[1]), [], target="db.missing", path=RAY),
                 RuntimeError, message)
    else:
        _refused(wh, lambda: _read(wh, _src([0]), [], target="db.missing", path=RAY),
                 RuntimeError, message)


# -- update_by_row_id: accepted inputs -------------------------------------------------------

@pytest.fixture
def fresh(warehouse, native):
    """A small unpartitioned DE table in its own warehouse: ids 0..4, then 5..7."""
    from paimon_rowid import CatalogFactory, Schema
    catalog = CatalogFactory.create({"warehouse": warehouse})
    catalog.create_database("db", True)
    catalog.create_table("db.f", Schema.from_pyarrow_schema(SCHEMA, options=DE), False)
    table = catalog.get_table("db.f")
    _write(table, _rows([0, 1, 2, 3, 4], ["x"] * 5))
    _write(table, _rows([5, 6, 7], ["x"] * 3))
    return warehouse


def _all(wh, target="db.f"):
    got = _read(wh, _src(list(range(8))), ["v", "nn", "s"], target=target)
    return {r["_ROW_ID"]: (r["v"], r["nn"], r["s"]) for r in got.to_pylist()}


def _snapshots(wh, target="db.f"):
    from paimon_rowid import CatalogFactory
    snap = CatalogFactory.create({"warehouse": wh}).get_table(target).latest_snapshot()
    return None if snap is None else snap["id"]


def test_update_dedupes_columns_keeping_order(fresh, oracle):
    result = _update(fresh, _src([1], s=["new"], v=[5]), ["s", "v", "s", "v"], target="db.f")
    assert result == {"num_updated": 1}
    entries = oracle.run({"cmd": "entries", "warehouse": fresh, "identifier": "db.f",
                          "delta": True})
    assert [e["write_cols"] for e in entries] == [["s", "v"]]
    assert _all(fresh)[1] == (5, 1, "new")


def test_update_extra_source_columns_ignored_and_values_cast(fresh):
    # _ROW_ID as int32, v as int64 and as a string: all safely castable. Extra columns
    # (even one named like a table column that is not updated) are ignored.
    source = pa.table({"zz": ["ignored"], "nn": [999], "v": ["42"],
                       "_ROW_ID": pa.array([6], pa.int32())})
    assert _update(fresh, source, ["v"], target="db.f") == {"num_updated": 1}
    assert _all(fresh)[6] == (42, 6, "s6")


def test_update_pandas_and_other_arrow_sources(fresh):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"_ROW_ID": [0, 7], "v": [-1, -7], "extra": ["a", "b"]})
    assert _update(fresh, frame, ["v"], target="db.f") == {"num_updated": 2}
    batch = _src([2], v=pa.array([-2], pa.int32())).to_batches()[0]
    assert _update(fresh, batch, ["v"], target="db.f") == {"num_updated": 1}
    reader = _src([3], nn=pa.array([33], pa.int32())).to_reader()
    assert _update(fresh, reader, ["nn"], target="db.f") == {"num_updated": 1}
    got = _all(fresh)
    assert got[0][0] == -1 and got[7][0] == -7 and got[2][0] == -2 and got[3][1] == 33
    assert _snapshots(fresh) == 5  # two writes, three updates: one snapshot each


@pytest.mark.parametrize("path", _paths(pa.table({})), indirect=True)
def test_update_empty_source_makes_no_commit(fresh, path):
    before = _files(fresh)
    empty = _src([], v=pa.array([], pa.int32()))
    assert _update(fresh, empty, ["v"], target="db.f", path=path) == {"num_updated": 0}
    assert _files(fresh) == before
    # Empty target and empty source: also nothing.
    from paimon_rowid import CatalogFactory, Schema
    catalog = CatalogFactory.create({"warehouse": fresh})
    catalog.create_table("db.e", Schema.from_pyarrow_schema(SCHEMA, options=DE), False)
    before = _files(fresh)
    assert _update(fresh, empty, ["v"], target="db.e", path=path) == {"num_updated": 0}
    assert _update(fresh, empty.to_pandas(), ["v"], target="db.e",
                   path=path) == {"num_updated": 0}
    assert _files(fresh) == before and _snapshots(fresh, "db.e") is None


def test_update_counts_rows_even_when_unchanged(fresh):
    assert _update(fresh, _src([0, 1], v=[0, 10]), ["v"], target="db.f") == {"num_updated": 2}
    assert _snapshots(fresh) == 3


def test_update_nullable_column_accepts_null(fresh):
    assert _update(fresh, _src([4], v=pa.array([None], pa.int32()), s=[None]), ["v", "s"],
                   target="db.f") == {"num_updated": 1}
    assert _all(fresh)[4] == (None, 4, None)


# -- read_by_row_id: refused calls (§2.2) ----------------------------------------------------

TT_KEYS = ["scan.snapshot-id", "scan.tag-name", "scan.watermark", "scan.timestamp",
           "scan.timestamp-millis"]

READ_REFUSALS = {
    # name: (target, source, projection, kwargs, exception, message regex)
    "empty-projection": (T, _src([0]), [], {}, ValueError,
                         _exact("projection must be non-empty.")),
    "de-off": ("db.nde", _src([0]), ["v"], {}, ValueError, _exact(
        "read_by_row_id requires 'data-evolution.enabled'='true' on 'db.nde'.")),
    "rt-off": ("db.nrt", _src([0]), ["v"], {}, ValueError, _exact(
        "read_by_row_id requires 'row-tracking.enabled'='true' on 'db.nrt'.")),
    "invariant-override": (T, _src([0]), ["v"], {"dynamic_options": {
        "row-tracking.enabled": "true", "deletion-vectors.enabled": "false",
        "read.batch-size": "8"}}, ValueError, _exact(
        "dynamic_options cannot override table invariants "
        "['deletion-vectors.enabled', 'row-tracking.enabled'].")),
    "invariant-override-de": (T, _src([0]), ["v"],
                              {"dynamic_options": {"data-evolution.enabled": "true"}},
                              ValueError, r"invariants \['data-evolution\.enabled'\]"),
    "two-time-travel-keys": (T, _src([0]), ["v"], {"dynamic_options": {
        "scan.snapshot-id": "1", "scan.tag-name": "x"}}, ValueError, _exact(
        f"dynamic_options may set at most one time-travel key {TT_KEYS}.")),
    "two-time-travel-keys-timestamps": (T, _src([0]), ["v"], {"dynamic_options": {
        "scan.timestamp-millis": "1", "scan.watermark": "1"}}, ValueError,
        "at most one time-travel key"),
    "unknown-projection-column": (T, _src([0]), ["v", "zz"], {}, ValueError,
                                  _exact("projection column 'zz' is not in target 'db.t'.")),
    "sequence-number-projection": (T, _src([0]), ["_SEQUENCE_NUMBER"], {}, ValueError, _exact(
        "projection column '_SEQUENCE_NUMBER' is not in target 'db.t'.")),
    "nested-projection": (T, _src([0]), ["s.x"], {}, ValueError,
                          _exact("projection column 's.x' is not in target 'db.t'.")),
    "str-source": (T, "db.t", ["v"], {}, ValueError, _exact(
        "read_by_row_id does not accept a table-name source; pass a ray.data.Dataset / "
        "pyarrow.Table / pandas.DataFrame carrying the target row ids.")),
    "int-source": (T, 7, ["v"], {}, TypeError,
                   r"^read_by_row_id's source must be a list / tuple / pyarrow Array / numpy "
                   r"array of integer row ids, or a table carrying them: .*; got int\.$"),
    "set-source": (T, {0, 1}, ["v"], {}, TypeError, r"^read_by_row_id's source .*; got set\.$"),
    "missing-row-id-col": (T, pa.table({"row_id": [0]}), ["v"], {}, ValueError,
                           _exact("row_ids source is missing the '_ROW_ID' column.")),
    "missing-custom-row-id-col": (T, _src([0]), ["v"], {"row_id_col": "row_id"}, ValueError,
                                  _exact("row_ids source is missing the 'row_id' column.")),
    "missing-row-id-col-empty-source": (T, pa.table({"x": pa.array([], pa.int64())}), ["v"],
                                        {}, ValueError, "missing the '_ROW_ID' column"),
    "unknown-tag": (T, _src([0]), ["v"], {"dynamic_options": {"scan.tag-name": "nope"}},
                    ValueError, "Tag 'nope' doesn't exist"),
    "unknown-snapshot": (T, _src([0]), ["v"], {"dynamic_options": {"scan.snapshot-id": "99"}},
                         ValueError, "Snapshot id '99' doesn't exist"),
    "bucket-change": (T, _src([0]), ["v"], {"dynamic_options": {"bucket": "4"}}, ValueError,
                      "Cannot change bucket number"),
    "empty-target": ("db.empty", _src([0]), ["v"], {}, ValueError, _exact(
        "target 'db.empty' has no rows; every _ROW_ID in the source is foreign.")),
    "null-id": (T, _src([0, None]), ["v"], {}, ValueError,
                _exact(f"_ROW_ID is null; {READ_STALE}")),
    "negative-id": (T, _src([-5]), ["v"], {}, ValueError,
                    _exact(f"_ROW_ID -5 does not belong to any valid range {RANGES}; "
                           f"{READ_STALE}")),
    "id-beyond-next-row-id": (T, _src([1, 10]), ["v"], {}, ValueError, _exact(
        f"_ROW_ID 10 does not belong to any valid range {RANGES}; {READ_STALE}")),
    "id-in-hole": (T, _src([3]), ["v"], {}, ValueError, _exact(
        f"_ROW_ID 3 does not belong to any valid range {RANGES}; {READ_STALE}")),
    "id-in-hole-custom-col": (T, pa.table({"row_id": pa.array([5], pa.int32())}), ["v"],
                              {"row_id_col": "row_id"}, ValueError, "_ROW_ID 5 does not belong"),
}


# Checks that need the ids themselves: on Ray they run in a worker when the lazy result is
# consumed (pypaimon's too, §2.2: "Worker errors surface only when the Dataset is consumed").
READ_WORKER_REFUSALS = {"null-id", "negative-id", "id-beyond-next-row-id", "id-in-hole",
                        "id-in-hole-custom-col"}
# The id column check: at call time when the source's schema is known without running it
# (a pyarrow Table / pandas DataFrame, even an empty one), else in a worker at consumption.
# An empty lazy source yields no batch, so there is nothing to check: an empty result.
READ_SOURCE_SCHEMA_REFUSALS = {"missing-row-id-col", "missing-custom-row-id-col",
                               "missing-row-id-col-empty-source"}


def _read_moment(case, path) -> str:
    """When a refused read fails on ``path``: "call", "consume", or "never" (empty result)."""
    source = READ_REFUSALS[case][1]
    if path == EMBEDDED:
        return "call"
    if case in READ_WORKER_REFUSALS:
        return "consume"
    if path == RAY_DATASET and case in READ_SOURCE_SCHEMA_REFUSALS:
        return "consume" if source.num_rows else "never"
    return "call"


def _refused_when_consumed(wh, dataset, exc, match):
    """Consuming the lazy Ray result raises Ray's wrapper of the worker's ``exc``; its text
    carries the worker's exception class and message. Nothing is written."""
    import ray
    import ray.data
    assert isinstance(dataset, ray.data.Dataset)
    message = match.removeprefix("^").removesuffix("$")
    before = _files(wh)
    with pytest.raises(ray.exceptions.RayTaskError) as info:
        dataset.take_all()
    assert re.search(re.escape(f"{exc.__name__}: ") + message, str(info.value)), info.value
    assert _files(wh) == before, "a refused read added or removed files"


@pytest.mark.parametrize("case,path", _cases(READ_REFUSALS, 1), indirect=["path"])
def test_read_refused(wh, case, path):
    target, source, projection, kwargs, exc, match = READ_REFUSALS[case]
    moment = _read_moment(case, path)
    if moment == "call":
        _refused(wh, lambda: _read(wh, source, projection, target=target, path=path,
                                   **kwargs), exc, match)
        return
    before = _files(wh)
    dataset = _read(wh, source, projection, target=target, path=path, **kwargs)  # no error
    assert _files(wh) == before
    if moment == "consume":
        _refused_when_consumed(wh, dataset, exc, match)
    else:
        assert dataset.take_all() == [] and _files(wh) == before


# -- read_by_row_id: results (§2.5) ----------------------------------------------------------

def _by_id(table: pa.Table):
    return sorted(table.to_pylist(), key=lambda r: r["_ROW_ID"])


def test_read_set_semantics_and_column_order(wh):
    got = _read(wh, _src([7, 0, 7, 0, 1, 7]), ["s", "v", "s"])
    assert got.column_names == ["s", "v", "_ROW_ID"]
    assert got.num_rows == 3
    assert _by_id(got) == [{"s": "s0", "v": 0, "_ROW_ID": 0}, {"s": "s2", "v": 20, "_ROW_ID": 1},
                           {"s": "s7", "v": 70, "_ROW_ID": 7}]
    # Within a group, ascending _ROW_ID; groups never interleave.
    ids = got.column("_ROW_ID").to_pylist()
    assert ids[ids.index(0):ids.index(0) + 2] == [0, 1]


def test_read_row_id_in_projection_keeps_its_position(wh):
    got = _read(wh, _src([6]), ["v", "_ROW_ID", "id"])
    assert got.column_names == ["v", "_ROW_ID", "id"]
    assert got.to_pylist() == [{"v": 60, "_ROW_ID": 6, "id": 6}]


def test_read_typed_empty_results(wh):
    full = _read(wh, _src([0]), ["id", "v", "nn", "s", "dt"])
    assert full.schema.field("_ROW_ID").nullable is False
    for source in (_src([]), pa.table({"_ROW_ID": pa.array([], pa.int32()), "x": []})):
        empty = _read(wh, source, ["id", "v", "nn", "s", "dt"])
        assert empty.num_rows == 0 and empty.schema == full.schema
    # Empty target + empty source: typed empty too (and the schema matches).
    empty = _read(wh, _src([]), ["id", "v", "nn", "s", "dt"], target="db.empty")
    assert empty.num_rows == 0 and empty.schema == full.schema


def test_read_sources_and_row_id_col(wh):
    pd = pytest.importorskip("pandas")
    # A bucket_join-style locator: ids in "row_id", other columns ignored, any int type.
    frame = pd.DataFrame({"key": ["a", "b"], "row_id": [9, 2]})
    got = _read(wh, frame, ["id"], row_id_col="row_id")
    assert _by_id(got) == [{"id": 4, "_ROW_ID": 2}, {"id": 9, "_ROW_ID": 9}]
    got = _read(wh, pa.table({"row_id": pa.array([8], pa.uint8())}).to_reader(), ["id"],
                row_id_col="row_id")
    assert got.to_pylist() == [{"id": 8, "_ROW_ID": 8}]
    # An explicit None row_id_col means the default.
    got = _read(wh, _src([6]).to_batches()[0], ["id"], row_id_col=None)
    assert got.to_pylist() == [{"id": 6, "_ROW_ID": 6}]


def test_read_dynamic_options_allowed(wh):
    got = _read(wh, _src([0, 6]), ["v"], dynamic_options={"read.batch-size": "1",
                                                         "scan.snapshot-id": None})
    assert _by_id(got) == [{"v": 0, "_ROW_ID": 0}, {"v": 60, "_ROW_ID": 6}]


@pytest.fixture(scope="module")
def tt(tmp_path_factory, oracle, native):
    """Time travel: snapshot 1 = ids 0..3 (tag t1), 2 = update v of ids 0 and 3 (tag t2),
    3 = ids 4..5 appended, 4 = v of id 0 updated again."""
    from paimon_rowid import CatalogFactory, Schema
    path = str(tmp_path_factory.mktemp("rowid-time-travel"))
    catalog = CatalogFactory.create({"warehouse": path})
    catalog.create_database("db", True)
    catalog.create_table("db.tt", Schema.from_pyarrow_schema(SCHEMA, options=DE), False)
    table = catalog.get_table("db.tt")
    _write(table, _rows([0, 1, 2, 3], ["x"] * 4))
    _update(path, _src([0, 3], v=[100, 300]), ["v"], target="db.tt")
    _write(table, _rows([4, 5], ["x"] * 2))
    _update(path, _src([0], v=[1000]), ["v"], target="db.tt")
    oracle.run_all([oracle.tag_cmd(path, "db.tt", "t1", 1),
                    oracle.tag_cmd(path, "db.tt", "t2", 2)])
    return path


@pytest.mark.parametrize("options,expected", [
    ({}, {0: 1000, 3: 300, 5: 50}),
    ({"scan.snapshot-id": "1"}, {0: 0, 3: 30}),
    ({"scan.tag-name": "t1"}, {0: 0, 3: 30}),
    ({"scan.snapshot-id": "2"}, {0: 100, 3: 300}),
    ({"scan.tag-name": "t2"}, {0: 100, 3: 300}),
    ({"scan.snapshot-id": "3"}, {0: 100, 3: 300, 5: 50}),
])
@pytest.mark.parametrize("path", _paths(), indirect=True)
def test_read_time_travel(tt, options, expected, path):
    got = _read_table(tt, _src(sorted(expected)), ["v"], target="db.tt",
                      dynamic_options=options, path=path)
    assert {r["_ROW_ID"]: r["v"] for r in got.to_pylist()} == expected


@pytest.mark.parametrize("options", [{"scan.snapshot-id": "1"}, {"scan.tag-name": "t2"}])
@pytest.mark.parametrize("path", _paths(), indirect=True)
def test_read_time_travel_rejects_later_ids(tt, options, path):
    """Routing uses the travelled snapshot: ids added later are foreign (on Ray, when the
    lazy result is consumed)."""
    match = _exact(f"_ROW_ID 4 does not belong to any valid range ['[0, 3]']; {READ_STALE}")
    if path == EMBEDDED:
        _refused(tt, lambda: _read(tt, _src([0, 4]), ["v"], target="db.tt",
                                   dynamic_options=options), ValueError, match)
    else:
        dataset = _read(tt, _src([0, 4]), ["v"], target="db.tt", dynamic_options=options,
                        path=path)
        _refused_when_consumed(tt, dataset, ValueError, match)
