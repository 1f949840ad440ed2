"""The machinery of the op-sample matrix (``test_op_matrix.py``): each transformation of
an op's sample on gradcli and on its reference, and the comparison of the two.

A sample (``opinfo.samples_of``) is a call of the op; its floating-point inputs are
the variables. The transformations (``opinfo.TRANSFORMS``), written once for both
libraries (``m`` is ``gradcli`` or ``torch``):

- ``value``: the op's result;
- ``grad``: the vector-Jacobian product with a fixed cotangent ``v``;
- ``grad2``: the gradient of ``<grad, w>`` (a second derivative, by double backward);
- ``jvp``: the Jacobian-vector product with a fixed tangent;
- ``jacobian`` and ``hessian`` (of ``sum(out * w)``), by ``autograd.functional``;
- ``batched``: the value at three points at once (``gradcli.func.vmap``) against
  the reference point by point.

The reference is PyTorch 2.13 where it has the op; for the few it lacks
(``sec``, ``gamma``...) it is mpmath: the op is elementwise and every transformation
follows from f, f' and f'' at each entry (``mpmath.diff``).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import torch

import gradcli
from gradcli.engine import opinfo, opsamples
from gradcli.errors import NotImplementedByGradcli

RTOL = 1e-9
POINTS = 3

#: What mpmath computes for the elementwise ops PyTorch lacks.
MPMATH = {
    "cbrt": lambda x: mpmath.sign(x) * mpmath.cbrt(abs(x)),
    "sec": mpmath.sec,
    "csc": mpmath.csc,
    "cot": mpmath.cot,
    "gamma": mpmath.gamma,
    "factorial": mpmath.factorial,
    "ln": mpmath.log,
}


class NoReference(Exception):
    """The reference cannot compute this case (mpmath outside its domain), or gradcli
    says it does not implement it (a clear error, which the test reports as a skip)."""


def _assigned(input, index, value):  # noqa: A002  (the schema's names: by keyword too)
    y = input.clone()
    y[index] = value
    return y


#: The ops whose PyTorch form is no function of the same name; gradcli's run as
#: ``entry.call``, but for setitem, which assigns in place.
REFERENCES = {
    "getitem": lambda input, index: input[index],  # noqa: A006
    "setitem": _assigned,
    "len": lambda input: len(input),  # noqa: A006
    "to_dtype": lambda input, dtype: input.to(dtype),  # noqa: A006
    "T": lambda input: input.T,  # noqa: A006
    "mT": lambda input: input.mT,  # noqa: A006
    "zero": lambda input: input.clone().zero_(),  # noqa: A006
    "fill": lambda input, value: input.clone().fill_(value),  # noqa: A006
    "copy": lambda input, src: input.clone().copy_(src),  # noqa: A006
    "solve": lambda *a, **k: torch.linalg.solve(*a, **k),  # torch.solve is gone
    "rdiv": lambda input, other: other / input,  # noqa: A006  (2 / x)
}
#: The kinds whose ops make new tensors, in the default dtype (float64 in the tests).
SEEDED = ("constructor", "random")


def torch_function(entry):
    """PyTorch's function of the same name: torch, torch.linalg, torch.special,
    torch.nn.functional, or a Tensor method; None when it has none."""
    name = entry.name
    if name in REFERENCES:
        return REFERENCES[name]
    if any(p.variadic for p in entry.schema.params) and hasattr(torch.Tensor, name):
        return _self_first(getattr(torch.Tensor, name))  # x.reshape(2, 3): not a tuple
    spaces = (torch, torch.linalg, torch.special, torch.nn.functional)
    if entry.kind == "loss":  # torch.binary_cross_entropy_with_logits is aten's (an int reduction)
        spaces = (torch.nn.functional, torch)
    for space in spaces:
        if callable(getattr(space, name, None)):
            return getattr(space, name)
    member = getattr(torch.Tensor, name, None)
    if isinstance(member, property) or type(member).__name__ == "getset_descriptor":
        return lambda x: getattr(x, name)
    return _self_first(member) if callable(member) else None


def _self_first(method):
    # A Tensor method takes self by position only: input= (the schema's name) goes first.
    def call(*args, **kwargs):
        if "input" in kwargs:
            args = (kwargs.pop("input"), *args)
        return method(*args, **kwargs)

    return call


def has_reference(entry) -> bool:
    return entry.name in MPMATH or torch_function(entry) is not None


DTYPES = ("float16", "float32", "float64", "int32", "int64", "bool")


def _param(m, name, value):
    if isinstance(value, str) and value in DTYPES:
        return getattr(m, value)
    if isinstance(value, list):
        return [_param(m, name, v) for v in value]
    return value


def _first(out):
    """A sort's or max(x, dim)'s values; a list of tensors (unbind) stacked."""
    if isinstance(out, (tuple, list)) and not hasattr(out, "shape"):
        return out[0] if hasattr(out, "values") or len(out) == 2 else out[0]
    return out


def _is_float(value):
    return isinstance(value, np.ndarray) and value.dtype.kind == "f"


class Program:
    """The sample as a function of its floating-point inputs, on module ``m``."""

    def __init__(self, m, built, values=None, numbers_as_tensors=False):
        self.m, self.built = m, built
        # PyTorch's maximum, atan2... take no Python number: the reference takes it as 0-d.
        self.numbers_as_tensors = numbers_as_tensors
        self.values = built.values if values is None else values
        self.variables = [i for i, v in enumerate(self.values) if _is_float(v)]
        self.fn = entry_function(m, built.entry)

    def tensor(self, value, grad=True):
        m = self.m
        if self.numbers_as_tensors and isinstance(value, float):
            return m.tensor(value, dtype=m.float64)
        if isinstance(value, opsamples.Raw):
            return value.value
        if isinstance(value, opsamples.Tensors):
            return [m.tensor(v, dtype=m.float64) for v in value.shapes]
        if _is_float(value):
            entry = self.built.entry  # no gradient for a random op that fills its input
            grad = grad and (entry.differentiable or entry.kind not in opinfo.LISTED)
            return m.tensor(value, dtype=m.float64, requires_grad=grad)
        if isinstance(value, np.ndarray):
            return m.tensor(value)
        return value

    def point(self, grad=True):
        return tuple(self.tensor(self.values[i], grad) for i in self.variables)

    def __call__(self, *xs):
        values = list(self.values)
        given = dict(zip(self.variables, xs))

        def wrap(v, i):
            return given[i] if i in given else self.tensor(v, grad=False)

        args, kwargs = self.built.arguments(wrap)
        kwargs = {k: _param(self.m, k, v) for k, v in kwargs.items()}
        args = [_param(self.m, "", a) for a in args]
        del values
        self.m.manual_seed(0)  # dropout and the random ops draw the same numbers each call
        if self.built.entry.kind not in SEEDED:
            return _first(self.fn(*args, **kwargs))
        old = self.m.get_default_dtype()
        self.m.set_default_dtype(self.m.float64)  # as the tests set gradcli's
        try:
            return _first(self.fn(*args, **kwargs))
        finally:
            self.m.set_default_dtype(old)


def entry_function(m, entry):
    if m is not gradcli:
        return torch_function(entry)
    name = entry.name
    if name == "setitem":
        return _assigned

    def call(*args, **kwargs):
        # Through the module at call time: vmap's batched functions replace gradcli's there.
        for space in (gradcli, gradcli.nn.functional):
            if callable(getattr(space, name, None)):
                return getattr(space, name)(*args, **kwargs)
        return entry.call(*args, **kwargs)

    return call


def cotangent(shape, phase=0.0):
    size = int(np.prod(shape))
    return np.linspace(-1.0 + phase, 1.5 + phase, size).reshape(shape) if size else np.zeros(shape)


def run(m, built, transform, values=None):
    """The transformation's result on ``m`` as a tuple of float64 arrays (raises as ``m`` does)."""
    try:
        return _run(m, built, transform, values, False)
    except TypeError:
        if m is not torch or not any(isinstance(v, float) for v in built.values):
            raise
        return _run(m, built, transform, values, True)


