"""Range: pypaimon's semantics (inclusive bounds, merge rules, value semantics)."""
import pickle
import random

import pytest

from paimon_rowid import Range
from paimon_rowid.range import normalize_ranges


def test_construction_and_errors():
    r = Range(3, 7)
    assert (r.from_, r.to) == (3, 7)
    assert Range(5, 5).count() == 1
    assert Range(from_=1, to=2) == Range(1, 2)
    with pytest.raises(ValueError, match=r"^Invalid range: from \(5\) > to \(4\)$"):
        Range(5, 4)
    with pytest.raises(AttributeError):
        r.to = 9


def test_repr_eq_hash_order_pickle():
    assert repr(Range(1, 2)) == "Range(1, 2)"
    assert str([Range(0, 2), Range(3, 3)]) == "[Range(0, 2), Range(3, 3)]"
    assert Range(1, 2) == Range(1, 2) and Range(1, 2) != Range(1, 3)
    assert Range(1, 2) != (1, 2)
    assert len({Range(1, 2), Range(1, 2), Range(2, 2)}) == 2
    assert sorted([Range(3, 4), Range(1, 9), Range(1, 2)]) == [Range(1, 2), Range(1, 9),
                                                               Range(3, 4)]
    assert pickle.loads(pickle.dumps(Range(4, 8))) == Range(4, 8)


def test_contains_overlaps_count():
    r = Range(10, 20)
    assert r.contains(10) and r.contains(20) and not r.contains(9) and not r.contains(21)
    assert r.count() == 11
    assert r.overlaps(Range(20, 30)) and r.overlaps(Range(0, 10)) and r.overlaps(Range(12, 13))
    assert not r.overlaps(Range(21, 30)) and not r.overlaps(Range(0, 9))
    assert Range.intersect(0, 5, 5, 9) and not Range.intersect(0, 4, 5, 9)


def test_exclude():
    r = Range(0, 10)
    assert r.exclude([]) == [r]
    assert r.exclude([Range(3, 4)]) == [Range(0, 2), Range(5, 10)]
    assert r.exclude([Range(8, 20), Range(-5, 1)]) == [Range(2, 7)]
    assert r.exclude([Range(0, 10)]) == []
    assert r.exclude([Range(20, 30)]) == [r]
    assert r.exclude([Range(2, 3), Range(3, 6)]) == [Range(0, 1), Range(7, 10)]


def test_to_ranges():
    assert Range.to_ranges([]) == []
    assert Range.to_ranges([5, 1, 2, 3, 9, 10]) == [Range(1, 3), Range(5, 5), Range(9, 10)]
    assert Range.to_ranges([7]) == [Range(7, 7)]
    # pypaimon semantics: a duplicate id ends a run
    assert Range.to_ranges([1, 1, 2]) == [Range(1, 1), Range(1, 2)]


def test_and():
    a = [Range(0, 5), Range(10, 20)]
    b = [Range(3, 12), Range(18, 30)]
    assert Range.and_(a, b) == [Range(3, 5), Range(10, 12), Range(18, 20)]
    assert Range.and_(a, []) == [] and Range.and_([], b) == []
    assert Range.and_([Range(0, 3)], [Range(4, 5)]) == []
    assert Range.and_([Range(0, 10)], [Range(0, 10)]) == [Range(0, 10)]


def test_merge_rules():
    rs = [Range(5, 6), Range(0, 2), Range(3, 4), Range(10, 12), Range(11, 11)]
    assert Range.merge_sorted_as_possible(rs) == [Range(0, 6), Range(10, 12)]
    assert Range.sort_and_merge_overlap(rs) == [Range(0, 6), Range(10, 12)]
    assert Range.sort_and_merge_overlap(rs, adjacent=False) == [
        Range(0, 2), Range(3, 4), Range(5, 6), Range(10, 12)]
    assert Range.sort_and_merge_overlap(rs, merge=False) == sorted(rs, key=lambda r: r.from_)
    assert Range.sort_and_merge_overlap([]) == []
    assert Range.merge_sorted_as_possible([]) == []


def test_normalize_accepts_pairs():
    assert normalize_ranges([(4, 5), Range(0, 3), [9, 9]]) == [Range(0, 5), Range(9, 9)]
    with pytest.raises(ValueError):
        normalize_ranges([(3, 2)])
    with pytest.raises(TypeError):
        normalize_ranges(["ab"])


def _model_merge(ranges, adjacent):
    ids = set()
    for r in ranges:
        ids.update(range(r.from_, r.to + 1))
    out = []
    for i in sorted(ids):
        if out and (i == out[-1][1] + 1):
            out[-1][1] = i
        else:
            out.append([i, i])
    merged = [Range(a, b) for a, b in out]
    return merged if adjacent else None


@pytest.mark.parametrize("seed", range(20))
def test_randomised_against_set_model(seed):
    rnd = random.Random(seed)
    rs = []
    for _ in range(rnd.randint(0, 12)):
        a = rnd.randint(0, 60)
        rs.append(Range(a, a + rnd.randint(0, 8)))
    merged = Range.sort_and_merge_overlap(rs)
    assert merged == _model_merge(rs, True)
    covered = {i for r in rs for i in range(r.from_, r.to + 1)}
    other = [Range(a, a + rnd.randint(0, 5)) for a in rnd.sample(range(70), 5)]
    other_ids = {i for r in other for i in range(r.from_, r.to + 1)}
    got = {i for r in Range.and_(merged, Range.sort_and_merge_overlap(other))
           for i in range(r.from_, r.to + 1)}
    assert got == covered & other_ids
    big = Range(0, 80)
    assert {i for r in big.exclude(rs) for i in range(r.from_, r.to + 1)} == set(
        range(81)) - covered
