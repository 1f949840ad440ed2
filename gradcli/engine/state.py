"""The engine's state: grad mode, the default dtype, the anomaly check.

Grad mode, the anomaly check and a dtype override are per thread (``PER_THREAD``):
two computations in two threads never see each other's switches. The default
dtype set by ``set_default_dtype`` is the process's, as in PyTorch; a thread may
override it for a while (``default_dtype_override``), which is how a session
computes in its own dtype without touching anyone else's. Random numbers come
from a ``Generator``: the process has one (``manual_seed`` reseeds it), and a
caller may pass its own to every random constructor.
"""

from __future__ import annotations

import os
import threading
import weakref

import numpy as np

#: Whether an inference_mode context has been opened: from then on each tensor made is
#: checked (``mark_inference``).
INFERENCE = [False]
#: The arrays of inference tensors, by id: a node that saves one is refused (saved.py).
INFERENCE_ARRAYS = weakref.WeakValueDictionary()
#: Called when an inference_mode context opens: saved.py watches the nodes recorded.
inference_opened = None
#: While vmap runs, ``[dispatch]``: ``dispatch(entry, args, kwargs)`` applies a plain
#: tensor's method that may meet a BatchedTensor (``methods.py``); empty outside vmap.
VMAP_DISPATCH: list = []


def mark_inference(t):
    """``t`` an inference tensor if made inside inference_mode, or a view of one."""
    data = root = t._data
    if not PER_THREAD.inference:
        while isinstance(root.base, np.ndarray):
            root = root.base
        if INFERENCE_ARRAYS.get(id(root)) is not root:
            return
    t._inference = True
    INFERENCE_ARRAYS[id(data)] = data


class _PerThread(threading.local):
    """What each thread has for itself (a new thread starts with grad mode on)."""

    def __init__(self):
        self.grad_enabled = True  # switched by switch_grad only (it counts the threads off)
        # ``hook(node, index, g, gi)`` on every gradient a rule returns, or None (anomaly.py).
        self.anomaly = None
        # torch.is_anomaly_enabled() and is_anomaly_check_nan_enabled(): anomaly mode may be
        # on without the nan check (check_nan=False), and the flag is kept while it is off.
        self.anomaly_mode = False
        self.anomaly_check_nan = True
        self.dtype = None  # a dtype override of this thread, or None for the process's
        self.inference = False  # inside torch.inference_mode()
        # The dual level of forward-mode AD entered in this thread (autograd/forward_ad.py).
        self.forward_ad = None
        # Called when the reverse pass running in this thread ends (register_multi_grad_hook).
        self.at_end = None
        # The (pack, unpack) hooks of the innermost saved_tensors_hooks (autograd/graph.py).
        self.saved_hooks = None


PER_THREAD = _PerThread()

# How many threads are inside a dual level: while none is, an op skips the per-thread
# look-up of ``forward_ad`` (a thread-local attribute costs about as much as a dict
# look-up on every op's hot path).
DUAL_LEVELS = [0]
DUAL_LEVELS_LOCK = threading.Lock()


class _ProcessDefaults:
    dtype = np.dtype(np.float32)  # of tensors built from Python floats, as in PyTorch


def default_dtype() -> np.dtype:
    """The NumPy dtype Python floats become: this thread's override, else the process's."""
    override = PER_THREAD.dtype
    return _ProcessDefaults.dtype if override is None else override


def set_default_dtype(dtype: np.dtype) -> None:
    """The dtype of Python floats from now on: this thread's while it overrides the
    process's (so code that saves and restores the default inside an evaluation
    changes nothing outside it), else the process's, as in PyTorch."""
    if PER_THREAD.dtype is not None:
        PER_THREAD.dtype = dtype
    else:
        _ProcessDefaults.dtype = dtype


class default_dtype_override:
    """``with default_dtype_override(np.float64):`` this thread computes in float64
    (``None``: as it did before)."""

    def __init__(self, dtype):
        self.dtype = None if dtype is None else np.dtype(dtype)

    def __enter__(self):
        self.previous = PER_THREAD.dtype
        if self.dtype is not None:
            PER_THREAD.dtype = self.dtype
        return self

    def __exit__(self, *exc):
        PER_THREAD.dtype = self.previous
        return False


class _Threads:
    count = None  # set_num_threads's, or None: PyTorch's default, found on first use


def get_num_threads() -> int:
    """``torch.get_num_threads()``: the threads PyTorch shares a large sum among, which
    decides the order of its additions (ops/summation.py). PyTorch's default is the
    physical cores this process may run on, at most OMP_NUM_THREADS (or MKL_NUM_THREADS)."""
    if _Threads.count is None:
        _Threads.count = _default_threads()
    return _Threads.count


def set_num_threads(n: int) -> None:
    if int(n) <= 0:
        raise ValueError("Expected positive number of threads")
    _Threads.count = int(n)


