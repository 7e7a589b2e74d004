"""Shared fixtures: the package under test, the pypaimon oracle, warehouses.

- ``paimon_rowid`` is imported from an installed/editable build when there is one, otherwise
  from ``python/`` of this checkout (the pure-Python parts work without the native module).
- Tests marked ``native`` need ``paimon_rowid._native``. While it is not built they ERROR with
  a clear message (they are never skipped), and the summary counts them.
- ``oracle`` is a session-scoped pypaimon 2.1.0 in its own virtualenv (created on first use).
  With CI=true a missing oracle fails the tests; elsewhere they skip, saying why.
- ``s3_server`` is a session-scoped local S3 server (moto in server mode, tests/s3_server.py),
  for tests marked ``s3``. Same convention: with CI=true a failure to start it fails the tests.
"""
from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import Optional

import pytest

REPO = Path(__file__).resolve().parents[1]
if importlib.util.find_spec("paimon_rowid") is None:
    sys.path.insert(0, str(REPO / "python"))

from oracle import OracleUnavailable, default_venv, ensure_oracle  # noqa: E402


def native_available() -> bool:
    try:
        import paimon_rowid._native  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.fixture(autouse=True)
def _require_native(request):
    """Tests marked ``native`` error out (not skip) when the extension is missing."""
    if request.node.get_closest_marker("native") is None:
        return
    try:
        import paimon_rowid._native  # noqa: F401
    except ImportError as error:
        raise RuntimeError(
            f"paimon_rowid._native is not built, so this native test cannot run: {error}"
        ) from None


@pytest.fixture(scope="session")
def native():
    """The native module; errors (never skips) when it is not built. Depend on it from
    expensive module fixtures so they do not run for nothing."""
    try:
        import paimon_rowid._native as module
    except ImportError as error:
        raise RuntimeError(f"paimon_rowid._native is not built: {error}") from None
    return module


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


@pytest.fixture(scope="session")
def oracle():
    """pypaimon (in its own venv) driven through tests/oracle/driver.py."""
    try:
        instance = ensure_oracle(default_venv())
    except OracleUnavailable as error:
        message = (f"pypaimon oracle unavailable at {default_venv()} "
                   f"(set PAIMON_ROWID_ORACLE_VENV): {error}")
        if _in_ci():
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    yield instance
    instance.close()


@pytest.fixture(scope="session")
def java():
    """Java Paimon driven through tests/java/PaimonJavaOracle.java (compiled on first use).
    With CI=true a missing JDK/Maven fails the tests; elsewhere they skip, saying why."""
    from java import JAVA_PAIMON_VERSION, JavaOracleUnavailable, ensure_java_oracle

    try:
        instance = ensure_java_oracle()
    except JavaOracleUnavailable as error:
        message = f"Java Paimon {JAVA_PAIMON_VERSION} oracle unavailable: {error}"
        if _in_ci():
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    yield instance
    instance.close()


@pytest.fixture(scope="session")
def s3_server():
    """One local S3 server (moto server mode on 127.0.0.1) for the whole run; see
    tests/s3_server.py. Use ``s3_server.fresh_warehouse(name)`` for an empty warehouse."""
    from s3_server import S3Server, S3ServerUnavailable

    try:
        server = S3Server.start()
    except S3ServerUnavailable as error:
        message = f"local S3 server (moto) unavailable: {error}"
        if _in_ci():
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def rest_server(tmp_path_factory):
    """Java Paimon's REST catalog test server (tests/rest_server.py) for the whole run, its
    tables under a session directory. Tests use their own database names."""
    from java import JAVA_PAIMON_VERSION, JavaOracleUnavailable
    from rest_server import RestServer

    try:
        server = RestServer.start(str(tmp_path_factory.mktemp("rest-data")))
    except JavaOracleUnavailable as error:
        message = f"Java Paimon {JAVA_PAIMON_VERSION} REST server unavailable: {error}"
        if _in_ci():
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    yield server
    server.stop()


@pytest.fixture
def warehouse(tmp_path) -> str:
    """An empty warehouse directory for one test."""
    path = tmp_path / "warehouse"
    path.mkdir()
    return str(path)


