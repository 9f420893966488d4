"""Reading inputs and writing output files safely.

Writing is whole or not at all: :func:`write_atomic` writes a temporary file in the
target's directory and renames it over the target, so a reader (or an interrupted run)
never sees half a file. Two rules, by who chose the path:

* a path the **user names** (``graph -o FILE``, ``check --expect FILE --update``) is
  written as the shell's ``>`` would write it: a symbolic link is followed (the file it
  points to is replaced, the link stays), and a target that is not a regular file —
  ``/dev/null``, ``/dev/stdout``, a FIFO — is written to directly (renaming over it
  would replace the device or pipe with a file). Like ``>``, a FIFO nobody reads waits,
  here until the command's time limit;
* a path **autotrace derives itself** (the golden ``NAME.expected.json`` beside a script
  in ``check --update``) is never written through a symbolic link, nor to anything but
  a regular file: a repository cannot ship ``X.expected.json -> ~/.bashrc`` and have
  ``check --update`` overwrite the target. Such a path is refused with
  :class:`UnsafeTarget`; the rename replaces the directory entry itself, never a link's
  target.

:func:`read_regular` opens an input that must be a regular file (a golden) without
blocking on a FIFO and refuses anything else.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile


class UnsafeTarget(OSError):
    """A derived output path is a symbolic link or not a regular file."""


def write_atomic(path: str, data: bytes, *, follow_symlinks: bool = True) -> None:
    """Write ``data`` to ``path``. Raises OSError (e.g. ENOSPC, EACCES) with the file
    left as it was; :class:`UnsafeTarget` when ``follow_symlinks`` is False and ``path``
    is a symbolic link or exists as something other than a regular file."""
    if not follow_symlinks:
        try:
            lst = os.lstat(path)
        except FileNotFoundError:
            lst = None
        if lst is not None and stat.S_ISLNK(lst.st_mode):
            raise UnsafeTarget(errno.ELOOP, "is a symbolic link; autotrace writes the files it names itself "
                                            "only as regular files (remove the link or name the file with --expect)")
        if lst is not None and not stat.S_ISREG(lst.st_mode):
            raise UnsafeTarget(errno.EINVAL, "is not a regular file")
        st, target = lst, path
    else:
        try:
            st = os.stat(path)  # follows links, as the shell's > does
        except FileNotFoundError:
            st = None
        if st is not None and not stat.S_ISREG(st.st_mode):
            with open(path, "wb") as f:
                f.write(data)
                f.flush()
            return
        target = os.path.realpath(path)
    directory = os.path.dirname(target) or "."
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(target) + ".", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if st is not None:
            mode = st.st_mode & 0o777
        else:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, target)      # replaces the entry itself: never follows a link
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def read_regular(path: str, max_bytes: int) -> bytes:
    """The bytes of ``path``, which must be a regular file of at most ``max_bytes``.
    Opened non-blocking, so a FIFO is refused at once instead of waiting for a writer.
    Raises FileNotFoundError, IsADirectoryError, :class:`UnsafeTarget` (not a regular
    file), ValueError (too large) or OSError."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory", path)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeTarget(errno.EINVAL, "is not a regular file")
        if st.st_size > max_bytes:
            raise ValueError(f"larger than {max_bytes // (1024 * 1024)} MiB")
        os.set_blocking(fd, True)
        chunks, total = [], 0
        while True:
            b = os.read(fd, 1 << 20)
            if not b:
                break
            total += len(b)
            if total > max_bytes:
                raise ValueError(f"larger than {max_bytes // (1024 * 1024)} MiB")
            chunks.append(b)
        return b"".join(chunks)
    finally:
        os.close(fd)
