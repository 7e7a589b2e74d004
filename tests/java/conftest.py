"""Registers the ``java`` marker while pytest.ini does not list it yet (harmless after)."""


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "java: drives Java Paimon through tests/java (JDK 17 + Maven; "
                   "skips without Maven Central unless CI is set, then fails)")
