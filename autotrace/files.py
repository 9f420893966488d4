"""Writing output files: whole or not at all.

:func:`write_atomic` writes through a temporary file in the target's directory and a
rename, so a reader (or an interrupted run) never sees half a file. A symbolic link is
followed (the file it points to is replaced, the link stays); a target that is not a
regular file — ``/dev/null``, ``/dev/stdout``, a FIFO — is written to directly, since
renaming over it would replace the device or pipe with a file.
"""

from __future__ import annotations

import os
import stat
import tempfile


def write_atomic(path: str, data: bytes) -> None:
    """Write ``data`` to ``path``. Raises OSError (e.g. ENOSPC, EACCES) with the file
    left as it was."""
    try:
        st = os.stat(path)  # follows links
    except FileNotFoundError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):
        with open(path, "wb") as f:
            f.write(data)
            f.flush()
        return
    target = os.path.realpath(path)
    directory = os.path.dirname(target)
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
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
