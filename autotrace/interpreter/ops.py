"""Operators with the size checks the interpreter owes to builtin values.

Engine objects (tensors) bring their own operator methods, which are trusted; what
this module guards against is builtin values growing without bound inside C code where
no step counter can stop them: ``10**10**10``, ``'a' * 10**10``, ``[0] * 10**10``,
``2 << 10**10``, printf/format widths of a billion, and the exponential C work of
printing, comparing or hashing deeply shared nested containers (``x = [x, x]`` forty
times). Every check runs *before* the expensive computation.

Bulk creation of builtin sequences is charged to the step counter (one step per new
element, one per 8 new characters), which bounds the memory a script can allocate
through such operations and keeps the time checks firing during heavy builtin work.
"""

from __future__ import annotations

import _string
import math
import operator
from itertools import islice as _islice

from .limits import MAX_CONTAINER_DEPTH, RT, LimitExceeded, int_limit, seq_limit

_INTS = frozenset({int, bool})
_SEQS = frozenset({str, list, tuple})
_VIEWS = (type({}.keys()), type({}.values()), type({}.items()))
#: builtin containers whose printing/comparing/hashing recurses in C
CONTAINERS = {list, tuple, dict, set, frozenset, *_VIEWS}
_DICTS = {dict}
_MUL_CHECK = frozenset({int, bool, str, list, tuple})
_log2 = math.log2


# ---------------------------------------------------------------------------
# nested containers

def _parts(o):
    return (o.keys(), o.values()) if type(o) in _DICTS else (o,)


def add_containers(types) -> None:
    """Count more container types (``collections.OrderedDict``, ``deque``, namedtuple
    records) in :func:`deep_check`: their repr, comparison and hashing recurse in C too."""
    types = tuple(types)
    _DICTS.update(t for t in types if issubclass(t, dict))
    CONTAINERS.update(types)


def _children(o) -> tuple[int, list]:
    """(own weight, container children) of a builtin container."""
    w = 1
    kids = []
    for part in _parts(o):
        w += len(part)
        kinds = set(map(type, part))
        if str in kinds:
            w += sum(len(e) for e in part if type(e) is str) >> 3
        if not kinds.isdisjoint(CONTAINERS):
            kids.extend(e for e in part if type(e) in CONTAINERS)
    return w, kids


def deep_check(x) -> None:
    """Refuse to print/compare/hash a builtin container whose expansion is too big.

    The weight counts elements with multiplicity (so ``x = [x, x]`` repeated is caught
    although it holds few objects) plus string characters / 8, and must stay within
    the sequence limit; nesting deeper than :data:`MAX_CONTAINER_DEPTH` is refused (C
    code recurses on it). Each distinct container is visited once (memoised by id), so
    the check costs O(objects), not O(expansion). Cycles count as one element (Python
    prints them as ``[...]``).
    """
    if type(x) not in CONTAINERS:
        return
    w, kids = _children(x)
    if not kids:
        if w > RT.max_seq:
            raise seq_limit(w, "printing, comparing or hashing this value")
        return
    budget = RT.max_seq
    memo: dict[int, tuple[int, int] | None] = {id(x): None}
    stack = [(x, w, kids, False)]
    while stack:
        o, w, kids, done = stack.pop()
        if not done:
            stack.append((o, w, kids, True))
            for c in kids:
                cid = id(c)
                if cid not in memo:
                    memo[cid] = None
                    cw, ck = _children(c)
                    stack.append((c, cw, ck, False))
            continue
        depth = 1
        for c in kids:
            m = memo[id(c)]
            if m is None:       # a cycle back to a container being expanded
                continue
            w += m[0]
            if m[1] >= depth:
                depth = m[1] + 1
        if w > budget:
            raise seq_limit(w, "printing, comparing or hashing this value")
        if depth > MAX_CONTAINER_DEPTH:
            raise LimitExceeded(
                "nesting",
                f"nesting limit reached: containers nested more than {MAX_CONTAINER_DEPTH} levels deep "
                "cannot be printed, compared or hashed")
        memo[id(o)] = (w, depth)


def hash_check(k) -> None:
    """Before hashing ``k`` (a dict key, set element): bound nested tuples."""
    if type(k) is tuple:
        deep_check(k)


# ---------------------------------------------------------------------------
# materialising iterables (builtins that consume them would otherwise loop in C)

