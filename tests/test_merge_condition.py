"""``merge_into`` conditions are parsed as ONE SQL expression and their masks are placed by row
(issue 44 §3; docs/merge-into.md "Conditions").

- Hostile text (a condition that closes the expression and appends ``ORDER BY``, a second
  statement, a comment swallowing the rest, a subquery, an aggregate) is a ValueError before
  anything is read or written, on every entry point (embedded, local, Ray on the driver and by
  tasks): the snapshot id and the warehouse's files are unchanged, even with the target's data
  files moved away (so any read would fail first).
- The mask of a condition is aligned with the rows it was computed for: a merge over many
  source chunks / Ray blocks updates exactly the rows whose condition is TRUE, and the
  evaluator gives the same mask split over several DataFusion partitions.
- 20,000 OR terms: parsed in linear time (the parse alone, timed on its own, with a generous
  bound), and the whole merge completes with the right rows (no timed assertion on it).
- The syntax pypaimon accepts (DataFusion's, columns as ``s.x`` / ``t.x``) keeps working: each
  condition of a corpus gives the mask DataFusion gives for the reference-quoted text.
"""
from __future__ import annotations

import shutil
import time

import numpy as np
import pyarrow as pa
import pytest

import ours

pytestmark = pytest.mark.native

OPTIONS = {"data-evolution.enabled": "true", "row-tracking.enabled": "true",
           "deletion-vectors.enabled": "true"}
SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.int64()), ("w", pa.int64())])
ENGINES = ["embedded", "local", pytest.param("ray-driver", marks=pytest.mark.ray),
           pytest.param("ray-tasks", marks=pytest.mark.ray)]
INJECTED = "s.v = 9) AS m FROM _merge_batch ORDER BY m DESC --"


def _table(wh, ids, v=None, w=None):
    table = ours.create_table(wh, "t", SCHEMA, dict(OPTIONS))
    n = len(ids)
    ours.write(table, pa.table({"id": pa.array(ids, pa.int64()),
                                "v": pa.array(v if v is not None else [0] * n, pa.int64()),
                                "w": pa.array(w if w is not None else [0] * n, pa.int64())}))
    return table


def _merge(engine, wh, source, request, **kwargs):
    """One merge through ``engine``; returns the result dict (None for the local call)."""
    import paimon_rowid as pr
    if engine == "embedded":
        return pr.merge_into("db.t", source, {"warehouse": wh}, **kwargs)
    if engine == "local":
        table = ours.catalog(wh).get_table("db.t")
        builder = table.new_batch_write_builder()
        messages = builder.new_update().merge_into(
            table if isinstance(source, str) else source, **kwargs)
        builder.new_commit().commit(messages)
        return None
    ray = request.getfixturevalue("ray_session")
    import paimon_rowid.ray as prr
    if engine == "ray-tasks" and not isinstance(source, str):
        source = ray.data.from_arrow(source).repartition(3)
    return prr.merge_into("db.t", source, {"warehouse": wh}, num_partitions=3,
                          driver_max_bytes=0 if engine == "ray-tasks" else None, **kwargs)


def _state(wh):
    return ours.files(wh), _latest(wh)


def _latest(wh):
    snapshot = ours.catalog(wh).get_table("db.t").latest_snapshot()
    return None if snapshot is None else snapshot.id


def _rows(wh):
    table = ours.catalog(wh).get_table("db.t")
    builder = table.new_read_builder()
    data = builder.new_read().to_arrow(builder.new_scan().plan().splits())
    return {r["id"]: (r["v"], r["w"]) for r in data.to_pylist()}


