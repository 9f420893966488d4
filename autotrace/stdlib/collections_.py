"""``collections`` for scripts: OrderedDict, defaultdict, Counter, deque, namedtuple.

The first four are CPython's own classes (so ``type(model.state_dict())`` prints
``<class 'collections.OrderedDict'>`` and ``nn.Sequential(OrderedDict(...))`` names its
children as torch does); calling them goes through size-checked constructors, and the
guard gives scripts their documented methods only (``move_to_end``, ``most_common``,
``appendleft``, ...), each bounded like ``dict``/``list`` methods.

``namedtuple`` makes a :class:`Record` type: a tuple subclass of autotrace's with the
fields CPython would give (same validation and errors, ``_fields``, ``_make``,
``_asdict``, ``_replace``, ``Point(x=1, y=2)`` repr); no source is generated or run.
"""

from __future__ import annotations

import keyword
from collections import Counter, OrderedDict, defaultdict, deque

from ..interpreter.builtins import ScriptNamespace
from ..interpreter.classes import NOT_FOUND
from ..interpreter.limits import RT, seq_limit
from ..interpreter.ops import SAFE_CTORS, add_containers, hash_check, take

_INTS = (int, bool)


def _items(args, kwargs, what):
    if len(args) > 1:
        raise TypeError(f"{what} expected at most 1 argument, got {len(args)}")
    if not args:
        return ()
    src = args[0]
    if isinstance(src, dict):
        n = len(src) + len(kwargs)
        if n > RT.max_seq:
            raise seq_limit(n)
        RT.charge(len(src))
        return src
    items = take(src)
    for pair in items:
        if type(pair) in (tuple, list) and len(pair) == 2:
            hash_check(pair[0])
    return items


def safe_ordered_dict(*args, **kwargs):
    return OrderedDict(_items(args, kwargs, "OrderedDict"), **kwargs)


def safe_defaultdict(default_factory=None, *args, **kwargs):
    if default_factory is not None and not callable(default_factory):
        raise TypeError("first argument must be callable or None")
    return defaultdict(default_factory, _items(args, kwargs, "defaultdict"), **kwargs)


def safe_counter(iterable=None, /, **kwargs):
    if iterable is None:
        return Counter(**kwargs)
    if isinstance(iterable, dict):
        return Counter(_items((iterable,), kwargs, "Counter"), **kwargs)
    items = take(iterable)
    for x in items:
        hash_check(x)
    return Counter(items, **kwargs)


def safe_deque(iterable=(), maxlen=None):
    if maxlen is not None and type(maxlen) in _INTS and maxlen >= 0:
        items = take(iterable) if type(iterable) in (list, tuple) else list(_tail(iterable, maxlen))
    else:
        items = take(iterable)
    return deque(items, maxlen)


def _tail(iterable, maxlen):
    """The last ``maxlen`` items, iterating with step counting (``deque(count(), 3)`` ends
    at the loop limit)."""
    d = deque(maxlen=maxlen)
    n = 0
    for x in iterable:
        d.append(x)
        n += 1
        if n > RT.max_loop:
            from ..interpreter.limits import limit_error
            raise limit_error("max_loop_iterations")
        RT.charge(1)
    return d


# -- methods (impl(obj, *args)) ----------------------------------------------------

def _grow_check(n):
    if n > RT.max_seq:
        raise seq_limit(n)


def _od_move_to_end(d, key, last=True):
    hash_check(key)
    d.move_to_end(key, last)


def _od_popitem(d, last=True):
    return d.popitem(last)


def _counter_most_common(c, n=None):
    RT.charge(len(c))
    return c.most_common(n)


def _counter_elements(c):
    total = sum(v for v in c.values() if type(v) in _INTS and v > 0)
    _grow_check(total)
    RT.charge(total)
    return iter(list(c.elements()))


def _counter_update(c, iterable=None, /, **kwargs):
    if iterable is not None and not isinstance(iterable, dict):
        iterable = take(iterable)
        for x in iterable:
            hash_check(x)
    _grow_check(len(c) + (len(iterable) if iterable is not None else 0) + len(kwargs))
    c.update(iterable, **kwargs)


