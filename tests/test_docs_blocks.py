"""Every Python block of README.md and docs/*.md runs as written (issue 47 §4).

A page's blocks run in order in one namespace, so a page may open with a set-up block (shown
in the page) that later blocks use. The only change made to a block is the warehouse path:
``/tmp/warehouse`` becomes a fresh directory of the test. A page whose blocks use Ray
(``paimon_rowid.ray``, ``import ray``, ``to_ray``/``write_ray``) runs on the session's local
Ray (marker ``ray``, xdist group ``ray``). The pages of ``S3_PAGES`` talk to an object store:
they run against the local S3 server (marker ``s3``), their example endpoint, bucket and
credentials replaced by the server's; the pages of ``REST_PAGES`` run against Java Paimon's
REST catalog test server (marker ``java``), their example URI, warehouse name and token
replaced by the server's. A block that cannot run here says so in the page, in
an HTML comment on the line before it: ``<!-- not run by tests: <reason> -->``; every such
comment is listed in ``NOT_RUN`` below, so a new one cannot slip in unnoticed.
"""
from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

import pytest

pytestmark = pytest.mark.native

ROOT = Path(__file__).resolve().parents[1]
WAREHOUSE = "/tmp/warehouse"
_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
_NOT_RUN = re.compile(r"^<!--\s*not run by tests:\s*(.*?)\s*-->$")
_USES_RAY = re.compile(r"paimon_rowid\.ray\b|^\s*import ray\b|\.to_ray\(|\.write_ray\(", re.M)

# (page, the block's first line of code) -> the reason the page gives for not running it.
NOT_RUN: Dict[tuple, str] = {
    ("docs/backfill.md", "def process_ranges(ranges):"):
        "asks Ray for GPUs (num_gpus=1); tests/test_ray_backfill.py runs the seed's code on CPUs",
    ("docs/backfill.md", "from paimon_rowid.ray import backfill"):
        "asks Ray for GPUs (num_gpus=1); tests/test_ray_backfill.py runs the same call on CPUs",
}


# page -> the placeholders of its store, replaced by the local S3 server's values
_S3_PLACEHOLDERS = [("s3://my-bucket/lake", "warehouse"),
                    ("http://minio.internal:9000", "endpoint"),
                    ('"fs.s3.accessKeyId": "..."', "access_key"),
                    ('"fs.s3.accessKeySecret": "..."', "secret_key")]
S3_PAGES: Dict[str, List[Tuple[str, str]]] = {
    "docs/object-stores.md": _S3_PLACEHOLDERS,
    "docs/ray-cluster.md": _S3_PLACEHOLDERS,
}
# page -> the placeholders of its REST catalog, replaced by the test server's values
REST_PAGES: Dict[str, List[Tuple[str, str]]] = {
    "docs/rest-catalog.md": [("http://catalog-host:8080", "uri"),
                             ('"my_warehouse"', "warehouse"), ('"my-token"', "token")],
}
# Pages whose blocks another test runs, in the setting they describe.
RUN_ELSEWHERE = {"docs/ray-cluster.md": "tests/test_ray_cluster_docs.py (a 3-node local cluster)"}


class Block(NamedTuple):
    page: str
    line: int      # the line of the block's first code line in the page (1-based)
    code: str
    not_run: str   # the reason given in the page, or ""


def page_blocks(page: str) -> List[Block]:
    text = (ROOT / page).read_text()
    blocks = []
    for match in _FENCE.finditer(text):
        if match.group(1) != "python":
            continue
        before = text[:match.start()]
        reason = _NOT_RUN.match(before.rstrip("\n").rsplit("\n", 1)[-1].strip())
        blocks.append(Block(page, before.count("\n") + 2, match.group(2),
                            reason.group(1) if reason else ""))
    return blocks


def _pages() -> List[str]:
    pages = ["README.md"] + [f"docs/{p.name}" for p in sorted((ROOT / "docs").glob("*.md"))]
    return [p for p in pages if page_blocks(p)]


def _uses_ray(page: str) -> bool:
    """A block that is run uses Ray in its code (comments naming the Ray variant do not count)."""
    return any(_USES_RAY.search(re.sub(r"#.*", "", b.code)) for b in page_blocks(page)
               if not b.not_run)


