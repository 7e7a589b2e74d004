"""PredicateBuilder (pure Python): method set, field checks, native tuple form, typed literals,
and the row ranges implied by _ROW_ID predicates."""
import datetime
import decimal

import pyarrow as pa
import pytest

from paimon_rowid import Predicate, PredicateBuilder, Range, Schema
from paimon_rowid.predicate import row_ranges_of
from paimon_rowid.schema import ROW_ID, SEQUENCE_NUMBER

SCHEMA = Schema.from_pyarrow_schema(pa.schema([
    ("id", pa.int64(), False), ("i", pa.int32()), ("f", pa.float64()), ("s", pa.string()),
    ("d", pa.date32()), ("ts", pa.timestamp("us")), ("ltz", pa.timestamp("ms", tz="UTC")),
    ("dec", pa.decimal128(10, 2)), ("b", pa.binary()), ("flag", pa.bool_()),
]))


@pytest.fixture
def pb():
    return PredicateBuilder(SCHEMA.fields + [ROW_ID, SEQUENCE_NUMBER])


def _leaf_literals(native):
    assert native[0] == "leaf"
    return None if native[3] is None else pa.array(native[3])


@pytest.mark.parametrize("method,args,count", [
    ("equal", (5,), 1), ("not_equal", (5,), 1), ("less_than", (5,), 1),
    ("less_or_equal", (5,), 1), ("greater_than", (5,), 1), ("greater_or_equal", (5,), 1),
    ("is_in", ([1, 2, 3],), 3), ("is_not_in", ([1, None],), 2), ("between", (1, 9), 2),
    ("not_between", (1, 9), 2),
])
def test_int_methods_native_form(pb, method, args, count):
    pred = getattr(pb, method)("i", *args)
    native = pred.to_native()
    assert native[:3] == ("leaf", method, "i")
    literals = pa.array(native[3])
    assert literals.type == pa.int32() and len(literals) == count
    assert pred.field == "i" and pred.index == 1 and pred.method == method


@pytest.mark.parametrize("method", ["startswith", "endswith", "contains", "like"])
def test_string_methods(pb, method):
    native = getattr(pb, method)("s", "a%b_").to_native()
    assert native[:3] == ("leaf", method, "s")
    assert pa.array(native[3]).to_pylist() == ["a%b_"]
    assert pa.array(native[3]).type == pa.string()


def test_string_method_on_non_string_field(pb):
    with pytest.raises(ValueError, match="needs a string field"):
        pb.startswith("i", "1")


def test_null_checks_have_no_literals(pb):
    assert pb.is_null("s").to_native() == ("leaf", "is_null", "s", None)
    assert pb.is_not_null("ts").to_native() == ("leaf", "is_not_null", "ts", None)


def test_unknown_field_message(pb):
    with pytest.raises(ValueError) as info:
        pb.equal("nope", 1)
    assert str(info.value) == (f"The field nope is not in field list {pb.field_names}.")


@pytest.mark.parametrize("field,value,arrow_type", [
    ("f", 1, pa.float64()), ("d", datetime.date(2024, 5, 1), pa.date32()),
    ("d", datetime.datetime(2024, 5, 1, 7), pa.date32()),
    ("ts", datetime.datetime(2024, 5, 1, 1, 2, 3, 456789), pa.timestamp("us")),
    ("ltz", datetime.datetime(2024, 5, 1, tzinfo=datetime.timezone.utc),
     pa.timestamp("ms", tz="UTC")),
    ("dec", decimal.Decimal("12.34"), pa.decimal128(10, 2)), ("dec", 1.5, pa.decimal128(10, 2)),
    ("b", b"\x00\x01", pa.binary()), ("flag", True, pa.bool_()), ("id", 7, pa.int64()),
    ("_ROW_ID", 3, pa.int64()), ("i", None, pa.int32()),
])
def test_literals_take_the_field_type(pb, field, value, arrow_type):
    literals = pa.array(pb.equal(field, value).to_native()[3])
    assert literals.type == arrow_type
    assert len(literals) == 1


@pytest.mark.parametrize("field,value", [("i", "x"), ("i", 2 ** 40), ("d", "not a date"),
                                         ("i", 2.5)])
def test_bad_literals_fail_at_build_time(pb, field, value):
    with pytest.raises(ValueError, match=f"field '{field}'"):
        pb.equal(field, value)


def test_is_in_needs_a_list(pb):
    with pytest.raises(TypeError):
        pb.is_in("s", "abc")
    assert pa.array(pb.is_in("s", ("a", "b")).to_native()[3]).to_pylist() == ["a", "b"]
    assert pa.array(pb.is_in("s", []).to_native()[3]).to_pylist() == []


def test_and_or_rules(pb):
    a, b = pb.equal("i", 1), pb.is_null("s")
    for combine in (PredicateBuilder.and_predicates, PredicateBuilder.or_predicates):
        assert combine([]) is None
        assert combine([a]) is a
    both = PredicateBuilder.and_predicates([a, b])
    assert isinstance(both, Predicate) and both.method == "and"
    either = pb.or_predicates([both, pb.greater_than("f", 0.5)])
    native = either.to_native()
    assert native[0] == "or" and native[1][0][0] == "and"
    assert native[1][0][1][1] == ("leaf", "is_null", "s", None)
    assert either.fields() == ["i", "s", "f"]


def test_predicates_compare_by_value(pb):
    assert pb.equal("i", 1) == pb.equal("i", 1)
    assert pb.equal("i", 1) != pb.equal("i", 2)


