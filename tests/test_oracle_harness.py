"""The pypaimon oracle harness itself (tests/oracle): one served driver process answers the
commands of a session (pypaimon imported once), and a crash, an environment change or a second
thread never make it answer wrongly."""
from __future__ import annotations

import threading

import pytest

from oracle import OracleError

pytestmark = [pytest.mark.oracle]


def _info(oracle, env_name="PAIMON_ROWID_HARNESS_PROBE"):
    return oracle.run({"cmd": "harness_info", "env_name": env_name})


def test_one_driver_serves_many_commands_and_prints_are_not_replies(oracle):
    first = _info(oracle)
    assert [_info(oracle)["pid"] for _ in range(3)] == [first["pid"]] * 3
    assert oracle.run_batch([{"cmd": "harness_info"}])[0]["pid"] == first["pid"]


def test_a_crashed_driver_is_reported_and_replaced(oracle):
    before = _info(oracle)["pid"]
    with pytest.raises(OracleError) as error:
        oracle.run({"cmd": "harness_exit", "code": 7})
    assert error.value.error_type == "DriverCrash"
    assert "exit code 7" in str(error.value) and "harness_exit: dying" in str(error.value)
    after = _info(oracle)["pid"]
    assert after != before


def test_an_environment_change_starts_a_driver_that_sees_it(oracle, monkeypatch):
    before = _info(oracle)
    assert before["env"] is None
    monkeypatch.setenv("PAIMON_ROWID_HARNESS_PROBE", "set")
    now = _info(oracle)
    assert now["env"] == "set" and now["pid"] != before["pid"]


def test_a_command_from_a_second_thread_gets_a_driver_of_its_own(oracle):
    served = _info(oracle)["pid"]
    seen = {}
    with oracle._served._lock:  # the served driver busy, as with another thread's command
        thread = threading.Thread(target=lambda: seen.update(info=_info(oracle)))
        thread.start()
        thread.join(120)
    assert seen["info"]["pid"] != served
    assert _info(oracle)["pid"] == served
    with pytest.raises(OracleError) as error:  # errors keep their type on that path too
        oracle.run({"cmd": "no-such-command"})
    assert error.value.error_type == "ValueError"