def run_page(page: str, warehouse: Path, s3: Optional[Tuple[str, str]] = None,
             rest: Any = None) -> tuple:
    """Runs the page's blocks in order in one namespace; returns (namespace, stdout). ``s3``:
    (the S3 server's endpoint, a warehouse URI on it) for the pages of ``S3_PAGES``; ``rest``:
    the REST catalog test server (tests/rest_server.py) for the pages of ``REST_PAGES``."""
    replace = [(WAREHOUSE, str(warehouse))]
    if page in REST_PAGES:
        assert rest is not None, f"{page} needs the REST catalog server"
        values = {"uri": rest.uri, "warehouse": f'"{rest.warehouse}"',
                  "token": f'"{rest.token}"'}
        for text, what in REST_PAGES[page]:
            assert any(text in b.code for b in page_blocks(page)), (page, text)
            replace.append((text, values[what]))
    if page in S3_PAGES:
        from s3_server import ACCESS_KEY, SECRET_KEY

        assert s3 is not None, f"{page} needs the S3 server"
        endpoint, uri = s3
        values = {"warehouse": uri, "endpoint": endpoint,
                  "access_key": f'"fs.s3.accessKeyId": "{ACCESS_KEY}"',
                  "secret_key": f'"fs.s3.accessKeySecret": "{SECRET_KEY}"'}
        for text, what in S3_PAGES[page]:
            assert any(text in b.code for b in page_blocks(page)), (page, text)
            replace.append((text, values[what]))
    namespace: dict = {"__name__": "__docs__"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for block in page_blocks(page):
            if block.not_run:
                continue
            code = block.code
            for text, value in replace:
                code = code.replace(text, value)
            code = "\n" * (block.line - 1) + code
            exec(compile(code, str(ROOT / page), "exec"), namespace)
    return namespace, out.getvalue()


def _marks(page: str) -> list:
    return (([pytest.mark.ray] if _uses_ray(page) else [])
            + ([pytest.mark.s3] if page in S3_PAGES else [])
            + ([pytest.mark.java] if page in REST_PAGES else []))


@pytest.mark.parametrize("page", [pytest.param(p, marks=_marks(p)) for p in _pages()
                                  if p != "README.md" and p not in RUN_ELSEWHERE])
def test_page_python_blocks_run_as_written(page, tmp_path, request):
    if _uses_ray(page):
        request.getfixturevalue("ray_session")
    s3 = None
    if page in S3_PAGES:
        server = request.getfixturevalue("s3_server")
        s3 = (server.endpoint, server.fresh_warehouse("docs"))
    rest = request.getfixturevalue("rest_server") if page in REST_PAGES else None
    namespace, _ = run_page(page, tmp_path / "warehouse", s3, rest)
    if page in REST_PAGES:  # the page's table exists on the server, empty
        from paimon_rowid.catalog.rest_catalog import RESTCatalog
        assert isinstance(namespace["catalog"], RESTCatalog)
        table = namespace["table"]
        assert table.field_names == ["id", "name"] and table.latest_snapshot() is None


def test_pages_say_which_blocks_do_not_run():
    found = {(b.page, b.code.splitlines()[0].split("  #")[0].strip()): b.not_run
             for p in _pages() for b in page_blocks(p) if b.not_run}
    assert found == NOT_RUN


def test_every_python_block_is_found():
    # A fence the pattern misses (another spelling of the language) would go untested.
    for page in ["README.md"] + [f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")]:
        text = (ROOT / page).read_text()
        opened = len(re.findall(r"^```\s*(?:py|python|python3|pycon)\s*$", text, re.M | re.I))
        assert opened == len(page_blocks(page)), page


def test_readme_python_blocks_run_in_order(tmp_path):
    """The README's second example backfills a new column of the first example's table."""
    blocks = page_blocks("README.md")
    assert len(blocks) >= 2, "the README's two Python examples are gone"
    assert all(WAREHOUSE in b.code for b in blocks)
    wh = tmp_path / "wh"
    namespace, out = run_page("README.md", wh)
    # The backfill computed the three rows in one commit, and the column holds their lengths.
    assert out.splitlines()[-1] == "3 1"
    table = namespace["catalog"].get_table("db.docs")
    rb = table.new_read_builder().with_projection(["id", "text_len"])
    rows = rb.new_read().to_arrow(rb.new_scan().plan().splits()).sort_by("id").to_pydict()
    assert rows == {"id": [1, 2, 3], "text_len": [1, 1, 1]}
    # Run again: the column exists, nothing is added or computed.
    schemas = sorted((wh / "db.db" / "docs" / "schema").iterdir())
    with contextlib.redirect_stdout(io.StringIO()) as again:
        exec(compile(blocks[1].code.replace(WAREHOUSE, str(wh)), "README.md", "exec"),
             namespace)
    assert again.getvalue().splitlines()[-1] == "0 0"
    assert sorted((wh / "db.db" / "docs" / "schema").iterdir()) == schemas


def test_readme_and_index_link_every_page():
    readme = (ROOT / "README.md").read_text()
    index = (ROOT / "docs" / "index.md").read_text()
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"](docs/{page.name})" in readme, f"README.md links no docs/{page.name}"
        if page.name != "index.md":
            assert f"]({page.name})" in index, f"docs/index.md links no {page.name}"
