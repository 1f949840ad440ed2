"""gradcli: a gradient calculator on a reverse-mode autograd engine with PyTorch's semantics.

``import gradcli as torch`` runs PyTorch autograd programs: tensors, the math
functions, ``backward``, ``gradcli.autograd.grad`` and ``gradcli.autograd.functional``.
Every function here that computes comes from the op table (``engine.ops.LIBRARY``).
"""

# ruff: noqa: E402  (the imports come after pausing the cycle collector)
import gc as _gc
from types import SimpleNamespace as _SimpleNamespace

# Importing NumPy and the engine makes only objects that live as long as the process
# (modules, classes, functions): the cycle collector's passes meanwhile free nothing
# and cost a tenth of the import. It is paused until the package is loaded.
_collecting = _gc.isenabled()
_gc.disable()

from . import blas_start as _blas_start

_blas_start.for_the_command()  # before NumPy loads its BLAS

import importlib
import math as _math

from .engine import ops as ops
from .engine.devices import device, get_default_device, set_default_device
from .engine.devices import on_cpu as _on_cpu
from .engine.dtypes import (
    bool_ as bool,  # noqa: A004  (PyTorch's name)
)
from .engine.dtypes import (
    complex64,
    complex128,
    dtype,
    float16,
    float32,
    float64,
    get_default_dtype,
    int32,
    int64,
    set_default_dtype,
    uint8,
)
from .engine.generator import (
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    seed,
    set_rng_state,
)
from .engine.legacy import (
    BoolTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
)
from .engine.ops import LIBRARY as _LIBRARY
from .engine.serialization import load, save
from .engine.state import (
    enable_grad,
    get_num_threads,
    inference_mode,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
    set_num_threads,
)
from .engine.tensor import Size, Tensor
from .errors import GradcliError

globals().update(_LIBRARY)  # every op: gradcli.sin, gradcli.sum, gradcli.tensor, ...
# An op module loaded later adds its ops here too (vmap swaps the functions it finds here),
# none replacing a name already bound.
ops.WHEN_LOADED.append(
    lambda entries: globals().update({n: f for n, f in _LIBRARY.items() if n not in globals()})
)
if _collecting:
    # What the import made goes to the oldest generation, where the collector would put
    # it after two passes, without the passes (a young pass over it all, at the first
    # allocation after enabling, was a tenth of the import).
    _gc.freeze()
    _gc.unfreeze()
    _gc.enable()

__version__ = "0.1.0"

# gradcli computes on the CPU: no accelerator is available, as on a CPU build of PyTorch.
# Seeding CUDA does nothing there (as in PyTorch), so reproducibility preambles run unchanged.
cuda = _SimpleNamespace(
    is_available=lambda: False,
    device_count=lambda: 0,
    current_device=lambda: _on_cpu("cuda"),
    manual_seed=lambda value: None,
    manual_seed_all=lambda value: None,
)
backends = _SimpleNamespace(
    mps=_SimpleNamespace(is_available=lambda: False, is_built=lambda: False),
    cudnn=_SimpleNamespace(
        is_available=lambda: False, enabled=True, deterministic=False, benchmark=False
    ),
)
accelerator = _SimpleNamespace(is_available=lambda: False, current_accelerator=lambda: None)

float = float32  # noqa: A001  (torch.float is float32)
double = float64
long = int64
cfloat = complex64
cdouble = complex128

# PyTorch's constants: Python floats, as torch.pi is math.pi.
pi, e, inf, nan = _math.pi, _math.e, _math.inf, _math.nan


def __getattr__(name):
    # Imported on first use, so the command line's start-up path skips them.
    if name in ("autograd", "func", "linalg", "nn", "optim", "special", "utils"):
        return importlib.import_module("." + name, __name__)
    if name == "vmap":  # torch.vmap is torch.func.vmap
        from .func import vmap

        return vmap
    if name == "set_printoptions":
        from .engine.format import set_printoptions

        return set_printoptions
    ops.load_for(name)  # an op of a module loaded on first use (``ops.LATER``)
    if name in _LIBRARY:
        globals()[name] = _LIBRARY[name]
        return _LIBRARY[name]
    raise AttributeError(f"module 'gradcli' has no attribute '{name}'")


def __dir__():
    ops.load_all()
    return sorted({*globals(), *_LIBRARY})
