"""Commits to a warehouse on the local S3 server (tests/s3_server.py): concurrent committers
in several processes, and the guard for stores without conditional writes
(docs/object-stores.md, "Commits").

- 4 processes × 25 commits to one table: every commit lands as its own snapshot (100), no
  row is lost, no row id is given twice. The snapshot file is created by a conditional PUT
  (If-None-Match: *), so a committer that loses a race gets 412 and retries on the next id
  (``commit.max-retries`` raised: with four writers racing, one can lose more than ten rounds).
- ``s3.put-if-absent=false`` (a store that ignores If-None-Match): a commit is refused with
  NotImplementedError naming the way out, and nothing is committed or left behind; with
  ``s3.commit.single-writer=true`` the same commit lands.
- Unknown or conflicting object-store options are a ValueError before any request.
"""
from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pyarrow as pa
import pytest

import ours

pytestmark = [pytest.mark.s3, pytest.mark.native]

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([("writer", pa.int32()), ("seq", pa.int32())])


def _table(options, name="t", extra=None):
    return ours.create_table(options, name, SCHEMA, dict(DE, **(extra or {})))


def ours_schema():
    from paimon_rowid import Schema
    return Schema.from_pyarrow_schema(SCHEMA, options=DE)


def _rows(writer: int, seq: int, n: int = 1) -> pa.Table:
    return pa.table({"writer": pa.array([writer] * n, pa.int32()),
                     "seq": pa.array([seq] * n, pa.int32())})


def _read(table) -> pa.Table:
    rb = table.new_read_builder().with_projection(["writer", "seq", "_ROW_ID"])
    return rb.new_read().to_arrow(rb.new_scan().plan().splits())


def _not_snapshot_objects(s3_server, warehouse: str):
    """Keys under the warehouse other than directory markers, schema and database objects."""
    return [k for k in s3_server.list_keys(warehouse) if not k.endswith("/")
            and "/schema/" not in k]


COMMITTER = textwrap.dedent("""
    import json, sys
    import pyarrow as pa
    sys.path.insert(0, sys.argv[3])
    import ours
    options, writer, commits = json.loads(sys.argv[1]), int(sys.argv[2]), 25
    table = ours.catalog(options).get_table("db.t")
    for seq in range(commits):
        ours.write(table, pa.table({"writer": pa.array([writer] * 3, pa.int32()),
                                    "seq": pa.array([seq] * 3, pa.int32())}))
    print("done", writer)
""")