def _counter_subtract(c, iterable=None, /, **kwargs):
    if iterable is not None and not isinstance(iterable, dict):
        iterable = take(iterable)
        for x in iterable:
            hash_check(x)
    _grow_check(len(c) + (len(iterable) if iterable is not None else 0) + len(kwargs))
    c.subtract(iterable, **kwargs)


def _counter_total(c):
    RT.charge(len(c))
    return c.total()


def _dq_append(method):
    def f(d, x):
        if d.maxlen is None and len(d) >= RT.max_seq:
            raise seq_limit(len(d) + 1)
        method(d, x)
    f.__name__ = method.__name__
    return f


def _dq_extend(method):
    def f(d, iterable):
        items = take(iterable)
        if d.maxlen is None:
            _grow_check(len(d) + len(items))
        RT.charge(len(items))
        method(d, items)
    f.__name__ = method.__name__
    return f


def _dq_insert(d, i, x):
    _grow_check(len(d) + 1)
    d.insert(i, x)


def _dq_rotate(d, n=1):
    RT.charge(len(d))
    d.rotate(n)


def _dq_search(method):
    def f(d, *args):
        RT.charge(len(d))
        return method(d, *args)
    f.__name__ = method.__name__
    return f


def register() -> None:
    """Tell the guard and the interpreter about these classes (idempotent)."""
    from ..interpreter import typeobj
    from ..interpreter.guard import METHODS, PROPS, _POLICIES
    dict_methods = METHODS[dict]
    METHODS[OrderedDict] = {**dict_methods, "move_to_end": _od_move_to_end, "popitem": _od_popitem,
                            # odict_keys([...]) when printed, as state_dict().keys() is in torch
                            "keys": OrderedDict.keys, "values": OrderedDict.values, "items": OrderedDict.items}
    METHODS[defaultdict] = dict(dict_methods)
    PROPS[defaultdict] = {"default_factory": lambda d: d.default_factory}
    METHODS[Counter] = {**dict_methods, "most_common": _counter_most_common, "elements": _counter_elements,
                        "update": _counter_update, "subtract": _counter_subtract, "total": _counter_total}
    METHODS[deque] = {
        "append": _dq_append(deque.append), "appendleft": _dq_append(deque.appendleft),
        "extend": _dq_extend(deque.extend), "extendleft": _dq_extend(deque.extendleft),
        "pop": deque.pop, "popleft": deque.popleft, "clear": deque.clear, "copy": _dq_search(deque.copy),
        "reverse": _dq_search(deque.reverse), "rotate": _dq_rotate, "insert": _dq_insert,
        "count": _dq_search(deque.count), "index": _dq_search(deque.index),
        "remove": _dq_search(deque.remove)}
    PROPS[deque] = {"maxlen": lambda d: d.maxlen}
    for t in (OrderedDict, defaultdict, Counter, deque, Record):
        _POLICIES.pop(t, None)
    SAFE_CTORS.update({OrderedDict: safe_ordered_dict, defaultdict: safe_defaultdict, Counter: safe_counter,
                       deque: safe_deque})
    add_containers((OrderedDict, defaultdict, Counter, deque))
    for t in (OrderedDict, defaultdict, Counter, deque):
        typeobj.EXPOSED.add(t)
        typeobj.QUALIFIED[t] = f"collections.{t.__name__}"


# -- namedtuple --------------------------------------------------------------------

