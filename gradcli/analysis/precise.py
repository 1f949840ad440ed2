"""``--dps N`` of taylor, solve, minimize and check: each computed in mpmath on the engine
and its derivative rules, as ``gradcli grad --dps`` is (``core/precision.py``), and
certified as it is: the numbers printed agree, to N significant digits, between the
last two working precisions (``certify``).

- ``taylor``: each coefficient ``∂^α f(a) / α!`` from nested reverse passes, one per
  monomial of degree below the order (Taylor arithmetic, ``engine/jet.py``, is float64's):
  their graphs grow with each degree, so an order whose graphs pass ``MAX_NODES`` is
  refused before it takes minutes.
- ``solve``: Newton's method at the working precision with the engine's exact Jacobian,
  from float64's root (the command's own run, with its fallbacks).
- ``minimize``: Newton's method on the exact gradient and Hessian at the working
  precision, from float64's minimum (the command's own run).
- ``check``: the engine's gradient (Jacobian) against central differences at the
  working precision W, with the step 10^(-W/3) of each entry's size, whose error is
  about 10^(-2W/3): certified as the rest, both are right to N digits, and a derivative
  passes when the two agree to N significant digits.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..core.assembled import entry_labels
from ..core.precision import (
    MAX_DPS,
    certify,
    chosen_inputs,
    compiled,
    exponent_range,
    filled,
    read_values,
    sections_at,
)
from ..engine.backward import grad as autograd_grad
from ..engine.tensor import Tensor
from ..errors import GradcliError
from ..language.transformations import exact_order
from .commands import Option, Variant
from .report import Report

#: ``--dps N`` of the analyses that take it.
DPS = Option(
    "dps",
    "Compute in mpmath to N certified significant digits, the bindings and numbers read as"
    " decimal text (--x 0.1 is one tenth); every digit is printed.",
    "int",
    metavar="N",
    minimum=1,
    maximum=MAX_DPS,
)


#: minimize's options refused at --dps, with why.
MINIMIZE_EXCLUDES = {
    "bounds": "a minimum held at a bound is no zero of the gradient",
    "gtol": "the minimum is certified to every digit",
    "covariance": "not implemented at a working precision",
    "trace": "not implemented at a working precision",
    "sensitivity": "not implemented at a working precision",
    "subject-to": "not implemented at a working precision",
}


def variant(function, excludes: Mapping[str, str]) -> Variant:
    """The command at ``--dps N``, by ``function``; ``excludes``: its options refused
    beside it, with --precision (every certified digit is printed)."""
    return Variant(
        "dps",
        function,
        {**excludes, "precision": "every certified digit is printed"},
        one_point="many points are float64-only",
    )


@dataclass(frozen=True, eq=False)
class PreciseReport(Report):
    """An analysis at ``--dps N``: its tree of decimal texts (``--format json`` gives
    them as strings), its warnings, and what its command's exit status reads."""

    tree: Mapping
    command: str = ""
    warnings: tuple = ()
    converged: bool = True
    message: str = ""
    passed: bool = True
    numbers_finite: bool = True

    def as_tree(self) -> dict:
        return dict(self.tree)

    @property
    def finite(self) -> bool:
        return self.numbers_finite


def _refused(dtype: str, given: Mapping[str, bool]) -> None:
    if dtype != "float64":
        raise GradcliError("--dtype cannot go with --dps: it computes in mpmath")
    for name, said in given.items():
        if said:
            raise GradcliError(
                f"--{name} cannot go with --dps: the step and the tolerance follow the digits"
                if name != "order"
                else "--order 2 cannot go with --dps: it checks the gradient"
            )


def _spread(source, bindings) -> int:
    """Digits a number written with a large exponent may cancel (``core/precision.py``)."""
    return exponent_range([source, *bindings.values()])


def _mpf(array) -> np.ndarray:
    """A float64 array's numbers as mpf, each exactly."""
    import mpmath

    array = np.asarray(array, dtype=np.float64)
    out = np.empty(array.shape, dtype=object)
    out.reshape(-1)[:] = [mpmath.mpf(v) for v in array.reshape(-1).tolist()]
    return out


def _flat(arrays) -> list:
    return [v for a in arrays for v in np.asarray(a, dtype=object).reshape(-1).tolist()]


# ----------------------------------------------------------------------------
# taylor
# ----------------------------------------------------------------------------


