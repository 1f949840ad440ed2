"""``gradcheck`` and ``gradgradcheck``: analytical Jacobians against finite differences.

As ``torch.autograd.gradcheck``: the numerical Jacobian comes from central
differences ``(f(x + eps) - f(x - eps)) / (2 eps)`` on each input entry in
turn, the analytical one from one reverse pass per output entry, and the two
must agree within ``atol + rtol * |numerical|`` entry by entry. Inputs should
be float64 (a warning says so otherwise, as PyTorch does): with float32 the
differences of ``eps = 1e-6`` are mostly rounding noise.

``check_batched_grad=True`` also runs one reverse pass whose root gradient
carries a leading batch dimension (the identity, all rows at once, as
``functional.jacobian`` does), both plain and with ``create_graph=True``, and
checks that it equals the row-by-row Jacobian: every rule must let extra
leading dimensions of its gradient through.

``check_forward_ad=True`` checks the Jacobian forward-mode AD gives (one pass per
input entry, every input dual with a zero tangent but that entry's, as PyTorch)
against the same finite differences, and ``check_batched_forward_grad=True`` the
tangents of all the entries at once, through ``vmap``, against it;
``gradgradcheck(check_fwd_over_rev=True)`` does so for the first derivatives.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..engine.backward import grad
from ..engine.tensor import Tensor
from ..errors import EngineError, GradcliTypeError
from . import forward_ad

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]

# Jacobians with at most this many entries are printed in full in a failure report.
_SHOW_ENTRIES = 400


class GradcheckError(EngineError):
    """An analytical gradient disagrees with finite differences (a RuntimeError, as in PyTorch)."""


def gradcheck(
    func,
    inputs,
    *,
    eps=1e-6,
    atol=1e-5,
    rtol=1e-3,
    raise_exception=True,
    nondet_tol=0.0,
    check_undefined_grad=True,
    check_grad_dtypes=False,
    check_batched_grad=False,
    check_batched_forward_grad=False,
    check_forward_ad=False,
    check_backward_ad=True,
    fast_mode=False,
    masked=None,
):
    """Check the gradients of ``func`` at ``inputs`` against central finite differences.

    Returns True, or raises ``GradcheckError`` (returns False if
    ``raise_exception=False``). Only the inputs that require grad are perturbed.
    ``nondet_tol``, ``check_undefined_grad``, ``fast_mode`` and ``masked`` are
    accepted for PyTorch compatibility; gradcli's reverse pass is deterministic
    and the check is always the full (slow-mode) Jacobian.
    """
    try:
        _gradcheck(
            func,
            _as_tuple(inputs),
            eps,
            atol,
            rtol,
            check_grad_dtypes,
            check_batched_grad and check_backward_ad,
            check_backward_ad,
        )
        if check_forward_ad:
            _forward_check(func, _as_tuple(inputs), eps, atol, rtol, check_batched_forward_grad)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def gradgradcheck(
    func,
    inputs,
    grad_outputs=None,
    *,
    eps=1e-6,
    atol=1e-5,
    rtol=1e-3,
    gen_non_contig_grad_outputs=False,
    raise_exception=True,
    nondet_tol=0.0,
    check_undefined_grad=True,
    check_grad_dtypes=False,
    check_batched_grad=False,
    check_fwd_over_rev=False,
    check_rev_over_rev=True,
    fast_mode=False,
    masked=False,
):
    """Check second derivatives: ``gradcheck`` of the map (inputs, v) -> vᵀ J(inputs).

    ``grad_outputs`` (the ``v``) default to random values in [-1, 1) that
    require grad, so the check also covers the dependence on ``v``.
    """
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(
            Tensor._make(rng.uniform(-1, 1, o.shape).astype(o._data.dtype), None, True)
            for o in _differentiable_outputs(func(*inputs))
        )
    else:
        grad_outputs = _as_tuple(grad_outputs)
    n_out = len(grad_outputs)

    diff = {i for i, x in enumerate(inputs) if type(x) is Tensor and x.requires_grad}
    diff_v = {i for i, v in enumerate(grad_outputs) if type(v) is Tensor and v.requires_grad}

    def first_derivatives(*args):
        # requires_grad restored, as PyTorch: the forward-mode check passes detached duals
        split = len(args) - n_out
        input_args = [x.requires_grad_() if i in diff else x for i, x in enumerate(args[:split])]
        vs = [v.requires_grad_() if i in diff_v else v for i, v in enumerate(args[split:])]
        outputs = _differentiable_outputs(func(*input_args))
        wrt = tuple(x for i, x in enumerate(input_args) if i in diff)
        grads = grad(outputs, wrt, vs, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(
        first_derivatives,
        inputs + grad_outputs,
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
        check_grad_dtypes=check_grad_dtypes,
        check_batched_grad=check_batched_grad,
        check_forward_ad=check_fwd_over_rev,
        check_backward_ad=check_rev_over_rev,
    )


# ----------------------------------------------------------------------------
# The check
# ----------------------------------------------------------------------------


def _as_tuple(x):
    if isinstance(x, (tuple, list)):
        return tuple(x)
    return (x,)


def _differentiable_outputs(out):
    return tuple(o for o in _as_tuple(out) if type(o) is Tensor and o.requires_grad)


def _outputs_as_arrays(func, inputs):
    """The outputs of ``func`` as float64 arrays (non-tensor outputs dropped)."""
    out = _as_tuple(func(*inputs))
    return [
        np.array(o._data, dtype=np.float64)
        for o in out
        if type(o) is Tensor and o._data.dtype.kind in "fc"
    ]


def _gradcheck(func, inputs, eps, atol, rtol, check_grad_dtypes, check_batched, check_backward):
    wrt = _checked_inputs(inputs)
    outputs = _as_tuple(func(*inputs))
    diff_outputs = [(k, o) for k, o in enumerate(outputs) if type(o) is Tensor and o.requires_grad]
    numerical = _numerical_jacobians(func, inputs, wrt, eps)
    if not diff_outputs:
        for per_input in numerical:
            if any(np.any(j != 0) for j in per_input):
                raise GradcheckError("Numerical gradient for function expected to be zero")
        return
    if not check_backward:
        return
    float_index = {
        k: n
        for n, k in enumerate(
            k for k, o in enumerate(outputs) if type(o) is Tensor and o._data.dtype.kind in "fc"
        )
    }
    for k, out in diff_outputs:
        analytical = _analytical_jacobian(out, inputs, wrt, check_grad_dtypes)
        for i, a in zip(wrt, analytical):
            n = numerical[wrt.index(i)][float_index[k]]
            _compare(a, n, k, i, inputs[i], atol, rtol)
        for create_graph in (False, True) if check_batched else ():
            try:
                batched = _batched_jacobian(out, inputs, wrt, create_graph)
            except GradcheckError:
                raise
            except Exception as err:
                raise GradcheckError(
                    f"Batched gradient failed for output {k}: a reverse pass whose gradient "
                    f"has a leading batch dimension (create_graph={create_graph}) raised "
                    f"{type(err).__name__}: {err}"
                ) from err
            for i, a, b in zip(wrt, analytical, batched):
                if not np.allclose(b, a, rtol=1e-7, atol=1e-12, equal_nan=True):
                    raise GradcheckError(
                        f"Batched gradient mismatch for output {k} with respect to input {i}: "
                        "one reverse pass over the identity (a leading batch dimension, "
                        f"create_graph={create_graph}) differs from the row-by-row passes.\n"
                        f"{_worst(b, a, out.ndim, 'batched', 'row by row')}\n"
                        f"{_show(b, a, out.ndim, 'batched', 'row by row')}"
                    )


def _checked_inputs(inputs):
    wrt = []
    for idx, x in enumerate(inputs):
        if type(x) is Tensor and x.requires_grad:
            if x._data.dtype != np.float64:
                warnings.warn(
                    f"Input #{idx} requires gradient and is not a double precision floating "
                    "point or complex. This check will likely fail if all the inputs are not "
                    "of double precision floating point or complex. ",
                    stacklevel=4,
                )
            wrt.append(idx)
    if not wrt:
        raise GradcliTypeError(
            "gradcheck expects at least one input tensor to require gradient, but none of "
            "them have requires_grad=True."
        )
    return wrt


def _numerical_jacobians(func, inputs, wrt, eps):
    """For each input in ``wrt``, one Jacobian per float output: shape out.shape + in.shape."""
    base = _outputs_as_arrays(func, inputs)
    result = []
    for i in wrt:
        data = inputs[i]._data
        jac = [np.zeros(o.shape + data.shape) for o in base]
        for idx in np.ndindex(data.shape):
            orig = data[idx]
            try:
                data[idx] = orig + eps
                plus = _outputs_as_arrays(func, inputs)
                data[idx] = orig - eps
                minus = _outputs_as_arrays(func, inputs)
            finally:
                data[idx] = orig
            for j, p, m in zip(jac, plus, minus):
                j[(Ellipsis,) + idx] = (p - m) / (2 * eps)
        result.append(jac)
    return result


def _analytical_jacobian(out, inputs, wrt, check_grad_dtypes):
    """One reverse pass per entry of ``out``: shape out.shape + in.shape per input."""
    targets = tuple(inputs[i] for i in wrt)
    jacs = [np.zeros(out.shape + t.shape) for t in targets]
    for idx in np.ndindex(out.shape):
        v = np.zeros(out.shape, dtype=out._data.dtype)
        v[idx] = 1
        grads = grad(out, targets, Tensor._make(v), retain_graph=True, allow_unused=True)
        for n, (j, g, t) in enumerate(zip(jacs, grads, targets)):
            if g is None:
                continue
            if g.shape != t.shape:
                raise GradcheckError(
                    f"Gradient has incorrect shape for input {wrt[n]}: "
                    f"{tuple(g.shape)} instead of {tuple(t.shape)}"
                )
            if check_grad_dtypes and g._data.dtype != t._data.dtype:
                raise GradcheckError(
                    f"Gradient has dtype mismatch for input {wrt[n]}: "
                    f"{g._data.dtype} instead of {t._data.dtype}"
                )
            j[idx] = g._data
    return jacs


def _batched_jacobian(out, inputs, wrt, create_graph):
    """All rows of the Jacobian from one reverse pass with a leading batch dimension."""
    size = out._data.size
    eye = np.eye(size, dtype=out._data.dtype).reshape((size,) + out.shape)
    targets = tuple(inputs[i] for i in wrt)
    grads = grad(
        out,
        targets,
        Tensor._make(eye),
        retain_graph=True,
        create_graph=create_graph,
        allow_unused=True,
        is_grads_batched=True,
    )
    jacs = []
    for t, g in zip(targets, grads):
        if g is None:
            jacs.append(np.zeros(out.shape + t.shape))
            continue
        if g.shape != (size,) + t.shape:
            raise GradcheckError(
                f"Batched gradient has shape {g.shape}; expected {(size,) + t.shape} "
                "(the batch dimension, then the input's shape)"
            )
        jacs.append(g._data.reshape(out.shape + t.shape))
    return jacs


# ----------------------------------------------------------------------------
# Forward mode
# ----------------------------------------------------------------------------


def _forward_check(func, inputs, eps, atol, rtol, check_batched):
    wrt = _checked_inputs(inputs)
    numerical = _numerical_jacobians(func, inputs, wrt, eps)
    forward = _forward_jacobians(func, inputs, wrt)
    for n_in, i in enumerate(wrt):
        for k, (a, n) in enumerate(zip(forward[n_in], numerical[n_in])):
            _compare(a, n, k, i, inputs[i], atol, rtol, mode="computed with forward mode ")
        if check_batched:
            batched = _batched_forward_jacobians(func, inputs, wrt, i)
            for k, (b, a) in enumerate(zip(batched, forward[n_in])):
                if not np.allclose(b, a, rtol=1e-7, atol=1e-12, equal_nan=True):
                    out_ndim = a.ndim - inputs[i]._data.ndim
                    raise GradcheckError(
                        f"Batched forward gradient mismatch for output {k} with respect to "
                        f"input {i}: the tangents of every entry at once (vmap) differ from "
                        f"one pass per entry.\n{_worst(b, a, out_ndim, 'batched', 'one by one')}"
                    )


def _float_outputs(outputs):
    return [o for o in _as_tuple(outputs) if isinstance(o, Tensor) and o.dtype.is_floating_point]


def _forward_jacobians(func, inputs, wrt):
    """For each input in ``wrt``, one Jacobian per float output, by forward-mode AD: one
    pass per input entry."""
    base = _float_outputs(func(*inputs))
    result = []
    for i in wrt:
        shape = inputs[i].shape
        jacs = [np.zeros(tuple(o.shape) + tuple(shape)) for o in base]
        for idx in np.ndindex(tuple(shape)):
            with forward_ad.dual_level():
                duals = list(inputs)
                for j in wrt:
                    tangent = np.zeros(inputs[j].shape, dtype=inputs[j]._data.dtype)
                    if j == i:
                        tangent[idx] = 1
                    duals[j] = forward_ad.make_dual(inputs[j].detach(), Tensor._make(tangent))
                for jac, o in zip(jacs, _float_outputs(func(*duals))):
                    tangent = forward_ad.unpack_dual(o).tangent
                    if tangent is not None:
                        jac[(Ellipsis,) + idx] = tangent._data
        result.append(jacs)
    return result


def _batched_forward_jacobians(func, inputs, wrt, i):
    """The Jacobians of every float output with respect to input ``i`` from one forward
    pass whose tangents are a batch of every basis vector (``vmap``)."""
    # vmap's machinery, loaded by the check that needs it
    from .batched_tensor import batched_callable
    from .custom_rules import LEGACY_VMAPS
    from .mapping import vmap

    func = batched_callable(func)
    x = inputs[i]
    size = x._data.size
    basis = Tensor._make(np.eye(size, dtype=x._data.dtype).reshape((size, *x.shape)))

    def tangents(t):
        with forward_ad.dual_level():
            duals = list(inputs)
            for j in wrt:
                tangent = t if j == i else inputs[j].detach() * 0
                duals[j] = forward_ad.make_dual(inputs[j].detach(), tangent)
            outs = []
            for o in _float_outputs(func(*duals)):
                tangent = forward_ad.unpack_dual(o).tangent
                outs.append(o.detach() * 0 if tangent is None else tangent)
            return tuple(outs)

    LEGACY_VMAPS.append(True)
    try:
        batched = vmap(tangents)(basis)
    except Exception as err:
        raise GradcheckError(
            f"While computing batched gradients, got: {type(err).__name__}: {err}"
        ) from err
    finally:
        LEGACY_VMAPS.pop()
    return [
        np.moveaxis(b._data.reshape((size, *b.shape[1:])), 0, -1).reshape(
            tuple(b.shape[1:]) + tuple(x.shape)
        )
        for b in batched
    ]


# ----------------------------------------------------------------------------
# The failure report
# ----------------------------------------------------------------------------


def _compare(analytical, numerical, k, i, x, atol, rtol, mode=""):
    a = np.asarray(analytical, dtype=np.float64)
    n = np.asarray(numerical, dtype=np.float64)
    if np.allclose(a, n, rtol=rtol, atol=atol, equal_nan=True):
        return
    out_ndim = a.ndim - x._data.ndim
    raise GradcheckError(
        f"Jacobian {mode}mismatch for output {k} with respect to input {i},\n"
        f"input {i} of shape {tuple(x.shape)}, "
        f"{_worst(a, n, out_ndim, 'analytical', 'numerical', atol, rtol)}\n"
        f"{_show(n, a, out_ndim, 'numerical', 'analytical')}"
    )


def _worst(a, n, out_ndim, a_name, n_name, atol=0.0, rtol=0.0):
    """Where ``a`` and ``n`` disagree most, as 'output[i] / input[j]: a vs n'."""
    excess = np.abs(a - n) - (atol + rtol * np.abs(n))
    excess = np.where(np.isnan(excess), np.inf, excess)
    where = np.unravel_index(int(np.argmax(excess)), a.shape) if a.ndim else ()
    out_idx = ", ".join(str(int(w)) for w in where[:out_ndim])
    in_idx = ", ".join(str(int(w)) for w in where[out_ndim:])
    return (
        f"worst entry: d output[{out_idx}] / d input[{in_idx}]: "
        f"{a_name} {float(a[where])!r} vs {n_name} {float(n[where])!r}"
    )


def _show(first, second, out_ndim, first_name, second_name):
    """Both Jacobians as (output entries) x (input entries) matrices, when small."""
    if first.size > _SHOW_ENTRIES:
        return f"(Jacobians of {first.size} entries not shown)"
    rows = int(np.prod(first.shape[:out_ndim]))

    def fmt(j):
        j = np.asarray(j)
        return np.array2string(j.reshape(rows, -1) if rows else j, precision=6, max_line_width=120)

    return f"{first_name}:\n{fmt(first)}\n{second_name}:\n{fmt(second)}"
