"""Files a user names (``--points FILE``, ``--x @FILE``): what stands at the path,
and what is wrong with a file NumPy, zipfile or pyarrow refused, in gradcli's words.

Only regular files are read: a FIFO blocks until some other process writes to it
and a device (``/dev/zero``) never ends; standard input is ``-``. Nothing here
advises loading a file another way: gradcli never unpickles.
"""

from __future__ import annotations

import errno
import os
import stat

from ..errors import os_reason

#: What a file of Python objects is told, whichever library found them.
PICKLE = "it holds Python objects (a pickle), and gradcli never unpickles files"


def path_problem(path: str) -> str | None:
    """Why ``path`` is not a regular file gradcli can read, or None when it is one."""
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        if error.errno == errno.ENOENT and os.path.islink(path):
            return "a symbolic link to a file that does not exist"
        return os_reason(error)
    except ValueError:  # a NUL in the name
        return "no such file"
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "it is a directory"
    if stat.S_ISFIFO(mode):
        return (
            "it is a FIFO (a named pipe), not a regular file; give a file, or - to read"
            " standard input"
        )
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "it is a device, not a regular file"
    if stat.S_ISSOCK(mode):
        return "it is a socket, not a regular file"
    return "it is not a regular file"


def npy_problem(path: str) -> str | None:
    """Why ``path`` is no ``.npy`` at all (NumPy takes any other file for a pickle)."""
    with open(path, "rb") as stream:
        magic = stream.read(6)
    if magic == b"\x93NUMPY":
        return None
    if magic[:1] == b"\x80":  # a pickle's protocol mark
        return PICKLE
    return "not a .npy file (it does not start with NumPy's magic string)"


# Texts of NumPy, zipfile and pyarrow, and what they mean about the file.
_REFUSALS = (
    ("allow_pickle", PICKLE),
    ("pickled", PICKLE),
    ("Python objects in dtype", PICKLE),
    ("mmap length is greater than file size", "the file is shorter than its header says"),
    ("could only read", "the file is shorter than its header says"),
    ("EOF: reading array data", "the file is shorter than its header says"),
    ("File is not a zip file", "not a .npz file (no zip archive, or one cut short)"),
    ("Truncated file header", "the zip archive is cut short"),
    ("Bad CRC-32", "the zip archive is damaged (a checksum does not match)"),
    ("Parquet magic bytes not found", "not a Parquet file (its end is no Parquet footer)"),
    ("smaller than the minimum file footer", "not a Parquet file (too short for one)"),
)


def refusal(error: BaseException) -> str:
    """What is wrong with a file, from the exception its reader raised."""
    if isinstance(error, OSError) and error.strerror:
        return os_reason(error)
    text = str(error)
    for found, meaning in _REFUSALS:
        if found in text:
            return meaning
    if isinstance(error, EOFError):
        return "the file is shorter than its header says"
    return text.splitlines()[0] if text else type(error).__name__
