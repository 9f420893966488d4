"""The static allow-list check, run on the parsed AST before anything is compiled.

:func:`validate` walks the tree once (iteratively, in source order) and raises
:class:`Refusal` for the first construct outside the script language: node types that
are not allowed (``async``, ``match``, ...), ``yield`` other than as a statement, the right
side of an assignment or the value of ``return`` (see :func:`yield_refusal`), class keywords and multiple
inheritance, special methods outside :data:`~.classes.SPECIAL_METHODS`, bytes literals, star and relative imports, imports of modules other than ``torch``
(and its submodules) and :data:`STDLIB_MODULES`, identifiers that start and end with ``__``
(checked on the parsed, NFKC-normalised names; only ``__name__`` may be read, special
methods may be defined in class bodies, and the attributes of
:data:`~.classes.READABLE_DUNDERS` read), and nesting deeper than
:data:`MAX_DEPTH`.
"""

from __future__ import annotations

import ast
import builtins as _py

#: deepest AST nesting accepted (Python's own parser stops at ~200 parentheses)
MAX_DEPTH = 500

#: names of the script-visible builtins (see builtins.BUILTINS; kept here so the parse
#: phase does not import the run-time modules)
BUILTIN_NAMES = frozenset({
    "print", "len", "range", "abs", "min", "max", "sum", "round", "float", "int", "bool",
    "str", "list", "tuple", "dict", "set", "zip", "enumerate", "isinstance", "sorted",
    "reversed", "any", "all", "map", "filter", "pow", "divmod", "repr", "format", "iter",
    "next", "hasattr", "callable", "type", "issubclass", "getattr", "setattr", "super", "object",
    "staticmethod", "classmethod", "property", "NotImplemented", "hash", "chr", "ord", "bin", "hex", "oct",
    "ascii", "frozenset", "slice",
    "Exception", "RuntimeError", "ValueError", "TypeError", "IndexError", "KeyError",
    "ZeroDivisionError", "AssertionError", "ArithmeticError", "LookupError",
    "NotImplementedError", "StopIteration", "AttributeError", "NameError", "OverflowError",
    "UserWarning", "Warning", "DeprecationWarning", "FutureWarning", "RuntimeWarning",
    "PendingDeprecationWarning", "__name__",
})

#: Python builtins a script may not use (unless it binds the name itself)
REFUSED_NAMES = frozenset(n for n in dir(_py) if n not in BUILTIN_NAMES and n != "__name__") | {
    "__import__", "__builtins__", "exit", "quit", "copyright", "credits", "license", "help",
}

#: special methods a script class may define (anything else with dunders is refused
#: at parse time): object protocol, containers, numbers, comparisons, context managers
_BINARY = ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "pow", "lshift",
           "rshift", "and", "xor", "or")
SPECIAL_METHODS = frozenset(
    {"__init__", "__call__", "__repr__", "__str__", "__format__", "__len__", "__getitem__",
     "__setitem__", "__delitem__", "__contains__", "__iter__", "__next__", "__bool__",
     "__hash__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__neg__",
     "__pos__", "__abs__", "__invert__", "__int__", "__float__", "__round__", "__enter__",
     "__exit__", "__post_init__"}
    | {f"__{n}__" for n in _BINARY} | {f"__r{n}__" for n in _BINARY}
    | {f"__i{n}__" for n in _BINARY})

#: dunder attributes a script may read: names (strings), a value's class (a safe type
#: object), and special methods a script class defines itself (or reaches through super())
READABLE_DUNDERS = frozenset({"__name__", "__qualname__", "__class__", "__version__", "__setattr__"}) | SPECIAL_METHODS

#: Python standard-library modules scripts may import (autotrace's own versions, see
#: :mod:`autotrace.stdlib`)
STDLIB_MODULES = ("math", "random", "typing", "collections", "copy", "itertools", "functools", "time", "warnings",
                  "dataclasses", "__future__", "matplotlib", "matplotlib.pyplot")

ALLOWED_IMPORT_MESSAGE = ("scripts may import torch (and its submodules), "
                          + ", ".join(m for m in STDLIB_MODULES if m != "__future__") + ", numpy and __future__")


