"""Resource limits of a script run and the run-time counters that enforce them.

:class:`Limits` is the caller's configuration. :data:`RT` is the one :class:`RunState`
of the process: the compiled closures of every program count their steps in it, so
one run can be active at a time (``run_program`` is not reentrant).

Step accounting is bulk and cheap: a block adds its number of statements when it is
entered, a loop adds ``1 + len(body)`` per iteration, a script function call adds
``1 + len(body)``. When ``steps`` passes ``check_at`` the slow :meth:`RunState.tick`
reads the wall clock; the distance between two ticks adapts (at most 1,000 steps,
fewer when statements are slow) so that the time limit is honoured even when single
statements take long. A ``SIGALRM`` backstop (main thread only) ends runs that hang
inside engine code without returning to the interpreter.
"""

from __future__ import annotations

import math
import signal
import sys
import threading
import time
from dataclasses import dataclass

_monotonic = time.monotonic


@dataclass
class Limits:
    """Limits of one script run (each has a CLI option to raise it)."""

    timeout: float = 10.0            # wall-clock seconds for the whole run
    max_steps: int = 50_000_000      # executed statements + loop iterations + calls
    max_loop_iterations: int = 10_000_000   # per loop
    max_recursion: int = 200         # depth of script function calls
    max_output: int = 1_000_000      # characters printed
    max_sequence: int = 10_000_000   # length of a str/list/tuple/dict the script builds
    max_int_bits: int = 4096         # results of int ** / << / * larger than this are refused
    # enforced by the engine and the runner, not the interpreter:
    max_elements: int = 100_000_000  # elements of one tensor
    max_flops: int = 50_000_000_000  # float-op equivalents of one numpy call (matmul, sort)
    max_memory: int = 8192           # MiB of address space for the whole process (RLIMIT_AS)
    #: absolute ``time.monotonic()`` deadline of the whole command (set by the CLI with
    #: :func:`start_command`); the run ends at it instead of ``timeout`` after its start
    deadline: float | None = None


#: CLI option that raises each limit (used in the messages; the CLI may rename them here).
OPTIONS: dict[str, str] = {
    "timeout": "--timeout",
    "max_steps": "--max-steps",
    "max_loop_iterations": "--limit loop-iterations=N",
    "max_recursion": "--limit recursion=N",
    "max_output": "--limit output=N",
    "max_sequence": "--limit sequence=N",
    "max_int_bits": "--limit int-bits=N",
}

#: how deeply builtin containers may nest when printed, compared or hashed
MAX_CONTAINER_DEPTH = 100


class LimitExceeded(BaseException):
    """A limit was reached. A BaseException so that neither scripts (``except
    Exception``) nor engine code catch it. ``limit`` names the Limits field (or
    "nesting", "memory", "recursion")."""

    def __init__(self, limit: str, message: str):
        super().__init__(message)
        self.limit = limit
        self.message = message


def _num(v: float) -> str:
    return f"{v:g}"


def limit_error(limit: str, detail: str = "") -> LimitExceeded:
    """Build the LimitExceeded for ``limit`` (a Limits field name) with the run's value."""
    st = RT
    opt = OPTIONS.get(limit, "")
    how = f" (use {opt} to raise it)" if opt else ""
    if limit == "timeout":
        msg = f"time limit of {_num(st.timeout)} s reached{how}"
    elif limit == "max_steps":
        msg = f"step limit of {st.max_steps} reached{how}"
    elif limit == "max_loop_iterations":
        msg = f"loop iteration limit of {st.max_loop} reached{how}"
    elif limit == "max_recursion":
        msg = f"recursion limit of {st.max_depth} nested script function calls reached{how}"
    elif limit == "max_output":
        msg = f"output limit of {st.max_out} characters reached{how}"
    elif limit == "max_sequence":
        msg = f"size limit of {st.max_seq} elements reached{detail}{how}"
        detail = ""
    elif limit == "max_int_bits":
        msg = f"integer size limit of {st.max_bits} bits reached{detail}{how}"
        detail = ""
    else:
        msg = detail
        detail = ""
    if detail:
        msg += detail
    return LimitExceeded(limit, msg)