@pytest.mark.parametrize("engine", ENGINES)
def test_the_injected_condition_updates_nothing_and_reads_nothing(tmp_path, request, engine):
    """The issue's reproduction: with SQL splicing, this condition reordered the mask and
    updated id 1 (the matching row is id 3). Now it is not one expression: a ValueError before
    any read (the data files are moved away, so a read would raise OSError first)."""
    import paimon_rowid as pr
    wh = str(tmp_path / "wh")
    _table(wh, [1, 2, 3])
    source = pa.table({"id": pa.array([1, 2, 3], pa.int64()), "v": pa.array([7, 8, 9], pa.int64())})
    bucket = next(p for p in (tmp_path / "wh").rglob("bucket-0"))
    hidden = tmp_path / "hidden"
    shutil.move(str(bucket), str(hidden))
    before = _state(wh)
    with pytest.raises(ValueError) as raised:
        _merge(engine, wh, source, request,
               on=["id"], when_matched=[pr.WhenMatched.update({"v": "s.v"}, condition=INJECTED)])
    assert str(raised.value).startswith(f"merge_into condition {INJECTED!r} is not one SQL "
                                        "expression: ")
    assert _state(wh) == before
    shutil.move(str(hidden), str(bucket))
    assert _rows(wh) == {1: (0, 0), 2: (0, 0), 3: (0, 0)}
    # the condition meant: only id 3 is updated
    got = _merge(engine, wh, source, request, on=["id"],
                 when_matched=[pr.WhenMatched.update({"v": "s.v"}, condition="s.v = 9")])
    assert got in (None, {"num_matched": 1, "num_inserted": 0, "num_unchanged": 0})
    assert _rows(wh) == {1: (0, 0), 2: (0, 0), 3: (9, 0)}


HOSTILE = {
    "second_statement": ("s.v = 9; DELETE FROM t", "is not one expression (';' separates "
                                                    "statements)"),
    "comment_swallows_the_rest": ("s.v = 9 -- AND t.v = 0", "contains a comment"),
    "block_comment": ("s.v = 9 /* OR TRUE */", "contains a comment"),
    "subquery": ("s.v IN (SELECT 9)", "may not contain a subquery"),
    "exists": ("EXISTS (SELECT 1) OR s.v = 9", "may not contain a subquery"),
    "aggregate": ("max(s.v) = 9", "may not contain an aggregate function"),
    "window": ("row_number() OVER (ORDER BY s.v) = 1", "may not contain a window function"),
    "alias": ("s.v = 9 AS m", "is not one SQL expression"),
    "select": ("SELECT TRUE", "is not one SQL expression"),
    "trailing_text": ("s.v = 9 t.v", "is not one SQL expression"),
    "unbalanced": ("(s.v = 9))", "is not one SQL expression"),
    "unqualified_column": ("v = 9", "names the column 'v'"),
    "other_table": ("x.v = 9", "names the column 'x.v'"),
    "parameter": ("s.v = $1", "may not contain a parameter"),
    "empty": ("   ", "is empty"),
    "deep_nesting": ("(" * 300 + "s.v = 9" + ")" * 300, "nests deeper than"),
    "deep_arithmetic": ("s.v" + " + 1" * 5000 + " > 0", "nests deeper than"),
}


@pytest.mark.parametrize("engine", ["embedded", "local"])
@pytest.mark.parametrize("clause", ["matched", "not_matched"])
@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_condition_that_is_not_one_expression_is_refused_first(tmp_path, request, engine,
                                                                 clause, case):
    import paimon_rowid as pr
    text, why = HOSTILE[case]
    if clause == "not_matched":
        text = text.replace("t.v", "s.w")
    wh = str(tmp_path / "wh")
    _table(wh, [1, 2, 3])
    source = pa.table({"id": pa.array([1, 2, 9], pa.int64()), "v": pa.array([7, 8, 9], pa.int64()),
                       "w": pa.array([1, 1, 1], pa.int64())})
    before = _state(wh)
    kwargs = {"when_matched": [pr.WhenMatched.update({"v": "s.v"}, condition=text)]} \
        if clause == "matched" else \
        {"when_not_matched": [pr.WhenNotMatched("*", condition=text)]}
    with pytest.raises(ValueError) as raised:
        _merge(engine, wh, source, request, on=["id"], **kwargs)
    assert str(raised.value).startswith("merge_into condition ")
    assert why in str(raised.value)
    assert len(str(raised.value)) < 600  # a long condition is cut in the message
    assert _state(wh) == before


def test_self_merge_refuses_the_injected_condition(tmp_path):
    import paimon_rowid as pr
    wh = str(tmp_path / "wh")
    _table(wh, [1, 2, 3], v=[7, 8, 9])
    before = _state(wh)
    with pytest.raises(ValueError, match="is not one SQL expression"):
        pr.merge_into("db.t", "db.t", {"warehouse": wh}, on=["_ROW_ID"],
                      when_matched=[pr.WhenMatched.update({"w": 1}, condition=INJECTED)])
    assert _state(wh) == before


