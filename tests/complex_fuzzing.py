"""Hypothesis strategies for complex programs (``test_fuzz.py``): a random call of an
op-table entry that takes complex numbers (``entry.complex``), its inputs drawn as the
real fuzzer draws them (``fuzzing.call_of``) with an imaginary part added, and an ending
that keeps the result complex or makes it real (``abs``, ``real``, ``imag``, ``angle``),
so that both gradients of real outputs and vector-Jacobian products of complex ones are
checked against PyTorch in complex128. The inputs are bound as the command line takes
them: ``--z "[1+2j, 3-0.5j]"``.
"""

from __future__ import annotations

import numpy as np
from fuzzing import MAKE_COMPLEX, FuzzProgram, call_of, num
from hypothesis import strategies as st

from gradcli.engine.ops import FUNCTIONS
from gradcli.language import ir

#: The functions that take complex input, as the op table declares it; the ones that make
#: complex numbers of real ones take no complex input (PyTorch's complex and polar).
COMPLEX_FUNCTIONS = sorted(
    name for name, entry in FUNCTIONS.items() if entry.complex and name not in MAKE_COMPLEX
)


def _call(name, *args):
    return ir.Call(name, tuple(args))


def _complex(x: np.ndarray, rng) -> np.ndarray:
    scale = np.where(np.isfinite(x) & (x != 0), np.abs(x), 1.0)
    return x + 1j * scale * rng.uniform(-0.8, 0.8, x.shape)


def binding_text(array: np.ndarray) -> str:
    """A complex input as a binding writes it, ``[1.5+2j, -0.25-1j]``, each part at full
    precision."""

    def number(z):
        imag = repr(float(z.imag))
        return f"{float(z.real)!r}{'' if imag.startswith('-') else '+'}{imag}j"

    if array.ndim == 0:
        return number(complex(array))
    return "[" + ", ".join(binding_text(a) for a in array) + "]"


@st.composite
def complex_programs(draw):
    """A program around one call of a function that takes complex numbers, with complex
    inputs; its last line is the call's result, complex or made real."""
    name = draw(st.sampled_from(COMPLEX_FUNCTIONS))
    # var and std of one entry have no degrees of freedom: their nan gradient is a declared
    # difference (test_op_matrix_complex.py's DIFFERS).
    no_freedom = name in ("var", "std")
    call, inputs, on_kink = draw(
        call_of(name).filter(lambda c: not c[2] and not (no_freedom and c[1]["x"].size < 2))
    )
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    inputs = {
        k: _complex(v, rng) if isinstance(v, np.ndarray) and v.dtype.kind == "f" else v
        for k, v in inputs.items()
    }
    h = ir.Name("h")
    endings = [
        h,
        _call("sum", h),
        _call("sum", ir.BinOp("pow", _call("abs", h), num(2))),
        _call("real", ir.Chain(h, ("mul",), (_call("conj", h),))),
        _call("imag", ir.Chain(h, ("mul",), (ir.Name("x"),))) if "x" in inputs else h,
        ir.Chain(_call("exp", h), ("div",), (num(4),)),
        _call("angle", h),
        _call("conj", h),
    ]
    statements = (ir.Assign("h", call), draw(st.sampled_from(endings)))
    used = {n.id for n in ir.walk(ir.Program(statements)) if isinstance(n, ir.Name)}
    inputs = {k: v for k, v in inputs.items() if k in used}
    return FuzzProgram(name, ir.Program(statements), inputs, on_kink=False)
