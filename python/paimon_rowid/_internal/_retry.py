"""The one retry loop of the package: run an attempt again while it fails with the error that
means "start over" (a commit that lost to another one), at most ``attempts`` times."""
from __future__ import annotations

from typing import Callable, Tuple, Type, TypeVar, Union

T = TypeVar("T")


def retry(attempt: Callable[[int], T], *,
          on: Union[Type[BaseException], Tuple[Type[BaseException], ...]], attempts: int) -> T:
    """Calls ``attempt(1)``, ``attempt(2)``, ... until one returns, and returns its result. An
    ``on`` error starts the next attempt, and is raised from the last one; any other error is
    raised at once. Each attempt starts from scratch (it re-plans); nothing waits in between."""
    if attempts < 1:
        raise ValueError(f"attempts must be at least 1, got {attempts}.")
    for number in range(1, attempts):
        try:
            return attempt(number)
        except on:
            continue
    return attempt(attempts)