def seq_limit(n: int, what: str = "the result") -> LimitExceeded:
    return limit_error("max_sequence", f": {what} would have {n} elements")


def int_limit(bits: float, op: str) -> LimitExceeded:
    return limit_error("max_int_bits", f": the result of {op} would have about {int(bits)} bits")


class RunState:
    """Counters and settings of the active run (the single instance is :data:`RT`)."""

    __slots__ = (
        "active", "steps", "check_at", "interval", "max_steps", "deadline", "timeout",
        "last_tick", "max_loop", "max_depth", "depth", "max_out", "out", "out_len",
        "max_seq", "max_bits", "modules", "module_names", "inst_cache", "dead",
    )

    def __init__(self):
        self.active = False
        self.reset(Limits())
        self.active = False

    def reset(self, limits: Limits) -> None:
        now = _monotonic()
        self.steps = 0
        self.interval = 1000
        self.max_steps = int(limits.max_steps)
        self.check_at = min(self.interval, self.max_steps)
        self.timeout = float(limits.timeout)
        self.deadline = now + self.timeout if self.timeout > 0 and math.isfinite(self.timeout) else math.inf
        if getattr(limits, "deadline", None) is not None:
            self.deadline = min(self.deadline, limits.deadline)
        self.last_tick = now
        self.max_loop = int(limits.max_loop_iterations)
        self.max_depth = int(limits.max_recursion)
        self.depth = 0
        self.max_out = int(limits.max_output)
        self.out = []
        self.out_len = 0
        self.max_seq = int(limits.max_sequence)
        self.max_bits = int(limits.max_int_bits)
        self.modules = {}
        self.module_names = {}
        self.inst_cache = {}
        self.dead = None

    def tick(self) -> None:
        """Slow path of step accounting: check the step and time limits."""
        if self.dead is not None:           # a limit was reached: nothing may run on
            raise limit_error(self.dead.limit)
        now = _monotonic()
        if now >= self.deadline:
            self.kill("timeout")
        if self.steps > self.max_steps:
            self.kill("max_steps")
        dt = now - self.last_tick
        self.last_tick = now
        iv = self.interval
        if dt > 0.02:
            iv = max(1, iv // 8)
        elif dt < 0.002 and iv < 1000:
            iv = min(1000, iv * 2)
        self.interval = iv
        self.check_at = min(self.steps + iv, self.max_steps)

    def kill(self, limit: str):
        """Record that ``limit`` was reached (every later tick fails too) and raise."""
        self.dead = limit_error(limit)
        self.check_at = -1
        if limit == "timeout" and math.isfinite(COMMAND.deadline):
            _grace_for_report()
        raise limit_error(limit)

    def charge(self, n: int) -> None:
        """Count ``n`` steps of work done on the script's behalf (builtins iterating)."""
        self.steps += n
        if self.steps > self.check_at:
            self.tick()

    def check_len(self, n: int, what: str = "the result") -> None:
        if n > self.max_seq:
            raise seq_limit(n, what)

    def write(self, text: str) -> None:
        """Append printed text to the captured stdout, enforcing the output limit.
        Text that UTF-8 cannot encode (a lone surrogate, ``print("\\ud800")``) raises
        Python's UnicodeEncodeError here, at the script's print, as Python's stdout would."""
        if not text.isascii():
            text.encode("utf-8")
        room = self.max_out - self.out_len
        if len(text) > room:
            if room > 0:
                self.out.append(text[:room])
                self.out_len += room
            raise limit_error("max_output")
        self.out.append(text)
        self.out_len += len(text)


RT = RunState()


# ---------------------------------------------------------------------------
# SIGALRM backstop: a run stuck in engine code never reaches tick(). The alarm fires
# a little after the deadline and raises LimitExceeded wherever Python code runs.

class _Alarm:
    def __init__(self):
        self.installed = False
        self.armed = False
        self.old_handler = None

    def start(self, seconds: float) -> None:
        self.installed = False
        if not (seconds > 0 and math.isfinite(seconds)):
            return
        if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
            return
        try:
            if signal.getitimer(signal.ITIMER_REAL) != (0.0, 0.0):
                return  # someone else uses the timer
            old = signal.getsignal(signal.SIGALRM)
            if old not in (signal.SIG_DFL, signal.SIG_IGN, None):
                return
            signal.signal(signal.SIGALRM, self._handler)
            self.old_handler = old
            self.armed = True
            self.installed = True
            signal.setitimer(signal.ITIMER_REAL, seconds + 0.25 + seconds * 0.05)
        except (ValueError, OSError):  # pragma: no cover
            self.installed = False

    def _handler(self, signum, frame):
        if self.armed and RT.active:
            self.armed = False
            RT.kill("timeout")

    def stop(self) -> None:
        self.armed = False
        if not self.installed:
            return
        self.installed = False
        try:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.old_handler if self.old_handler is not None else signal.SIG_DFL)
        except (ValueError, OSError):  # pragma: no cover
            pass


