"""backfill(...) embedded (paimon_rowid.backfill): one call computes a derived column, resumes
per key without reading finished ranges, picks up appended rows, recomputes on a new version,
reports progress, and refuses bad arguments before anything is committed (beyond pypaimon,
which has no such call). The Ray path and the seed comparison: test_ray_backfill.py."""
from __future__ import annotations

import io
import os
import re
import shutil

import numpy as np
import pyarrow as pa
import pytest

pytestmark = pytest.mark.native

DIM = 4
GROUP = 200          # rows per commit of the table = rows per file group
GROUPS = 5
EMB = pa.list_(pa.float32(), DIM)
DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}


def _images(start, n):
    rng = np.random.default_rng(start)
    return [rng.bytes(2048) for _ in range(n)]


def _append(opts, start, n, target="db.images"):
    from paimon_rowid import CatalogFactory
    t = CatalogFactory.create(opts).get_table(target)
    wb = t.new_batch_write_builder()
    w, c = wb.new_write(), wb.new_commit()
    w.write_arrow(pa.table({"id": pa.array(range(start, start + n), pa.int64()),
                            "image": pa.array(_images(start, n), pa.large_binary()),
                            "embedding": pa.nulls(n, EMB)}))
    c.commit(w.prepare_commit())


def make_images(warehouse, groups=GROUPS, rows=GROUP):
    """db.images (id, image BLOB, embedding VECTOR) written in ``groups`` commits."""
    from paimon_rowid import CatalogFactory, Schema
    opts = {"warehouse": warehouse}
    c = CatalogFactory.create(opts)
    c.create_database("db", True)
    c.create_table("db.images", Schema.from_pyarrow_schema(
        pa.schema([("id", pa.int64()), ("image", pa.large_binary()), ("embedding", EMB)]),
        options=DE), False)
    for g in range(groups):
        _append(opts, g * rows, rows)
    return opts


def embed(batch: pa.Table) -> pa.Array:
    """Stand-in model: the first bytes of each image as float32[4]."""
    heads = [list(img[:DIM]) for img in batch["image"].to_pylist()]
    return pa.array(np.asarray(heads, dtype=np.float32).tolist(), EMB)


def read_all(opts, cols=("id", "embedding", "_ROW_ID")):
    from paimon_rowid import CatalogFactory
    t = CatalogFactory.create(opts).get_table("db.images")
    rb = t.new_read_builder().with_projection(list(cols))
    return rb.new_read().to_arrow(rb.new_scan().plan().splits()).sort_by("_ROW_ID")


def latest_id(opts):
    from paimon_rowid import CatalogFactory
    return CatalogFactory.create(opts).get_table("db.images").latest_snapshot().id


def table_files(opts):
    root = os.path.join(opts["warehouse"], "db.db", "images")
    return sorted(os.path.relpath(os.path.join(d, f), root)
                  for d, _, fs in os.walk(root) for f in fs)


def blob_files(opts, lo, hi):
    """The .blob files holding row ids lo..hi (from the plan: metadata only)."""
    from paimon_rowid import CatalogFactory, Range
    t = CatalogFactory.create(opts).get_table("db.images")
    splits = t.new_read_builder().new_scan().with_row_ranges([Range(lo, hi)]).plan().splits()
    return sorted({p for s in splits for p in s.file_paths if p.endswith(".blob")})


def test_backfill_in_one_call(warehouse):
    from paimon_rowid import backfill, backfill_status
    opts = make_images(warehouse)
    result = backfill("db.images", opts, column="embedding", fn=embed, input_columns=["image"],
                      rows_per_commit=2 * GROUP, batch_size=64, progress=False)
    assert (result.rows_computed, result.commits, result.ranges_skipped) == (1000, 3, 0)
    assert result.snapshot_ids == [GROUPS + 1, GROUPS + 2, GROUPS + 3]
    assert result.key == "embedding" and result.bytes_read > 0
    got = read_all(opts, ("image", "embedding", "_ROW_ID"))
    assert got["embedding"].to_pylist() == embed(got).to_pylist()
    status = backfill_status("db.images", opts, "embedding")
    assert status.pending == [] and status.rows_done == 1000
    assert [r.snapshot_id for r in status.done] == [6, 6, 7, 7, 8]
    assert all(r.committed_millis for r in status.done)
    again = backfill("db.images", opts, column="embedding", fn=embed, input_columns=["image"],
                     progress=False)
    assert (again.rows_computed, again.commits, again.rows_skipped, again.ranges_skipped,
            again.bytes_read) == (0, 0, 1000, 5, 0)
    assert latest_id(opts) == 8