_SIZED = frozenset({str, dict, set, frozenset, range, type({}.keys()), type({}.values()), type({}.items())})


def take(x, limit: int | None = None, what: str = "the result"):
    """Return the items of iterable ``x`` as a list or tuple, counting one step per
    item and refusing more than ``limit`` (default: the sequence limit) items."""
    st = RT
    mx = st.max_seq if limit is None else limit
    t = type(x)
    if t is list or t is tuple:
        st.charge(len(x) >> 3)
        return x
    if t in _SIZED:
        try:
            n = len(x)
        except OverflowError:
            raise seq_limit(10**19, what) from None
        if n > mx:
            raise seq_limit(n, what)
        st.charge(n)
        return list(x)
    known = getattr(t, "_script_length", None)
    if known is not None:
        n = known(x)
        if n is not None and n > mx:
            raise seq_limit(n, what)
    it = iter(x)
    out = []
    while True:
        chunk = list(_islice(it, 4096))
        out += chunk
        if len(out) > mx:
            raise seq_limit(len(out), what)
        st.charge(len(chunk))
        if len(chunk) < 4096:
            return out


def charge_new(r) -> None:
    """Charge the creation of sequence ``r`` and enforce the sequence limit."""
    n = len(r)
    if n > RT.max_seq:
        raise seq_limit(n)
    RT.charge(n >> 3 if type(r) is str else n)


# ---------------------------------------------------------------------------
# arithmetic

def as_index(x):
    """``x`` as the int Python's C code reads from it (``__index__``: an int subclass such
    as a numpy integer, a one-element integer tensor), so that size checks see the number a
    repetition, a padding width or ``math.factorial`` will use; ``x`` unchanged when it is
    an int already or not integer-like."""
    t = type(x)
    if t is int or t is bool or t is float or not hasattr(t, "__index__"):
        return x
    try:
        return operator.index(x)
    except Exception:   # noqa: BLE001 - the operation itself reports it
        return x


def add(a, b):
    r = a + b
    t = type(r)
    if t in _SEQS:
        n = len(r)
        if n > RT.max_seq:
            raise seq_limit(n)
        m = min(len(a), len(b)) if type(a) in _SEQS and type(b) in _SEQS else n
        RT.charge(m >> 3 if t is str else m)
    return r


def _check_mul(a, b):
    ta, tb = type(a), type(b)
    if ta in _INTS and tb in _INTS:
        if a and b:
            bits = a.bit_length() + b.bit_length() - 1
            if bits > RT.max_bits:
                raise int_limit(bits, "*")
        return
    if ta in _SEQS and tb in _INTS:
        seq, n = a, b
    elif tb in _SEQS and ta in _INTS:
        seq, n = b, a
    else:
        return
    if n > 0 and len(seq):
        total = len(seq) * n
        if total > RT.max_seq:
            raise seq_limit(total)
        RT.charge(total >> 3 if type(seq) is str else total)


def mul(a, b):
    ta = type(a)
    tb = type(b)
    if ta is float or tb is float:      # float * sequence is a TypeError: no growth
        return a * b
    if ta in _SEQS and tb not in _INTS:
        b = as_index(b)
        tb = type(b)
    elif tb in _SEQS and ta not in _INTS:
        a = as_index(a)
        ta = type(a)
    if ta is int and tb is int:
        n = a.bit_length() + b.bit_length()
        if n > RT.max_bits:
            if a and b and n - 1 > RT.max_bits:
                raise int_limit(n - 1, "*")
            r = a * b
            if r.bit_length() > RT.max_bits:
                raise int_limit(r.bit_length(), "*")
            return r
        return a * b
    if ta in _MUL_CHECK or tb in _MUL_CHECK:
        _check_mul(a, b)
        r = a * b
        if type(r) is int and r.bit_length() > RT.max_bits:
            raise int_limit(r.bit_length(), "*")
        return r
    return a * b


def _check_pow(a, b):
    if b > 0:
        aa = abs(a)
        if aa > 1:
            mx = RT.max_bits
            if b > mx + 1:
                raise int_limit(b * _log2(aa) if b < 10**300 else math.inf, "**")
            bits = b * _log2(aa)
            if bits > mx + 1:
                raise int_limit(bits, "**")


def pow_(a, b, mod=None):
    if type(a) in _INTS and type(b) in _INTS and mod is None:
        _check_pow(a, b)
    if mod is None:
        r = a ** b
    else:
        r = pow(a, b, mod)
    if type(r) is int and r.bit_length() > RT.max_bits:
        raise int_limit(r.bit_length(), "**")
    return r


