"""pytest hooks for the interpreter tests (helpers live in interp_stubs.py)."""

from __future__ import annotations

import pytest

from autotrace import site as site_mod


@pytest.fixture(autouse=True)
def _site_reset():
    yield
    assert site_mod.current is None
