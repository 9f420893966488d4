"""Before a script runs: the torch API it names must exist.

A script that uses ``nn.Conv2d`` or ``torch.fft`` where autotrace does not provide them is
refused before anything runs, naming the missing piece (``torch.nn.Conv2d is not supported
by autotrace yet``), rather than after printing half its output. Only attribute chains
rooted at a name bound solely by ``import torch…`` / ``from torch… import`` of a namespace
are checked, and only while the chain stays inside namespaces; a name the script rebinds
anywhere is left to the run, and so is code the script guards itself (a branch of an
``if``/conditional expression testing ``hasattr``, the body of a ``try`` that catches
AttributeError or Exception).
"""

from __future__ import annotations

import ast


class _Span:
    def __init__(self, lineno, col_offset, end_lineno, end_col_offset):
        self.lineno = lineno
        self.col_offset = col_offset
        self.end_lineno = end_lineno
        self.end_col_offset = end_col_offset


def _bound_names(tree) -> set:
    out = set()
    for node in ast.walk(tree):
        t = type(node)
        if t is ast.Name and not isinstance(node.ctx, ast.Load):
            out.add(node.id)
        elif t in (ast.FunctionDef, ast.ClassDef):
            out.add(node.name)
        elif t is ast.arg:
            out.add(node.arg)
        elif t is ast.ExceptHandler and node.name:
            out.add(node.name)
        elif t in (ast.Global, ast.Nonlocal):
            out.update(node.names)
    return out


def _mentions_hasattr(test) -> bool:
    return any(type(n) is ast.Call and type(n.func) is ast.Name and n.func.id in ("hasattr", "getattr")
               for n in ast.walk(test))


def _catches_attribute_error(handlers) -> bool:
    for h in handlers:
        if h.type is None:
            return True
        names = [n.id for n in ast.walk(h.type) if type(n) is ast.Name]
        if any(n in ("AttributeError", "Exception") for n in names):
            return True
    return False


def _guarded(tree) -> set:
    """ids of the nodes in code that checks for the attribute itself."""
    out = set()
    for node in ast.walk(tree):
        t = type(node)
        parts = []
        if t in (ast.If, ast.IfExp) and _mentions_hasattr(node.test):
            parts = node.body if t is ast.If else [node.body]
            parts = list(parts) + (list(node.orelse) if t is ast.If else [node.orelse]) + [node.test]
        elif t is ast.Try and _catches_attribute_error(node.handlers):
            parts = node.body
        for p in parts:
            out.update(id(n) for n in ast.walk(p))
    return out


def check_api(tree):
    """(node, error type, message) for the first torch attribute the namespaces lack, else None."""
    from . import modules
    from .namespace import Namespace

    mods = modules()
    aliases: dict = {}
    conflict = set()

    def alias(name, target):
        if aliases.get(name, target) != target:
            conflict.add(name)
        aliases[name] = target

    for node in ast.walk(tree):
        if type(node) is ast.Import:
            for a in node.names:
                if a.asname:
                    if a.name in mods:
                        alias(a.asname, a.name)
                elif a.name.split(".")[0] in mods:
                    alias(a.name.split(".")[0], a.name.split(".")[0])
        elif type(node) is ast.ImportFrom and node.module in mods:
            for a in node.names:
                full = f"{node.module}.{a.name}"
                if full in mods:
                    alias(a.asname or a.name, full)
                else:
                    conflict.add(a.asname or a.name)
    rebound = _bound_names(tree) | conflict
    guarded = _guarded(tree)
    problems = []
    for node in ast.walk(tree):
        if type(node) is not ast.Attribute or not isinstance(node.ctx, ast.Load) or id(node) in guarded:
            continue
        chain = []
        v = node
        while type(v) is ast.Attribute:
            chain.append(v.attr)
            v = v.value
        if type(v) is not ast.Name or v.id not in aliases or v.id in rebound:
            continue
        chain.reverse()
        dotted = aliases[v.id]
        ns = mods.get(dotted)
        for i, attr in enumerate(chain):
            if not isinstance(ns, Namespace) or attr.startswith("_"):
                break
            members = object.__getattribute__(ns, "_members")
            if attr in members:
                ns = members[attr]
                dotted = f"{dotted}.{attr}"
                continue
            if f"{dotted}.{attr}" in mods:
                ns = mods[f"{dotted}.{attr}"]
                dotted = f"{dotted}.{attr}"
                continue
            if i == len(chain) - 1:
                val = node.value
                span = _Span(val.end_lineno, val.end_col_offset, node.end_lineno, node.end_col_offset)
                problems.append((span, "AttributeError", f"{dotted}.{attr} is not supported by autotrace yet"))
            break
    if not problems:
        return None
    problems.sort(key=lambda p: (p[0].lineno, p[0].col_offset))
    return problems[0]