ALARM = _Alarm()


def python_recursion_limit_for(max_recursion: int) -> int:
    """The ``sys.setrecursionlimit`` a run with ``max_recursion`` needs (capped)."""
    return min(max(sys.getrecursionlimit(), 2000 + 40 * max(0, max_recursion)), 30000)


# ---------------------------------------------------------------------------
# The whole command under the limits. The CLI calls start_command() before it reads
# the script: from then on the time limit (SIGALRM at the deadline, plus the cheap
# checkpoint() calls phases make) and the memory limit (RLIMIT_AS) cover reading,
# running, analysing, explaining, rendering and writing alike. A phase past the
# deadline raises LimitExceeded naming the phase; the CLI turns it (and a MemoryError
# outside the run) into one line and exit 1. Library callers that never call
# start_command() keep the per-run limits only.

GRACE = 0.25    # seconds the signal waits after the deadline, so cooperative checks win


class CommandClock:
    __slots__ = ("deadline", "timeout", "phase", "script", "expired", "installed", "memory")

    def __init__(self):
        self.deadline = math.inf
        self.timeout = 0.0
        self.phase = "running the script"
        self.script = None
        self.expired = False
        self.installed = False
        self.memory = None


COMMAND = CommandClock()


def command_timeout() -> LimitExceeded:
    c = COMMAND
    return LimitExceeded("timeout", f"time limit of {_num(c.timeout)} s reached while {c.phase} "
                                    f"(use --timeout to raise it)")


def command_memory() -> LimitExceeded:
    c = COMMAND
    size = f"{c.memory} MiB" if c.memory else "memory"
    return LimitExceeded("memory", f"memory limit of {size} reached while {c.phase} "
                                   f"(use --limit memory=MiB to raise it)")


def _command_alarm(signum, frame):
    if COMMAND.expired:      # already raised (a checkpoint, or this alarm): being reported
        return
    COMMAND.expired = True
    COMMAND.deadline = -math.inf
    if RT.active:
        RT.kill("timeout")
    raise command_timeout()


