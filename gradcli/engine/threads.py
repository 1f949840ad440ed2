"""The threads of the BLAS (and OpenMP) pools: as many as the work can use.

With the pools' default of a thread per core, a small product shares its work with
threads that spin while they wait; on a loaded machine a waiting thread loses its
core, and a 784-256-10 network's step took 105 ms instead of 1.5 ms. So gradcli
computes with one BLAS thread, and gives a matrix product of at least
``LARGE_PRODUCT`` multiply-adds a thread for each core the load average leaves
idle (up to the pool's own default): the sizes where more threads paid, measured by
``bench/bench_threads.py``. A product below ``SMALL_PRODUCT`` is left alone, and
threadpoolctl is not even imported for it: OpenBLAS runs one so small on one
thread of its own accord.

A user who sets ``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS`` or
``MKL_NUM_THREADS`` has chosen: gradcli then never changes the pools.

``run()`` holds the pools at one thread for a whole run (the analyses, whose SciPy
solvers call LAPACK between the engine's passes), restored when it ends; a product
outside any run sets the pools for itself and puts them back, so that a program
that imports gradcli keeps its own settings for its own NumPy.
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import sys
import threading

from .. import blas_start

#: The variables by which a user chooses the pools' threads; any of them set (by the
#: user, not by the command's start: ``blas_start``), and gradcli leaves the pools alone.
USER_VARIABLES = blas_start.USER_VARIABLES
#: Below this many multiply-adds OpenBLAS computes a product on one thread itself.
SMALL_PRODUCT = 1 << 18
#: From this many multiply-adds (a 406-square product, about 2 ms on one thread of
#: this machine) more threads are given, when the load leaves cores idle.
LARGE_PRODUCT = 1 << 26

_NOTHING = contextlib.nullcontext()
_lock = threading.Lock()


class _Pools:
    controller = None  # threadpoolctl's, made on first need (it scans the loaded libraries)
    #: How many modules were loaded at the last scan: a library comes with a module.
    modules = 0
    #: The most threads a pool had before gradcli changed it: its default.
    widest = 1
    #: How many runs are open (``run``), and the pools the first one changed, with
    #: their threads before.
    runs = 0
    changed: list | tuple = ()


def chosen_by_user() -> bool:
    """Whether the user set the threads (``USER_VARIABLES``), not the command's start."""
    if blas_start.set_by_gradcli():
        return False
    return any(os.environ.get(name, "").strip() for name in USER_VARIABLES)


def pool_default() -> int:
    """The most threads a BLAS or OpenMP pool had before gradcli changed any: its default."""
    _controller()
    return _Pools.widest


def _controller(rescan: bool = False):
    # A library loaded after the last scan (SciPy's OpenBLAS) is seen only by a new
    # scan, which reads /proc/self/maps (a millisecond under load): a run makes one when
    # modules were imported since the last, which is how such a library comes.
    if _Pools.controller is None or rescan and len(sys.modules) != _Pools.modules:
        _Pools.modules = len(sys.modules)
        from threadpoolctl import ThreadpoolController

        controller = ThreadpoolController()
        # A pool already held at one thread does not lower the default known before.
        _Pools.widest = max(_Pools.widest, *(lib.num_threads for lib in controller.lib_controllers))
        if blas_start.set_by_gradcli():  # the pools started at one thread: a core each
            _Pools.widest = max(_Pools.widest, _cores())
        _Pools.controller = controller
    return _Pools.controller


def run(scipy: bool = False) -> _Run:
    """The pools at one thread while the block runs (nested runs share the first's),
    then as they were; nothing when the user chose. ``scipy``: the block calls SciPy,
    whose LAPACK is a second OpenBLAS that ``scipy.linalg`` loads; it is loaded first,
    so that its pool is held too. A context, or a decorator of a function run so."""
    return _Run(scipy)


class _Run:
    # A class rather than a generator context: a small fit's whole run is a few
    # hundred microseconds, and threadpoolctl's limiter another ten.
    def __init__(self, scipy: bool):
        self.scipy = scipy
        self.held = False

    def __call__(self, function):
        scipy = self.scipy

        @functools.wraps(function)
        def running(*args, **kwargs):
            with _Run(scipy):
                return function(*args, **kwargs)

        return running

    def __enter__(self):
        if chosen_by_user():
            return self
        if self.scipy:
            import scipy.linalg  # noqa: F401
        controller = _controller(rescan=True)
        with _lock:
            if _Pools.runs == 0:
                _Pools.changed = _set_threads(controller.lib_controllers, 1)
            _Pools.runs += 1
        self.held = True
        return self

    def __exit__(self, *exc):
        if self.held:
            self.held = False
            with _lock:
                _Pools.runs -= 1
                if _Pools.runs == 0:
                    _put_back(_Pools.changed)
                    _Pools.changed = ()
        return False


def _set_threads(pools, wanted: int) -> list:
    """Each of ``pools`` set to ``wanted`` threads: ``(pool, its threads before)`` for
    each changed, for ``_put_back``."""
    changed = []
    for lib in pools:
        before = lib.get_num_threads()
        if before != wanted:
            lib.set_num_threads(wanted)
            if before is not None:  # a count the library does not tell is not put back
                changed.append((lib, before))
    return changed


def _put_back(changed) -> None:
    for lib, before in changed:
        lib.set_num_threads(before)


def for_product(multiply_adds: int):
    """The threads a matrix product of ``multiply_adds`` gets, as a context around it."""
    if multiply_adds < SMALL_PRODUCT or chosen_by_user():
        return _NOTHING
    _controller()
    wanted = spare_threads() if multiply_adds >= LARGE_PRODUCT else 1
    return _BlasThreads(wanted)


def spare_threads() -> int:
    """One thread, and one more for each core the 1-minute load average leaves idle
    (this process's own thread counts in the load), at most the pools' default."""
    cores = _cores()
    try:
        idle = cores - os.getloadavg()[0]
    except (AttributeError, OSError):  # no load average here: no core is known to be idle
        return 1
    return max(1, min(_Pools.widest, 1 + math.floor(max(idle, 0.0))))


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class _BlasThreads:
    """The BLAS pools at ``wanted`` threads for a block, then back as they were."""

    def __init__(self, wanted: int):
        self.wanted = wanted
        self.changed = []

    def __enter__(self):
        blas = [lib for lib in _Pools.controller.lib_controllers if lib.user_api == "blas"]
        self.changed = _set_threads(blas, self.wanted)
        return self

    def __exit__(self, *exc):
        _put_back(self.changed)
        return False
