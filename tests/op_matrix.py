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
  the reference point by point;
- ``gradcheck`` and ``gradgradcheck`` (``FINITE_DIFFERENCES``): against central finite
  differences of gradcli's own forward values in float64, which owe nothing to the
  derivative rules, as PyTorch's ``gradcheck``: the reverse pass, a batch of three
  cotangents in one reverse pass (``is_grads_batched``) and forward mode against the
  numerical Jacobian; the second derivative by double backward and by forward over
  reverse against the differences of the first. These need no reference: every op
  with a floating-point input has them, the internal ones (``ops.INTERNAL``) included.

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
    # The internal ops that aten has under another name or signature.
    "tanh_backward": lambda g, y: torch.ops.aten.tanh_backward(g, y),
    "sigmoid_backward": lambda g, y: torch.ops.aten.sigmoid_backward(g, y),
    "threshold_backward": lambda g, x, t: torch.ops.aten.threshold_backward(g, x, t),
    "leaky_relu_backward": lambda g, x, s: torch.ops.aten.leaky_relu_backward(g, x, s, False),
    "softmax_backward_data": lambda g, y, dim: torch.ops.aten._softmax_backward_data(
        g, y, dim, torch.float64
    ),
    "log_softmax_backward_data": lambda g, y, dim: torch.ops.aten._log_softmax_backward_data(
        g, y, dim, torch.float64
    ),
    "div_floor": lambda input, other: torch.div(input, other, rounding_mode="floor"),  # noqa: A006
    "mul_scalar": lambda input, other: torch.mul(input, other),  # noqa: A006
    "add_scalar": lambda input, other: torch.add(input, other),  # noqa: A006
    "polygamma_op": lambda input, n: torch.polygamma(n, input),  # noqa: A006
    "cross_op": lambda input, other, dim: torch.linalg.cross(input, other, dim=dim),  # noqa: A006
    "logabsdet": lambda input: torch.linalg.slogdet(input)[1],  # noqa: A006
    # torch.batch_norm is aten's (weight and bias first); F.layer_norm and F.group_norm
    # take no cudnn flag.
    "batch_norm": lambda *a, **k: torch.nn.functional.batch_norm(*a, **k),
    "layer_norm": lambda *a, **k: torch.nn.functional.layer_norm(*a, **k),
    "group_norm": lambda *a, **k: torch.nn.functional.group_norm(*a, **k),
    # Square: the samples' rows and cols are the input's last size.
    "diag_embed": lambda input, rows, cols: torch.diag_embed(input),  # noqa: A006
}
#: The ops that draw random numbers from a tensor input (vmap's randomness="error").
RANDOM_UNDER_VMAP = ("dropout",)
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
    """The sample as a function of its floating-point inputs, on module ``m``: each float
    array, and each tensor of a list of tensors (``stack``'s), is a variable, named by
    ``(position, index in the list or None)``."""

    def __init__(self, m, built, values=None, numbers_as_tensors=False):
        self.m, self.built = m, built
        # PyTorch's maximum, atan2... take no Python number: the reference takes it as 0-d.
        self.numbers_as_tensors = numbers_as_tensors
        self.values = built.values if values is None else values
        self.variables = variables_of(self.values)
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
            grad = grad and (entry.kind not in opinfo.LISTED or differentiates(entry))
            return m.tensor(value, dtype=m.float64, requires_grad=grad)
        if isinstance(value, np.ndarray):
            return m.tensor(value)
        return value

    def arrays(self, values=None):
        """The variables' values (of ``values``, the sample's by default)."""
        return arrays_of(self.values if values is None else values, self.variables)

    def point(self, grad=True):
        return tuple(self.tensor(a, grad) for a in self.arrays())

    def __call__(self, *xs):
        values = list(self.values)
        given = dict(zip(self.variables, xs))

        def wrap(v, i):
            if isinstance(v, opsamples.Tensors):
                return [
                    given[i, j] if (i, j) in given else self.tensor(a, grad=False)
                    for j, a in enumerate(v.shapes)
                ]
            return given[i, None] if (i, None) in given else self.tensor(v, grad=False)

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