def lshift(a, b):
    if type(a) in _INTS and type(b) in _INTS and a and b > 0:
        mx = RT.max_bits
        if b > mx or a.bit_length() + b > mx:
            raise int_limit(a.bit_length() + b, "<<")
    return a << b


def mod(a, b):
    if type(a) is str:
        check_printf(a, b)
        r = a % b
        charge_new(r)
        return r
    return a % b


def check_printf(fmt: str, args) -> None:
    """Bound the widths/precisions of a printf-style format before ``fmt % args``."""
    if "%" not in fmt:
        return
    deep_check(args)
    vals = args if type(args) is tuple else (args,)
    mx = RT.max_seq
    total = len(fmt)
    ai = 0
    n = len(fmt)
    i = fmt.find("%")
    while 0 <= i < n - 1:
        j = i + 1
        if fmt[j] == "(":
            k = fmt.find(")", j)
            if k < 0:
                return  # Python raises "incomplete format key"
            j = k + 1
        while j < n and fmt[j] in "#0- +":
            j += 1
        for part in range(2):
            if part == 1:
                if j < n and fmt[j] == ".":
                    j += 1
                else:
                    break
            if j < n and fmt[j] == "*":
                w = as_index(vals[ai]) if ai < len(vals) else 0
                ai += 1
                j += 1
                if type(w) in _INTS:
                    total += abs(w)
            else:
                k = j
                while j < n and fmt[j].isascii() and fmt[j].isdigit():
                    j += 1
                if j > k:
                    total += int(fmt[k:j]) if j - k < 20 else mx + 1
            if total > mx:
                raise seq_limit(total, "the formatted string")
        while j < n and fmt[j] in "hlL":
            j += 1
        if j < n and fmt[j] != "%":
            ai += 1
        i = fmt.find("%", j + 1)


def check_spec(spec: str, used: int = 0) -> None:
    """Bound the numbers (width, precision) in a format spec before ``format()``."""
    if not spec:
        return
    mx = RT.max_seq - used
    run = 0
    for ch in spec:
        # Python's spec parser takes any Unicode decimal digit ('９', '٩'), so this does too
        if ch.isdecimal():
            run = run * 10 + int(ch)
            if run > mx:
                raise seq_limit(run + used, "the formatted string")
        else:
            run = 0


# in-place operators: Python's own protocol (__iadd__ when the type has it, else __add__)
def iadd(a, b):
    ta = type(a)
    if ta is list:
        items = take(b, RT.max_seq - len(a)) if type(b) is not list else b
        if len(a) + len(items) > RT.max_seq:
            raise seq_limit(len(a) + len(items))
        RT.charge(len(items))
        a += items
        return a
    if ta in _SEQS:
        return add(a, b)
    return operator.iadd(a, b)


def imul(a, b):
    if type(a) is list:
        b = as_index(b)
        _check_mul(a, b)
        a *= b
        return a
    ta = type(a)
    # a type with its own __imul__ (a Tensor: ``t *= 2`` is in place) keeps it
    if ta in _MUL_CHECK or (type(b) in _MUL_CHECK and not hasattr(ta, "__imul__")):
        return mul(a, b)
    return operator.imul(a, b)


def ipow(a, b):
    if type(a) in _INTS and type(b) in _INTS:
        return pow_(a, b)
    return operator.ipow(a, b)


def ilshift(a, b):
    if type(a) in _INTS:
        return lshift(a, b)
    return operator.ilshift(a, b)


def imod(a, b):
    if type(a) is str:
        return mod(a, b)
    return operator.imod(a, b)


# ---------------------------------------------------------------------------
# comparisons

def _cmp(f):
    def cmp(a, b):
        if type(a) in CONTAINERS and type(b) in CONTAINERS:
            deep_check(a)
            deep_check(b)
        return f(a, b)
    cmp.__name__ = f.__name__
    return cmp


eq = _cmp(operator.eq)
ne = _cmp(operator.ne)
lt = _cmp(operator.lt)
le = _cmp(operator.le)
gt = _cmp(operator.gt)
ge = _cmp(operator.ge)


_FAST_CONTAINS = frozenset({list, tuple, dict, set, frozenset, str, *_VIEWS})