class Refusal(Exception):
    """A construct outside the script language: ``type`` (error class name), message
    and the offending node."""

    def __init__(self, type_: str, message: str, node):
        super().__init__(message)
        self.type = type_
        self.message = message
        self.node = node


def is_dunder(name: str | None) -> bool:
    """True for identifiers that start and end with ``__`` (``__class__``, ``__``)."""
    return name is not None and name.startswith("__") and name.endswith("__")


def import_allowed(name: str) -> bool:
    return (name == "torch" or name.startswith("torch.") or name in STDLIB_MODULES
            or name in ("numpy", "numpy.random", "numpy.linalg"))


_ALLOWED = {
    ast.Module, ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.While,
    ast.If, ast.Break, ast.Continue, ast.Pass, ast.With, ast.withitem, ast.Try,
    ast.ExceptHandler, ast.Raise, ast.Assert, ast.Delete, ast.FunctionDef, ast.arguments,
    ast.ClassDef, ast.Global, ast.Nonlocal,
    ast.arg, ast.Return, ast.Import, ast.ImportFrom, ast.alias, ast.Lambda, ast.keyword,
    ast.comprehension,
    ast.BoolOp, ast.NamedExpr, ast.BinOp, ast.UnaryOp, ast.IfExp, ast.Dict, ast.Set,
    ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Compare, ast.Call,
    ast.FormattedValue, ast.JoinedStr, ast.Constant, ast.Attribute, ast.Subscript,
    ast.Starred, ast.Name, ast.List, ast.Tuple, ast.Slice, ast.Yield, ast.YieldFrom,
    ast.Load, ast.Store, ast.Del, ast.And, ast.Or,
    ast.Add, ast.Sub, ast.Mult, ast.MatMult, ast.Div, ast.Mod, ast.Pow, ast.LShift,
    ast.RShift, ast.BitOr, ast.BitXor, ast.BitAnd, ast.FloorDiv,
    ast.Invert, ast.Not, ast.UAdd, ast.USub,
    ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Is, ast.IsNot, ast.In, ast.NotIn,
}

_DUNDER_HINTS: dict = {}

_REFUSED = {
    "AsyncFunctionDef": "'async def' is not supported in autotrace scripts",
    "AsyncFor": "'async for' is not supported in autotrace scripts",
    "AsyncWith": "'async with' is not supported in autotrace scripts",
    "Await": "'await' is not supported in autotrace scripts",
    "Match": "'match' statements are not supported in autotrace scripts",
    "TryStar": "'except*' is not supported in autotrace scripts",
}

# fields that hold annotations: never evaluated by the interpreter, still checked
_ANNOTATION_FIELDS = ("annotation", "returns")


def _name_refusal(name: str, node, what: str) -> Refusal:
    return Refusal("SyntaxError",
                   f"the name {name!r} is not allowed in autotrace scripts "
                   f"({what} names starting and ending with '__' are reserved)", node)


class _Span:
    """A position that is not a whole node (the ``.name`` part of an attribute)."""

    def __init__(self, lineno, col_offset, end_lineno, end_col_offset):
        self.lineno = lineno
        self.col_offset = col_offset
        self.end_lineno = end_lineno
        self.end_col_offset = end_col_offset


def _position(node) -> tuple[int, int]:
    return (getattr(node, "lineno", 0) or 0, getattr(node, "col_offset", 0) or 0)


