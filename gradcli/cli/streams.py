"""Standard streams that were closed when gradcli started (``>&-``, ``<&-``, ``2>&-``).

Python leaves ``sys.stdout`` (or ``sys.stdin``, ``sys.stderr``) as ``None`` then, and the
first ``isatty`` or ``write`` would be an internal error. Each closed stream's descriptor
is taken by the null device, so that no file gradcli opens lands on it (a worker process
would inherit it as its standard output), and the stream becomes one that says, when
used, that it is closed: reading it is an error, writing it is the error "cannot write
standard output", and standard error goes nowhere.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys

from ..errors import GradcliError


class _ClosedInput(io.RawIOBase):
    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        raise GradcliError("cannot read standard input: it is closed")


class _ClosedOutput(io.RawIOBase):
    said = False

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        if self.said:  # the error is on its way: Python's last flush at exit is quiet
            return len(data)
        self.said = True
        raise OSError("it is closed")  # no errno: its words are these


def _is_open(fd: int) -> bool:
    """Whether ``fd`` is open, and for an output, open for writing (a shell script that
    runs Python with ``2>&-`` may leave its own file, read-only, there)."""
    try:
        import fcntl
    except ImportError:  # Windows: Python leaves a closed stream as None
        return True
    try:
        mode = fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE
    except OSError:
        return False
    return fd == 0 or mode != os.O_RDONLY


def mend_closed_streams() -> None:
    """Stand in for each standard stream Python found closed at start-up."""
    closed = [
        (fd, name) for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr"))
        if getattr(sys, name) is None or not _is_open(fd)
    ]  # fmt: skip
    for fd, _ in closed:
        with contextlib.suppress(OSError):
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
    for _, name in closed:
        if name == "stdin":
            stream = io.TextIOWrapper(io.BufferedReader(_ClosedInput()), encoding="utf-8")
        elif name == "stdout":
            stream = io.TextIOWrapper(io.BufferedWriter(_ClosedOutput()), encoding="utf-8")
        else:
            stream = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (for the process)
        setattr(sys, name, stream)
