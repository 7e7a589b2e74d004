"""The command-line tool (``paimon-rowid``, python/paimon_rowid/cli.py), as pip installs it
next to the interpreter, and the C++ examples (examples/read_table.cc,
examples/update_by_row_id.cc), built by scripts/test.sh into build/cpp, run against tables
written (or read back) by the Python API. In CI a missing example binary fails; elsewhere it
skips."""
from __future__ import annotations

import glob
import json
import os
import subprocess
import sys

import pyarrow as pa
import pytest

pytestmark = pytest.mark.native

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _binary(relative: str) -> str:
    explicit = os.environ.get("PAIMON_ROWID_BUILD_DIR")
    dirs = [explicit] if explicit else [os.path.join(ROOT, "build", "cpp")] + sorted(
        glob.glob(os.path.join(ROOT, "build*")))
    for d in dirs:
        path = os.path.join(d, relative)
        if os.path.exists(path):
            return path
    if os.environ.get("CI"):
        pytest.fail(f"{relative} was not built (scripts/test.sh builds it into build/cpp)")
    pytest.skip(f"{relative} is not built")


@pytest.fixture
def table(warehouse):
    from paimon_rowid import CatalogFactory, Schema
    c = CatalogFactory.create({"warehouse": warehouse})
    c.create_database("db", True)
    c.create_table("db.t", Schema.from_pyarrow_schema(
        pa.schema([("id", pa.int64()), ("name", pa.string())]),
        options={"row-tracking.enabled": "true", "data-evolution.enabled": "true"}), False)
    t = c.get_table("db.t")
    wb = t.new_batch_write_builder()
    w, cm = wb.new_write(), wb.new_commit()
    w.write_arrow(pa.table({"id": pa.array(range(10), pa.int64()),
                            "name": [f"n{i}" for i in range(10)]}))
    cm.commit(w.prepare_commit())
    return warehouse


# The console script pip installed with the package (pyproject.toml [project.scripts]).
CLI = os.path.join(os.path.dirname(sys.executable), "paimon-rowid")


def _run(*argv, stdin=None, command=(CLI,)):
    return subprocess.run([*command, *argv], input=stdin, capture_output=True, text=True,
                          timeout=120)


def _cli(warehouse, verb, *rest, stdin=None):
    """``paimon-rowid VERB WAREHOUSE ...`` (the verb comes first on the command line)."""
    return _run(verb, warehouse, *rest, stdin=stdin)


def test_cli_reads_updates_and_plans(table):
    assert _cli(table, "tables", "db").stdout.split() == ["t"]
    out = _cli(table, "read-by-row-id", "db.t", "--ids", "7,2,2", "--columns", "name")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ['"name","_ROW_ID"', '"n2",2', '"n7",7']
    up = _cli(table, "update-by-row-id", "db.t", "--columns", "name", "--input", "-",
              stdin="_ROW_ID,name\n3,three\n")
    assert up.returncode == 0, up.stderr
    assert '"num_updated": 1' in up.stdout
    read = _cli(table, "read", "db.t", "--columns", "name", "--range", "3", "4")
    assert read.stdout.splitlines()[1:] == ['"three",3', '"n4",4']
    assert _cli(table, "ranges", "db.t").stdout.split() == ["0-9"]
    bad = _cli(table, "update-by-row-id", "db.t", "--columns", "name", "--input", "-",
               stdin="_ROW_ID,name\n99,x\n")
    assert bad.returncode == 2 and "does not belong to any valid range" in bad.stderr


def test_cli_deletes_by_row_id(warehouse):
    from paimon_rowid import CatalogFactory, Schema
    c = CatalogFactory.create({"warehouse": warehouse})
    c.create_database("db", True)
    c.create_table("db.d", Schema.from_pyarrow_schema(
        pa.schema([("id", pa.int64()), ("name", pa.string())]),
        options={"row-tracking.enabled": "true", "data-evolution.enabled": "true",
                 "deletion-vectors.enabled": "true"}), False)
    t = c.get_table("db.d")
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(pa.table({"id": pa.array(range(5), pa.int64()), "name": list("abcde")}))
    wb.new_commit().commit(w.prepare_commit())
    out = _cli(warehouse, "delete-by-row-id", "db.d", "--ids", "1,3,3")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == '{"snapshot_id": 2}'
    assert t.latest_snapshot().commit_kind == "OVERWRITE"
    read = _cli(warehouse, "read", "db.d", "--columns", "name")
    assert read.stdout.splitlines()[1:] == ['"a",0', '"c",2', '"e",4']
    # A deleted id is refused by update-by-row-id (as pypaimon.ray does); nothing committed.
    up = _cli(warehouse, "update-by-row-id", "db.d", "--columns", "name", "--input", "-",
              stdin="_ROW_ID,name\n3,x\n")
    assert up.returncode == 2 and "Cannot update deleted _ROW_ID 3." in up.stderr
    assert t.latest_snapshot().id == 2
    bad = _cli(warehouse, "delete-by-row-id", "db.d", "--ids", "9")
    assert bad.returncode == 2 and "Row ID 9 does not belong to any valid range" in bad.stderr


