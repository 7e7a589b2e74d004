"""paimon_rowid._internal._retry.retry, the package's one retry loop (Ray compaction's re-plan on a
lost commit; tests/test_ray_compact.py runs it against a real concurrent compaction)."""
from __future__ import annotations

import pytest

from paimon_rowid._internal._retry import retry


class Lost(Exception):
    pass


def test_retries_on_the_named_error_and_returns_the_first_result():
    calls = []

    def attempt(number):
        calls.append(number)
        if number < 3:
            raise Lost(number)
        return f"done in {number}"

    assert retry(attempt, on=Lost, attempts=3) == "done in 3"
    assert calls == [1, 2, 3]


def test_the_last_attempts_error_is_raised():
    calls = []

    def attempt(number):
        calls.append(number)
        raise Lost(number)

    with pytest.raises(Lost) as raised:
        retry(attempt, on=(KeyError, Lost), attempts=2)
    assert raised.value.args == (2,) and calls == [1, 2]


def test_other_errors_are_not_retried():
    calls = []

    def attempt(number):
        calls.append(number)
        raise ValueError("bad input")

    with pytest.raises(ValueError, match="bad input"):
        retry(attempt, on=Lost, attempts=3)
    assert calls == [1]


def test_attempts_must_be_positive():
    with pytest.raises(ValueError, match="at least 1"):
        retry(lambda number: number, on=Lost, attempts=0)