def taylor(
    source: str,
    bindings: Mapping | None = None,
    *,
    dps: int,
    order: int = 2,
    wrt: Sequence[str] | None = None,
    dtype: str = "float64",
    seed: int = 0,
    filename: str = "<expr>",
) -> PreciseReport:
    """The Taylor coefficients of ``source`` up to degree ``order`` at the bound point,
    in the inputs ``wrt``, to ``dps`` certified digits."""
    bindings = dict(bindings or {})
    _refused(dtype, {})
    program = compiled(source, bindings, dps, filename)
    through = exact_order(program.ir)
    if through is not None and order > through[0]:
        raise GradcliError(
            f"--order {order}: the derivatives of {through[1]} are exact through order"
            f" {through[0]}: choose --order {through[0]} or lower"
        )
    names = chosen_inputs(program, bindings, wrt)
    monomials: list = []

    def compute():
        values = read_values(program, bindings)
        leaves = {n: Tensor._make(v, None, n in names) for n, v in values.items()}
        out = program.run(leaves)
        if type(out) is not Tensor:
            out = Tensor._make(_mpf(out))
        if out._data.size != 1:
            raise GradcliError(f"taylor needs a scalar output; the output has shape "
                               f"{out._data.shape}")  # fmt: skip
        xs = [leaves[n] for n in names]
        entries = [(i, j) for i, x in enumerate(xs) for j in range(x._data.size)]
        level = {(): out.reshape(())}
        coefficients = [out._data.reshape(())[()]]
        monomials[:] = [()]
        for degree in range(1, order + 1):
            following = {}
            for m, t in level.items():
                grads = _derivatives(t, xs, create_graph=degree < order)
                for v in range(m[-1] if m else 0, len(entries)):
                    i, j = entries[v]
                    g = grads[i]
                    following[(*m, v)] = None if g is None else g.reshape(-1)[j]
            level = following
            if degree < order:
                _within_budget(level.values(), degree, order)
            for m, t in level.items():
                divisor = math.prod(math.factorial(m.count(v)) for v in set(m))
                found = filled((), 0)[()] if t is None else t._data.reshape(())[()]
                coefficients.append(found / divisor)
                monomials.append(m)
        point = {
            label: v for n in names
            for label, v in zip(entry_labels(n, values[n].shape), values[n].reshape(-1))
        }  # fmt: skip
        return {"value": out._data, "point": point, "coefficients": np.array(coefficients)}

    found = certify(compute, dps, _spread(source, bindings))
    texts = found.sections
    labels = list(texts["point"])
    terms = []
    for m, c in zip(monomials, texts["coefficients"]):
        powers = {labels[v]: m.count(v) for v in sorted(set(m))}
        terms.append({"powers": powers, "monomial": _monomial(powers, texts["point"]),
                      "coefficient": c})  # fmt: skip
    tree = {
        "value": texts["value"],
        "order": order,
        "point": texts["point"],
        "polynomial": _polynomial(terms),
        "terms": terms,
    }
    return PreciseReport(tree, "taylor", found.warnings, numbers_finite=found.finite)


#: The most nodes the graphs of one degree's derivatives may hold: each nested reverse
#: pass records a graph a few times the size of the one it differentiates.
MAX_NODES = 10000