def test_cpp_example_reads_the_table(table):
    run = subprocess.run([_binary("examples/read_table"), table, "db.t", "2", "4"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "3 rows" in run.stdout and "n3" in run.stdout


def test_cpp_update_example_is_read_by_python(warehouse):
    """examples/update_by_row_id.cc writes, updates by row id and reads back in C++; the
    Python API then sees the same rows (one engine, one table format)."""
    run = subprocess.run([_binary("examples/update_by_row_id"), warehouse, "ex.people"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "updated 2 rows" in run.stdout and "ok: " in run.stdout
    from paimon_rowid import CatalogFactory
    t = CatalogFactory.create({"warehouse": warehouse}).get_table("ex.people")
    rb = t.new_read_builder()
    got = rb.new_read().to_arrow(rb.new_scan().plan().splits()).sort_by("id")
    assert got.column("name").to_pylist() == ["alice", "BOB", "carol", "DAVE", "erin"]
    assert got.column("score").to_pylist() == [1.5, 2.5, 3.5, 4.5, 5.5]


@pytest.mark.parametrize("args,message", [
    (["read-by-row-id", "db.t", "--ids", "abc"], "--ids: 'abc' is not an integer"),
    (["read-by-row-id", "db.t", "--ids", "99999999999999999999"],
     "--ids: '99999999999999999999' is out of range"),
    (["read-by-row-id", "db.t", "--ids", "1.5"], "--ids: '1.5' is not an integer"),
    (["read-by-row-id", "db.t", "--ids", "0x10"], "--ids: '0x10' is not an integer"),
    (["read", "db.t", "--range", "5", "a"], "--range: 'a' is not an integer"),
    (["read", "db.t", "--range", "10", "5"], "need 0 <= FROM <= TO"),
    (["read", "db.t", "--range", "-1", "5"], "need 0 <= FROM <= TO"),
    (["ranges", "db.t", "--rows-per-batch", "x"], "--rows-per-batch: 'x' is not an integer"),
    (["ranges", "db.t", "--rows-per-batch", "0"], "--rows-per-batch: must be a positive"),
])
def test_cli_refuses_bad_numbers(table, args, message):
    """Every invalid number exits 2 with a message naming the option (it used to abort)."""
    run = _cli(table, *args)
    assert run.returncode == 2, (run.returncode, run.stderr)
    assert message in run.stderr and run.stdout == ""


@pytest.mark.s3
def test_cli_on_an_s3_warehouse(s3_server):
    """--option KEY=VALUE carries the catalog options: the same verbs on an s3:// warehouse."""
    import ours
    options = s3_server.catalog_options(s3_server.fresh_warehouse("cli"))
    t = ours.create_table(options, "t", pa.schema([("id", pa.int64()), ("name", pa.string())]),
                          {"row-tracking.enabled": "true", "data-evolution.enabled": "true"})
    ours.write(t, pa.table({"id": pa.array(range(5), pa.int64()),
                            "name": [f"n{i}" for i in range(5)]}))
    flags = [f for k, v in options.items() if k != "warehouse" for f in ("--option", f"{k}={v}")]
    uri = options["warehouse"]
    out = _cli(uri, "read-by-row-id", "db.t", "--ids", "4,1", "--columns", "name", *flags)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ['"name","_ROW_ID"', '"n1",1', '"n4",4']
    up = _cli(uri, "update-by-row-id", "db.t", "--columns", "name", "--input", "-", *flags,
              stdin="_ROW_ID,name\n2,two\n")
    assert up.returncode == 0, up.stderr
    rb = ours.catalog(options).get_table("db.t").new_read_builder()
    names = rb.new_read().to_arrow(rb.new_scan().plan().splits()).column("name").to_pylist()
    assert names == ["n0", "n1", "two", "n3", "n4"]
    typo = _cli(uri, "tables", "db", *flags, "--option", "fs.s3.endpiont=x")
    assert typo.returncode == 2 and "unknown object-store option 'fs.s3.endpiont'" in typo.stderr
    bad = _cli(uri, "tables", "db", "--option", "novalue")
    assert bad.returncode == 2 and "expected KEY=VALUE" in bad.stderr


VERBS = ["databases", "tables", "schema", "snapshot", "ranges", "scan", "read",
         "read-by-row-id", "update-by-row-id", "delete-by-row-id", "compact", "expire-snapshots",
         "remove-orphan-files", "backfill-status", "tags", "create-tag", "delete-tag",
         "alter", "rename-tag", "replace-tag", "rollback"]


@pytest.mark.parametrize("verb", VERBS)
def test_every_verb_has_help(verb):
    run = _run(verb, "--help")
    assert run.returncode == 0, run.stderr
    shown = "scan" if verb == "read" else verb  # read is scan's alias
    assert run.stdout.startswith(f"usage: paimon-rowid {shown} ") and "--option KEY=VALUE" in \
        run.stdout and "--json" in run.stdout


def test_top_level_help_and_python_m():
    for command in ((CLI,), (sys.executable, "-m", "paimon_rowid")):
        run = _run("--help", command=command)
        assert run.returncode == 0, run.stderr
        assert all(verb in run.stdout for verb in VERBS)
    none = _run()
    assert none.returncode == 2 and "expire-snapshots" in none.stderr


@pytest.mark.parametrize("argv,message", [
    (["scan", "WH", "db.t", "--colums", "a"], "unrecognized arguments: --colums a"),
    (["read-by-row-id", "WH", "db.t"], "the following arguments are required: --ids"),
    (["frobnicate", "WH"], "invalid choice: 'frobnicate'"),
    (["compact", "WH", "db.t", "--threads", "2000"], "--threads: must be in [0, 1024]"),
    (["tables", "WH", "db", "--option", "warehouse=/x"], "the warehouse is the first argument"),
])
def test_bad_command_lines_exit_2_before_touching_anything(tmp_path, argv, message):
    """argparse refuses them: nothing is read or written (the warehouse does not even exist)."""
    run = _run(*[str(tmp_path / "wh") if a == "WH" else a for a in argv])
    assert run.returncode == 2 and message in run.stderr and run.stdout == ""
    assert os.listdir(tmp_path) == []


def test_cli_refuses_ids_that_are_not_integers_and_writes_nothing(table):
    import ours
    before = ours.files(table)
    for ids in ("1.5", "true", "3a"):
        run = _cli(table, "delete-by-row-id", "db.t", "--ids", ids)
        assert run.returncode == 2 and f"--ids: '{ids}' is not an integer" in run.stderr
    up = _cli(table, "update-by-row-id", "db.t", "--columns", "name", "--input", "-",
              stdin="_ROW_ID,name\n1.5,x\n")
    assert up.returncode == 2 and "row ids must be integers: column '_ROW_ID' is double" \
        in up.stderr
    assert ours.files(table) == before


def test_cli_json_output(table):
    assert json.loads(_cli(table, "databases", "--json").stdout) == ["db"]
    assert json.loads(_cli(table, "tables", "db", "--json").stdout) == ["t"]
    out = _cli(table, "read-by-row-id", "db.t", "--ids", "7,2", "--columns", "name", "--json")
    assert [json.loads(line) for line in out.stdout.splitlines()] == [
        {"name": "n2", "_ROW_ID": 2}, {"name": "n7", "_ROW_ID": 7}]
    scan = _cli(table, "scan", "db.t", "--range", "8", "9", "--json")
    assert [json.loads(line) for line in scan.stdout.splitlines()] == [
        {"id": 8, "name": "n8", "_ROW_ID": 8}, {"id": 9, "name": "n9", "_ROW_ID": 9}]
    assert json.loads(_cli(table, "ranges", "db.t", "--json").stdout) == [[[0, 9]]]
    assert json.loads(_cli(table, "snapshot", "db.t", "--json").stdout)["id"] == 1
    compacted = json.loads(_cli(table, "compact", "db.t", "--json").stdout)
    assert compacted["snapshot_id"] is None and compacted["groups_total"] == 1
    status = json.loads(_cli(table, "backfill-status", "db.t", "--key", "k", "--json").stdout)
    assert status == {"key": "k", "rows_done": 0, "rows_pending": 10, "done": [],
                      "pending": [[0, 9]]}
    text = _cli(table, "backfill-status", "db.t", "--key", "k").stdout
    assert "rows pending: 10" in text and "ranges pending: 0-9" in text


def test_cli_ipc_output_and_input(table):
    import pyarrow.ipc as ipc
    out = subprocess.run([CLI, "read-by-row-id", table, "db.t", "--ids", "1", "--ipc"],
                         capture_output=True, timeout=120)
    assert out.returncode == 0, out.stderr
    got = ipc.open_stream(out.stdout).read_all()
    assert got.to_pylist() == [{"id": 1, "name": "n1", "_ROW_ID": 1}]
    sink = pa.BufferOutputStream()
    with ipc.new_stream(sink, pa.schema([("_ROW_ID", pa.int64()), ("name", pa.string())])) as w:
        w.write_table(pa.table({"_ROW_ID": pa.array([1], pa.int64()), "name": ["one"]}))
    up = subprocess.run([CLI, "update-by-row-id", table, "db.t", "--columns", "name"],
                        input=sink.getvalue().to_pybytes(), capture_output=True, timeout=120)
    assert up.returncode == 0, up.stderr
    assert json.loads(up.stdout) == {"num_updated": 1, "snapshot_id": 2}


def test_cli_tags(table):
    assert _cli(table, "create-tag", "db.t", "v1").returncode == 0
    assert _cli(table, "tags", "db.t", "--json").stdout.strip() == '["v1"]'
    again = _cli(table, "create-tag", "db.t", "v1")
    assert again.returncode != 0 and "v1" in again.stderr
    assert _cli(table, "delete-tag", "db.t", "v1").stdout.strip() == "deleted tag v1"
    assert _cli(table, "tags", "db.t").stdout == ""
