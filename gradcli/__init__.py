"""gradcli: a gradient calculator on a reverse-mode autograd engine with PyTorch's semantics.

``import gradcli as torch`` runs PyTorch autograd programs: tensors, the math
functions, ``backward``, ``gradcli.autograd.grad`` and ``gradcli.autograd.functional``.
Every function here that computes comes from the op table (``engine.ops.LIBRARY``).
"""

from types import SimpleNamespace as _SimpleNamespace

from .engine import ops as ops
from .engine.dtypes import (
    bool_ as bool,  # noqa: A004  (PyTorch's name)
)
from .engine.dtypes import (
    dtype,
    float16,
    float32,
    float64,
    get_default_dtype,
    int32,
    int64,
    set_default_dtype,
)
from .engine.ops import LIBRARY as _LIBRARY
from .engine.state import (
    Generator,
    default_generator,
    enable_grad,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from .engine.tensor import Size, Tensor, device
from .errors import GradcliError

globals().update(_LIBRARY)  # every op: gradcli.sin, gradcli.sum, gradcli.tensor, ...

__version__ = "0.1.0"

# gradcli computes on the CPU: ``torch.cuda.is_available()`` is False, as on a CPU build.
cuda = _SimpleNamespace(is_available=lambda: False, device_count=lambda: 0)

# torch.linalg's functions that gradcli has.
linalg = _SimpleNamespace(
    cross=ops.linalg_extra.linalg_cross,
    det=_LIBRARY["det"],
    eigvalsh=ops.linalg_extra.eigvalsh,
    inv=_LIBRARY["inverse"],
    solve=ops.linalg_extra.solve,
)

float = float32  # noqa: A001  (torch.float is float32)
double = float64
long = int64


def FloatTensor(*args):  # noqa: N802  (PyTorch's legacy name)
    """Legacy constructor: a float32 tensor from data, or of the given size."""
    return _legacy(args, float32)


def DoubleTensor(*args):  # noqa: N802
    """Legacy constructor: a float64 tensor from data, or of the given size."""
    return _legacy(args, float64)


def _legacy(args, element_type):
    import builtins
    import numbers

    if args and builtins.all(isinstance(a, numbers.Integral) for a in args):
        return _LIBRARY["zeros"](*args, dtype=element_type)
    return _LIBRARY["tensor"](args[0] if args else [], dtype=element_type)


def __getattr__(name):
    # Imported on first use, so the command line's start-up path skips them.
    if name in ("autograd", "func"):
        import importlib

        return importlib.import_module("." + name, __name__)
    if name == "vmap":  # torch.vmap is torch.func.vmap
        from .func import vmap

        return vmap
    if name == "set_printoptions":
        from .engine.format import set_printoptions

        return set_printoptions
    raise AttributeError(f"module 'gradcli' has no attribute '{name}'")