def test_builder_over_projection_only_sees_projected_fields():
    fields = [f for f in SCHEMA.fields if f.name in ("s",)] + [ROW_ID]
    pb = PredicateBuilder(fields)
    assert pb.field_names == ["s", "_ROW_ID"]
    pb.equal("_ROW_ID", 1)
    with pytest.raises(ValueError, match=r"The field i is not in field list \['s', '_ROW_ID'\]\."):
        pb.equal("i", 1)


class TestRowRangesFromPredicates:
    def test_none_and_non_row_id(self, pb):
        assert row_ranges_of(None) is None
        assert row_ranges_of(pb.equal("i", 1)) is None
        assert row_ranges_of(pb.greater_than("_ROW_ID", 1)) is None

    def test_leaves(self, pb):
        assert row_ranges_of(pb.equal("_ROW_ID", 5)) == [Range(5, 5)]
        assert row_ranges_of(pb.is_in("_ROW_ID", [9, 1, 2, 3, 2])) == [Range(1, 3), Range(9, 9)]
        assert row_ranges_of(pb.between("_ROW_ID", 4, 8)) == [Range(4, 8)]
        assert row_ranges_of(pb.between("_ROW_ID", 8, 4)) == []
        assert row_ranges_of(pb.is_in("_ROW_ID", [])) == []
        assert row_ranges_of(pb.equal("_ROW_ID", None)) == []

    def test_and_intersects_ignoring_others(self, pb):
        p = pb.and_predicates([pb.between("_ROW_ID", 0, 10), pb.equal("i", 3),
                               pb.is_in("_ROW_ID", [2, 3, 11])])
        assert row_ranges_of(p) == [Range(2, 3)]
        assert row_ranges_of(pb.and_predicates([pb.equal("i", 3), pb.is_null("s")])) is None
        disjoint = pb.and_predicates([pb.equal("_ROW_ID", 1), pb.equal("_ROW_ID", 2)])
        assert row_ranges_of(disjoint) == []

    def test_or_unites_or_gives_up(self, pb):
        p = pb.or_predicates([pb.between("_ROW_ID", 0, 3), pb.equal("_ROW_ID", 4),
                              pb.equal("_ROW_ID", 9)])
        assert row_ranges_of(p) == [Range(0, 4), Range(9, 9)]
        assert row_ranges_of(pb.or_predicates([pb.equal("_ROW_ID", 1),
                                               pb.equal("i", 1)])) is None


# The literal arrays of the common types are built from their buffers (no pyarrow conversion
# of Python objects, which imports pandas); they must equal what pa.array builds.
@pytest.mark.parametrize("arrow_type,values", [
    (pa.int8(), [-128, 0, 127, None]), (pa.int16(), [-(2 ** 15), 2 ** 15 - 1]),
    (pa.int32(), [None, -(2 ** 31), 2 ** 31 - 1]), (pa.int64(), [-(2 ** 63), 0, 2 ** 63 - 1]),
    (pa.uint8(), [0, 255]), (pa.uint16(), [65535]), (pa.uint32(), [2 ** 32 - 1, None]),
    (pa.uint64(), [2 ** 64 - 1]), (pa.float32(), [0.1, -1.5, float("inf"), None]),
    (pa.float64(), [0.1, float("-inf"), 1e300, None]), (pa.bool_(), [True, False, None, True]),
    (pa.date32(), [datetime.date(1970, 1, 1), datetime.date(1969, 12, 31), None,
                   datetime.date(9999, 12, 31)]),
    (pa.string(), ["", "abc", None, "żółw 🐢"]), (pa.large_string(), ["x", None]),
    (pa.binary(), [b"\x00\x01", b"", None]), (pa.large_binary(), [b"y"]),
    (pa.int64(), []), (pa.string(), [None, None]),
    (pa.int32(), [1] * 9 + [None] * 9),  # validity bitmap over more than one byte
] + [(pa.timestamp(unit, tz=tz), [
    datetime.datetime(2024, 5, 1, 1, 2, 3, 456789), datetime.datetime(2024, 5, 1), None,
    datetime.datetime(1969, 12, 31, 23, 59, 59, 999999),  # sub-unit digits of a negative tick
    datetime.datetime(1900, 3, 1, 12, tzinfo=datetime.timezone(datetime.timedelta(hours=-5))),
    datetime.datetime(2024, 3, 31, 2, 30, tzinfo=datetime.timezone.utc)])
    for unit in ("s", "ms", "us", "ns") for tz in (None, "UTC", "Asia/Shanghai")])
def test_literal_arrays_equal_what_pyarrow_builds(arrow_type, values):
    from paimon_rowid._internal._arrow import literal_array
    built = literal_array(values, arrow_type, "c")
    built.validate(full=True)
    assert built.equals(pa.array(values, type=arrow_type))


@pytest.mark.parametrize("arrow_type,value", [
    (pa.int8(), 128), (pa.uint8(), -1), (pa.int64(), 2 ** 63), (pa.int32(), "7"),
    (pa.int32(), True), (pa.string(), b"bytes"), (pa.binary(), "text"),
    (pa.timestamp("us"), 1_700_000_000), (pa.timestamp("ns"), "2024-01-01"),
    (pa.string(), "\ud800"), (pa.date32(), "2024-01-01"),
])
def test_literals_outside_the_fast_path_keep_pyarrows_verdict(arrow_type, value):
    """Values the buffer path does not take go to pa.array: what it refuses is a ValueError
    naming the field, what it accepts comes out as it builds it."""
    from paimon_rowid._internal._arrow import literal_array
    try:
        expected = pa.array([value], type=arrow_type)
    except (pa.ArrowException, TypeError, ValueError, OverflowError):
        with pytest.raises(ValueError, match="field 'c'"):
            literal_array([value], arrow_type, "c")
    else:
        assert literal_array([value], arrow_type, "c").equals(expected)