def test_a_condition_must_be_a_string(tmp_path):
    import paimon_rowid as pr
    wh = str(tmp_path / "wh")
    _table(wh, [1])
    before = _state(wh)
    with pytest.raises(TypeError, match="merge_into condition must be a str, got list"):
        pr.merge_into("db.t", pa.table({"id": [1]}), {"warehouse": wh}, on=["id"],
                      when_matched=[pr.WhenMatched.delete(condition=["s.id = 1"])])
    assert _state(wh) == before


# ------------------------------------------------------------------------ row alignment


@pytest.mark.parametrize("engine", ENGINES)
def test_masks_follow_their_rows_over_many_chunks(tmp_path, request, engine):
    """2,000 matched rows (source shuffled, in 41 chunks / 3 Ray blocks) and 500 new ones: each
    row's clause is the one its own condition picks, computed here row by row."""
    import paimon_rowid as pr
    rng = np.random.default_rng(44)
    n = 2000
    wh = str(tmp_path / "wh")
    target_w = rng.integers(0, 50, n)
    _table(wh, list(range(n)), v=[0] * n, w=target_w.tolist())
    ids = rng.permutation(np.arange(n + 500))
    values = rng.integers(0, 100, len(ids))
    source = pa.table({"id": pa.array(ids, pa.int64()), "v": pa.array(values, pa.int64())})
    source = pa.Table.from_batches(
        [b for chunk in np.array_split(np.arange(len(ids)), 41)
         for b in source.take(chunk).to_batches()])
    got = _merge(engine, wh, source, request, on=["id"],
                 when_matched=[pr.WhenMatched.update({"v": "s.v"}, condition="(s.v + t.w) % 3 = 0"),
                               pr.WhenMatched.update({"w": -1}, condition="s.v > t.w")],
                 when_not_matched=[pr.WhenNotMatched({"v": "s.v"}, condition="s.v % 2 = 0")])
    expected = {i: (0, int(target_w[i])) for i in range(n)}
    updated = inserted = 0
    for key, value in zip(ids.tolist(), values.tolist()):
        if key < n:
            w = int(target_w[key])
            if (value + w) % 3 == 0:
                expected[key] = (value, w)
                updated += 1
            elif value > w:
                expected[key] = (0, -1)
                updated += 1
        elif value % 2 == 0:
            expected[key] = (value, None)
            inserted += 1
    assert got in (None, {"num_matched": updated, "num_inserted": inserted, "num_unchanged": 0})
    assert _rows(wh) == expected


@pytest.mark.parametrize("partitions", [1, 4])
def test_the_evaluator_places_results_by_row(partitions):
    from paimon_rowid.table._merge_condition import ConditionEvaluator, compile_condition
    rng = np.random.default_rng(7)
    a = rng.integers(-50, 50, 10_000)
    b = rng.integers(-50, 50, 10_000)
    table = pa.Table.from_batches(
        [pa.record_batch({"s.a": pa.array(x), "t.b": pa.array(y)})
         for x, y in zip(np.array_split(a, 23), np.array_split(b, 23))])
    mask = ConditionEvaluator(partitions).true_mask(
        table, compile_condition("s.a * 3 > t.b AND (s.a - t.b) % 5 <> 0"))
    assert mask.to_pylist() == ((a * 3 > b) & ((a - b) % 5 != 0)).tolist()


# ------------------------------------------------------------------------ long conditions


def _or_terms(n):
    return " OR ".join(f"s.v = {i}" for i in range(n))


def test_parsing_20000_or_terms_is_linear():
    """The parse alone (sqlglot, reference quoting, re-association), timed in CPU seconds with
    a generous bound (~0.35 s on the reference machine: docs/merge-into.md). A quadratic parse
    would take minutes; 4x the terms must cost well under 16x the time."""
    from paimon_rowid.table import _merge_condition as mc
    mc.require_engine()

    def cpu(text):
        start = time.process_time()
        mc._compile_cached.__wrapped__(text)
        return time.process_time() - start

    small, large = cpu(_or_terms(5000)), cpu(_or_terms(20000))
    assert large < 10.0
    assert large < 8 * max(small, 0.05)
    compiled = mc.compile_condition(_or_terms(20000))
    assert compiled.refs == ("s.v",)
    assert compiled.sql.count("(") < 3 * 20000  # balanced: a paren pair per term and per join


