"""Every file gradcli writes, written whole or not at all.

``AtomicOutput(path)`` creates a temporary file ``.NAME.RANDOM.tmp`` beside the
target (the same directory, so the rename cannot cross file systems), which a
writer fills through ``open()`` or by its ``temp`` path (pyarrow, Graphviz);
the target's cached pages are dropped first (it is about to be replaced: the new
file's pages reuse that memory). ``commit()`` flushes and fsyncs it, gives it the
target's mode when one exists (else the mode ``open()`` would give: 0666 less the
umask) and renames it over the target; ``discard()`` removes it. Until the rename
the target keeps what it held, whatever stops the run: an error, a full disk, a
signal, a kill (which leaves only the temporary file). ``atomic_output(path)``
is the same as a ``with`` block that commits when the block ends normally.

``AtomicDirectory(path)`` does the same for a directory of files (Dask's
Parquet parts): a directory ``.NAME.RANDOM.tmp`` renamed to ``path`` when
complete. A directory cannot be swapped for another in one step, so an
existing ``path`` must be an empty directory (refused otherwise, before
anything is computed).

A target that exists and is not a regular file (``/dev/null``, a named pipe) is
written in place: there is nothing to replace there, and renaming over a device
would remove it. A symbolic link is followed: the file it names is replaced.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import stat


def reason(error: OSError) -> str:
    """Why ``error`` happened, in the system's words ("No space left on device"), also
    for pyarrow's errors, whose text is its own ("Error writing bytes to file.
    Detail: [errno 28] ...")."""
    number = error.errno
    if number is None:
        found = re.search(r"\[errno (\d+)\]", str(error), re.IGNORECASE)
        number = int(found.group(1)) if found else None
    if number is not None:
        return os.strerror(number)
    return error.strerror or str(error)


def _beside(target: str) -> str:
    """A new name in ``target``'s directory: ``.NAME.RANDOM.tmp``."""
    directory, name = os.path.split(target)
    return os.path.join(directory, f".{name}.{os.urandom(4).hex()}.tmp")


def _sync_directory(directory: str) -> None:
    """Make a rename in ``directory`` durable (where the file system allows it)."""
    try:
        fd = os.open(directory or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):  # some file systems cannot fsync a directory
            os.fsync(fd)
    finally:
        os.close(fd)


def _uncache(target: str) -> None:
    """Drop the cached pages of ``target``, which is about to be replaced: the new file's
    pages then reuse that memory, in use already, rather than free memory the system
    may have to make ready first (on a virtual machine, pages its host took back),
    which made writing a large file over an old one several times slower than writing
    it over nothing. The file itself is untouched until the rename."""
    if not hasattr(os, "posix_fadvise"):
        return
    try:
        fd = os.open(target, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


class AtomicOutput:
    """A temporary file that becomes ``path`` on ``commit()``; raises OSError when
    ``path`` cannot be written (a missing or read-only directory), before anything
    is computed."""

    def __init__(self, path: str):
        self.path = path
        target = os.path.realpath(path) if os.path.islink(path) else path
        self.target = target
        self.existing = None
        with contextlib.suppress(FileNotFoundError):
            self.existing = os.stat(target)
        self.done = False
        self.stream = None
        if self.existing is not None and stat.S_ISDIR(self.existing.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
        if self.existing is not None and not stat.S_ISREG(self.existing.st_mode):
            self.temp = target  # a device or a pipe: written in place
            self.fd = os.open(target, os.O_WRONLY)
            return
        if self.existing is not None and not os.access(target, os.W_OK):
            # As open() would: a file its owner made read-only is not replaced.
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)
        if self.existing is not None:
            _uncache(target)
        while True:
            self.temp = _beside(target)
            try:
                # 0o666 less the umask, as open() creates a file.
                self.fd = os.open(self.temp, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o666)
                break
            except FileExistsError:
                continue

    @property
    def in_place(self) -> bool:
        return self.temp == self.target

    def open(self, mode: str = "wb", **options):
        """The temporary file as a stream (closed by ``commit`` or ``discard``)."""
        self.stream = os.fdopen(os.dup(self.fd), mode, **options)
        return self.stream

    def commit(self) -> None:
        """Flush and fsync the temporary file, and rename it over the target. On an
        error (a full disk) the temporary file is removed and the target untouched."""
        if self.done:
            return
        try:
            if self.stream is not None and not self.stream.closed:
                self.stream.flush()
                self.stream.close()
            if self.in_place:
                os.close(self.fd)
                self.fd = None
                self.done = True
                return
            os.fsync(self.fd)
            if self.existing is not None:
                os.chmod(self.fd, stat.S_IMODE(self.existing.st_mode))
                if (self.existing.st_uid, self.existing.st_gid) != _owner(self.fd):
                    with contextlib.suppress(OSError):  # only root may give a file away
                        os.chown(self.fd, self.existing.st_uid, self.existing.st_gid)
            os.close(self.fd)
            self.fd = None
            os.replace(self.temp, self.target)
            self.done = True
        except BaseException:
            self.discard()
            raise
        _sync_directory(os.path.dirname(self.target))

    def discard(self) -> None:
        """Remove the temporary file (after a failure); the target keeps what it held."""
        if self.done:
            return
        self.done = True
        if self.stream is not None:
            with contextlib.suppress(Exception):
                self.stream.close()
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
        if not self.in_place:
            with contextlib.suppress(OSError):
                os.unlink(self.temp)

    def __enter__(self):
        return self

    def __exit__(self, kind, error, traceback) -> None:
        if kind is None:
            self.commit()
        else:
            self.discard()


def _owner(fd: int) -> tuple[int, int]:
    found = os.fstat(fd)
    return found.st_uid, found.st_gid


@contextlib.contextmanager
def atomic_output(path: str, mode: str = "wb", **options):
    """A stream on a temporary file that replaces ``path`` when the block ends
    normally, and is removed when it raises."""
    with AtomicOutput(path) as output:
        yield output.open(mode, **options)


class AtomicDirectory:
    """A temporary directory that becomes ``path`` on ``commit()``."""

    def __init__(self, path: str):
        self.path = path
        if os.path.lexists(path) and not (os.path.isdir(path) and not os.listdir(path)):
            raise FileExistsError(errno.EEXIST, "exists and is not an empty directory", path)
        self.temp = _beside(os.path.normpath(path))
        os.mkdir(self.temp, 0o777)  # less the umask, as mkdir does
        self.done = False

    def add(self, name: str) -> str:
        """The path of a new file ``name`` in the temporary directory."""
        return os.path.join(self.temp, name)

    def commit(self) -> None:
        if self.done:
            return
        try:
            for name in sorted(os.listdir(self.temp)):
                fd = os.open(os.path.join(self.temp, name), os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
            _sync_directory(self.temp)
            # Over an empty directory, or where nothing is: a non-empty one made
            # since the start fails here (ENOTEMPTY) and keeps its files.
            os.replace(self.temp, self.path)
            self.done = True
        except BaseException:
            self.discard()
            raise
        _sync_directory(os.path.dirname(os.path.normpath(self.path)))

    def discard(self) -> None:
        if not self.done:
            self.done = True
            shutil.rmtree(self.temp, ignore_errors=True)