def _within_budget(tensors, degree: int, order: int) -> None:
    """Refuse an order whose nested reverse passes would take minutes, before they do."""
    seen: set = set()
    stack = [t.grad_fn for t in tensors if t is not None and t.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            stack.extend(p for p in node.parents if p is not None and type(p) is not Tensor)
    if len(seen) > MAX_NODES:
        raise GradcliError(
            f"--order {order} at --dps: the derivatives of degree {degree} already take "
            f"{len(seen)} operations (each degree's reverse pass multiplies them): choose "
            f"a lower --order (float64's taylor, without --dps, takes any order)"
        )


def _derivatives(t, xs, create_graph: bool):
    """The gradient of the scalar ``t`` by each of ``xs`` (None where it has none)."""
    if t is None or not t.requires_grad:
        return (None,) * len(xs)
    seed = Tensor._make(filled((), 1))
    return autograd_grad(t, xs, seed, retain_graph=True, create_graph=create_graph,
                         allow_unused=True)  # fmt: skip


def _monomial(powers: Mapping[str, int], point: Mapping[str, str]) -> str:
    """``(x - 0.5)**2*y``: the variables shifted to the point, as decimal texts."""
    factors = []
    for name, power in powers.items():
        at = point[name]
        base = name if at == "0" else (
            f"({name} + {at[1:]})" if at.startswith("-") else f"({name} - {at})"
        )  # fmt: skip
        factors.append(base if power == 1 else f"{base}**{power}")
    return "*".join(factors) or "1"


def _polynomial(terms) -> str:
    text = ""
    for term in terms:
        c, monomial = term["coefficient"], term["monomial"]
        if c == "0":
            continue
        size = c.lstrip("-")
        body = size if monomial == "1" else monomial if size == "1" else f"{size}*{monomial}"
        negative = c.startswith("-")
        if not text:
            text = f"-{body}" if negative else body
        else:
            text += f" {'-' if negative else '+'} {body}"
    return text or "0"


# ----------------------------------------------------------------------------
# solve and minimize: Newton's method at the working precision
# ----------------------------------------------------------------------------


def _newton(step_at, values, names, max_iter: int, what: str):
    """Newton's method on the inputs ``names`` of ``values`` (arrays of mpf), updated in
    place: ``step_at(values)`` gives the residual (a list) and its Jacobian (an mpmath
    matrix). Stops once a step is below the square root of the working precision's
    rounding, so that the next iterate would agree to every digit. Returns the steps
    taken and whether it stopped so; ``what`` names the matrix (Jacobian, Hessian)."""
    import mpmath

    small = mpmath.mpf(10) ** -(mpmath.mp.dps // 2 + 2)
    for iteration in range(1, max_iter + 1):
        residual, matrix = step_at(values)
        try:
            step = mpmath.lu_solve(matrix, mpmath.matrix([-r for r in residual]))
        except ZeroDivisionError:  # mpmath's word for a singular matrix
            raise GradcliError(
                f"--dps: Newton's method met a singular {what} at {mpmath.mp.dps} working "
                "digits: its step is undefined there"
            ) from None
        x = [a + b for a, b in zip(_flat(values[n] for n in names), step)]
        start = 0
        for n in names:
            size = values[n].size
            values[n] = np.array(x[start : start + size], dtype=object).reshape(values[n].shape)
            start += size
        if max(map(abs, step), default=0) <= small * max(1, *map(abs, x)):
            return iteration, True
    return max_iter, False


def _jacobian_matrix(blocks, names, rows: int):
    """The blocks of a Jacobian (or a Hessian's row of blocks) by input as one matrix."""
    import mpmath

    columns = [np.asarray(blocks[n], dtype=object).reshape(rows, -1) for n in names]
    return mpmath.matrix(np.concatenate(columns, axis=1).tolist())


def _from_float64(first, command: str):
    if not first.converged:
        raise GradcliError(
            f"{command} --dps refines float64's {command}, which did not converge from this "
            f"start ({first.message}); start elsewhere"
        )
    return tuple(first.point), {n: np.asarray(v) for n, v in first.point.items()}


def _certified_message(found, dps: int, done: bool, what: str) -> tuple[bool, str]:
    if not done:
        return False, f"Newton's method at {found.working} digits did not settle"
    if found.certified < dps:
        return False, f"only {found.certified} of the {dps} digits of the {what} are certified"
    return True, f"Newton's method from float64's {what}: every digit agrees at two precisions"


def solving(solve):
    """``solve --dps N``, refining ``solve``'s float64 root."""

    def solve_to_digits(
        source: str,
        bindings: Mapping | None = None,
        *,
        dps: int,
        wrt: Sequence[str] | None = None,
        tol: float = 1e-12,
        max_iter: int = 1000,
        dtype: str = "float64",
        seed: int = 0,
        filename: str = "<expr>",
    ) -> PreciseReport:
        """A zero of the program to ``dps`` certified digits."""
        import mpmath

        bindings = dict(bindings or {})
        _refused(dtype, {})
        program = compiled(source, bindings, dps, filename)
        first = solve(source, bindings, wrt=wrt, tol=tol, max_iter=max_iter, seed=seed,
                      filename=filename)  # fmt: skip
        names, start = _from_float64(first, "solve")
        run = {}

        def system(values):
            found = sections_at("jacobian", program, values, names)
            residual = _flat([found["value"]])
            return residual, _jacobian_matrix(found["jacobian"], names, len(residual))

        def compute():
            values = read_values(program, bindings)
            values.update((n, _mpf(start[n])) for n in names)
            run["steps"], run["done"] = _newton(system, values, names, max_iter, "Jacobian")
            residual, matrix = system(values)
            return {"point": {n: values[n] for n in names}, "determinant": mpmath.det(matrix)}

        found = certify(compute, dps, _spread(source, bindings))
        converged, message = _certified_message(found, dps, run["done"], "root")
        tree = {
            "point": found.sections["point"],
            "determinant": found.sections["determinant"],
            "method": "newton",
            "iterations": run["steps"],
            "converged": converged,
            "message": message,
        }
        warnings = (*first.warnings, *found.warnings)
        return PreciseReport(tree, "solve", warnings, converged, message,
                             numbers_finite=found.finite)  # fmt: skip

    return solve_to_digits


def minimizing(minimize):
    """``minimize --dps N``, refining ``minimize``'s float64 minimum."""

    def minimize_to_digits(
        source: str,
        bindings: Mapping | None = None,
        *,
        dps: int,
        wrt: Sequence[str] | None = None,
        method: str | None = None,
        maximize: bool = False,
        tol: float = 1e-10,
        max_iter: int = 1000,
        dtype: str = "float64",
        seed: int = 0,
        filename: str = "<expr>",
    ) -> PreciseReport:
        """A local minimum (maximum) of the program: its point and value to ``dps``
        certified digits."""
        bindings = dict(bindings or {})
        _refused(dtype, {})
        program = compiled(source, bindings, dps, filename)
        first = minimize(source, bindings, wrt=wrt, method=method, maximize=maximize,
                         tol=tol, max_iter=max_iter, seed=seed, filename=filename)  # fmt: skip
        names, start = _from_float64(first, "minimize")
        run = {}

        def gradient_system(values):
            found = sections_at("hessian", program, values, names)
            gradient = _flat(found["grad"][n] for n in names)
            rows = [_jacobian_matrix(found["hessian"][n], names, found["grad"][n].size)
                    for n in names]  # fmt: skip
            return gradient, _stacked(rows)

        def compute():
            values = read_values(program, bindings)
            values.update((n, _mpf(start[n])) for n in names)
            run["steps"], run["done"] = _newton(gradient_system, values, names, max_iter, "Hessian")
            value = sections_at("eval", program, values, ())["value"]
            return {"point": {n: values[n] for n in names}, "value": value}

        found = certify(compute, dps, _spread(source, bindings))
        what = "maximum" if maximize else "minimum"
        converged, message = _certified_message(found, dps, run["done"], what)
        tree = {
            "point": found.sections["point"],
            "value": found.sections["value"],
            "classification": first.classification,
            "method": f"{first.method}, then newton",
            "maximize": maximize,
            "iterations": run["steps"],
            "converged": converged,
            "message": message,
        }
        warnings = (*first.warnings, *found.warnings)
        return PreciseReport(tree, "minimize", warnings, converged, message,
                             numbers_finite=found.finite)  # fmt: skip

    return minimize_to_digits


def _stacked(rows):
    """mpmath matrices of as many columns, one above the other."""
    import mpmath

    return mpmath.matrix([row for matrix in rows for row in matrix.tolist()])


# ----------------------------------------------------------------------------
# check
# ----------------------------------------------------------------------------


def check(
    source: str,
    bindings: Mapping | None = None,
    *,
    dps: int,
    order: int = 1,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    wrt: Sequence[str] | None = None,
    dtype: str = "float64",
    seed: int = 0,
    filename: str = "<expr>",
) -> PreciseReport:
    """The engine's gradient (Jacobian) of ``source`` against central differences, both
    to ``dps`` certified digits; passed when they agree to ``dps`` significant digits."""
    import mpmath

    bindings = dict(bindings or {})
    settings = {"order": order != 1, "eps": eps != 1e-6, "atol": atol != 1e-5,
                "rtol": rtol != 1e-3}  # fmt: skip
    _refused(dtype, settings)
    program = compiled(source, bindings, dps, filename)
    names = chosen_inputs(program, bindings, wrt)
    if not names:
        raise GradcliError("check: the program has no input to differentiate")
    run = {}

    def compute():
        values = read_values(program, bindings)
        found = sections_at("jacobian", program, values, names)
        shape = np.shape(found["value"])
        run["scalar"] = shape == ()
        step = mpmath.mpf(10) ** -(mpmath.mp.dps // 3)
        differences = {}
        for n in names:
            columns = []
            for j in range(values[n].size):
                x = values[n].reshape(-1)[j]
                h = step * max(1, abs(x))
                ends = []
                for moved in (x + h, x - h):
                    array = values[n].copy()
                    array.reshape(-1)[j] = moved
                    at = sections_at("eval", program, {**values, n: array}, ())
                    ends.append(np.asarray(at["value"], dtype=object))
                columns.append((ends[0] - ends[1]) / (2 * h))
            block = np.stack(columns, -1) if columns else np.zeros(shape + (0,), dtype=object)
            differences[n] = block.reshape(shape + values[n].shape)
        return {"engine": found["jacobian"], "differences": differences}

    found = certify(compute, dps, _spread(source, bindings))
    kind = "grad" if run["scalar"] else "jacobian"
    checks = {}
    with mpmath.workdps(found.working):
        tolerance = mpmath.mpf(10) ** -dps
        for n in names:
            engine = _flat([found.numbers["engine"][n]])
            expected = _flat([found.numbers["differences"][n]])
            agree = all(
                abs(e - d) <= tolerance * max(abs(e), abs(d)) for e, d in zip(engine, expected)
            )
            checks[n] = {
                "engine": found.sections["engine"][n],
                "expected": found.sections["differences"][n],
                "passed": agree,
            }
    passed = all(c["passed"] for c in checks.values())
    tree = {"passed": passed, "against": "central differences", "checks": {kind: checks}}
    return PreciseReport(tree, "check", found.warnings, passed=passed,
                         numbers_finite=found.finite)  # fmt: skip