def test_killed_in_batch_3_of_5_resumes_without_reading_finished_batches(tmp_path):
    from paimon_rowid import BackfillError, Range, backfill, backfill_status
    opts = make_images(str(tmp_path / "a"))
    reference = make_images(str(tmp_path / "b"))
    backfill("db.images", reference, column="embedding", fn=embed, input_columns=["image"],
             rows_per_commit=GROUP, progress=False)

    def dies_in_batch_3(batch):
        if batch["_ROW_ID"].to_pylist()[-1] >= 2 * GROUP:
            raise KeyError("model crashed")
        return embed(batch)

    with pytest.raises(BackfillError, match=r"batch 3 of 5, row ids 400\.\.599: "
                       r"KeyError: 'model crashed'\. 2 batch commit\(s\)") as info:
        backfill("db.images", opts, column="embedding", fn=dies_in_batch_3,
                 input_columns=["image"], rows_per_commit=GROUP, batch_size=50, progress=False)
    assert isinstance(info.value.__cause__, KeyError)
    assert info.value.ranges == [Range(400, 599)]
    assert info.value.result.commits == 2 and latest_id(opts) == GROUPS + 2
    status = backfill_status("db.images", opts, "embedding")
    assert status.pending == [Range(400, 599), Range(600, 799), Range(800, 999)]

    # Batches 1-2 must not be read at all: take their .blob files away for the rerun.
    finished, rest = blob_files(opts, 0, 399), blob_files(opts, 400, 999)
    assert finished and rest and not set(finished) & set(rest)
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    for path in finished:
        shutil.move(path, hidden / os.path.basename(path))
    rerun = backfill("db.images", opts, column="embedding", fn=embed, input_columns=["image"],
                     rows_per_commit=GROUP, progress=False)
    for path in finished:
        shutil.move(hidden / os.path.basename(path), path)
    assert (rerun.rows_computed, rerun.ranges_skipped, rerun.rows_skipped, rerun.commits) == (
        600, 2, 400, 3)
    rest_bytes = sum(os.path.getsize(p) for p in rest)
    # rchar of this process: the payloads of batches 3-5 and metadata, not those of 1-2.
    assert 600 * 2048 <= rerun.bytes_read < rest_bytes + sum(os.path.getsize(p)
                                                              for p in finished)
    assert read_all(opts).equals(read_all(reference))


def test_rows_appended_later_are_computed_by_the_next_run(warehouse):
    from paimon_rowid import backfill
    opts = make_images(warehouse, groups=2)
    backfill("db.images", opts, column="embedding", fn=embed, input_columns=["image"],
             progress=False)
    _append(opts, 400, 1000)
    seen = []

    def counting(batch):
        seen.extend(batch["_ROW_ID"].to_pylist())
        return embed(batch)

    result = backfill("db.images", opts, column="embedding", fn=counting,
                      input_columns=["image"], progress=False)
    assert sorted(seen) == list(range(400, 1400))
    assert (result.rows_computed, result.ranges_skipped, result.rows_skipped) == (1000, 2, 400)
    assert read_all(opts)["embedding"].null_count == 0


def test_a_new_version_recomputes_every_row(warehouse):
    from paimon_rowid import backfill, backfill_status
    opts = make_images(warehouse, groups=2)
    backfill("db.images", opts, column="embedding", fn=embed, input_columns=["image"],
             version="v1", progress=False)

    def v2(batch):
        return pa.array([[2.0] * DIM] * batch.num_rows, EMB)

    result = backfill("db.images", opts, column="embedding", fn=v2, input_columns=["image"],
                      version="v2", progress=False)
    assert result.key == "embedding@v2"
    assert (result.rows_computed, result.rows_skipped) == (400, 0)
    assert set(map(tuple, read_all(opts)["embedding"].to_pylist())) == {(2.0,) * DIM}
    assert backfill_status("db.images", opts, "embedding@v2").rows_done == 400
    # the old key's progress is still recorded, but no longer decides anything
    assert backfill_status("db.images", opts, "embedding@v1").rows_done == 400
    assert backfill("db.images", opts, column="embedding", fn=v2, input_columns=["image"],
                    version="v2", progress=False).rows_computed == 0


