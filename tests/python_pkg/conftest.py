"""The package tests run against whichever ``cranewasm`` is importable:
run.sh installs it into a temporary folder first (so they test the
installed package with its bundled library)."""

import pytest

import cranewasm as w


@pytest.fixture
def engine():
    return w.Engine()


@pytest.fixture
def store(engine):
    s = w.Store(engine)
    yield s
    s.close()
