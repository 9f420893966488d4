"""Generator objects of script generator functions (``def`` bodies with ``yield``).

Calling a generator function binds its arguments and returns a :class:`GeneratorObject`
wrapping a Python generator that runs the compiled body lazily (see
:mod:`.compile_gen`): the body runs only as far as the consumer asks, as in Python.

Python's own generator machinery gives the semantics: ``ValueError: generator already
executing`` when a generator is resumed from inside itself, ``TypeError: can't send
non-None value to a just-started generator``, PEP 479 (a StopIteration raised in the
body becomes ``RuntimeError: generator raised StopIteration``), ``return v`` ending the
iteration with ``StopIteration(v)``.

Each resumption counts as one nested script call (the recursion limit stops
``def g(): yield from g()`` cleanly). ``finally`` blocks (and the ``__exit__`` of
script context managers) run on :meth:`GeneratorObject.close`, when the object is
collected during the run, and for generators left suspended when the script ends; a
collected generator's errors are ignored, as Python ignores them (it prints them to
stderr). No script code runs after the run ended or after a limit was reached.
"""

from __future__ import annotations

import weakref

from .limits import RT, limit_error
from .values import DISPLAY_NAMES, display_name

#: set while the generators left at the end of a run that hit a limit are closed
_NO_SCRIPT = False
#: generators started and not finished during the current run (closed at its end)
_LIVE: "weakref.WeakValueDictionary[int, GeneratorObject]" = weakref.WeakValueDictionary()
_counter = 0
#: C stack frames the generators resumed now take (estimated, see compile_gen): each
#: resumption of a Python generator re-enters the C evaluator, unlike an ordinary call,
#: so a deep ``yield from`` chain (``--limit recursion`` raised) would overflow the C
#: stack long before Python's recursion limit; past this budget the run ends as at
#: Python's recursion limit instead
_C_FRAMES = 0
MAX_C_FRAMES = 14_000


class CloseSignal(BaseException):
    """What :meth:`GeneratorObject.close` throws into the paused body (the script's
    GeneratorExit). Python's own GeneratorExit would make each ``yield from`` of the
    compiled statements close its delegate separately, breaking the chain when a
    ``finally`` block yields again; a thrown exception travels down the chain as one."""


def finally_ok() -> bool:
    """May a ``finally`` block run for a close now? (Python's GeneratorExit, from the
    garbage collector finalising what is left of a generator, never runs script code.)"""
    return not _NO_SCRIPT and RT.active and RT.dead is None