def variables_of(values):
    """The variables of a sample's values: ``(position, None)`` for a float array,
    ``(position, index)`` for each tensor of a list."""
    found = []
    for i, v in enumerate(values):
        if isinstance(v, opsamples.Tensors):
            found += [(i, j) for j, a in enumerate(v.shapes) if _is_float(a)]
        elif _is_float(v):
            found.append((i, None))
    return found


def arrays_of(values, variables):
    return [values[i] if j is None else values[i].shapes[j] for i, j in variables]


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
        weights = [
            None if g is None else m.tensor(cotangent(tuple(g.shape), 0.25), dtype=m.float64)
            for g in found
        ]
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
    columns = zip(*(f.arrays(r) for r in rows))
    stacked = tuple(m.tensor(np.stack(c), dtype=m.float64) for c in columns)
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
        t = t.resolve_conj() if hasattr(t, "resolve_conj") else t
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
        # A complex result is compared part by part, its real and imaginary parts last.
        a, b = (np.stack([x.real, x.imag], -1) if np.iscomplexobj(x) else x for x in (a, b))
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


def samples_of(entry):
    """The entry's samples (``opinfo.samples_of``); an internal elementwise or reduction op's
    are its own only: rules call it with arguments its kind's generic samples do not make
    (a gradient and the output it belongs to)."""
    found = opinfo.samples_of(entry)
    if entry.internal and entry.kind in opinfo.BY_KIND:
        own = {s.name for s in entry.samples}
        found = [b for b in found if b.name in own]
    return found


def differentiates(entry) -> bool:
    """Whether the op's result carries a gradient: an entry that records a node of its own,
    or a composite whose first differentiable sample gives a result that requires grad
    (``cross``, ``mse_loss``: their gradients are their parts')."""
    if entry.name not in _DIFFERENTIATES:
        _DIFFERENTIATES[entry.name] = entry.differentiable or _composite_differentiates(entry)
    return _DIFFERENTIATES[entry.name]


_DIFFERENTIATES: dict[str, bool] = {}


def _composite_differentiates(entry):
    if entry.kind in SEEDED:
        return False
    for built in samples_of(entry):
        if built.sample.special or not variables_of(built.values):
            continue
        f = Program(gradcli, built)
        xs = [gradcli.tensor(a, dtype=gradcli.float64, requires_grad=True)
              for a in f.arrays()]  # fmt: skip
        try:
            out = f(*xs)
        except Exception:  # noqa: BLE001  (a sample that raises says nothing of gradients)
            continue
        return bool(getattr(out, "requires_grad", False))
    return False


def all_cases(entries):
    """Every ``(entry, built sample, transform)`` of the matrix: the reference's
    transformations where the entry has a reference, the finite differences' where it
    differentiates."""
    for entry in entries:
        referenced = has_reference(entry)
        for built in samples_of(entry):
            for transform in (*opinfo.TRANSFORMS, *FINITE_DIFFERENCES):
                if transform in FINITE_DIFFERENCES:
                    if differentiates(entry) and _by_differences(built):
                        yield entry, built, transform
                    continue
                if not referenced:
                    continue
                if transform != "value" and not (differentiates(entry) or entry.name in MPMATH):
                    continue
                if transform != "value" and not variables_of(built.values):
                    continue  # no floating-point input to differentiate by
                if transform == "batched" and entry.name in RANDOM_UNDER_VMAP:
                    continue  # vmap refuses randomness by default, as PyTorch's
                if transform == "batched" and not entry.library:
                    continue  # vmap batches the gradcli.<name> functions
                yield entry, built, transform


# ----------------------------------------------------------------------------
# Finite differences: PyTorch's gradcheck and gradgradcheck, in float64
# ----------------------------------------------------------------------------