def validate(tree: ast.AST) -> None:
    """Check ``tree`` against the allow-list; raise :class:`Refusal` for the problem
    that comes first in the source. Iterative (no recursion on the tree)."""
    first: Refusal | None = None
    global _METHODS
    _METHODS = set()
    stack = [(tree, 0)]
    pop = stack.pop
    push = stack.append
    yields = False
    while stack:
        node, depth = pop()
        problem = None
        if type(node) is ast.Yield or type(node) is ast.YieldFrom:
            yields = True
        if depth > MAX_DEPTH:
            problem = Refusal("SyntaxError",
                              f"expression or statement nested too deeply (more than {MAX_DEPTH} levels)", node)
        else:
            t = type(node)
            if t not in _ALLOWED:
                msg = _REFUSED.get(t.__name__)
                if msg is None:
                    msg = f"{t.__name__} is not supported in autotrace scripts"
                problem = Refusal("SyntaxError", msg, node)
            else:
                try:
                    _check_node(node, t)
                except Refusal as r:
                    problem = r
        if problem is not None:
            if first is None or _position(problem.node) < _position(first.node):
                first = problem
            if depth > MAX_DEPTH or type(node) not in _ALLOWED:
                continue
        d = depth + 1
        for f in child_fields(type(node)):
            v = getattr(node, f, None)
            if v is None:
                continue
            if type(v) is list:
                for c in v:
                    if c is not None:
                        push((c, d))
            else:
                push((v, d))
    if yields:
        problem = yield_refusal(tree)
        if problem is not None and (first is None or _position(problem.node) < _position(first.node)):
            first = problem
    if first is not None:
        raise first


_YIELD_VALUE_STMTS = (ast.Expr, ast.Assign, ast.AnnAssign, ast.Return)
_FUNCTION_BODY_FIELDS = frozenset({"body"})


def yield_refusal(tree) -> Refusal | None:
    """The first ``yield``/``yield from`` (in source order) that autotrace cannot run:
    inside a lambda, or part of a larger expression (``f((yield x))``, ``x += yield``).
    A yield is run as a whole expression statement, the right side of ``=`` or the value
    of ``return``. Yields outside functions and in comprehensions are left to Python's
    compiler, which refuses them with its own message."""
    found: list[Refusal] = []
    # (node, context, whether the node stands where a yield may)
    stack = [(tree, "module", False)]
    while stack:
        node, ctx, ok = stack.pop()
        t = type(node)
        if t is ast.Yield or t is ast.YieldFrom:
            word = "yield" if t is ast.Yield else "yield from"
            if ctx == "lambda":
                found.append(Refusal("SyntaxError", f"'{word}' in a lambda is not supported in autotrace scripts",
                                     node))
            elif ctx == "function" and not ok:
                found.append(Refusal("SyntaxError", f"'{word}' inside an expression is not supported in "
                                     "autotrace scripts", node))
        for f in child_fields(t):
            v = getattr(node, f, None)
            if v is None:
                continue
            kids = v if type(v) is list else [v]
            if t is ast.FunctionDef and f == "body":
                cctx = "function"
            elif t is ast.Lambda and f == "body":
                cctx = "lambda"
            elif t is ast.ClassDef and f == "body":
                cctx = "class"
            elif t in (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp):
                cctx = "comprehension"
            else:
                cctx = ctx
            for c in kids:
                if c is None:
                    continue
                cok = (f == "value" and t in _YIELD_VALUE_STMTS
                       and (type(c) is ast.Yield or type(c) is ast.YieldFrom))
                stack.append((c, cctx, cok))
    if not found:
        return None
    return min(found, key=lambda r: _position(r.node))


#: fields that never hold nodes worth walking (names, operators, contexts, flags)
_SCALAR_FIELDS = frozenset({
    "ctx", "op", "ops", "id", "attr", "arg", "name", "module", "level", "kind",
    "type_comment", "conversion", "is_async", "asname", "type_ignores", "tag", "simple", "names",
})
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {ast.Constant: (), ast.Import: (), ast.ImportFrom: ()}


def child_fields(t: type) -> tuple[str, ...]:
    """Names of the fields of node type ``t`` that hold child nodes (lists or nodes)."""
    f = _CHILD_FIELDS.get(t)
    if f is None:
        f = _CHILD_FIELDS[t] = tuple(x for x in t._fields if x not in _SCALAR_FIELDS)
    return f


#: ids of the FunctionDef nodes directly in a class body (where special methods may be
#: defined), collected while validating
_METHODS: set = set()


def _special_methods():
    return SPECIAL_METHODS, READABLE_DUNDERS