@pytest.mark.parametrize("engine", ["embedded", pytest.param("ray-tasks", marks=pytest.mark.ray)])
def test_a_merge_with_20000_or_terms(tmp_path, request, engine):
    import paimon_rowid as pr
    wh = str(tmp_path / "wh")
    _table(wh, list(range(10)))
    source = pa.table({"id": pa.array(range(10), pa.int64()),
                       "v": pa.array([5, 19_999, 20_000, -1, 7, 0, 30_000, 1, 2, 3], pa.int64())})
    text = _or_terms(20000)
    got = _merge(engine, wh, source, request, on=["id"],
                 when_matched=[pr.WhenMatched.update({"v": "s.v"}, condition=text)])
    assert got == {"num_matched": 7, "num_inserted": 0, "num_unchanged": 0}
    assert _rows(wh) == {0: (5, 0), 1: (19_999, 0), 2: (0, 0), 3: (0, 0), 4: (7, 0),
                         5: (0, 0), 6: (0, 0), 7: (1, 0), 8: (2, 0), 9: (3, 0)}


def test_long_and_chains_and_nested_chains_are_balanced():
    from paimon_rowid.table._merge_condition import ConditionEvaluator, compile_condition
    table = pa.table({"s.v": pa.array([5, 50_000, None, -3], pa.int64())})
    evaluator = ConditionEvaluator()
    all_and = " AND ".join(f"s.v <> {i}" for i in range(10_000))
    assert evaluator.true_mask(table, compile_condition(all_and)).to_pylist() == \
        [False, True, False, True]
    nested = f"(({_or_terms(10_000)}) AND s.v BETWEEN 0 AND 9) OR s.v < -2"
    assert evaluator.true_mask(table, compile_condition(nested)).to_pylist() == \
        [True, False, False, True]
    # columns named like keywords (END, OR, BETWEEN) do not split a chain
    keywords = pa.table({"s.end": pa.array([3, 500, 7]), "s.or": pa.array([1, 1, 9])})
    chain = " OR ".join(f"(s.end = {i} AND s.or BETWEEN 0 AND 5)" for i in range(100))
    assert evaluator.true_mask(keywords, compile_condition(chain)).to_pylist() == \
        [True, False, False]


# ------------------------------------------------------------------------ pypaimon's syntax

CORPUS = {  # condition -> TRUE rows of the table below, as DataFusion gives them
    "s.a > t.a": [False, False, False, False],
    "s.a >= t.a": [True, False, False, False],
    "s.name = 'abc'": [True, False, False, False],
    "s.name = 'it''s'": [False, False, False, True],
    "s.a IS NULL": [False, False, True, False],
    "s.a IN (1, 2, 3)": [True, True, False, False],
    "s.a NOT IN (1, 4)": [False, True, False, False],
    "s.a BETWEEN 1 AND 2 AND s.b": [True, False, False, False],
    "NOT (s.a = 1)": [False, True, False, True],
    "s.name LIKE 'a%'": [True, False, False, False],
    "s.name ILIKE 'b%'": [False, True, False, False],
    "s.name ~ '^a'": [True, False, False, False],
    "CAST(s.a AS BIGINT) > 1": [False, True, False, True],
    "s.a::bigint > 1": [False, True, False, True],
    "s.a % 2 = 0": [False, True, False, True],
    "lower(s.name) = 'bcd'": [False, True, False, False],
    "CASE WHEN s.a > 1 THEN true ELSE false END": [False, True, False, True],
    "coalesce(s.a, 0) = 0": [False, False, True, False],
    "s.a IS DISTINCT FROM t.a": [False, True, True, True],
    "s.name || 'x' = 'abcx'": [True, False, False, False],
    "s.d > DATE '2020-06-01'": [False, True, False, False],
    "starts_with(s.name, 'a')": [True, False, False, False],
    "array_has(s.tags, 'x')": [True, False, False, True],
    "s.st['f'] = 2": [False, True, False, False],
    "s.m['k'] = 5": [False, False, False, True],
    "isnan(s.f)": [False, True, False, False],
    "strpos(s.name, 'b') = 2": [True, False, False, False],
    "TRY_CAST(s.name AS INT) IS NULL": [True, True, True, True],
    "s.date = 1": [True, False, False, False],
    's."odd name" = 1': [False, False, False, True],
    '"s.a" = 1': [True, False, False, False],
    "TRUE": [True, True, True, True],
    "NULL": [False, False, False, False],
}