FINITE_DIFFERENCES = ("gradcheck", "gradgradcheck")
#: Ops of a symmetric matrix that read one triangle, with the symmetric gradient of the
#: convention PyTorch's: differenced along symmetric perturbations, as its tests do.
SYMMETRIC = ("eigvalsh", "eigenvectors")
#: Samples where differences lose the digits they check: the normal distribution's far
#: tails (the reference transformations check them against PyTorch).
NOT_SMOOTH = ("tails",)
#: The step, and the tolerances of a derivative against its differences (PyTorch's
#: gradcheck takes eps 1e-6, atol 1e-5, rtol 1e-3; the samples here are away from kinks).
STEP, FD_RTOL, FD_ATOL = 1e-6, 1e-4, 1e-6


def _by_differences(built):
    # Finite differences need a smooth neighbourhood: no kink, pole, ±0, inf, nan or
    # extreme scale (the special samples), and a floating-point input to perturb.
    floats = arrays_of(built.values, variables_of(built.values))
    return (
        not built.sample.special
        and built.name not in NOT_SMOOTH
        and any(v.size for v in floats)
        and all(np.isfinite(v).all() for v in floats)
    )


def _float_out(out):
    # float64 only, as PyTorch's gradcheck: a float32 result's rounding swamps the differences.
    return hasattr(out, "dtype") and str(out.dtype).endswith("float64")


def _numerical_jacobian(f, point, step=STEP):
    """The Jacobian of ``f`` at ``point`` (float64 arrays) by central differences: one
    ``(out.size, x.size)`` block per input."""
    blocks = []
    for k, x in enumerate(point):
        block = []
        for i in range(x.size):
            shifted = []
            for sign in (1.0, -1.0):
                moved = [p.copy() for p in point]
                moved[k].reshape(-1)[i] += sign * step
                shifted.append(np.asarray(f(*moved), float).reshape(-1))
            block.append((shifted[0] - shifted[1]) / (2 * step))
        blocks.append(np.stack(block, axis=1) if block else np.zeros((0, 0)))
    return blocks


def _close(found, expected, what):
    found, expected = np.asarray(found, float), np.asarray(expected, float)
    if found.shape != expected.shape:
        return f"{what}: shape {found.shape} != {expected.shape}"
    scale = float(np.max(np.abs(expected), initial=1.0))
    if not np.allclose(found, expected, rtol=FD_RTOL, atol=FD_ATOL * scale):
        return f"{what}: {found.reshape(-1)} != finite differences {expected.reshape(-1)}"
    return None


def finite_difference_check(built, transform) -> str | None:
    """Why gradcli's derivatives of the sample differ from finite differences of its
    values, or None. Raises ``NoReference`` where the sample has no float result."""
    try:
        return _finite_difference_check(built, transform)
    except gradcli.GradcliError as err:  # a refusal the reference transformations check
        raise NoReference(f"gradcli raises {type(err).__name__}: {err}") from None


def _finite_difference_check(built, transform):
    f = Program(gradcli, built)
    point = [np.array(a, dtype=float) for a in f.arrays()]
    if built.entry.name in SYMMETRIC:
        f = _symmetrised(f)

    def value(*arrays):
        with gradcli.no_grad():
            return _array(f(*(gradcli.tensor(a, dtype=gradcli.float64) for a in arrays)))

    xs = [gradcli.tensor(a, dtype=gradcli.float64, requires_grad=True) for a in point]
    out = f(*xs)
    if not _float_out(out) or not out.requires_grad or out.numel() == 0:
        raise NoReference("no float64 result that requires grad")
    if not np.isfinite(_array(out)).all():
        raise NoReference("a value that is not finite: no differences there")
    v = cotangent(tuple(out.shape))
    if transform == "gradcheck":
        return _gradcheck(f, point, xs, out, v, value)
    return _gradgradcheck(f, point, v)


def _symmetrised(f):
    def g(a, *rest):
        return f((a + a.mT) / 2, *rest)

    g.variables = f.variables
    return g