def test_where_only_null_false_and_threads(warehouse):
    from paimon_rowid import CatalogFactory, backfill
    opts = make_images(warehouse, groups=2)
    pb = CatalogFactory.create(opts).get_table("db.images").new_read_builder() \
        .new_predicate_builder()
    built = []

    class Model:
        def __init__(self):
            built.append(1)

        def __call__(self, batch):
            return pa.table({"v": [[float(i) for i in range(DIM)]] * batch.num_rows})

    result = backfill("db.images", opts, column="embedding", fn=Model, input_columns=["id"],
                      where=pb.less_than("id", 100), only_null=False, key="first-100",
                      concurrency=2, batch_size=10, progress=False)
    assert result.rows_computed == 100 and 1 <= len(built) <= 2
    assert read_all(opts)["embedding"].null_count == 300


def test_progress_lines_bar_and_callback(warehouse, capsys):
    from paimon_rowid import backfill
    opts = make_images(warehouse)
    out, seen = io.StringIO(), []
    result = backfill("db.images", opts, column="embedding", fn=embed, input_columns=["image"],
                      rows_per_commit=2 * GROUP, batch_size=100, progress=out,
                      on_progress=seen.append)
    lines = out.getvalue().splitlines()
    # not a terminal: plain lines (the start, each commit but the last, the end; and every
    # 5 s, which this run is too short for)
    assert len(lines) == 4
    # tqdm's format (python/paimon_rowid/_internal/_progress.py), backfill's figures after it
    assert re.match(r"backfill: 100% 1000/1000 \[[\d:]+<00:00, [\d.]+rows/s, 1,000 computed, "
                    r"batch 3/3, 3 commit\(s\)\]$", lines[-1]), lines[-1]
    assert lines[0].startswith("backfill:   0% 0/1000 [") and "batch 1/3, 0 commit(s)" in lines[0]
    assert " 40% 400/1000 [" in lines[1] and "1 commit(s)" in lines[1]
    assert " 80% 800/1000 [" in lines[2] and "2 commit(s)" in lines[2]
    last = seen[-1]
    assert last.finished and (last.rows_done, last.rows_total, last.rows_computed,
                              last.commits, last.batches) == (1000, 1000, 1000, 3, 3)
    assert [p.rows_done for p in seen] == sorted(p.rows_done for p in seen)
    assert last.commits == result.commits and last.rows_per_s > 0
    assert seen[0].eta_s is None and all(p.rows_done == 100 * (i) for i, p in enumerate(
        [q for q in seen if not q.finished][:5]))

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    bar = Terminal()
    backfill("db.images", opts, column="embedding", fn=embed, input_columns=["image"],
             version="v2", rows_per_commit=2 * GROUP, progress=bar)
    text = bar.getvalue()
    assert text.startswith("\rbackfill:") and text.endswith("\n")  # tqdm's bar, redrawn
    assert re.search(r"100%\|#+\| 1000/1000 \[.*3 commit\(s\)\]", text.splitlines()[-1])
    backfill("db.images", opts, column="embedding", fn=embed, input_columns=["image"],
             version="v3", progress=False)
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


def _not_null_table(warehouse):
    from paimon_rowid import CatalogFactory, Schema
    c = CatalogFactory.create({"warehouse": warehouse})
    c.create_table("db.strict", Schema.from_pyarrow_schema(
        pa.schema([pa.field("id", pa.int64()), pa.field("v", pa.float64(), nullable=False)]),
        options=DE), False)
    c.create_table("db.plain", Schema.from_pyarrow_schema(
        pa.schema([("id", pa.int64()), ("v", pa.float64())])), False)