@pytest.mark.parametrize("condition", list(CORPUS))
def test_pypaimon_condition_syntax_keeps_working(condition):
    import datetime

    from paimon_rowid.table._merge_condition import ConditionEvaluator, compile_condition
    table = pa.table({
        "s.a": pa.array([1, 2, None, 4], pa.int64()), "t.a": pa.array([1, 3, 3, None], pa.int32()),
        "s.b": pa.array([True, False, None, True]),
        "s.name": pa.array(["abc", "Bcd", None, "it's"]),
        "s.f": pa.array([1.5, float("nan"), 2.0, -1.0]),
        "s.d": pa.array([datetime.date(2020, 1, 1), datetime.date(2021, 1, 1), None,
                         datetime.date(2019, 5, 5)]),
        "s.tags": pa.array([["x"], [], None, ["y", "x"]]),
        "s.st": pa.array([{"f": 1}, {"f": 2}, None, {"f": 4}]),
        "s.m": pa.array([[("k", 1)], [], None, [("k", 5)]], pa.map_(pa.string(), pa.int64())),
        "s.date": pa.array([1, 2, 3, 4], pa.int64()),
        "s.odd name": pa.array([0, 0, 0, 1], pa.int64()),
    })
    mask = ConditionEvaluator().true_mask(table, compile_condition(condition))
    assert mask.to_pylist() == CORPUS[condition]


def test_compiled_text_is_the_users_own():
    """Functions, casts and literals reach DataFusion as written (nothing is re-generated):
    only column references are quoted."""
    from paimon_rowid.table._merge_condition import compile_condition
    text = "TRY_CAST(s.name AS INT) IS NULL AND strpos(s.name, 'x') = 2 AND t.a::int > 1"
    assert compile_condition(text).sql == \
        'TRY_CAST("s.name" AS INT) IS NULL AND strpos("s.name", \'x\') = 2 AND "t.a"::int > 1'
    assert compile_condition(text).refs == ("s.name", "t.a")


def test_nothing_is_left_in_a_failed_conditional_merge(tmp_path):
    """A type error of the expression is found when it runs: still nothing is left."""
    import paimon_rowid as pr
    wh = str(tmp_path / "wh")
    _table(wh, [1, 2, 3])
    before = _state(wh)
    with pytest.raises(ValueError, match="failed"):
        pr.merge_into("db.t", pa.table({"id": pa.array([1, 4], pa.int64()),
                                        "v": pa.array([1, 2], pa.int64())}),
                      {"warehouse": wh}, on=["id"],
                      when_matched=[pr.WhenMatched.update({"v": "s.v"})],
                      when_not_matched=[pr.WhenNotMatched({"v": "s.v"},
                                                          condition="s.v > 'abc'::date")])
    assert _state(wh) == before


def test_missing_sqlglot_is_an_import_error(tmp_path, monkeypatch):
    import paimon_rowid as pr
    import paimon_rowid.table._merge_condition as condition_module
    monkeypatch.setattr(condition_module, "_sqlglot", None)
    monkeypatch.setattr(condition_module, "_compile_cached",
                        condition_module._compile_cached.__wrapped__)  # no cached parse
    wh = str(tmp_path / "wh")
    _table(wh, [1])
    before = _state(wh)
    with pytest.raises(ImportError, match=r"^merge_into condition expressions require sqlglot "
                                          r"\(to parse them\)\. Install it with: pip install "
                                          r"'paimon-rowid\[sql\]'"):
        pr.merge_into("db.t", pa.table({"id": [1]}), {"warehouse": wh}, on=["id"],
                      when_matched=[pr.WhenMatched.delete(condition="s.id = 1")])
    assert _state(wh) == before