def test_four_processes_commit_25_times_each(s3_server, tmp_path):
    options = s3_server.catalog_options(s3_server.fresh_warehouse("concurrent"))
    # Four writers racing for every snapshot: a writer may lose many rounds in a row, more
    # than the default 10 retries allow (Java's default too); the knob is the table's.
    _table(options, extra={"commit.max-retries": "200"})
    script = tmp_path / "committer.py"
    script.write_text(COMMITTER)
    tests_dir = str(Path(__file__).resolve().parent)
    procs = [subprocess.Popen([sys.executable, str(script), json.dumps(options), str(w),
                               tests_dir], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for w in range(4)]
    for p in procs:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err[-3000:]
        assert out.strip().startswith("done")
    table = ours.catalog(options).get_table("db.t")
    assert table.latest_snapshot()["id"] == 100
    rows = _read(table)
    assert rows.num_rows == 4 * 25 * 3
    ids = rows.column("_ROW_ID").to_pylist()
    assert sorted(ids) == list(range(300))  # no row id twice, none skipped
    pairs = sorted(zip(rows.column("writer").to_pylist(), rows.column("seq").to_pylist()))
    assert pairs == sorted((w, s) for w in range(4) for s in range(25) for _ in range(3))
    # Every snapshot 1..100 is there, and no probe or temp object was left.
    keys = s3_server.list_keys(options["warehouse"])
    snapshots = [k for k in keys if "/snapshot/snapshot-" in k]
    assert len(snapshots) == 100
    assert not [k for k in keys if ".put-if-absent-probe" in k or k.endswith(".tmp")]


def test_store_without_conditional_writes_refuses_to_commit(s3_server):
    options = s3_server.catalog_options(s3_server.fresh_warehouse("no-conditional"))
    _table(options)
    before = _not_snapshot_objects(s3_server, options["warehouse"])
    unsafe = dict(options, **{"s3.put-if-absent": "false"})
    table = ours.catalog(unsafe).get_table("db.t")
    with pytest.raises(NotImplementedError, match="s3.commit.single-writer"):
        ours.write(table, _rows(0, 0, 5))
    assert table.latest_snapshot() is None
    # The refused commit removed the data file and manifests it wrote.
    assert _not_snapshot_objects(s3_server, options["warehouse"]) == before


def test_single_writer_mode_commits_on_such_a_store(s3_server):
    options = s3_server.catalog_options(s3_server.fresh_warehouse("single-writer"))
    _table(options)
    single = dict(options, **{"s3.put-if-absent": "false", "s3.commit.single-writer": "true"})
    table = ours.catalog(single).get_table("db.t")
    ours.write(table, _rows(0, 0, 5))
    ours.write(table, _rows(0, 1, 5))
    table = ours.catalog(options).get_table("db.t")
    assert table.latest_snapshot()["id"] == 2
    assert _read(table).num_rows == 10


def test_probe_leaves_nothing_and_commits(s3_server):
    """The default (auto) probes the store once; moto honours If-None-Match."""
    options = s3_server.catalog_options(s3_server.fresh_warehouse("probe"))
    table = _table(options)
    ours.write(table, _rows(1, 1, 2))
    keys = s3_server.list_keys(options["warehouse"])
    assert not [k for k in keys if ".put-if-absent-probe" in k]
    assert [k.rsplit("/", 1)[1] for k in keys if "/snapshot/" in k and not k.endswith("/")] \
        == ["LATEST", "snapshot-1"]


@pytest.mark.parametrize("bad, error", [
    ({"fs.s3.endpiont": "http://x"}, "unknown object-store option 'fs.s3.endpiont'"),
    ({"s3.connection.maximum": "4"}, "unknown object-store option 's3.connection.maximum'"),
    ({"s3.access-key": "other"}, "conflicting access key options"),
    ({"s3.put-if-absent": "sometimes"}, "must be true or false"),
    ({"fs.s3.endpoint": "ftp://h"}, "must be http:// or https://"),
])
def test_bad_options_are_refused_before_any_request(s3_server, bad, error):
    options = s3_server.catalog_options(s3_server.fresh_warehouse("bad-options"))
    with pytest.raises(ValueError, match=error):
        ours.catalog(dict(options, **bad))
    assert s3_server.list_keys(options["warehouse"]) == []


def test_unsupported_scheme_is_refused():
    from paimon_rowid import CatalogFactory
    with pytest.raises(NotImplementedError, match="filesystem 'hdfs'"):
        CatalogFactory.create({"warehouse": "hdfs://nn:8020/wh"})


@contextlib.contextmanager
def _proxy(upstream: str, strip: bool):
    """tests/s3_proxy.py in its own process (our native calls may hold the GIL, which an
    in-process proxy thread would need): yields its endpoint."""
    args = [sys.executable, str(Path(__file__).with_name("s3_proxy.py")), "--upstream", upstream]
    proc = subprocess.Popen(args + (["--strip-conditional"] if strip else []),
                            stdout=subprocess.PIPE, text=True)
    try:
        yield proc.stdout.readline().strip()
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_probe_detects_a_store_that_ignores_conditional_writes(s3_server):
    """Behind a proxy that drops If-None-Match (a store without conditional writes), the
    default `auto` probe finds out on the first commit: the commit is refused, nothing is
    committed or left behind (the probe's object included). Through the same proxy without
    stripping, the probe passes and the commit lands."""
    from s3_proxy import remote_counts, remote_reset
    warehouse = s3_server.fresh_warehouse("stripped")
    _table(s3_server.catalog_options(warehouse))  # creating schema-0 is refused there too
    with _proxy(s3_server.endpoint, strip=True) as endpoint:
        # Another endpoint, so another FileIO with its own probe (results are per client).
        options = dict(s3_server.catalog_options(warehouse), **{"fs.s3.endpoint": endpoint})
        with pytest.raises(NotImplementedError, match="does not honour conditional writes"):
            ours.catalog(options).create_table("db.u", ours_schema(), False)
        before = _not_snapshot_objects(s3_server, warehouse)
        table = ours.catalog(options).get_table("db.t")
        with pytest.raises(NotImplementedError, match="does not honour conditional writes"):
            ours.write(table, _rows(0, 0, 4))
        assert table.latest_snapshot() is None
        assert _not_snapshot_objects(s3_server, warehouse) == before
        assert not [k for k in s3_server.list_keys(warehouse) if ".put-if-absent-probe" in k]
    with _proxy(s3_server.endpoint, strip=False) as endpoint:
        options = dict(s3_server.catalog_options(warehouse), **{"fs.s3.endpoint": endpoint})
        table = ours.catalog(options).get_table("db.t")
        remote_reset(endpoint)
        ours.write(table, _rows(0, 0, 4))
        counts = remote_counts(endpoint)
        assert table.latest_snapshot()["id"] == 1
        # One commit of one small file, probe included: a bounded number of requests, and
        # every PUT a single request (no multipart upload of small objects).
        assert counts["POST"] == 0, counts
        assert counts["requests"] <= 40, counts