def _run(m, built, transform, values, numbers_as_tensors):
    f = Program(m, built, values, numbers_as_tensors)
    x = f.point()
    if transform == "value":
        return (_array(f(*x)),)
    if transform == "batched":
        return _batched(m, built, numbers_as_tensors)
    out = f(*x)
    v = m.tensor(cotangent(tuple(out.shape)), dtype=m.float64)
    if transform == "grad":
        found = m.autograd.grad(out, x, v, allow_unused=True, materialize_grads=True)
        return tuple(map(_array, found))
    if transform == "grad2":
        found = m.autograd.grad(out, x, v, create_graph=True, allow_unused=True)
        weights = [m.tensor(cotangent(tuple(g.shape), 0.25), dtype=m.float64) for g in found]
        total = sum((g * w).sum() for g, w in zip(found, weights) if g is not None)
        found = m.autograd.grad(total, x, allow_unused=True, materialize_grads=True)
        return tuple(map(_array, found))
    plain = f.point(grad=False)
    if transform == "jvp":
        tangents = tuple(m.tensor(cotangent(tuple(p.shape), 0.5), dtype=m.float64) for p in plain)
        return (_array(m.autograd.functional.jvp(f, plain, tangents)[1]),)
    if transform == "jacobian":
        found = m.autograd.functional.jacobian(f, plain)
        return tuple(map(_array, found)) if isinstance(found, tuple) else (_array(found),)
    if transform == "hessian":
        w = m.tensor(cotangent(tuple(out.shape), 0.25), dtype=m.float64)
        found = m.autograd.functional.hessian(lambda *a: (f(*a) * w).sum(), plain)
        if not isinstance(found, tuple):
            return (_array(found),)
        return tuple(_array(block) for row in found for block in row)
    raise ValueError(transform)


