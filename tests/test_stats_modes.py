"""Value stats modes (issue 12): Java's ``metadata.stats-mode`` (default ``truncate(16)``) and
``fields.<name>.stats-mode``. Our manifests, decoded by pypaimon (the oracle), hold what Java
would write; pruning on truncated stats keeps every matching file, in ours and in pypaimon;
a 140 MB string value leaves a small manifest and a readable table; manifests that hold such
a value in full (pypaimon's ``full`` mode, or ours with ``full``) still read."""
from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa
import pytest

import ours

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), ("name", pa.string()),
                    ("tag", pa.string()), ("raw", pa.binary()), ("score", pa.float64())])
ALPHA = "abcdefghijklmnopqrstuvwxyz"


def _rows(first, names, tags=None):
    n = len(names)
    return pa.table({"id": list(range(first, first + n)), "name": names,
                     "tag": tags if tags is not None else ["t"] * n,
                     "raw": [ALPHA.encode() * 2] * n, "score": [first + i / 2 for i in range(n)]},
                    schema=SCHEMA)


def _stats(oracle, warehouse, identifier="db.t"):
    """pypaimon's decoding of the live files' value stats, in manifest order."""
    entries = oracle.run({"cmd": "entries", "warehouse": warehouse, "identifier": identifier,
                          "stats": True})
    return [e["value_stats"] for e in entries]


def _read(table, spec=None, columns=None):
    from oracle import build_predicate
    builder = table.new_read_builder()
    if columns is not None:
        builder = builder.with_projection(columns)
    if spec is not None:
        builder = builder.with_filter(build_predicate(builder.new_predicate_builder(), spec))
    return builder.new_read().to_arrow(builder.new_scan().plan().splits())


def _ids(result):
    return sorted(result.column("id").to_pylist())


@pytest.mark.oracle
def test_default_truncate16_stats_as_java_writes_them(oracle, warehouse):
    table = ours.create_table(warehouse, "t", SCHEMA, DE)
    names = [ALPHA, "b" + ALPHA, None]
    tags = ["\u00e9" * 20, "ab", "\U0010FFFF" * 16]
    ours.write(table, _rows(0, names, tags))
    (stats,) = _stats(oracle, warehouse)
    assert stats["cols"] == ["id", "name", "tag", "raw", "score"]
    # name: the min cut to 16 code points, the max cut and its last code point incremented.
    # tag: multi-byte code points count as one; 16 x U+10FFFF needs no increment.
    # raw (BINARY): Java's Parquet stats carry no bounds, only the null count.
    assert stats["min"] == [0, ALPHA[:16], "ab", None, 0.0]
    assert stats["max"] == [2, "babcdefghijklmnp", "\U0010FFFF" * 16, None, 1.0]
    assert stats["null_counts"] == [0, 1, 0, 0, 0]
    theirs = oracle.read(warehouse, "db.t")
    assert theirs.sort_by("id").to_pylist() == _read(table).sort_by("id").to_pylist()


@pytest.mark.oracle
def test_a_max_without_upper_bound_drops_both_bounds(oracle, warehouse):
    """Java's truncate collector: when no code point of the cut max can be incremented, the
    column keeps only its null count."""
    table = ours.create_table(warehouse, "t", SCHEMA, DE)
    ours.write(table, _rows(0, ["a", "\U0010FFFF" * 17, None]))
    (stats,) = _stats(oracle, warehouse)
    assert (stats["min"][1], stats["max"][1], stats["null_counts"][1]) == (None, None, 1)
    got = _read(table, ["equal", "name", ["\U0010FFFF" * 17]])
    assert _ids(got) == [1]


@pytest.mark.oracle
@pytest.mark.parametrize("options, cols, expect_min, expect_max, nulls", [
    # counts for all but the columns with their own mode; tag is left out (none).
    ({"metadata.stats-mode": "counts", "fields.name.stats-mode": "full",
      "fields.tag.stats-mode": "none", "fields.score.stats-mode": "truncate(2)"},
     ["id", "name", "raw", "score"], [None, ALPHA, None, 0.0],
     [None, "b" + ALPHA, None, 0.5], [0, 0, 0, 0]),
    # Java's option spelling is case-insensitive; mode none everywhere leaves no stats.
    ({"metadata.stats-mode": "NONE"}, [], [], [], []),
    # Past the first 2 columns: none (name, counted, keeps its own mode).
    ({"metadata.stats-keep-first-n-columns": "2", "fields.name.stats-mode": "Truncate(3)"},
     ["id", "name"], [0, "abc"], [1, "bac"], [0, 0]),
])
def test_modes_and_field_overrides(oracle, warehouse, options, cols, expect_min, expect_max,
                                   nulls):
    table = ours.create_table(warehouse, "t", SCHEMA, {**DE, **options})
    data = _rows(0, [ALPHA, "b" + ALPHA])
    ours.write(table, data)
    (stats,) = _stats(oracle, warehouse)
    assert (stats["cols"], stats["min"], stats["max"], stats["null_counts"]) == (
        cols, expect_min, expect_max, nulls)
    assert oracle.read(warehouse, "db.t").sort_by("id").to_pylist() == data.to_pylist()


def test_invalid_mode_is_refused(warehouse):
    # At create_table, by the parser the writer uses (catalog/table_options.h): nothing written.
    with pytest.raises(ValueError, match="fields.tag.stats-mode"):
        ours.create_table(warehouse, "t", SCHEMA, {**DE, "fields.tag.stats-mode": "trunc"})
    assert not (Path(warehouse) / "db.db" / "t").exists()


