"""Analyses of a program's derivative, on the same sources and bindings as ``gradcli.api``.

Each function returns a frozen report; ``gradcli.render`` lays it out:

- ``check``: the engine's derivatives against finite differences, or hand formulas;
- ``derivative``: the symbolic derivative by SymPy (``gradcli diff``);
- ``propagate``: first-order propagation of uncertainties through the Jacobian;
- ``taylor``: the Taylor polynomial at the bound point;
- ``plot``: the function and its derivative over a range of one input
  (``plots`` for several functions, ``field`` for two inputs);
- ``minimize`` and ``solve``: a local minimum, a root (SciPy with the exact
  gradient, Hessian and Jacobian); ``critical``: the critical points in a box;
- ``implicit``: the derivatives of inputs that equations determine (the
  implicit function theorem);
- ``minimize_subject_to``: a minimum under constraints (``parse_constraints``),
  with its multipliers and KKT check; ``with_sensitivity``: any of the three,
  with the derivative of the solution with respect to the other inputs;
- ``fit``: nonlinear least squares with NIST's standard errors;
- div, curl and laplacian (``vector_calculus``);
- ``assemble_hessian`` and ``assemble_jacobian``: the whole matrix over all
  inputs, which ``api.hessian`` and ``api.jacobian`` attach to their results.

Each command is the registry's (``commands``), declared beside its function, which
this package gives by the command's name.

A report's ``as_tree()`` is its JSON object (nested dicts of arrays, numbers,
strings, booleans and None, in the order they are shown).
"""

from __future__ import annotations

import importlib
import os

from ..core.assembled import Assembled, assemble_hessian, assemble_jacobian
from .commands import find

# Each analysis loads with its first use (SciPy, SymPy): ``gradcli.api`` imports this package.
_LAZY = {
    "CheckReport": "checks",
    "derivative": "symbolic",
    "DiffReport": "symbolic",
    "PropagateReport": "uncertainty",
    "TaylorReport": "series",
    "PlotReport": "plotting",
    "plots": "plotting",
    "PlotsReport": "plotting",
    "field": "plotting",
    "FieldReport": "plotting",
    "MinimizeReport": "optimize",
    "SolveReport": "roots",
    "minimize_subject_to": "constrained",
    "parse_constraints": "constrained",
    "ConstrainedReport": "constrained",
    "with_sensitivity": "sensitivity",
    "CriticalReport": "critical_points",
    "ImplicitReport": "implicit_functions",
    "FitReport": "fitting",
    "VectorCalculusReport": "vector_calculus",
}

_HERE = os.path.dirname(__file__)
__all__ = ["Assembled", "assemble_hessian", "assemble_jacobian", *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    # ``from . import optimum`` asks for a module not imported yet: not a command (reading
    # the registry then would import the modules that are importing this one).
    if not name.startswith("_") and not os.path.exists(os.path.join(_HERE, f"{name}.py")):
        declared = find(name)
        if declared is not None:
            return declared.function
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
