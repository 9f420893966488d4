"""A pytest plugin: golden files as test items.

``pytest --autotrace scenarios/`` collects every ``SCRIPT.py`` under the given paths that
has a golden beside it (``SCRIPT.expected.json``, as ``autotrace check --update`` writes
it) as one test item, runs it in autotrace's sandbox and fails with the same difference
lines as ``autotrace check``. It is registered through the ``pytest11`` entry point and
does nothing unless ``--autotrace`` is given, so ordinary test runs are unchanged; with
pytest-xdist ``-n auto`` spreads the scripts over processes, and ``--junitxml`` reports
them like any test.
"""

from __future__ import annotations

import os

import pytest


def pytest_addoption(parser):
    group = parser.getgroup("autotrace")
    group.addoption("--autotrace", action="store_true", default=False,
                    help="collect every SCRIPT.py with a SCRIPT.expected.json golden under the given "
                         "paths as a test item and compare its run with the golden (as `autotrace check`)")
    group.addoption("--autotrace-timeout", type=float, default=10.0, metavar="SECONDS",
                    help="wall-clock limit for each script (default 10)")
    group.addoption("--autotrace-rtol", type=float, default=1e-4, help="relative tolerance (default 1e-4)")
    group.addoption("--autotrace-atol", type=float, default=1e-5, help="absolute tolerance (default 1e-5)")


def pytest_collect_file(file_path, parent):
    config = parent.config
    if not config.getoption("autotrace") or file_path.suffix != ".py":
        return None
    golden = file_path.with_name(file_path.stem + ".expected.json")
    if not golden.is_file():
        return None
    return GoldenFile.from_parent(parent, path=file_path)


class GoldenFile(pytest.File):
    def collect(self):
        yield GoldenItem.from_parent(self, name=self.path.name)


class GoldenMismatch(Exception):
    """The run differs from its golden (or failed); the message is check's report."""


class GoldenItem(pytest.Item):
    def runtest(self):
        from autotrace import check
        from autotrace.interpreter import Limits

        cfg = self.config
        outcome = check.check_file(os.fspath(self.path), limits=Limits(timeout=cfg.getoption("autotrace_timeout")),
                                   rtol=cfg.getoption("autotrace_rtol"), atol=cfg.getoption("autotrace_atol"))
        if outcome.status != "pass":
            lines = [f"{'ERROR' if outcome.status == 'error' else 'FAIL'} {outcome.script}"
                     + (f": {outcome.reason}" if outcome.reason else "")]
            lines += ["  " + d.message.replace("\n", "\n  ") for d in outcome.differences]
            raise GoldenMismatch("\n".join(lines))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, GoldenMismatch):
            return str(excinfo.value)
        from autotrace.check import GoldenError
        if isinstance(excinfo.value, (GoldenError, OSError)):
            return f"ERROR {self.path}: {excinfo.value}"
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, None, f"autotrace golden: {self.path.name}"