def contains(a, b):
    """``a in b``, never an unbounded loop in C."""
    tb = type(b)
    if tb not in _FAST_CONTAINS:
        if tb is range:
            if type(a) in _INTS:
                return a in b
            return _range_contains(a, b)
        if not hasattr(tb, "__contains__"):
            return _iter_contains(a, b)     # iterators: Python would scan them in C
        return a in b                       # engine objects: their own __contains__
    if type(a) in CONTAINERS:
        deep_check(a)
        if tb in CONTAINERS:
            deep_check(b)
    return a in b


def _iter_contains(a, it):
    st = RT
    n = 0
    for x in it:
        if x is a or x == a:
            st.charge(n)
            return True
        n += 1
        if not n & 1023:
            st.charge(1024)
            n = 0
    st.charge(n)
    return False


def not_contains(a, b):
    return not contains(a, b)


def _range_contains(a, r):
    # CPython scans a range linearly for non-int values; do it with step counting
    if type(a) is float:
        if not a.is_integer():
            return False
        return int(a) in r
    return _iter_contains(a, r)


# ---------------------------------------------------------------------------
# text conversions

def safe_str(x) -> str:
    if type(x) in CONTAINERS:
        deep_check(x)
    elif type(x) is str:
        return x
    elif type(x) is type:
        return _type_repr(x)
    return str(x)


def safe_repr(x) -> str:
    if type(x) in CONTAINERS:
        deep_check(x)
    elif type(x) is type:
        return _type_repr(x)
    return repr(x)


def _type_repr(t) -> str:
    from .typeobj import type_repr
    return type_repr(t) or repr(t)


def safe_ascii(x) -> str:
    if type(x) in CONTAINERS:
        deep_check(x)
    return ascii(x)


def safe_format(x, spec: str = "", used: int = 0) -> str:
    if type(spec) is not str:
        raise TypeError(f"format() argument 2 must be str, not {type(spec).__name__}")
    check_spec(spec, used)
    if type(x) in CONTAINERS:
        deep_check(x)
    return format(x, spec)


BINOPS = {
    "Add": add, "Sub": operator.sub, "Mult": mul, "Div": operator.truediv,
    "FloorDiv": operator.floordiv, "Mod": mod, "Pow": pow_, "LShift": lshift,
    "RShift": operator.rshift, "BitOr": operator.or_, "BitXor": operator.xor,
    "BitAnd": operator.and_, "MatMult": operator.matmul,
}

#: the raw operator, safe when one operand is a numeric (non-int for Mult) constant
RAW_BINOPS = {
    "Add": operator.add, "Sub": operator.sub, "Div": operator.truediv,
    "FloorDiv": operator.floordiv, "Mult": operator.mul,
}

INPLACE = {
    "Add": iadd, "Sub": operator.isub, "Mult": imul, "Div": operator.itruediv,
    "FloorDiv": operator.ifloordiv, "Mod": imod, "Pow": ipow, "LShift": ilshift,
    "RShift": operator.irshift, "BitOr": operator.ior, "BitXor": operator.ixor,
    "BitAnd": operator.iand, "MatMult": operator.imatmul,
}

UNARY = {"USub": operator.neg, "UAdd": operator.pos, "Invert": operator.invert, "Not": operator.not_}

COMPARE = {
    "Eq": eq, "NotEq": ne, "Lt": lt, "LtE": le, "Gt": gt, "GtE": ge,
    "Is": operator.is_, "IsNot": operator.is_not, "In": contains, "NotIn": not_contains,
}


# ---------------------------------------------------------------------------
# str.format without field lookups

