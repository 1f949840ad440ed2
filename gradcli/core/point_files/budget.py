"""The memory a many-point run may take (``--max-memory``), and the chunks it allows.

The default is half the memory this process may have (the machine's physical
memory, or a smaller limit of its cgroup, ``memory.max``, or of its address space,
``ulimit -v``), and at most ``DEFAULT_CAP``: chunks larger than that compute no faster,
and a calculator should not take a big machine's memory unasked. What this process
holds before the first chunk (the interpreter, NumPy, pyarrow) is counted against
the budget; the rest is shared by the chunks computed at once (one here, a few per
worker thread under Dask).

A row's cost is measured, not guessed: the first row, then the next few, are
evaluated here once more while ``tracemalloc`` follows every array the evaluation
allocates (its intermediates, its results), and the peak per row sets how many
rows a chunk may hold. A row whose own peak is more than the budget leaves is
refused before any chunk runs, naming it.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import sys
import threading
import tracemalloc

import numpy as np

from ...errors import GradcliError
from ..bounded import MAX_TEXT_BYTES

#: The share of this process's memory a run takes by default: one half.
DEFAULT_SHARE = 2

#: The most a run takes by default, however large the machine.
DEFAULT_CAP = 2 * 2**30

#: What a row's results cost again as they are written (text, a table's columns),
#: as a multiple of their numbers' bytes.
WRITTEN_COPIES = 3

#: Room for what the allocator keeps after freeing and what is not traced (pyarrow's
#: buffers): a chunk's measured cost is taken this many times.
SLACK = 1.5

#: The copies of a partition's numbers a Dask worker holds as it reads them (the file's
#: table, its DataFrame, the arrays of the task).
READ_COPIES = 3

#: The share of a chunk's memory one line of text may take: a reader holds it as read,
#: as pyarrow's copy of it, and as its fields parsed.
LINE_SHARE = 8

#: The longest line a budget allows however small it is.
SHORTEST_LINE_CAP = 64 * 2**10

#: The rows of the second probe, after the first row's (which compiles the program).
PROBE_ROWS = 64

_UNITS = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40, "p": 2**50}
_SIZE = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([kmgtp]?)(i?)(b?)\s*", re.IGNORECASE)
SIZE_FORMS = "2GiB, 1.5G (binary units), 500MB (decimal units) or a number of bytes"


def parse_size(text: str) -> int:
    """Bytes of a size as written: ``2GiB``, ``2G`` and ``2g`` are 2 * 1024**3 bytes,
    ``500MB`` 500 * 1000**2 (decimal, as a disk's size is written), ``1024`` bytes."""
    found = _SIZE.fullmatch(text)
    if found is None:
        raise ValueError(f"{text!r} is not a size: write {SIZE_FORMS}")
    number, unit, binary, byte = found.groups()
    scale = _UNITS[unit.lower()]
    if unit and byte and not binary:
        scale = 1000 ** "kmgtp".index(unit.lower()) * 1000
    size = int(float(number) * scale)
    if size < 1:
        raise ValueError(f"{text!r} is no memory at all: write {SIZE_FORMS}")
    return size


def shown(size: float) -> str:
    """A number of bytes as people read it: ``1.5 GiB``, ``300 MiB``, ``12 KiB``."""
    for unit, scale in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale:
            return f"{size / scale:.3g} {unit}"
    return f"{int(size)} bytes"


def machine_memory() -> tuple[int, str]:
    """The memory this process may have, and what sets it: the physical memory, or a
    smaller limit of the cgroup or of the address space."""
    found = [(_physical(), "the physical memory")]
    cgroup = _cgroup_limit()
    if cgroup is not None:
        found.append((cgroup, "the cgroup's memory.max"))
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft != resource.RLIM_INFINITY:
            found.append((soft, "the limit on the address space (ulimit -v)"))
    except (ImportError, ValueError, OSError):
        pass
    return min(found)


def default_max_memory() -> int:
    """``--max-memory``'s default: half of ``machine_memory``, at most ``DEFAULT_CAP``,
    beyond what this process holds already (a library caller's own data, a long test
    session's), and never more than the machine's limit."""
    limit = machine_memory()[0]
    return min(min(limit // DEFAULT_SHARE, DEFAULT_CAP) + resident(), limit)


def _physical() -> int:
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        pass
    try:
        with open("/proc/meminfo") as lines:
            for line in lines:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 4 * 2**30  # unknown: a small machine's


def _cgroup_limit() -> int | None:
    """The memory limit of this process's cgroup (v2 ``memory.max``, v1
    ``memory.limit_in_bytes``), or None when there is none."""
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path) as file:
                text = file.read().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < 2**60:  # v1 says "no limit" with a huge number
            return int(text)
    return None


def resident() -> int:
    """The bytes this process holds in memory now."""
    try:
        with open("/proc/self/statm") as file:
            return int(file.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024  # macOS says bytes


class Budget:
    """``limit`` bytes for a run, ``slots`` chunks computed at once, by ``processes``
    (this one included) that hold ``held`` bytes before any chunk."""

    def __init__(self, limit: int, slots: int = 1, processes: int = 1, held: int | None = None):
        self.limit = limit
        self.slots = max(1, slots)
        self.processes = max(1, processes)
        #: What the processes hold before any chunk: this one's, or ``held`` when told.
        self.held = resident() if held is None else held
        #: The measured cost of a row in bytes (``measure``), and of a chunk however few
        #: its rows.
        self.row_bytes: float | None = None
        self.fixed_bytes = 0.0

    @property
    def free(self) -> int:
        """The bytes one chunk may take: the budget less what the processes hold before
        any chunk, shared by the chunks computed at once."""
        return (self.limit - self.held) // self.slots

    def require_room(self) -> None:
        """Refuse a budget smaller than what the processes take before any chunk."""
        if self.free <= 0:
            who = (
                "this process takes"
                if self.processes == 1
                else (f"this process and the {self.processes - 1} Dask workers take")
            )
            raise GradcliError(
                f"--max-memory {shown(self.limit)}: {who} {shown(self.held)} before they read "
                f"a row; give at least {shown(2 * self.held)}"
            )

    @property
    def longest_line(self) -> int:
        """The longest line of text a reader of the run takes, in bytes (also the most it
        reads at once): a share of a chunk's memory, at most ``bounded.MAX_TEXT_BYTES``;
        whole MiB, as the refusal of a longer one says it."""
        cap = min(MAX_TEXT_BYTES, self.free // LINE_SHARE)
        if cap >= 2**20:
            return cap >> 20 << 20
        return max(SHORTEST_LINE_CAP, cap >> 10 << 10)

    def rows_read(self, numbers_per_row: int, wanted: int) -> int:
        """Rows a reader may read at a time: their inputs take at most a quarter of
        what a chunk may take (they are held while the parts of a chunk are computed)."""
        per_row = 8 * max(1, numbers_per_row)
        return max(1, min(wanted, self.free // 4 // per_row))

    def rows_computed(self, wanted: int) -> int:
        """Rows a chunk may hold for their measured cost (``row_bytes``)."""
        if self.row_bytes is None:
            return wanted
        room = self.free * 3 // 4 - self.fixed_bytes  # the rest: the inputs read (rows_read)
        return max(1, min(wanted, int(room / (self.row_bytes * SLACK))))

    def rows_held(self, numbers_per_row: int, wanted: int) -> int:
        """Rows a Dask worker may read and compute at once (a partition of a file it
        reads): their inputs, as read and as converted, and their measured cost."""
        inputs = READ_COPIES * 8 * max(1, numbers_per_row)
        per_row = (inputs + (self.row_bytes or 0)) * SLACK
        return max(1, min(wanted, int((self.free * 3 // 4 - self.fixed_bytes) / per_row)))

    def measure(self, task, columns: dict, where) -> None:
        """The cost of a row (``row_bytes``), from the peak of ``task``'s evaluation of
        the first row of ``columns``, then of its first ``PROBE_ROWS``; a first row
        that needs more than a chunk may take is refused (``where(i)`` names row i)."""
        rows = len(next(iter(columns.values()))) if columns else 0
        started = not tracemalloc.is_tracing()
        if started:
            tracemalloc.start()
        try:
            one = self._peak(task, columns, 1, where)
            if one * SLACK > self.free:
                raise GradcliError(
                    f"{where(0)}: one point needs {shown(one)} at its peak, more than "
                    f"--max-memory {shown(self.limit)} leaves a chunk ({shown(self.free)}); "
                    "raise --max-memory"
                )
            count = min(PROBE_ROWS, rows, int(self.free / (one * SLACK)))
            self.row_bytes = one
            if count >= 4:
                # Two sizes, after the first row compiled the program: what a row adds,
                # without what every call costs however few its rows.
                few, more = self._peak(task, columns, count // 4, where), self._peak(
                    task, columns, count, where)  # fmt: skip
                added = (more - few) / (count - count // 4)
                self.row_bytes = added if added > 0 else more / count
                self.fixed_bytes = max(0.0, more - count * self.row_bytes)
        finally:
            if started:
                tracemalloc.stop()

    def _peak(self, task, columns: dict, rows: int, where) -> float:
        """The bytes ``task`` holds at its peak computing the first ``rows`` rows, and
        those its results take again as they are written."""
        part = {name: column[:rows] for name, column in columns.items()}
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        try:
            with bounded(max(1, self.free // 8)):
                arrays = task(part)
        except GradcliError as error:
            if getattr(error, "over_budget", False):
                error.message = f"{where(0)}: {error.message}; raise --max-memory"
                error.args = (error.message,)
            raise
        peak = tracemalloc.get_traced_memory()[1] - before
        written = sum(np.asarray(a).nbytes for n, a in arrays.items() if n not in part)
        return peak + WRITTEN_COPIES * written


class _ChunkLimit(threading.local):
    #: The most numbers one array of a chunk's evaluation may hold under the budget.
    value: int | None = None


CHUNK_LIMIT = _ChunkLimit()


@contextlib.contextmanager
def bounded(elements: int | None):
    """Within the block, a chunk's evaluation makes no array of more than ``elements``
    numbers (``many_points`` reads it): none larger than the budget's share."""
    before, CHUNK_LIMIT.value = CHUNK_LIMIT.value, elements
    try:
        yield
    finally:
        CHUNK_LIMIT.value = before


#: glibc's mallopt parameters, and what a many-point run sets them to: arrays of up to
#: 16 MiB from the heap, and up to 32 MiB of freed heap kept for the next chunk.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_KEPT = {_M_MMAP_THRESHOLD: 16 * 2**20, _M_TRIM_THRESHOLD: 32 * 2**20}


def keep_freed_pages() -> None:
    """Let glibc's malloc keep the pages a chunk's arrays free for the next chunk's.

    By default it gives them back to the system whenever the top of its heap is free
    (twice the largest array freed), and each chunk faults them in afresh: a third of
    a streamed run's system time, for nothing, since the next chunk needs as much.
    The memory a run holds is bounded by its chunks either way. Called by the command
    line only (a library call leaves its host process's allocator alone), and not when
    the user tunes malloc (``MALLOC_*_``, ``GLIBC_TUNABLES``); elsewhere, nothing."""
    if sys.platform != "linux" or "GLIBC_TUNABLES" in os.environ:
        return
    if any(name.startswith("MALLOC_") and name.endswith("_") for name in os.environ):
        return
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # a libc without mallopt
        return
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    for parameter, value in _KEPT.items():
        mallopt(parameter, value)
