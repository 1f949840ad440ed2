"""The op-sample matrix in complex numbers (``test_op_matrix_complex.py``): each entry's
samples (``opinfo.samples_of``) with an imaginary part added to every floating-point
input, run in gradcli and in PyTorch 2.13 complex128.

A complex sample keeps its real sample's call and adds ``1j * w`` to each float input,
``w`` drawn once per sample (the sample's own scale, so 1e300 stays 1e300). The
transformations are those of a real output of the result: ``value``, ``grad`` (the
vector-Jacobian product with a complex cotangent ``v``: the gradient of
``Re sum(conj(v) * out)``, PyTorch's conjugate-Wirtinger one) and ``grad2`` (the
gradient of ``Re sum(conj(w) * grad)``). An entry that PyTorch runs with complex input
runs in gradcli too and agrees, or says by name that it does not take complex numbers;
where PyTorch raises, gradcli raises as well.
"""

from __future__ import annotations

import zlib

import numpy as np
import op_matrix
import torch

import gradcli
from gradcli.engine import opsamples
from gradcli.errors import NotImplementedByGradcli

TRANSFORMS = ("value", "grad", "grad2")
RTOL = 1e-9


def _is_float(value):
    return isinstance(value, np.ndarray) and value.dtype.kind == "f"


def complexified(built):
    """The sample with ``1j * w`` added to each float input (each tensor of a list too);
    None where it has no float input."""
    rng = np.random.default_rng(zlib.crc32(f"{built.entry.name} {built.name}".encode()))

    def imaginary(x):
        scale = np.where(np.isfinite(x) & (x != 0), np.abs(x), 1.0)
        return np.asarray(x + 1j * scale * rng.uniform(-0.6, 0.6, x.shape))

    values, changed = [], False
    for v in built.values:
        if isinstance(v, opsamples.Tensors):
            shapes = tuple(imaginary(a) if _is_float(a) else a for a in v.shapes)
            changed |= any(_is_float(a) for a in v.shapes)
            values.append(opsamples.Tensors(shapes))
        elif _is_float(v):
            values.append(imaginary(v))
            changed = True
        else:
            values.append(v)
    return type(built)(built.entry, built.sample, tuple(values)) if changed else None


def _is_variable(value):
    return isinstance(value, np.ndarray) and value.dtype.kind in "fc"


class Program(op_matrix.Program):
    """``op_matrix.Program`` whose variables are the complex inputs (and any real one)."""

    def __init__(self, m, built, numbers_as_tensors=False):
        super().__init__(m, built, numbers_as_tensors=numbers_as_tensors)
        self.variables = [
            (i, j)
            for i, v in enumerate(self.values)
            for j in ([None] if not isinstance(v, opsamples.Tensors) else range(len(v.shapes)))
            if _is_variable(v if j is None else v.shapes[j])
        ]

    def tensor(self, value, grad=True):
        m = self.m
        if isinstance(value, opsamples.Tensors):
            return [m.tensor(v) for v in value.shapes]
        if _is_variable(value):
            dtype = m.complex128 if value.dtype.kind == "c" else m.float64
            return m.tensor(value, dtype=dtype, requires_grad=grad)
        return super().tensor(value, grad)


def _cotangent(shape, dtype, phase=0.0):
    v = op_matrix.cotangent(shape, phase)
    return v + 1j * np.flip(op_matrix.cotangent(shape, phase + 0.4)) if dtype.kind == "c" else v


def run(m, built, transform):
    """The transformation's result on ``m`` as a tuple of arrays (raises as ``m`` does)."""
    try:
        return _run(m, built, transform, False)
    except TypeError:  # PyTorch's maximum, eq... take no Python number: take it as 0-d
        if m is not torch or not any(isinstance(v, float) for v in built.values):
            raise
        return _run(m, built, transform, True)


def _run(m, built, transform, numbers_as_tensors):
    f = Program(m, built, numbers_as_tensors)
    x = f.point()
    out = f(*x)
    if transform == "value":
        return (op_matrix._array(out),)
    if not getattr(out, "requires_grad", False):
        raise op_matrix.NoReference("a result without a gradient")
    data = op_matrix._array(out)
    v = m.tensor(_cotangent(data.shape, data.dtype))
    found = m.autograd.grad(out, x, v, create_graph=transform == "grad2", allow_unused=True)
    if transform == "grad":
        return tuple(op_matrix._array(g) for g in found)
    total = 0
    for g in found:
        if g is not None and g.requires_grad:
            w = _cotangent(tuple(g.shape), op_matrix._array(g).dtype, 0.25)
            total = total + (g * m.tensor(w).conj()).real.sum()
    if isinstance(total, int):
        raise op_matrix.NoReference("a gradient that does not depend on the inputs")
    found = m.autograd.grad(total, x, allow_unused=True, materialize_grads=True)
    return tuple(op_matrix._array(g) for g in found)


def refused_by_name(error) -> bool:
    return "complex input is not supported by gradcli's" in str(error)


def compare(built, transform):
    """``(outcome, detail)``: "agree", "both raise", "refused" (gradcli says by name it
    takes no complex input where PyTorch does), or "differ" with why."""
    try:
        theirs = run(torch, built, transform)
    except op_matrix.NoReference:
        raise
    except Exception as torch_error:  # noqa: BLE001  (whatever PyTorch raises)
        try:
            run(gradcli, built, transform)
        except gradcli.GradcliError:
            return "both raise", type(torch_error).__name__
        except op_matrix.NoReference:
            return "both raise", type(torch_error).__name__
        return "differ", f"PyTorch raises {type(torch_error).__name__}: {torch_error}"
    try:
        ours = run(gradcli, built, transform)
    except gradcli.GradcliError as err:
        if refused_by_name(err):
            return "refused", str(err)
        if isinstance(err, NotImplementedByGradcli):  # in real numbers too
            raise op_matrix.NoReference(f"not implemented by gradcli: {err}") from None
        return "differ", f"gradcli raises {type(err).__name__}: {err}"
    why = op_matrix.disagreement(ours, theirs, RTOL)
    if why is None:
        for a, b in zip(ours, theirs):
            if a is not None and b is not None and np.asarray(a).dtype != np.asarray(b).dtype:
                return "differ", f"dtype {np.asarray(a).dtype} != {np.asarray(b).dtype}"
    return ("agree", None) if why is None else ("differ", why)