def points_of(built):
    """``POINTS`` points around the sample's: small relative perturbations of its floats
    (0, inf and nan stay where they are)."""
    rng = np.random.default_rng(len(built.name))
    rows = [built.values]
    for _ in range(POINTS - 1):
        rows.append(
            tuple(
                np.asarray(v * (1 + 0.02 * rng.uniform(-1, 1, v.shape))) if _is_float(v) else v
                for v in built.values
            )
        )
    return rows


def _batched(m, built, numbers_as_tensors):
    rows = points_of(built)
    if m is torch:
        each = [Program(m, built, r, numbers_as_tensors) for r in rows]
        return (np.stack([_array(f(*f.point(False))) for f in each]),)
    f = Program(m, built)
    stacked = tuple(m.tensor(np.stack([r[i] for r in rows]), dtype=m.float64) for i in f.variables)
    return (_array(gradcli.func.vmap(f)(*stacked)),)


def _array(t):
    if t is None:
        return None
    if hasattr(t, "initial_seed"):
        return np.array(float(t.initial_seed()))  # manual_seed's generator
    if isinstance(t, torch.Tensor) and t._is_zerotensor():
        return np.zeros(tuple(t.shape))
    if hasattr(t, "detach"):
        t = t.detach()
        t = t.numpy() if hasattr(t, "numpy") else np.asarray(t)
    a = np.asarray(t)
    if a.dtype in (np.float16, np.float32):
        return a  # compared to the precision of its dtype (``disagreement``)
    return a.astype(float) if a.dtype.kind in "biuf" else a


# ----------------------------------------------------------------------------
# mpmath: the reference of the elementwise ops PyTorch lacks
# ----------------------------------------------------------------------------


def _mp(f, x, order):
    if not math.isfinite(x):
        raise NoReference(f"mpmath: no derivative at {x}")
    with mpmath.workdps(40):
        try:
            value = mpmath.diff(f, mpmath.mpf(x), order) if order else f(mpmath.mpf(x))
        except (ValueError, ZeroDivisionError) as err:
            raise NoReference(str(err)) from None
        if isinstance(value, mpmath.mpc):
            raise NoReference("mpmath: complex")
        return float(value)