def start_command(timeout: float, memory_mib: int | None = None, script: str | None = None) -> float:
    """Start the whole-command clock (and address-space cap); returns the absolute
    deadline (``time.monotonic()`` seconds) to put in :attr:`Limits.deadline`. Calling
    it again (``check`` does, per script) restarts the clock."""
    c = COMMAND
    now = _monotonic()
    c.timeout = float(timeout)
    _disarm()
    c.deadline = now + timeout if timeout > 0 and math.isfinite(timeout) else math.inf
    c.expired = False
    c.phase = "reading the script"
    c.script = script
    if (math.isfinite(c.deadline) and hasattr(signal, "setitimer")
            and threading.current_thread() is threading.main_thread()):
        try:
            if not c.installed:
                if signal.getsignal(signal.SIGALRM) not in (signal.SIG_DFL, signal.SIG_IGN, None):
                    return c.deadline
                signal.signal(signal.SIGALRM, _command_alarm)
                c.installed = True
            signal.setitimer(signal.ITIMER_REAL, timeout + GRACE)
        except (ValueError, OSError):  # pragma: no cover
            pass
    if memory_mib:
        c.memory = int(memory_mib)
        try:
            import numpy  # noqa: F401  - its BLAS threads reserve their buffers before the cap
            import resource
            soft, hard = resource.getrlimit(resource.RLIMIT_AS)
            want = c.memory * 1024 * 1024
            if hard != resource.RLIM_INFINITY:
                want = min(want, hard)
            if soft == resource.RLIM_INFINITY or want < soft:
                resource.setrlimit(resource.RLIMIT_AS, (want, hard))
        except (ImportError, ValueError, OSError):  # pragma: no cover
            pass
    return c.deadline


#: seconds the command has, after the script's run hit the time limit, to show what
#: the run computed (its output, the tensors so far) and the error
REPORT_GRACE = 2.0


def _grace_for_report() -> None:
    c = COMMAND
    c.expired = False
    c.deadline = _monotonic() + REPORT_GRACE
    if c.installed:
        try:
            signal.setitimer(signal.ITIMER_REAL, REPORT_GRACE + GRACE)
        except (ValueError, OSError):  # pragma: no cover
            pass


def phase(name: str) -> None:
    """Name the phase the command is in (for the limit message) and check the clock."""
    COMMAND.phase = name
    checkpoint()


def checkpoint() -> None:
    """Cheap check of the whole-command deadline for long loops of the phases after the
    run (a clock read; nothing when no command clock runs)."""
    c = COMMAND
    if c.expired or _monotonic() >= c.deadline:
        c.expired = True
        _disarm()            # the alarm must not fire again while the limit is reported
        raise command_timeout()


def expired(deadline: float | None) -> bool:
    """Whether the absolute ``deadline`` (a :attr:`Limits.deadline`) has passed, or the
    last run ended at its time limit (which a run under a command clock only reaches at
    the command's deadline)."""
    if deadline is None:
        return False
    return _monotonic() >= deadline or (RT.dead is not None and RT.dead.limit == "timeout")


def expire(phase_name: str | None = None) -> None:
    """End the command at its deadline now: a re-run (``explain --verify``) that reached
    the whole-command time limit ends the command with the limit naming the current
    phase, not with a note and more re-runs. Raises LimitExceeded."""
    c = COMMAND
    if phase_name:
        c.phase = phase_name
    c.expired = True
    c.deadline = -math.inf
    _disarm()
    raise command_timeout()


def remaining() -> float:
    """Seconds left before the whole-command deadline (inf when none)."""
    return COMMAND.deadline - _monotonic()


def _disarm() -> None:
    if COMMAND.installed:
        try:
            signal.setitimer(signal.ITIMER_REAL, 0)
        except (ValueError, OSError):  # pragma: no cover
            pass


def release_for_output() -> None:
    """The command's output is complete and about to be written to standard output: stop
    the clock, so the write is never cut short and a reader gets all of it (a limit
    reached before this point leaves nothing written). An alarm that fires meanwhile is
    ignored; the memory cap stays."""
    c = COMMAND
    try:
        c.deadline = math.inf
        _disarm()
    except LimitExceeded:       # the alarm fired just now: the output is whole all the same
        c.deadline = math.inf
        _disarm()
    c.expired = False


def stop_command() -> None:
    """Cancel the whole-command alarm (the command is done, or a limit is being reported)."""
    COMMAND.deadline = math.inf
    _disarm()
