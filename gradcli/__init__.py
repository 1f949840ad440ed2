"""gradcli: a gradient calculator on a reverse-mode autograd engine with PyTorch's semantics.

``import gradcli as torch`` runs PyTorch autograd programs: tensors, the math
functions, ``backward``, ``gradcli.autograd.grad`` and ``gradcli.autograd.functional``.
"""

from types import SimpleNamespace as _SimpleNamespace

from .engine import ops as ops
from .engine import ops_linalg as ops_linalg
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
from .engine.ops import *  # noqa: F403  every op, as torch.sin, torch.sum, ...
from .engine.ops import _all as all  # noqa: A004  (PyTorch's names)
from .engine.ops import _any as any  # noqa: A004
from .engine.ops import _remainder as remainder
from .engine.ops import (
    arange,
    eye,
    full,
    full_like,
    linspace,
    manual_seed,
    ones,
    ones_like,
    rand,
    rand_like,
    randn,
    randn_like,
    tensor,
    zeros,
    zeros_like,
)
from .engine.ops_linalg import *  # noqa: F403  cross, logdet
from .engine.ops_nn import *  # noqa: F403  activations and losses
from .engine.ops_scan import *  # noqa: F403  cumprod
from .engine.ops_special import *  # noqa: F403  lgamma, digamma, erfinv, xlogy, ...
from .engine.tensor import (
    Size,
    Tensor,
    device,
    enable_grad,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from .errors import GradcliError

__version__ = "0.1.0"

# gradcli computes on the CPU: ``torch.cuda.is_available()`` is False, as on a CPU build.
cuda = _SimpleNamespace(is_available=lambda: False, device_count=lambda: 0)

# torch.linalg's functions that gradcli has.
linalg = _SimpleNamespace(
    cross=ops_linalg.linalg_cross,
    det=ops.det,
    eigvalsh=ops_linalg.eigvalsh,
    inv=ops.inverse,
    solve=ops_linalg.solve,
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
        return zeros(*args, dtype=element_type)
    return tensor(args[0] if args else [], dtype=element_type)


def __getattr__(name):
    # Imported on first use, so the command line's start-up path skips them.
    if name == "autograd":
        import importlib

        return importlib.import_module(".autograd", __name__)
    if name == "set_printoptions":
        from .engine.format import set_printoptions

        return set_printoptions
    raise AttributeError(f"module 'gradcli' has no attribute '{name}'")
