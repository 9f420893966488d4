"""Scope analysis: which names are local to which function, and where each name read
resolves (a local slot, a slot of an enclosing function, or the globals).

Python's rules: a name bound anywhere in a function body (assignment,
``for``/``with``/``except`` targets, ``del``, imports, ``def``, ``class``, parameters)
is local to it unless declared ``global``/``nonlocal``; comprehensions have their own
scope (their ``for`` targets), except that a walrus inside one binds in the enclosing
function; names bound at module level are globals. A class body is a scope whose names
live in the class namespace (frame ``[enclosing frame, the class, namespace dict]``);
functions and comprehensions nested in it do not see them. Annotations are never
evaluated.
"""

from __future__ import annotations

import ast

from .validate import child_fields


class Scope:
    """One function, lambda, comprehension or the module."""

    __slots__ = ("kind", "parent", "node", "bound", "slots", "params", "deleted", "globals",
                 "nonlocals")

    def __init__(self, kind: str, parent: "Scope | None", node):
        self.kind = kind          # "module" | "function" | "comprehension" | "class"
        self.parent = parent
        self.node = node
        self.bound: dict[str, None] = {}
        self.slots: dict[str, int] = {}
        self.params: set[str] = set()
        self.deleted: set[str] = set()
        self.globals: set[str] = set()
        self.nonlocals: set[str] = set()

    def add(self, name: str) -> None:
        if name in self.globals:
            m = self
            while m.parent is not None:
                m = m.parent
            m.add(name)
            return
        if name in self.nonlocals:
            return
        if name not in self.bound:
            self.bound[name] = None
            if self.kind != "module" and self.kind != "class":
                self.slots[name] = 2 + len(self.slots)

    @property
    def nslots(self) -> int:
        return len(self.slots)

    def resolve(self, name: str):
        """("global",) | ("local", slot) | ("free", depth, slot) | ("class", outer): a
        name of a class body, looked up in the namespace first, then as ``outer``."""
        if self.kind == "module" or name in self.globals:
            return ("global",)
        if name not in self.nonlocals and name in self.bound:
            if self.kind == "class":
                return ("class", self._outer(name))
            return ("local", self.slots[name])
        if self.kind == "class":
            return ("class", self._outer(name))
        return self._outer(name)

    def _outer(self, name: str):
        depth = 0
        s = self
        while s.parent is not None and s.parent.kind != "module":
            s = s.parent
            depth += 1
            if s.kind == "class":
                continue        # class namespaces are not visible from nested scopes
            if name in s.globals:
                return ("global",)
            if name in s.bound and name not in s.nonlocals:
                return ("free", depth, s.slots[name])
        return ("global",)


class ScopeInfo:
    """Result of :func:`analyse`: the module scope, the scope of every function-like
    node (by ``id``) and the reads that resolve to globals, in source order, each with
    the scope it is read in."""

    def __init__(self, module: Scope):
        self.module = module
        self.scopes: dict[int, Scope] = {}
        self.global_reads: list[tuple[str, ast.AST, Scope]] = []

    def scope_of(self, node) -> Scope:
        return self.scopes[id(node)]


_COMPS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def analyse(tree: ast.Module) -> ScopeInfo:
    """Build the scopes of a validated module (recursion bounded by the validator's
    depth limit)."""
    module = Scope("module", None, tree)
    info = ScopeInfo(module)
    reads: list[tuple[Scope, str, ast.AST]] = []

    def add_params(scope: Scope, args: ast.arguments) -> None:
        names = [a.arg for a in args.posonlyargs] + [a.arg for a in args.args] + \
                [a.arg for a in args.kwonlyargs]
        if args.vararg:
            names.append(args.vararg.arg)
        if args.kwarg:
            names.append(args.kwarg.arg)
        for n in names:
            scope.add(n)
            scope.params.add(n)

    def visit(node, scope: Scope) -> None:
        t = type(node)
        if t is ast.Name:
            if isinstance(node.ctx, ast.Load):
                reads.append((scope, node.id, node))
            else:
                scope.add(node.id)
                if isinstance(node.ctx, ast.Del):
                    scope.deleted.add(node.id)
            return
        if t is ast.Global:
            scope.globals.update(node.names)
            return
        if t is ast.Nonlocal:
            scope.nonlocals.update(node.names)
            return
        if t is ast.ClassDef:
            for d in node.decorator_list:
                visit(d, scope)
            for b in node.bases:
                visit(b, scope)
            scope.add(node.name)
            inner = Scope("class", scope, node)
            info.scopes[id(node)] = inner
            for s in node.body:
                visit(s, inner)
            return
        if t is ast.FunctionDef or t is ast.Lambda:
            if t is ast.FunctionDef:
                for d in node.decorator_list:
                    visit(d, scope)
                scope.add(node.name)
            a = node.args
            for d in a.defaults:
                visit(d, scope)
            for d in a.kw_defaults:
                if d is not None:
                    visit(d, scope)
            inner = Scope("function", scope, node)
            info.scopes[id(node)] = inner
            add_params(inner, a)
            if t is ast.Lambda:
                visit(node.body, inner)
            else:
                for s in node.body:
                    visit(s, inner)
            return
        if t in _COMPS:
            gens = node.generators
            visit(gens[0].iter, scope)
            inner = Scope("comprehension", scope, node)
            info.scopes[id(node)] = inner
            for i, g in enumerate(gens):
                if i:
                    visit(g.iter, inner)
                visit(g.target, inner)
                for cond in g.ifs:
                    visit(cond, inner)
            if t is ast.DictComp:
                visit(node.key, inner)
                visit(node.value, inner)
            else:
                visit(node.elt, inner)
            return
        if t is ast.NamedExpr:
            target = scope
            while target.kind == "comprehension":
                target = target.parent
            target.add(node.target.id)
            if target is not scope:
                # the comprehension reads/writes the enclosing binding
                pass
            visit(node.value, scope)
            return
        if t is ast.ExceptHandler:
            if node.name:
                scope.add(node.name)
                scope.deleted.add(node.name)
            if node.type is not None:
                visit(node.type, scope)
            for s in node.body:
                visit(s, scope)
            return
        if t is ast.Import or t is ast.ImportFrom:
            for alias in node.names:
                if alias.asname:
                    scope.add(alias.asname)
                elif t is ast.Import:
                    scope.add(alias.name.split(".")[0])
                else:
                    scope.add(alias.name)
            return
        if t is ast.AnnAssign:
            visit(node.target, scope)
            if node.value is not None:
                visit(node.value, scope)
            return
        if t is ast.arg:
            return  # annotations are not evaluated
        for field in child_fields(t):
            if field == "annotation" or field == "returns":
                continue
            value = getattr(node, field, None)
            if value is None:
                continue
            if type(value) is list:
                for v in value:
                    if v is not None:
                        visit(v, scope)
            else:
                visit(value, scope)

    for stmt in tree.body:
        visit(stmt, module)
    for scope, name, node in reads:
        r = scope.resolve(name)
        if r[0] == "class" and name not in scope.bound:
            r = r[1]
        if r[0] == "global":
            info.global_reads.append((name, node, scope))
    return info