def format_string(fmt: str, args: tuple, kwargs: dict) -> str:
    """``fmt.format(*args, **kwargs)`` allowing only ``{}``, ``{0}`` and ``{name}``
    fields (with conversions and format specs, nested specs one level deep). Field
    names with attribute or index lookups (``{0.__class__}``, ``{0[0]}``) raise
    ValueError: they would let a format string walk object internals."""
    state = {"auto": 0, "mode": None}
    mx = RT.max_seq
    out: list[str] = []
    used = 0

    def field_value(field: str):
        if field == "":
            if state["mode"] == "manual":
                raise ValueError("cannot switch from manual field specification to automatic field numbering")
            state["mode"] = "auto"
            key = state["auto"]
            state["auto"] += 1
        elif field.isascii() and field.isdigit():
            if state["mode"] == "auto":
                raise ValueError("cannot switch from automatic field numbering to manual field specification")
            state["mode"] = "manual"
            key = int(field)
        elif field.isidentifier():
            if field not in kwargs:
                raise KeyError(field)
            return kwargs[field]
        else:
            raise ValueError(
                f"format field {{{field}}} is not supported in autotrace scripts: only {{}}, {{0}} "
                "and {name} fields (no attribute or index lookups)")
        if key >= len(args):
            raise IndexError(f"Replacement index {key} out of range for positional args tuple")
        return args[key]

    def render(text: str, depth: int) -> None:
        nonlocal used
        for literal, field, spec, conv in _string.formatter_parser(text):
            if literal:
                out.append(literal)
                used += len(literal)
            if field is None:
                continue
            obj = field_value(field)
            if conv:
                if conv == "r":
                    obj = safe_repr(obj)
                elif conv == "s":
                    obj = safe_str(obj)
                elif conv == "a":
                    obj = safe_ascii(obj)
                else:
                    raise ValueError(f"Unknown conversion specifier {conv}")
            if spec and "{" in spec:
                if depth <= 0:
                    raise ValueError("Max string recursion exceeded")
                mark = len(out)
                saved = used
                render(spec, depth - 1)
                spec = "".join(out[mark:])
                del out[mark:]
                used = saved
            s = safe_format(obj, spec, used)
            out.append(s)
            used += len(s)
            if used > mx:
                raise seq_limit(used, "the formatted string")

    render(fmt, 1)
    RT.charge(used >> 3)
    return "".join(out)


# ---------------------------------------------------------------------------
# constructors of builtin containers, with the size limit

def safe_list(x=(), /):
    return list(take(x))


def safe_tuple(x=(), /):
    t = take(x)
    return t if type(t) is tuple else tuple(t)


def safe_set(x=(), /):
    items = take(x)
    for k in items:
        if type(k) is tuple:
            deep_check(k)
    return set(items)


def safe_frozenset(x=(), /):
    return frozenset(safe_set(x))


def safe_dict(x=(), /, **kwargs):
    if type(x) is dict:
        n = len(x)
    elif hasattr(type(x), "keys"):
        x = dict(x)
        n = len(x)
    else:
        x = take(x)
        n = len(x)
        for pair in x:
            if type(pair) in (tuple, list) and len(pair) == 2:
                hash_check(pair[0])
    total = n + len(kwargs)
    if total > RT.max_seq:
        raise seq_limit(total)
    RT.charge(total)
    return dict(x, **kwargs)


def safe_str_ctor(*args, **kwargs):
    if len(args) == 1 and not kwargs:
        return safe_str(args[0])
    if not args and not kwargs:
        return ""
    return str(*args, **kwargs)


#: callables whose Python behaviour would bypass the limits, and their safe versions;
#: a call of the real type from a script is redirected (``str(x)``, ``map(list, xs)``)
_LOG2 = {b: math.log2(b) for b in range(2, 37)}


def safe_int(x=0, /, *args, **kwargs):
    """``int(...)``; a string is parsed only when the result fits the int-bits limit
    (``int('1' * 10**7, 2)`` is refused before Python's parser runs)."""
    if isinstance(x, (str, bytes, bytearray)) and len(x) > 64:
        base = kwargs.get("base", args[0] if args else 10)
        if type(base) is int:
            text = x.strip().lstrip("+-") if isinstance(x, str) else x.strip().lstrip(b"+-").decode("latin-1")
            if base == 0:
                base = {"0x": 16, "0o": 8, "0b": 2}.get(text[:2].lower(), 10)
            bits = len(text) * _LOG2.get(base, 1.0)
            if bits > RT.max_bits:
                raise int_limit(bits, "int()")
    return int(x, *args, **kwargs)


SAFE_CTORS = {
    list: safe_list, tuple: safe_tuple, set: safe_set, frozenset: safe_frozenset,
    dict: safe_dict, str: safe_str_ctor, repr: safe_repr, ascii: safe_ascii, pow: pow_,
    format: safe_format, int: safe_int,
}


def safe_callable(f):
    """The safe version of ``f`` when it is a builtin that consumes or renders script
    data unchecked (used for key functions and ``map``/``filter`` callables)."""
    if f is None:
        return None
    try:
        return SAFE_CTORS.get(f, f)
    except TypeError:  # unhashable callable
        return f