def _gradcheck(f, point, xs, out, v, value):
    jacobian = _numerical_jacobian(value, point)
    if not all(np.isfinite(block).all() for block in jacobian):
        raise NoReference("the differences leave the op's domain")
    found = gradcli.autograd.grad(
        out, xs, gradcli.tensor(v), retain_graph=True, allow_unused=True, materialize_grads=True
    )
    for k, (g, block) in enumerate(zip(found, jacobian)):
        why = _close(_array(g), (v.reshape(-1) @ block).reshape(point[k].shape), f"grad {k}")
        if why:
            return why
    # Three cotangents in one reverse pass: the batched rules against the same Jacobian.
    vs = np.stack([v, cotangent(v.shape, 0.3), cotangent(v.shape, -0.6)])
    batch = gradcli.tensor(vs)
    found = gradcli.autograd.grad(out, xs, batch, is_grads_batched=True, allow_unused=True)
    for k, (g, block) in enumerate(zip(found, jacobian)):
        expected = (vs.reshape(3, -1) @ block).reshape((3, *point[k].shape))
        g = np.zeros(expected.shape) if g is None else _array(g)
        why = _close(g, expected, f"batched grad {k}")
        if why:
            return why
    # Forward mode: the tangent of the dual numbers along u.
    us = [cotangent(p.shape, 0.5) for p in point]
    fwad = gradcli.autograd.forward_ad
    with fwad.dual_level():
        duals = [fwad.make_dual(gradcli.tensor(p), gradcli.tensor(u)) for p, u in zip(point, us)]
        tangent = fwad.unpack_dual(f(*duals)).tangent
    expected = sum(block @ u.reshape(-1) for block, u in zip(jacobian, us))
    found = np.zeros(out.shape) if tangent is None else _array(tangent)
    return _close(found, np.reshape(expected, tuple(out.shape)), "jvp")


def _gradgradcheck(f, point, v):
    """The derivative of ``g(x) = vᵀ J(x)`` along ``w``, by double backward and by forward
    over reverse, against ``(g(x + h w) - g(x - h w)) / 2h``."""

    def first(*arrays, create_graph=False):
        xs = [gradcli.tensor(a, dtype=gradcli.float64, requires_grad=True) for a in arrays]
        found = gradcli.autograd.grad(
            f(*xs), xs, gradcli.tensor(v), create_graph=create_graph, allow_unused=True,
            materialize_grads=True,
        )  # fmt: skip
        return xs, found

    ws = [cotangent(p.shape, 0.25) for p in point]
    up = first(*(p + STEP * w for p, w in zip(point, ws)))[1]
    down = first(*(p - STEP * w for p, w in zip(point, ws)))[1]
    expected = [(_array(a) - _array(b)) / (2 * STEP) for a, b in zip(up, down)]
    # Double backward: H w is the gradient of <g(x), w>.
    xs, found = first(*point, create_graph=True)
    total = sum((g * gradcli.tensor(w)).sum() for g, w in zip(found, ws) if g.requires_grad)
    if isinstance(total, int):  # g does not depend on x: a linear op, H = 0
        second = [np.zeros(p.shape) for p in point]
    else:
        second = gradcli.autograd.grad(total, xs, allow_unused=True, materialize_grads=True)
        second = [_array(s) for s in second]
    for k, (a, b) in enumerate(zip(second, expected)):
        why = _close(a, b, f"double backward {k}")
        if why:
            return why
    # Forward over reverse: the tangent of g along w (func.hessian's way, jacfwd(jacrev)).
    func = gradcli.func
    cot = gradcli.tensor(v)
    _, tangents = func.jvp(
        lambda *xs: func.vjp(f, *xs)[1](cot),
        tuple(gradcli.tensor(p) for p in point),
        tuple(gradcli.tensor(w) for w in ws),
    )
    for k, (a, b) in enumerate(zip(tangents, expected)):
        why = _close(_array(a), b, f"forward over reverse {k}")
        if why:
            return why
    return None
