"""An object store that cannot be reached fails fast (issue 44 §7): bounded connect and request
timeouts and attempts, under Hadoop S3A's option names (docs/object-stores.md). Against a
closed local port the first catalog call raises OSError in seconds, not minutes, and leaves
nothing behind (there is nowhere to leave it)."""
from __future__ import annotations

import socket
import time

import pytest

from paimon_rowid import CatalogFactory

pytestmark = pytest.mark.native


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _options(port, **extra):
    return {"warehouse": "s3://bucket/wh", "s3.endpoint": f"http://127.0.0.1:{port}",
            "s3.access-key": "k", "s3.secret-key": "s", "s3.region": "us-east-1", **extra}


@pytest.mark.timeout(120)
@pytest.mark.parametrize("extra", [{}, {"s3.attempts.maximum": "1",
                                        "s3.connection.establish.timeout": "1 s"}],
                         ids=["defaults", "one-attempt"])
def test_a_refused_connection_fails_within_seconds(extra):
    start = time.monotonic()
    with pytest.raises(OSError):
        CatalogFactory.create(_options(_closed_port(), **extra)).list_databases()
    elapsed = time.monotonic() - start
    # The defaults promise ~15 s (3 attempts); 45 s only guards against the old minutes.
    assert elapsed < 45, f"took {elapsed:.1f} s"


@pytest.mark.parametrize("key,value", [("s3.attempts.maximum", "0"),
                                       ("fs.s3a.connection.timeout", "never")])
def test_bad_timeout_options_are_refused(key, value):
    # (fs.s3a.* keys reach the engine under their s3.* name, as pypaimon maps them)
    with pytest.raises(ValueError, match=key.split(".", 2)[-1]):
        CatalogFactory.create(_options(_closed_port(), **{key: value})).list_databases()