class GeneratorObject:
    """What calling a script generator function returns: an iterator with ``send``,
    ``throw`` and ``close``; ``repr`` is Python's ``<generator object NAME at 0x...>``
    (NAME the function's qualified name) and ``type(g).__name__`` is ``'generator'``."""

    __slots__ = ("_pg", "_qualname", "_state", "_key", "_weight", "__weakref__")
    _script_attrs = frozenset({"send", "throw", "close"})

    def __init__(self, pg, qualname: str, weight: int = 4):
        global _counter
        self._pg = pg
        self._weight = weight
        self._qualname = qualname
        self._state = 0          # 0 not started, 1 started, 2 finished
        _counter += 1
        self._key = _counter

    def __repr__(self):
        return f"<generator object {self._qualname} at 0x{id(self):x}>"

    def __iter__(self):
        return self

    def __next__(self):
        return self._resume(self._pg.send, None)

    def send(self, value):
        """``g.send(value)``: resume the generator, the paused ``yield`` evaluating to
        ``value``; returns the next value yielded (StopIteration when it returns)."""
        return self._resume(self._pg.send, value)

    def throw(self, typ, val=None, tb=None):
        """``g.throw(exc)``: raise ``exc`` (an exception or class) at the paused yield."""
        from .compile_base import _is_exc_class, _make_exc
        from .values import CaughtException
        if not (_is_exc_class(typ) or isinstance(typ, BaseException) or type(typ) is CaughtException):
            raise TypeError("exceptions must be classes or instances deriving from BaseException, "
                            f"not {display_name(typ)}")
        if val is not None:
            if not isinstance(typ, type):
                raise TypeError("instance exception may not have a separate value")
            typ = typ(val) if not isinstance(val, BaseException) else val
        if tb is not None:
            raise TypeError("throw() third argument must be a traceback object")
        return self._resume(self._pg.throw, _make_exc(typ))

    def close(self):
        """``g.close()``: raise GeneratorExit at the paused yield, running the body's
        ``finally`` blocks; RuntimeError when the body yields again."""
        if self._state != 1:
            self._state = 2
            self._pg.close()
            return None
        try:
            self._resume(self._pg.throw, CloseSignal())
        except (CloseSignal, StopIteration):
            return None
        raise RuntimeError("generator ignored GeneratorExit")

    def _resume(self, how, arg):
        global _C_FRAMES
        st = RT
        if not st.active:
            raise RuntimeError(f"script generator {self._qualname}() resumed outside of a script run")
        d = st.depth + 1
        if d > st.max_depth:
            raise limit_error("max_recursion")
        w = self._weight
        if _C_FRAMES + w > MAX_C_FRAMES:
            raise RecursionError("maximum recursion depth exceeded while resuming a generator")
        if self._state == 0:
            self._state = 1
            _LIVE[self._key] = self
        st.depth = d
        _C_FRAMES += w
        try:
            return how(arg)
        except BaseException:
            # a thrown exception held here would form a cycle with its traceback, which
            # keeps the caller's frames (and the values in them) alive until a collection
            arg = None
            if self._pg.gi_frame is None:
                self._finish()
            raise
        finally:
            st.depth = d - 1
            _C_FRAMES -= w

    def _finish(self):
        self._state = 2
        _LIVE.pop(self._key, None)

    def __del__(self):
        # (not at the recursion limit: there, as in CPython, whose finaliser would meet a
        # RecursionError, the body's finally blocks do not run)
        if self._state == 1 and RT.active and not _NO_SCRIPT and self._pg.gi_frame is not None \
                and not self._pg.gi_running and RT.depth < RT.max_depth:
            from .limits import LimitExceeded
            try:
                self.close()
            except LimitExceeded as e:
                # a finaliser cannot raise: the run ends at its next step check
                RT.dead = e
                RT.check_at = -1
            except BaseException:   # Python ignores a finaliser's error too
                pass


DISPLAY_NAMES[GeneratorObject] = "generator"
# Python's own messages name the type ("object of type 'generator' has no len()")
GeneratorObject.__name__ = GeneratorObject.__qualname__ = "generator"


def yield_from(it):
    """``yield from it`` inside a compiled generator body (a Python generator returning
    the delegate's return value). A script generator gets the values sent and the
    exceptions thrown, and is closed when the outer one is; any other iterable is
    iterated (at most the loop limit of items)."""
    if type(it) is GeneratorObject:
        try:
            y = it.send(None)
        except StopIteration as e:
            return e.value
        while True:
            try:
                s = yield y
            except CloseSignal:
                it.close()
                raise
            except GeneratorExit:
                raise
            except BaseException as e:
                try:
                    y = it.throw(e)
                except StopIteration as e2:
                    return e2.value
            else:
                try:
                    y = it.send(s)
                except StopIteration as e2:
                    return e2.value
    from .values import display_name
    if not hasattr(type(it), "__iter__"):
        raise TypeError(f"'{display_name(it)}' object is not iterable")
    st = RT
    ml = st.max_loop
    n = 0
    for x in it:
        n += 1
        if n > ml:
            raise limit_error("max_loop_iterations")
        st.steps += 1
        if st.steps > st.check_at:
            st.tick()
        yield x
    return None


def start_run() -> None:
    """Forget the generators of an earlier run."""
    global _NO_SCRIPT, _C_FRAMES
    _LIVE.clear()
    _NO_SCRIPT = False
    _C_FRAMES = 0


def close_all(limit_reached: bool):
    """Close the generators the run left suspended, newest first (their ``finally``
    blocks run unless the run ended at a limit). Returns the first limit error met,
    or None; the script's own errors in ``finally`` blocks are ignored as Python ignores
    them at exit."""
    global _NO_SCRIPT
    from .limits import LimitExceeded
    _NO_SCRIPT = limit_reached
    first = None
    try:
        for key in sorted(_LIVE.keys(), reverse=True):
            g = _LIVE.get(key)
            if g is None or g._pg.gi_running:
                continue
            try:
                g.close()
            except LimitExceeded as e:
                if first is None:
                    first = e
                _NO_SCRIPT = True
            except (RecursionError, MemoryError) as e:
                if first is None:
                    first = e
                _NO_SCRIPT = True
            except BaseException:
                pass
    finally:
        _LIVE.clear()
    return first