BAD_ARGUMENTS = [
    (dict(column="nope"), ValueError, "not in target"),
    (dict(column="image"), ValueError, "[Bb]lob"),
    (dict(input_columns=[]), ValueError, "input_columns"),
    (dict(input_columns="image"), ValueError, "input_columns"),
    (dict(input_columns=["nope"]), ValueError, "input_columns"),
    (dict(fn=42), TypeError, "fn must be"),
    (dict(rows_per_commit=0), ValueError, "rows_per_commit"),
    (dict(batch_size=True), ValueError, "batch_size"),
    (dict(key=""), ValueError, "key"),
    (dict(version=""), ValueError, "version"),
    (dict(where="id < 3"), TypeError, "where must be a Predicate"),
    (dict(only_null="yes"), TypeError, "only_null"),
    (dict(concurrency=0), ValueError, "concurrency"),
    (dict(fn_constructor_args=(1,)), ValueError, "need fn to be a class"),
    (dict(fn_constructor_kwargs={"scale": 2}), ValueError, "need fn to be a class"),
    (dict(fn_constructor_args="ab"), TypeError, "fn_constructor_args"),
    (dict(fn_constructor_kwargs=[("scale", 2)]), TypeError, "fn_constructor_kwargs"),
    (dict(target="db.strict", column="v", input_columns=["id"]), ValueError, "NOT NULL"),
    (dict(target="db.plain", column="v", input_columns=["id"]), ValueError,
     "data-evolution.enabled"),
]

BAD_VALUES = [
    (lambda b: pa.array(["x"] * b.num_rows), TypeError, "cannot be cast"),
    (lambda b: [object()] * b.num_rows, TypeError, "cannot be made into"),
    (lambda b: embed(b)[:1], ValueError, "values for"),
    (lambda b: pa.table({"a": embed(b), "b": embed(b)}), ValueError, "one-column"),
    (lambda b: pa.table({"_ROW_ID": b["_ROW_ID"][::-1], "embedding": embed(b)}),
     ValueError, "_ROW_ID differs"),
]


@pytest.mark.parametrize("override,error,message", BAD_ARGUMENTS,
                         ids=[f"{list(a)[0]}={list(a.values())[0]!r}"[:40]
                              for a, _, _ in BAD_ARGUMENTS])
def test_bad_arguments_raise_before_anything_is_read(warehouse, override, error, message):
    from paimon_rowid import backfill
    opts = make_images(warehouse, groups=1)
    _not_null_table(warehouse)
    before, files = latest_id(opts), table_files(opts)
    kwargs = dict(target="db.images", column="embedding", fn=embed, input_columns=["image"],
                  progress=False)
    kwargs.update(override)
    target = kwargs.pop("target")
    with pytest.raises(error, match=message):
        backfill(target, opts, **kwargs)
    assert latest_id(opts) == before and table_files(opts) == files


@pytest.mark.parametrize("fn,error,message", BAD_VALUES,
                         ids=["uncastable", "not-arrow", "short", "two-columns", "reordered"])
def test_bad_values_fail_the_batch_and_commit_nothing(warehouse, fn, error, message):
    from paimon_rowid import BackfillError, backfill
    opts = make_images(warehouse, groups=1)
    before, files = latest_id(opts), table_files(opts)
    with pytest.raises(BackfillError, match="batch 1 of 1") as info:
        backfill("db.images", opts, column="embedding", fn=fn, input_columns=["image"],
                 progress=False)
    assert isinstance(info.value.__cause__, error)
    assert re.search(message, str(info.value.__cause__))
    assert latest_id(opts) == before and table_files(opts) == files


def test_groups_are_read_in_windows(warehouse, monkeypatch):
    """The native reader yields a file group as one batch: backfill reads a group in windows
    of row ids so the input in memory is one window (here 50 rows of a 200-row group)."""
    from paimon_rowid import backfill
    from paimon_rowid.jobs import _backfill_core as core
    opts = make_images(warehouse, groups=2)
    monkeypatch.setattr(core, "READ_WINDOW_ROWS", 50)
    planned = []
    real = core.batch_read

    def recording(spec, batch):
        read, splits = real(spec, batch)
        planned.append([s.row_count for s in splits])
        return read, splits

    monkeypatch.setattr(core, "batch_read", recording)
    result = backfill("db.images", opts, column="embedding", fn=embed, input_columns=["image"],
                      rows_per_commit=GROUP, batch_size=10, progress=False)
    assert planned == [[50] * 4, [50] * 4] and result.rows_computed == 400
    got = read_all(opts, ("image", "embedding", "_ROW_ID"))
    assert got["embedding"].to_pylist() == embed(got).to_pylist()


