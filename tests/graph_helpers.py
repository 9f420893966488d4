"""Traces for the graph tests, through autotrace's own runner."""

from __future__ import annotations


def trace_of(source: str, filename: str = "<expr>", sets=(), keep_values: bool = True, of=None):
    from autotrace.runner import Options, run

    return run(source, filename, sets=sets, options=Options(keep_values=keep_values, of=of))