class Record(tuple):
    """Base of every ``namedtuple`` type: a tuple whose fields are also attributes."""

    __slots__ = ()
    _fields: tuple = ()
    _field_defaults: dict = {}
    _script_class_attrs = frozenset({"_fields", "_field_defaults", "_make"})

    def __new__(cls, *args, **kwargs):
        # the argument binding errors of CPython's generated ``__new__(_cls, x, y)``
        fields = cls._fields
        n = len(fields)
        name = f"{cls.__name__}.__new__()"
        if len(args) > n:
            lo = n - len(cls._field_defaults) + 1
            takes = f"from {lo} to {n + 1} positional arguments" if lo <= n else \
                f"{n + 1} positional argument{'s' if n else ''}"
            raise TypeError(f"{name} takes {takes} but {len(args) + 1} were given")
        for k in kwargs:
            if k not in fields:
                raise TypeError(f"{name} got an unexpected keyword argument {k!r}")
            if fields.index(k) < len(args):
                raise TypeError(f"{name} got multiple values for argument {k!r}")
        values, missing = list(args), []
        for f in fields[len(args):]:
            if f in kwargs:
                values.append(kwargs[f])
            elif f in cls._field_defaults:
                values.append(cls._field_defaults[f])
            else:
                missing.append(f)
        if missing:
            quoted = [repr(m) for m in missing]
            if len(quoted) == 1:
                lst = quoted[0]
            elif len(quoted) == 2:
                lst = f"{quoted[0]} and {quoted[1]}"
            else:
                lst = ", ".join(quoted[:-1]) + f", and {quoted[-1]}"
            s = "" if len(missing) == 1 else "s"
            raise TypeError(f"{name} missing {len(missing)} required positional argument{s}: {lst}")
        return tuple.__new__(cls, values)

    @classmethod
    def _make(cls, iterable):
        items = tuple(take(iterable))
        if len(items) != len(cls._fields):
            raise TypeError(f"Expected {len(cls._fields)} arguments, got {len(items)}")
        return tuple.__new__(cls, items)

    def _script_getattr(self, name):
        fields = type(self)._fields
        if name in fields:
            return tuple.__getitem__(self, fields.index(name))
        if name == "_fields":
            return fields
        if name == "_field_defaults":
            return dict(type(self)._field_defaults)
        if name == "_asdict":
            return lambda: dict(zip(fields, self))
        if name == "_replace":
            return self._replace_
        if name in ("count", "index"):
            return getattr(tuple(self), name)
        return NOT_FOUND

    def _script_setattr(self, name, value):
        from ..interpreter.errors import ScriptAttributeError
        if name in type(self)._fields:
            raise ScriptAttributeError("can't set attribute")
        raise ScriptAttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _replace_(self, **kwargs):
        fields = type(self)._fields
        values = [kwargs.pop(f, v) for f, v in zip(fields, self)]
        if kwargs:
            raise ValueError(f"Got unexpected field names: {list(kwargs)!r}")
        return tuple.__new__(type(self), values)

    def __repr__(self):
        from ..interpreter.ops import safe_repr
        inner = ", ".join(f"{f}={safe_repr(v)}" for f, v in zip(type(self)._fields, self))
        return f"{type(self).__name__}({inner})"

    def __getnewargs__(self):  # pragma: no cover - never pickled
        return tuple(self)


def namedtuple(typename, field_names, *, rename=False, defaults=None, module=None):
    """CPython's ``collections.namedtuple`` validation and errors, making a :class:`Record`
    subclass (``__module__`` is ``__main__``, as for a script's own call)."""
    from ..interpreter import typeobj
    if isinstance(field_names, str):
        field_names = field_names.replace(",", " ").split()
    field_names = list(map(str, take(field_names)))
    if len(field_names) > 10_000:
        raise seq_limit(len(field_names))
    typename = str(typename)
    if rename:
        seen = set()
        for index, name in enumerate(field_names):
            if (not name.isidentifier() or keyword.iskeyword(name) or name.startswith("_") or name in seen):
                field_names[index] = f"_{index}"
            seen.add(name)
    for name in [typename] + field_names:
        if type(name) is not str:  # pragma: no cover - str() above
            raise TypeError("Type names and field names must be strings")
        if not name.isidentifier():
            raise ValueError(f"Type names and field names must be valid identifiers: {name!r}")
        if keyword.iskeyword(name):
            raise ValueError(f"Type names and field names cannot be a keyword: {name!r}")
    seen = set()
    for name in field_names:
        if name.startswith("_") and not rename:
            raise ValueError(f"Field names cannot start with an underscore: {name!r}")
        if name in seen:
            raise ValueError(f"Encountered duplicate field name: {name!r}")
        seen.add(name)
    field_defaults = {}
    if defaults is not None:
        defaults = tuple(take(defaults))
        if len(defaults) > len(field_names):
            raise TypeError("Got more default values than field names")
        field_defaults = dict(reversed(list(zip(reversed(field_names), reversed(defaults)))))
    RT.charge(100 + len(field_names))
    cls = type(typename, (Record,), {"__slots__": (), "_fields": tuple(field_names),
                                     "_field_defaults": field_defaults, "__module__": __name__})
    typeobj.EXPOSED.add(cls)
    typeobj.QUALIFIED[cls] = f"__main__.{typename}"
    add_containers((cls,))
    return cls


