"""``gradcli.autograd.forward_ad``: forward-mode AD, as ``torch.autograd.forward_ad``.

Inside ``with dual_level():``, ``make_dual(x, t)`` is x carrying the tangent t;
every op of the table carries tangents on to its result (``engine/forward.py``),
and ``unpack_dual(y)`` gives ``(primal, tangent)``: the tangent is the
Jacobian-vector product ``J t``. One level at a time, as in PyTorch: its
``dual_level`` nests neither in another nor in a forward-mode ``func`` transform,
nor they in it; the transforms nest among themselves (``nested_level``,
``engine/forward.py``).
"""

from __future__ import annotations

from collections import namedtuple

from ..engine import ops
from ..engine.forward import DualLevel
from ..engine.state import DUAL_LEVELS, DUAL_LEVELS_LOCK, PER_THREAD
from ..engine.tensor import Tensor
from ..errors import EngineError, GradcliTypeError, GradcliValueError

__all__ = ["dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual"]
__all__ += ["UnpackedDualTensor"]

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])


NESTED = "Nested forward mode AD is not supported at the moment"


def enter_dual_level():
    """Enter a new dual level: 0, the only one (nesting is an error, as in PyTorch)."""
    if PER_THREAD.forward_ad is not None:
        raise EngineError(NESTED)
    return _enter(DualLevel())


def _enter(level):
    PER_THREAD.forward_ad = level
    with DUAL_LEVELS_LOCK:
        DUAL_LEVELS[0] += 1
    return len(level.chain()) - 1


def exit_dual_level(*, level=None):
    """Leave the dual level: every tangent made in it is gone."""
    entered = PER_THREAD.forward_ad
    if entered is None or (level is not None and level != len(entered.chain()) - 1):
        raise EngineError(
            "Trying to exit a forward AD level that was not the last one that was created. "
            "This is not supported."
        )
    PER_THREAD.forward_ad = entered.outer
    with DUAL_LEVELS_LOCK:
        DUAL_LEVELS[0] -= 1


class nested_level:  # noqa: N801  (as dual_level)
    """A level of a forward-mode ``func`` transform (jvp, jacfwd): one inside another's
    nests, as functorch's; inside ``dual_level``, or it inside this, is PyTorch's error."""

    def __enter__(self):
        entered = PER_THREAD.forward_ad
        if entered is not None and entered.public:
            raise EngineError(NESTED)
        return _enter(DualLevel(entered, public=False))

    def __exit__(self, *exc):
        exit_dual_level()
        return False


class dual_level:  # noqa: N801  (PyTorch's name)
    """``with dual_level():`` the block computes tangents alongside values."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()
        return False


def make_dual(tensor, tangent, *, level=None):
    """A new tensor with ``tensor``'s values (a differentiable view of it) carrying ``tangent``."""
    dual = PER_THREAD.forward_ad
    if dual is None:
        raise EngineError(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure "
            "to enter_dual_level() first."
        )
    if _batched(tensor) or _batched(tangent):  # inside vmap: every point's
        from .batched_autograd import make_dual as batched  # vmap's machinery

        return batched(tensor, tangent, make_dual)
    for name, t in (("primal", tensor), ("tangent", tangent)):
        if type(t) is not Tensor:
            raise GradcliTypeError(
                f"make_dual(): argument '{name}' must be Tensor, not {type(t).__name__}"
            )
        if t._data.dtype.kind not in "fc":
            raise GradcliValueError(
                f"Expected {name} to be floating point or complex, but got: {t.dtype}"
            )
    if tangent.shape != tensor.shape:
        raise EngineError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {list(tensor.shape)} "
            f"while the given forward gradient is of size {list(tangent.shape)}."
        )
    # The view itself gets the tangent given, not one derived; the outer levels' it derives.
    PER_THREAD.forward_ad = dual.outer
    try:
        if tensor.requires_grad:
            result = ops.view(tensor, tuple(tensor.shape))
        else:
            result = Tensor._make(tensor._data)
            if dual.outer is not None:
                dual.outer.copy_tangent(tensor, result)
    finally:
        PER_THREAD.forward_ad = dual
    if tangent.dtype != tensor.dtype:
        tangent = ops.to_dtype(tangent, tensor._data.dtype)
    dual.set_tangent(result, tangent)
    return result


def unpack_dual(tensor, *, level=None):
    """``(primal, tangent)`` of ``tensor``: a view of its values without the tangent, and
    the tangent (None where it has none, or outside a dual level)."""
    if _batched(tensor):
        from .batched_autograd import unpack_dual as batched  # vmap's machinery

        return UnpackedDualTensor(*batched(tensor, unpack_dual))
    if type(tensor) is not Tensor:
        raise GradcliTypeError(
            f"unpack_dual(): argument 'tensor' must be Tensor, not {type(tensor).__name__}"
        )
    dual = PER_THREAD.forward_ad
    tangent = None if dual is None else dual.tangent_of(tensor)
    if tangent is None:
        return UnpackedDualTensor(tensor, None) if dual is None else _unpacked(tensor, None)
    return _unpacked(tensor, tangent)


def _batched(t) -> bool:
    """Whether ``t`` is a Tensor of a subclass: vmap's BatchedTensor."""
    return isinstance(t, Tensor) and type(t) is not Tensor


def _unpacked(tensor, tangent):
    dual = PER_THREAD.forward_ad
    PER_THREAD.forward_ad = dual.outer  # the primal keeps the outer levels' tangents
    try:
        if tensor.requires_grad:
            primal = ops.view(tensor, tuple(tensor.shape))
        else:
            primal = tensor.detach()
            if dual.outer is not None:
                dual.outer.copy_tangent(tensor, primal)
    finally:
        PER_THREAD.forward_ad = dual
    return UnpackedDualTensor(primal, tangent)