def test_new_values_stream_into_the_update_instead_of_piling_up(warehouse, tmp_path):
    """One batch of 120,000 rows whose new values (1 KiB each, ~123 MB in all) would pile up
    if the batch were collected before its update: they stream into the update, which spills
    past its memory budget (4 mb here), so Arrow's allocations seen from ``fn`` stay well
    below the batch's size (measured: ~35 MB whatever the row count or the budget; collecting
    first peaked at the whole batch); the result equals the values computed."""
    from paimon_rowid import CatalogFactory, Schema, backfill
    opts = {"warehouse": warehouse}
    c = CatalogFactory.create(opts)
    c.create_database("db", True)
    wide = pa.list_(pa.float32(), 256)  # 1 KiB per row
    c.create_table("db.w", Schema.from_pyarrow_schema(
        pa.schema([("id", pa.int64()), ("v", wide)]), options=DE), False)
    t = c.get_table("db.w")
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    rows = 120_000
    w.write_arrow(pa.table({"id": pa.array(range(rows), pa.int64()), "v": pa.nulls(rows, wide)}))
    wb.new_commit().commit(w.prepare_commit())
    peak = {"bytes": 0}
    base = pa.total_allocated_bytes()

    def fn(batch: pa.Table) -> pa.Array:
        peak["bytes"] = max(peak["bytes"], pa.total_allocated_bytes() - base)
        ids = batch["id"].to_numpy()
        flat = np.repeat(ids.astype(np.float32), 256)
        return pa.FixedSizeListArray.from_arrays(pa.array(flat, pa.float32()), 256)

    spill = tmp_path / "spill"
    spill.mkdir()
    result = backfill("db.w", {**opts, "paimon-rowid.update.memory-budget": "4 mb",
                               "paimon-rowid.update.spill-dir": str(spill)},
                      column="v", fn=fn, input_columns=["id"], rows_per_commit=rows,
                      batch_size=1000, progress=False)
    assert (result.rows_computed, result.commits) == (rows, 1)
    assert peak["bytes"] < 64 * 1024 * 1024, peak  # half of the batch's values
    assert list(spill.iterdir()) == []  # the spill files are gone with the call
    rb = t.new_read_builder().with_projection(["id", "v"])
    out = rb.new_read().to_arrow(rb.new_scan().plan().splits()).sort_by("id")
    assert out["v"].null_count == 0
    firsts = pa.compute.list_element(out["v"], 0).to_numpy()
    assert np.array_equal(firsts, out["id"].to_numpy().astype(np.float32))


def test_a_class_fn_is_constructed_with_its_constructor_arguments(warehouse):
    """fn_constructor_args / fn_constructor_kwargs (Ray Data's names) construct a class fn,
    once per worker thread."""
    from paimon_rowid import backfill
    opts = make_images(warehouse, groups=2)
    built = []

    class Scaled:
        def __init__(self, scale, *, offset=0.0):
            built.append((scale, offset))
            self.scale, self.offset = scale, offset

        def __call__(self, batch):
            heads = [[float(b) * self.scale + self.offset for b in img[:DIM]]
                     for img in batch["image"].to_pylist()]
            return pa.array(heads, EMB)

    result = backfill("db.images", opts, column="embedding", fn=Scaled,
                      fn_constructor_args=(2.0,), fn_constructor_kwargs={"offset": 0.5},
                      input_columns=["image"], rows_per_commit=GROUP, progress=False)
    assert result.rows_computed == 2 * GROUP and built == [(2.0, 0.5)]
    out = read_all(opts, ("id", "image", "embedding", "_ROW_ID"))
    for img, emb in zip(out["image"].to_pylist(), out["embedding"].to_pylist()):
        assert emb == [float(b) * 2.0 + 0.5 for b in img[:DIM]]