class NamedTupleRecord(Record):
    """Base of the types a script's ``class Point(NamedTuple):`` statement makes: a
    namedtuple whose other class attributes (methods, constants) come from the class body."""

    __slots__ = ()
    _script_members: dict = {}

    def _script_getattr(self, name):
        v = Record._script_getattr(self, name)
        if v is not NOT_FOUND:
            return v
        members = type(self)._script_members
        if name in members:
            from ..interpreter.classes import bind
            return bind(members[name], self, type(self))
        return NOT_FOUND


def named_tuple_class(typename, annotated, ns, functional=False):
    """``class typename(NamedTuple)`` as CPython's ``typing.NamedTupleMeta`` builds it: the
    annotated names in order are the fields, their class-body values the defaults (a field
    without one may not follow a field with one), every other body name a class member."""
    from ..interpreter import typeobj
    # a class body may annotate a name twice (one field); the functional form's names are checked by namedtuple
    fields = list(annotated) if functional else list(dict.fromkeys(annotated))
    defaults = {}
    for f in fields:
        if f in ns:
            defaults[f] = ns[f]
        elif defaults:
            raise TypeError(f"Non-default namedtuple field {f} cannot follow default field"
                            f"{'s' if len(defaults) > 1 else ''} {', '.join(defaults)}")
    base = namedtuple(typename, fields, defaults=[defaults[f] for f in fields if f in defaults])
    for k in ns:
        if k.startswith("__") and k not in ("__doc__", "__module__", "__qualname__", "__annotations__"):
            raise TypeError(f"defining {k} in a NamedTuple class is not supported by autotrace yet")
    members = {k: v for k, v in ns.items() if k not in fields and not k.startswith("__")}
    for k in members:
        if k in ("_make", "_replace", "_asdict", "_fields", "_field_defaults", "_source"):
            from ..interpreter.errors import ScriptAttributeError
            raise ScriptAttributeError(f"Cannot overwrite NamedTuple attribute {k}")
    public = {k: v for k, v in members.items() if not k.startswith("_")}
    cls = type(typename, (NamedTupleRecord,), {
        "__slots__": (), "_fields": base._fields, "_field_defaults": base._field_defaults,
        "_script_members": members, "__module__": __name__,
        # class-level reads (Config.SEED, Config.describe) of the body's public names
        "_script_class_attrs": Record._script_class_attrs | frozenset(public), **public})
    typeobj.EXPOSED.add(cls)
    typeobj.QUALIFIED[cls] = f"__main__.{typename}"
    add_containers((cls,))
    return cls


class NamedTupleForm:
    """``typing.NamedTuple``: a base for ``class Point(NamedTuple): x: int`` (the class
    statement builds a :class:`NamedTupleRecord` type) and the functional form
    ``NamedTuple("Point", [("x", int), ("y", float)])``."""

    __slots__ = ()
    _script_attrs = frozenset()

    def __call__(self, typename, fields=None, /):
        pairs = [] if fields is None else list(take(fields))
        names = []
        for p in pairs:
            if type(p) not in (tuple, list) or len(p) != 2:
                raise TypeError("NamedTuple('Name', [(f0, t0), (f1, t1), ...]); each field is a (name, type) pair")
            names.append(p[0])
        return named_tuple_class(str(typename), [str(n) for n in names], {}, functional=True)

    def __repr__(self):
        return "<function NamedTuple>"


NAMED_TUPLE = NamedTupleForm()


def make_module() -> ScriptNamespace:
    register()
    return ScriptNamespace("collections", {"OrderedDict": OrderedDict, "defaultdict": defaultdict,
                                           "Counter": Counter, "deque": deque, "namedtuple": namedtuple})