def run_mpmath(built, transform):
    if built.sample.special and transform != "value":
        # mpmath.diff differences numerically: no reference at a pole or an extreme scale.
        raise NoReference("mpmath: a derivative at a special point")
    f = MPMATH[built.entry.name]
    (x,) = [v for v in built.values if _is_float(v)]

    def each(order, values=x):
        return np.vectorize(lambda t: _mp(f, float(t), order), otypes=[float])(values)

    v = cotangent(x.shape)
    if transform == "value":
        return (each(0),)
    if transform == "batched":
        return (np.stack([each(0, r[0]) for r in points_of(built)]),)
    d1 = each(1)
    if transform == "grad":
        return (v * d1,)
    if transform == "jvp":
        return (cotangent(x.shape, 0.5) * d1,)
    if transform == "jacobian":
        return (np.diag(d1.reshape(-1)).reshape(x.shape + x.shape),)
    d2 = each(2)
    if transform == "grad2":
        return (v * cotangent(x.shape, 0.25) * d2,)
    if transform == "hessian":
        return (np.diag((cotangent(x.shape, 0.25) * d2).reshape(-1)).reshape(x.shape + x.shape),)
    raise ValueError(transform)


# ----------------------------------------------------------------------------
# Comparing
# ----------------------------------------------------------------------------


def disagreement(ours, theirs, rtol=RTOL) -> str | None:
    """Why two results differ (shape, nan or inf places, values), or None."""
    if len(ours) != len(theirs):
        return f"{len(ours)} results != {len(theirs)}"
    for k, (a, b) in enumerate(zip(ours, theirs)):
        if a is None or b is None:
            if (a is None) != (b is None):
                return f"result {k}: {a} != {b}"
            continue
        # float32 results to 2 ulp: PyTorch's vectorised kernels round per lane of the CPU.
        low = [np.finfo(x.dtype).eps for x in map(np.asarray, (a, b)) if x.dtype.kind == "f"]
        rtol = max([rtol, *(2 * e for e in low)])
        a, b = np.asarray(a, float), np.asarray(b, float)
        if a.shape != b.shape:
            return f"result {k}: shape {a.shape} != {b.shape}"
        if not np.array_equal(np.isnan(a), np.isnan(b)):
            return f"result {k}: nan differs: {a} != {b}"
        if not np.array_equal(np.isinf(a), np.isinf(b)) or not np.array_equal(
            a[np.isinf(a)], b[np.isinf(b)]
        ):
            return f"result {k}: inf differs: {a} != {b}"
        finite = np.isfinite(b)
        scale = float(np.max(np.abs(b[finite]), initial=1.0))
        if not np.allclose(a[finite], b[finite], rtol=rtol, atol=rtol * scale):
            return f"result {k}: {a} != {b}"
    return None


def compare(built, transform):
    """``(outcome, detail)``: "agree", "both raise", or "differ" with why."""
    entry = built.entry
    try:
        if entry.name in MPMATH:
            theirs = run_mpmath(built, transform)
        else:
            theirs = run(torch, built, transform)
    except NoReference:
        raise
    except Exception as torch_error:  # noqa: BLE001  (whatever PyTorch raises)
        if transform in ("jvp", "jacobian", "hessian") and _empty(built):
            # torch.autograd.functional stacks its rows: it fails on empty tensors.
            raise NoReference(f"PyTorch's {transform} of an empty tensor") from None
        try:
            run(gradcli, built, transform)
        except gradcli.GradcliError:
            return "both raise", type(torch_error).__name__
        return "differ", f"PyTorch raises {type(torch_error).__name__}: {torch_error}"
    try:
        ours = run(gradcli, built, transform)
    except NotImplementedByGradcli as err:
        raise NoReference(f"not implemented by gradcli: {err}") from None
    why = disagreement(ours, theirs, RTOL if entry.name not in MPMATH else 1e-7)
    return ("agree", None) if why is None else ("differ", why)


def _empty(built):
    try:
        out = run(torch, built, "value")[0]
    except Exception:  # noqa: BLE001
        return False
    return out.size == 0 or any(isinstance(v, np.ndarray) and v.size == 0 for v in built.values)


def all_cases(entries):
    """Every ``(entry, built sample, transform)`` of the matrix."""
    for entry in entries:
        for built in opinfo.samples_of(entry):
            for transform in opinfo.TRANSFORMS:
                if transform != "value" and not (entry.differentiable or entry.name in MPMATH):
                    continue
                if transform != "value" and not any(map(_is_float, built.values)):
                    continue  # no floating-point input to differentiate by
                if transform == "batched" and not entry.library:
                    continue  # vmap batches the gradcli.<name> functions
                yield entry, built, transform
