"""``torch.optim.Optimizer``: parameter groups, per-parameter state, ``zero_grad`` and
``state_dict``, as PyTorch's; each algorithm (``algorithms.py``) writes its ``step``.

The steps follow PyTorch's single-tensor implementations (the CPU default) line by
line, under ``no_grad``, so a float64 training loop ends on PyTorch's numbers to
the last few bits. The in-place arithmetic PyTorch spells ``addcmul_``,
``addcdiv_`` and ``lerp_`` is the helpers below, in PyTorch's order of operations.
"""

from __future__ import annotations

import copy
from collections import defaultdict

import numpy as np

from ..engine.dtypes import float32, float64, get_default_dtype
from ..engine.ops.every import LIBRARY
from ..engine.state import enable_grad, no_grad
from ..engine.tensor import Tensor
from ..errors import GradcliTypeError, GradcliValueError

__all__ = ["Optimizer", "required"]

required = object()  # a default the caller must give (PyTorch's ``required``)


def scalar_dtype():
    """The dtype of a ``step`` count: float64 when that is the default dtype, else float32."""
    return float64 if get_default_dtype() == float64 else float32


def step_tensor(value=0.0):
    return LIBRARY["tensor"](value, dtype=scalar_dtype())


def addcmul_(x, a, b, value=1.0):
    """``x += value * a * b``."""
    return x.add_(a * value * b)


def addcdiv_(x, a, b, value=1.0):
    """``x += value * a / b``."""
    return x.add_(a * value / b)


def _fused_multiply_add(a, b, c):
    """``a * b + c`` rounded once, as the fused multiply-add of PyTorch's vectorised kernel:
    the product's rounding error (Dekker's split) and the sum's (Knuth's two-sum) added back.
    Float32 is exact in float64's product, then rounded to float32."""
    if c.dtype != np.float64:
        return (np.float64(a) * b.astype(np.float64) + c).astype(c.dtype)
    product = a * b
    split = 134217729.0  # 2**27 + 1: halves of 26 bits whose products are exact
    a_big, b_big = split * a, split * b
    a_high, b_high = a_big - (a_big - a), b_big - (b_big - b)
    a_low, b_low = a - a_high, b - b_high
    product_error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low
    total = product + c
    back = total - product
    sum_error = (product - (total - back)) + (c - back)
    with np.errstate(invalid="ignore"):
        fused = total + (product_error + sum_error)
    return np.where(np.isfinite(fused), fused, product + c)


def add_scaled_(x, other, alpha):
    """``x += alpha * other`` as PyTorch's ``add_(other, alpha=alpha)`` on the CPU: one fused
    multiply-add per entry, so ``alpha * other`` is not rounded on its own."""
    data = x.numpy()
    fused = _fused_multiply_add(np.float64(alpha), other.numpy(), data)
    return x.copy_(LIBRARY["from_numpy"](np.ascontiguousarray(fused, dtype=data.dtype)))


def lerp_(x, end, weight):
    """``x + weight * (end - x)``, from the nearer end as PyTorch's kernel."""
    if abs(weight) < 0.5:
        return x.add_((end - x) * weight)
    return x.copy_(end - (end - x) * (1 - weight))


class Optimizer:
    """Holds ``param_groups`` (dicts of ``params`` and the algorithm's options) and
    ``state`` (per parameter, what the algorithm keeps between steps)."""

    def __init__(self, params, defaults):
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        if isinstance(params, Tensor):
            raise GradcliTypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got {params.type()}"
            )
        groups = list(params)
        if not groups:
            raise GradcliValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group):
        if not isinstance(param_group, dict):
            raise GradcliTypeError(
                f"param_group must be a dict, but got {type(param_group).__name__}"
            )
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise GradcliTypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            param_group["params"] = list(params)
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise GradcliTypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    f"{type(param).__module__}.{type(param).__name__}"
                )
            if not param.is_leaf:
                raise GradcliValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise GradcliValueError(
                    f"parameter group didn't specify a value of required optimization "
                    f"parameter {name}"
                )
            param_group.setdefault(name, default)
        seen = {id(p) for group in self.param_groups for p in group["params"]}
        if any(id(p) in seen for p in param_group["params"]):
            raise GradcliValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            for param in group["params"]:
                if param.grad is None:
                    continue
                if set_to_none:
                    param.grad = None
                else:
                    if param.grad.grad_fn is not None:
                        param.grad.detach_()
                    else:
                        param.grad.requires_grad_(False)
                    param.grad.zero_()

    def _closure_loss(self, closure):
        if closure is None:
            return None
        with enable_grad():
            return closure()

    def step(self, closure=None):
        """One step of every group (``_step_group``, each algorithm's own), outside the
        graph; the closure's loss, recomputed with gradients on."""
        loss = self._closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                self._step_group(group)
        return loss

    def _step_group(self, group):
        raise NotImplementedError

    def state_dict(self):
        mapping = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for param in group["params"]:
                mapping.setdefault(id(param), len(mapping))
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {mapping[id(p)]: value for p, value in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        state_dict = copy.deepcopy(state_dict)
        saved = state_dict["param_groups"]
        if len(saved) != len(self.param_groups):
            raise GradcliValueError("loaded state dict has a different number of parameter groups")
        for mine, theirs in zip(self.param_groups, saved):
            if len(mine["params"]) != len(theirs["params"]):
                raise GradcliValueError(
                    "loaded state dict contains a parameter group that doesn't match the "
                    "size of optimizer's group"
                )
        by_index = {
            index: param
            for mine, theirs in zip(self.param_groups, saved)
            for index, param in zip(theirs["params"], mine["params"])
        }
        self.state = defaultdict(dict)
        for index, value in state_dict["state"].items():
            param = by_index[index]
            self.state[param] = {
                k: v.to(param.dtype) if isinstance(v, Tensor) and k != "step" else v
                for k, v in value.items()
            }
        for mine, theirs in zip(self.param_groups, saved):
            theirs["params"] = mine["params"]
        self.param_groups = saved

    def __repr__(self):
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