FILTERS = [
    (["equal", "name", [ALPHA]], [0]),
    (["equal", "name", [ALPHA + "-2"]], [1]),
    (["equal", "name", ["zz" + ALPHA]], [2]),
    (["greater_or_equal", "name", [ALPHA + "-2"]], [1, 2]),
    (["greater_than", "name", [ALPHA[:16]]], [0, 1, 2]),
    (["less_or_equal", "name", ["zz" + ALPHA]], [0, 1, 2]),
    (["less_than", "name", ["abcdefghijklmnoq"]], [0, 1]),
    (["between", "name", [ALPHA, ALPHA + "-2"]], [0, 1]),
    (["is_in", "name", [["zz" + ALPHA, "q"]]], [2]),
    (["equal", "name", ["m"]], []),
]


@pytest.mark.oracle
@pytest.mark.parametrize("options", [{"row-tracking.enabled": "true"}, DE],
                         ids=["append", "data-evolution"])
def test_filters_on_truncated_stats_keep_matching_files(oracle, warehouse, options):
    """Values longer than 16 characters: a max cut without rounding up (abcdefghijklmnop)
    would prune the file holding the full value. pypaimon prunes with value stats on plain
    append tables (it skips them with data evolution); ours on both."""
    table = ours.create_table(warehouse, "t", SCHEMA, options)
    ours.write(table, _rows(0, [ALPHA, ALPHA + "-2"]))  # file 1
    ours.write(table, _rows(2, ["zz" + ALPHA]))         # file 2
    stats = _stats(oracle, warehouse)
    assert [(s["min"][1], s["max"][1]) for s in stats] == [
        (ALPHA[:16], "abcdefghijklmnoq"), ("zzabcdefghijklmn", "zzabcdefghijklmo")]
    theirs = oracle.read_many(warehouse, "db.t", [{"filter": spec} for spec, _ in FILTERS])
    for (spec, expect), their in zip(FILTERS, theirs):
        assert _ids(_read(table, spec)) == expect, spec
        assert _ids(their) == expect, spec
    # Pruning happens: an equality on the second file's value plans only that file.
    builder = table.new_read_builder()
    builder = builder.with_filter(builder.new_predicate_builder().equal("name", "zz" + ALPHA))
    assert sum(len(s.file_paths) for s in builder.new_scan().plan().splits()) == 1


# -- a 140 MB string value ------------------------------------------------------------------

BIG = 140 * 1000 * 1000


def _big_value() -> str:
    # Hex of random bytes: incompressible enough that a manifest holding it in full is big.
    return os.urandom(BIG // 2).hex()


def _big_rows(big):
    # The only non-null name: it is both min and max, so full stats store it twice.
    return _rows(0, [None, big, None])


def _manifest_bytes(table) -> int:
    directory = Path(table.path) / "manifest"
    return sum(p.stat().st_size for p in directory.iterdir())


def _check_big_table(table, big, oracle, warehouse, identifier):
    from paimon_rowid.row_id_jobs import read_by_row_id
    got = _read(table, columns=["id", "name", "_ROW_ID"]).sort_by("id")
    assert got.column("id").to_pylist() == [0, 1, 2]
    assert got.column("name")[1].as_py() == big
    hit = _read(table, ["equal", "name", [big]], ["id", "name"])
    assert hit.column("id").to_pylist() == [1]
    by_id = read_by_row_id(identifier, pa.table({"_ROW_ID": pa.array([1], pa.int64())}),
                           {"warehouse": warehouse}, projection=["name"])
    assert by_id.column("name").to_pylist() == [big]
    theirs = oracle.read(warehouse, identifier, projection=["id", "name"]).sort_by("id")
    assert theirs.column("name")[1].as_py() == big


@pytest.mark.slow
@pytest.mark.oracle
def test_140mb_string_keeps_the_manifest_small(oracle, warehouse):
    table = ours.create_table(warehouse, "t", SCHEMA, DE)
    big = _big_value()
    ours.write(table, _big_rows(big))
    assert _manifest_bytes(table) < 64 * 1024
    (stats,) = _stats(oracle, warehouse)
    assert (stats["min"][1], stats["max"][1]) == (big[:16], big[:15] + chr(ord(big[15]) + 1))
    _check_big_table(table, big, oracle, warehouse, "db.t")


@pytest.mark.slow
@pytest.mark.oracle
@pytest.mark.parametrize("writer", ["ours", "pypaimon"])
def test_full_stats_of_a_140mb_string_still_read(oracle, warehouse, writer):
    """A manifest entry holding the 140 MB value twice (min and max) is one ~280 MB Avro
    block: pypaimon writes it with `full`, so did we before truncate(16) (and still do with
    `full`). Such tables must read."""
    big = _big_value()
    data = _big_rows(big)
    options = {**DE, "metadata.stats-mode": "full"}
    if writer == "ours":
        table = ours.create_table(warehouse, "t", SCHEMA, options)
        ours.write(table, data)
    else:
        oracle.create_table(warehouse, "db.t", SCHEMA, options=options)
        oracle.write(warehouse, "db.t", data)
        table = ours.catalog(warehouse).get_table("db.t")
    assert _manifest_bytes(table) > BIG  # the value is in there twice (compressed to ~half)
    _check_big_table(table, big, oracle, warehouse, "db.t")
