"""The library API: what each gradcli command computes, returned as frozen results.

Every function takes the program's source text, its bindings and options, and
returns a result holding NumPy arrays; the command line only renders them::

    >>> from gradcli import api
    >>> r = api.gradient("(x+2)**2+3", {"x": 2})
    >>> float(r.value), float(r.grad["x"])
    (19.0, 8.0)

A binding is an array-like, or a string: a constant expression (``"pi/4"``,
``"randn(3, 2)"``) or ``"@FILE"`` (see ``gradcli.core.values``). Inputs are
differentiated in ``wrt`` order, by default every input of the program
(``program.inputs``); names declared ``const`` are never inputs.

The analyses are here too, loaded (with SciPy) on first use: every command of the
registry (``gradcli.analysis.commands``: ``minimize``, ``solve``, ``fit``, ``div``, ...)
returns the frozen report its command prints (its ``as_tree()`` is the command's JSON
object)::

    >>> r = api.minimize("(x-3)**2 + 1", {"x": 0})
    >>> round(float(r.point["x"]), 9), r.classification
    (3.0, 'local minimum')

``precise(command, source, bindings, dps)`` computes eval, grad, jacobian, hessian, vjp
or jvp in mpmath to ``dps`` certified significant digits, the bindings decimal texts
(``{"x": "0.1"}`` is one tenth); its numbers are texts (``core/precision.py``).

``functions()`` lists the functions a program can call, from the op table.
``graph()`` gives the program's autograd graph with the gradient that reached
each node; ``gradient`` and ``vjp`` with ``steps=True`` also give the steps of
their reverse pass.

Every error a user can cause is a ``GradcliError``. A result that is nan or
infinite is returned anyway, with a warning naming the first operation that
produced it. An evaluation that lands on a kink (``abs`` at 0, a tie in ``max``)
gets a note naming the convention that decides the derivative there.
"""

from __future__ import annotations

from .core.computing import (
    evaluate,
    functions,
    gradient,
    graph,
    hessian,
    input_names,
    jacobian,
    jvp,
    vjp,
)
from .core.evaluation import DTYPES
from .core.many_points import points
from .core.option_names import OPTION_NAMES as _OPTION_NAMES  # noqa: F401  (the CLI's, for its checks)
from .core.precision import PreciseResult, precise
from .core.result import (
    KINDS,
    SECTIONS,
    Diagnostic,
    FunctionInfo,
    GraphResult,
    PointsResult,
    Result,
    finite,
    leaves,
)
from .engine.limits import DEFAULT_MAX_ELEMENTS  # noqa: F401  (the CLI's default)

__all__ = [
    "DTYPES", "KINDS", "SECTIONS", "Diagnostic", "FunctionInfo", "GraphResult", "Result",
    "evaluate", "finite", "functions", "gradient", "graph", "hessian", "input_names",
    "jacobian", "jvp", "leaves", "points", "vjp", "PointsResult", "precise", "PreciseResult",
]  # fmt: skip


def __getattr__(name: str):
    # The commands of the registry (``analysis.commands``) load with their first use
    # (SciPy, SymPy), each its function.
    if not name.startswith("_"):
        from .analysis.commands import find

        declared = find(name)
        if declared is not None:
            return declared.function
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