def _default_threads() -> int:
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = list(range(os.cpu_count() or 1))
    cores = set()
    for cpu in cpus:
        topology = f"/sys/devices/system/cpu/cpu{cpu}/topology/"
        try:
            with open(topology + "core_id") as core, open(topology + "physical_package_id") as p:
                cores.add((p.read().strip(), core.read().strip()))
        except OSError:
            cores.add(cpu)
    count = max(len(cores), 1)
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        value = os.environ.get(name, "")
        if value.isdigit() and int(value) > 0:
            return min(count, int(value))
    return count


# ----------------------------------------------------------------------------
# Grad mode
# ----------------------------------------------------------------------------


def is_grad_enabled() -> bool:
    return PER_THREAD.grad_enabled


# How many threads have grad mode off: while none has, an op knows that it records
# without looking up its thread's mode (as ``DUAL_LEVELS`` for forward AD). Grad mode is
# switched only here, so that the count stays true.
GRAD_OFF = [0]
_GRAD_OFF_LOCK = threading.Lock()


def switch_grad(mode: bool) -> None:
    """Set this thread's grad mode (``PER_THREAD.grad_enabled``), counted in ``GRAD_OFF``."""
    mode = bool(mode)
    if PER_THREAD.grad_enabled is mode:
        return
    if mode:
        PER_THREAD.grad_enabled = True
    with _GRAD_OFF_LOCK:
        GRAD_OFF[0] += -1 if mode else 1
    if not mode:  # counted first: a thread whose mode is off is always counted
        PER_THREAD.grad_enabled = False


def is_anomaly_enabled() -> bool:
    return PER_THREAD.anomaly_mode


def is_anomaly_check_nan_enabled() -> bool:
    return PER_THREAD.anomaly_check_nan


class _GradModeSwitch:
    """What set_grad_enabled, no_grad and enable_grad share: the mode before is
    restored on exit, and as decorators they run the function in their mode. They
    print as PyTorch's objects of torch.autograd.grad_mode do."""

    mode = True

    def __repr__(self):
        return f"<torch.autograd.grad_mode.{type(self).__name__} object at {id(self):#x}>"

    def __exit__(self, *exc):
        switch_grad(self.prev)
        return False

    def __call__(self, fn):
        mode = self.mode

        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)

        wrapper.__name__ = getattr(fn, "__name__", "wrapper")
        wrapper.__doc__ = getattr(fn, "__doc__", None)
        return wrapper


class set_grad_enabled(_GradModeSwitch):
    """Switch graph recording on or off; a context manager and a decorator."""

    def __init__(self, mode: bool):
        # The switch happens here, not on entry: a bare ``set_grad_enabled(False)`` call
        # switches for good, as in PyTorch.
        self.mode = bool(mode)
        self.prev = PER_THREAD.grad_enabled
        switch_grad(self.mode)

    def __enter__(self):
        pass  # as PyTorch's: ``with set_grad_enabled(False) as m`` binds None

    def __repr__(self):
        return f"torch.autograd.grad_mode.set_grad_enabled(mode={self.mode})"

    def __call__(self, fn):
        switch_grad(self.prev)  # as a decorator it switches only while fn runs
        return super().__call__(fn)


class _GradModeContext(_GradModeSwitch):
    def __new__(cls, fn=None):
        # ``@no_grad`` without parentheses decorates ``fn`` directly, as in PyTorch.
        if fn is None:
            return super().__new__(cls)
        return cls()(fn)

    def __enter__(self):
        self.prev = PER_THREAD.grad_enabled
        switch_grad(self.mode)


class no_grad(_GradModeContext):
    """Record nothing inside: results do not require grad."""

    mode = False


class enable_grad(_GradModeContext):
    """Record again inside a ``no_grad`` block."""

    mode = True


class inference_mode(_GradModeSwitch):
    """``torch.inference_mode``: nothing recorded, and the tensors made inside are
    inference tensors with PyTorch's errors outside it (written in place, saved for
    backward, made to require grad); ``inference_mode(False)`` records, as
    ``enable_grad``, as PyTorch's does. A context manager and a decorator, with or
    without parentheses."""

    def __new__(cls, mode=True):
        if callable(mode):  # @inference_mode without parentheses
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode=True):
        self.inference = bool(mode)

    def __enter__(self):
        self.prev = PER_THREAD.grad_enabled
        self.prev_inference = PER_THREAD.inference
        switch_grad(not self.inference)
        PER_THREAD.inference = self.inference
        INFERENCE[0] = True
        if inference_opened is not None:
            inference_opened()

    def __exit__(self, *exc):
        PER_THREAD.inference = self.prev_inference
        return super().__exit__(*exc)

    def __call__(self, fn):
        inference = self.inference

        def wrapper(*args, **kwargs):
            with inference_mode(inference):
                return fn(*args, **kwargs)

        wrapper.__name__ = getattr(fn, "__name__", "wrapper")
        wrapper.__doc__ = getattr(fn, "__doc__", None)
        return wrapper


def is_inference_mode_enabled() -> bool:
    return PER_THREAD.inference