def pytest_terminal_summary(terminalreporter):
    missing = [report for report in terminalreporter.stats.get("error", [])
               if "paimon_rowid._native is not built" in getattr(report, "longreprtext", "")]
    if missing:
        terminalreporter.write_sep(
            "=", f"{len(missing)} test(s) errored because paimon_rowid._native is not built",
            yellow=True)


@pytest.fixture(scope="session")
def ray_session():
    """One local Ray (2 CPUs) per pytest session, shared by the Ray test files. Always a new,
    private one (``address="local"``): a bare ``ray.init()`` joins whatever cluster
    ``/tmp/ray/ray_current_cluster`` names, e.g. a ``cluster_utils.Cluster`` another test run
    on this machine has up, and then refuses ``num_cpus``."""
    ray = pytest.importorskip("ray")
    if not ray.is_initialized():
        ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False,
                 configure_logging=False)
    yield ray
    ray.shutdown()


@pytest.hookimpl(tryfirst=True)  # before -m selects and before xdist reads the groups
def pytest_collection_modifyitems(config, items):
    """Marks every test that runs on Ray ``ray`` (CI runs ``-m ray`` again on the oldest Ray we
    support): those using the session's local Ray, and those in the Ray suites. Marks every
    test using the ``s3_server`` fixture ``s3``, and every test using ``java`` ``java``.

    Under pytest-xdist with ``--dist loadgroup`` (scripts/test.sh: 2 workers), each test that
    needs a shared, heavy resource goes to one group, run by a single worker: ``ray`` (the
    session's local Ray on 2 CPUs, ``cluster_utils`` clusters, Ray driver subprocesses),
    ``java`` (Maven's first fetch into one cache, a JVM per command), ``s3`` (one local S3
    server), in that order of precedence. Every other test is spread over the workers."""
    for item in items:
        module = getattr(item, "module", None)
        name = getattr(module, "__name__", "") or ""
        params = getattr(getattr(item, "callspec", None), "params", {})
        fixtures = getattr(item, "fixturenames", ())
        if ("ray_session" in fixtures
                or name.rsplit(".", 1)[-1].startswith("test_ray_")
                or item.name.startswith("test_ray_")
                or str(params.get("path", "")).startswith("ray")
                or item.get_closest_marker("ray") is not None):
            item.add_marker(pytest.mark.ray)
        if "s3_server" in fixtures and item.get_closest_marker("s3") is None:
            item.add_marker(pytest.mark.s3)
        if (("java" in fixtures or "rest_server" in fixtures)
                and item.get_closest_marker("java") is None):
            item.add_marker(pytest.mark.java)
    if config.pluginmanager.hasplugin("xdist"):
        for item in items:
            group = _xdist_group(item)
            if group is not None:
                item.add_marker(pytest.mark.xdist_group(group))


#: The pytest-xdist groups, by precedence (a test in two goes to the first).
XDIST_GROUPS = ("ray", "java", "s3")


def _xdist_group(item) -> Optional[str]:
    return next((g for g in XDIST_GROUPS if item.get_closest_marker(g) is not None), None)


class _XdistGroupIds:
    """pytest-xdist (3.8) hands a test's group to its ``loadgroup`` scheduler as an ``@group``
    suffix of the node id, written into ``item._nodeid``; pytest 9.2 reads node ids from
    ``item._id`` instead, so the suffix is lost and the tests run ungrouped (pytest-xdist issue
    1386). On a ``--dist loadgroup`` worker this puts the suffix where pytest reads it when
    xdist's did not take, and stops the run when neither did, rather than let a group's tests
    run side by side."""

    @pytest.hookimpl(trylast=True)  # after xdist's own suffixing
    def pytest_collection_modifyitems(self, config, items):
        if not config.getoption("loadgroup", False):
            return
        for item in items:
            group = _xdist_group(item)
            if group is None or item.nodeid.endswith("@" + group):
                continue
            wanted = f"{item.nodeid}@{group}"
            node_id = getattr(item, "_id", None)
            if node_id is not None and hasattr(type(node_id), "parse"):
                item._id = type(node_id).parse(wanted)
            if item.nodeid != wanted:
                raise pytest.UsageError(
                    f"pytest-xdist --dist loadgroup cannot group {item.nodeid!r} (this pytest "
                    "keeps node ids where xdist does not write); run with -n 0")


def pytest_configure(config):
    config.pluginmanager.register(_XdistGroupIds(), "paimon-rowid-xdist-group-ids")