def _check_node(node, t) -> None:
    if t is ast.Name:
        if node.id == "__name__" and isinstance(node.ctx, ast.Load):
            return
        if node.id in SPECIAL_METHODS:      # ``__rmul__ = __mul__`` in a class body
            return
        if is_dunder(node.id):
            hint = _DUNDER_HINTS.get(node.id, "")
            raise Refusal("NameError", f"name {node.id!r} is not available in autotrace scripts{hint}", node)
    elif t is ast.Attribute:
        if is_dunder(node.attr):
            if isinstance(node.ctx, ast.Load) and node.attr in _special_methods()[1]:
                return
            v = node.value
            at = _Span(v.end_lineno, v.end_col_offset, node.end_lineno, node.end_col_offset)
            raise Refusal("AttributeError", f"attribute {node.attr!r} is not available in autotrace scripts", at)
    elif t is ast.ClassDef:
        if is_dunder(node.name):
            raise _name_refusal(node.name, node, "class")
        if node.keywords:
            raise Refusal("SyntaxError", "class keyword arguments (metaclass=...) are not supported yet in "
                          "autotrace scripts", node.keywords[0])
        if len(node.bases) > 1:
            raise Refusal("SyntaxError", "multiple inheritance is not supported yet in autotrace scripts "
                          "(a class may have one base)", node.bases[1])
        for b in node.bases:
            if type(b) is ast.Starred:
                raise Refusal("SyntaxError", "starred class bases are not supported yet in autotrace scripts", b)
        for s in node.body:
            if type(s) is ast.FunctionDef:
                _METHODS.add(id(s))
    elif t is ast.Global or t is ast.Nonlocal:
        for n in node.names:
            if is_dunder(n):
                raise _name_refusal(n, node, "variable")
    elif t is ast.Constant:
        if isinstance(node.value, bytes):
            raise Refusal("SyntaxError", "bytes literals are not supported in autotrace scripts", node)
    elif t is ast.FunctionDef:
        if is_dunder(node.name):
            if id(node) not in _METHODS:
                raise _name_refusal(node.name, node, "function")
            if node.name not in _special_methods()[0]:
                raise Refusal("SyntaxError", f"defining the special method {node.name!r} is not supported yet "
                              "in autotrace scripts", node)
    elif t is ast.arg:
        if is_dunder(node.arg):
            raise _name_refusal(node.arg, node, "parameter")
    elif t is ast.keyword:
        if node.arg is not None and is_dunder(node.arg):
            raise _name_refusal(node.arg, node, "keyword argument")
    elif t is ast.ExceptHandler:
        if node.name is not None and is_dunder(node.name):
            raise _name_refusal(node.name, node, "variable")
    elif t is ast.comprehension:
        if node.is_async:
            raise Refusal("SyntaxError", "asynchronous comprehensions are not supported in autotrace scripts", node)
    elif t is ast.Delete:
        for target in node.targets:
            for sub in ast.walk(target):
                if isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Del):
                    raise Refusal("SyntaxError", "deleting attributes is not supported in autotrace scripts", sub)
    elif t is ast.Import:
        for alias in node.names:
            _check_alias_names(alias, node)
            if not import_allowed(alias.name):
                raise Refusal("ImportError", f"import of {alias.name!r} is not allowed: {ALLOWED_IMPORT_MESSAGE}", node)
    elif t is ast.ImportFrom:
        if node.level:
            raise Refusal("ImportError", "relative imports are not supported in autotrace scripts", node)
        mod = node.module or ""
        if mod != "__future__" and any(is_dunder(p) for p in mod.split(".")):
            raise _name_refusal(mod, node, "module")
        if not import_allowed(mod):
            raise Refusal("ImportError", f"import of {mod!r} is not allowed: {ALLOWED_IMPORT_MESSAGE}", node)
        for alias in node.names:
            if alias.name == "*":
                raise Refusal("SyntaxError",
                              f"star imports ('from {mod} import *') are not supported in autotrace scripts", node)
            _check_alias_names(alias, node)


def _check_alias_names(alias, node) -> None:
    for part in alias.name.split("."):
        if is_dunder(part) or part.startswith("_"):
            raise Refusal("ImportError", f"import of {alias.name!r} is not allowed: {ALLOWED_IMPORT_MESSAGE}", node)
    if alias.asname is not None and is_dunder(alias.asname):
        raise _name_refusal(alias.asname, node, "variable")
