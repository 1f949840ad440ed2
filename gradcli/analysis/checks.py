"""``gradcli check``: the engine's derivatives against finite differences, or hand formulas.

As ``torch.autograd.gradcheck``: the numerical Jacobian is central differences
``(f(x + eps) - f(x - eps)) / (2 eps)`` on each input entry in turn, always in
float64, and an entry agrees when ``|engine - numerical| <= atol + rtol *
|numerical|``. With ``order=2`` the Hessian is checked too, against central
differences of the float64 gradient (as ``gradgradcheck``). A hand formula
(``grads={"x": "2*x*y"}``) is a program in gradcli's language, read where the
program ends (so it may use the names the program assigns), evaluated at the
same point and compared with the engine's gradient by the same rule.

The relative error is taken over the entries whose expected value is not 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

import gradcli
from gradcli.engine.generator import seeded
from gradcli.language import ir
from gradcli.language.check import check as check_names
from gradcli.language.parser import parse
from gradcli.language.program import CompiledProgram

from ..core import computing
from ..core.evaluation import evaluation, leaf_grads, plain_array
from ..core.reach import reasons
from ..core.result import source_title
from ..errors import GradcliError
from . import precise
from .commands import Command, Flagged, Option
from .report import Report, flat, frozen

FINITE_DIFFERENCES = "finite differences"
HAND_FORMULAS = "hand formulas"


@dataclass(frozen=True, eq=False)
class Comparison:
    """One derivative, the engine's against the expected one."""

    #: Where it sits in the report: ``("grad", "x")``, ``("hessian", "x", "y")``.
    path: tuple[str, ...]
    engine: np.ndarray
    expected: np.ndarray
    max_abs_error: float
    max_rel_error: float
    passed: bool
    #: The hand formula's source text, or None for finite differences.
    formula: str | None = None

    def as_tree(self) -> dict:
        tree: dict = {}
        if self.formula is not None:
            tree = {"formula": self.formula, "expected": self.expected, "engine": self.engine}
        tree.update(
            max_abs_error=self.max_abs_error, max_rel_error=self.max_rel_error, passed=self.passed
        )
        return tree


@dataclass(frozen=True, eq=False)
class CheckReport(Report):
    command = "check"
    layout = "comparisons"
    source: str
    title: str
    #: ``FINITE_DIFFERENCES`` or ``HAND_FORMULAS``.
    against: str
    order: int
    eps: float
    atol: float
    rtol: float
    dtype: str
    comparisons: tuple[Comparison, ...]
    warnings: tuple[str, ...] = ()
    #: The inputs left out of the check, each with why (``Result.left_out``).
    left_out: Mapping[str, str] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.comparisons)

    def as_tree(self) -> dict:
        settings = {"eps": self.eps} if self.against == FINITE_DIFFERENCES else {}
        return {
            "passed": self.passed,
            "against": self.against,
            **settings,
            "atol": self.atol,
            "rtol": self.rtol,
            "checks": self._checks(),
            **({"left_out": dict(self.left_out)} if self.left_out else {}),
        }

    def row(self) -> dict:
        # The settings and the formulas are the same at every point.
        found = flat(self._checks(), "checks.")
        return {"passed": self.passed, **{n: v for n, v in found.items() if n[-8:] != ".formula"}}

    def _checks(self) -> dict:
        checks: dict = {}
        for c in self.comparisons:
            node = checks
            for key in c.path[:-1]:
                node = node.setdefault(key, {})
            node[c.path[-1]] = c.as_tree()
        return checks


def check(
    source: str,
    bindings: Mapping | None = None,
    *,
    order: int = 1,
    grads: Mapping[str, str] | None = None,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    wrt: Sequence[str] | None = None,
    dtype: str = "float64",
    seed: int = 0,
    filename: str = "<expr>",
) -> CheckReport:
    """Check the engine's derivatives of ``source`` at the bound point.

    Without ``grads``: the gradient (the Jacobian for a non-scalar output) and,
    with ``order=2``, the Hessian, against float64 central differences. With
    ``grads`` (input name -> formula text): each formula against the engine's
    gradient. The engine computes in ``dtype``.
    """
    if order not in (1, 2):
        raise GradcliError(f"--order must be 1 or 2, not {order}")
    limits = (("--eps", eps, "positive"), ("--atol", atol, "non-negative"))
    for name, number, least in (*limits, ("--rtol", rtol, "non-negative")):
        if not (np.isfinite(number) and number >= 0) or (least == "positive" and number == 0):
            raise GradcliError(f"{name} must be a finite {least} number, not {number}")
    settings = dict(seed=seed, filename=filename)
    left_out: Mapping[str, str] = {}
    if grads:
        if order != 1:
            raise GradcliError("--grad compares first derivatives: leave out --order 2")
        comparisons, warnings = _against_formulas(
            source, bindings, grads, dtype, atol, rtol, settings
        )
        against = HAND_FORMULAS
    else:
        comparisons, warnings, left_out = _against_differences(
            source, bindings, order, eps, atol, rtol, wrt, dtype, settings
        )
        against = FINITE_DIFFERENCES
    title = source_title(source, filename)
    return CheckReport(
        source, title, against, order, eps, atol, rtol, dtype, tuple(comparisons),
        tuple(warnings), MappingProxyType(dict(left_out)),
    )  # fmt: skip


def compare(path, engine, expected, atol: float, rtol: float, formula=None) -> Comparison:
    """The comparison of two arrays of one shape by gradcheck's rule."""
    engine = np.asarray(engine, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    with np.errstate(all="ignore"):
        same = engine == expected  # equal infinities too
        error = np.where(same, 0.0, np.abs(engine - expected))
        nonzero = expected != 0
        relative = np.where(nonzero, error / np.where(nonzero, np.abs(expected), 1.0), 0.0)
    close = np.isclose(engine, expected, rtol=rtol, atol=atol, equal_nan=True)
    return Comparison(
        tuple(path),
        frozen(engine),
        frozen(expected),
        float(np.max(error, initial=0.0)),
        float(np.max(relative, initial=0.0)),
        bool(np.all(close)),
        formula,
    )


# ----------------------------------------------------------------------------
# Against finite differences
# ----------------------------------------------------------------------------


def _against_differences(source, bindings, order, eps, atol, rtol, wrt, dtype, settings):
    with evaluation(
        source, bindings, wrt, "float64", settings["seed"], settings["filename"], command="check"
    ) as s:
        names = s.wrt
        if not names:
            raise GradcliError("check: the program has no input to differentiate")
        f, _ = s.function(names)
        point = [s.values[n] for n in names]
        with gradcli.no_grad():
            value = plain_array(f(*point_tensors(point)))
        if order == 2 and value.size != 1:
            raise GradcliError(
                f"check --order 2 needs a scalar output, but the output has shape {value.shape}"
            )
        try:
            numerical = central_differences(lambda arrays: _value_at(f, arrays), point, eps)
            if order == 2:
                second = central_differences(lambda arrays: _gradient_at(f, arrays), point, eps)
        except GradcliError as error:
            _say_what_was_moved(error, s.program, names, asked=not s.default_wrt)
            raise
    kind = "grad" if value.size == 1 else "jacobian"
    if order == 2:
        engine = computing.hessian(source, bindings, wrt=wrt, dtype=dtype, **settings)
        firsts = engine.grad
    else:
        engine = computing.jacobian(source, bindings, wrt=wrt, dtype=dtype, **settings)
        firsts = engine.jacobian
    comparisons = []
    for name, (block,) in zip(names, numerical):
        expected = block.reshape(value.shape + s.shape(name))
        comparisons.append(compare((kind, name), firsts[name], expected, atol, rtol))
    if order == 2:
        # second[y][x]: the derivative along y of the gradient of x, of shape x.shape + y.shape.
        for i, x in enumerate(names):
            for j, y in enumerate(names):
                expected = second[j][i].reshape(s.shape(x) + s.shape(y))
                comparisons.append(
                    compare(("hessian", x, y), engine.hessian[x][y], expected, atol, rtol)
                )
    # A kink met explains a disagreement there: the engine follows a convention.
    return comparisons, (*engine.notes, *engine.warnings), s.left_out


def _say_what_was_moved(error, program, names, asked: bool) -> None:
    """The point itself ran: a step of the differences failed. When an input moved has
    no derivative somewhere (labels moved off their whole numbers), the error says so."""
    found = reasons(program)
    moved = [n for n in names if n in found]
    if moved:
        name = moved[0]
        command, hint = (
            (f"check --wrt {name}", "leave it out of --wrt")
            if asked
            else ("check", "--wrt names the inputs to check")
        )
        error.message = (
            f"{command}: finite differences move {name}, which is used "
            f"{' and '.join(found[name])}, where it has no derivative ({hint}): {error.message}"
        )


def point_tensors(arrays) -> list:
    return [gradcli.tensor(np.asarray(a, dtype=np.float64)) for a in arrays]


def _value_at(f, arrays):
    with gradcli.no_grad():
        return (plain_array(f(*point_tensors(arrays))),)


def _gradient_at(f, arrays):
    leaves = [gradcli.tensor(np.asarray(a, dtype=np.float64), requires_grad=True) for a in arrays]
    out = f(*leaves)
    if out._data.size != 1:
        raise GradcliError("the gradient needs a scalar output")
    if not out.requires_grad:
        return tuple(np.zeros(a.shape) for a in arrays)
    found = gradcli.autograd.grad(out, leaves, allow_unused=True, materialize_grads=True)
    return tuple(plain_array(g) for g in found)


def central_differences(outputs_at, point: Sequence[np.ndarray], eps: float) -> list:
    """``d outputs / d point[i]`` for each input i, by central differences in float64.

    ``outputs_at(arrays)`` returns a tuple of arrays. Block ``[i][k]`` has shape
    ``outputs[k].shape + (point[i].size,)``.
    """
    point = [np.array(a, dtype=np.float64) for a in point]
    blocks = []
    for i, x in enumerate(point):
        columns = []
        for j in range(x.size):
            steps = []
            for sign in (1, -1):
                moved = [a.copy() for a in point]
                moved[i].reshape(-1)[j] += sign * eps
                steps.append(outputs_at(moved))
            columns.append([(p - m) / (2 * eps) for p, m in zip(*steps)])
        outputs = len(columns[0]) if columns else 0
        stacked = [
            np.stack([np.asarray(c[k], np.float64) for c in columns], -1) for k in range(outputs)
        ]
        blocks.append(stacked)
    return blocks


# ----------------------------------------------------------------------------
# Against hand formulas
# ----------------------------------------------------------------------------


def _against_formulas(source, bindings, grads, dtype, atol, rtol, settings):
    with evaluation(
        source, bindings, None, dtype, settings["seed"], settings["filename"], command="check"
    ) as s:
        names = s.differentiable(s.check_names(grads, "--grad {}=..."))
        s.wrt = names
        leaves = s.leaves(names)
        out = s.run(leaves)
        if out._data.size != 1:
            raise GradcliError(
                f"check --grad compares gradients, of a scalar output, but the output has shape "
                f"{tuple(out.shape)}: without --grad, check compares the whole Jacobian"
            )
        engine = leaf_grads(out, {n: leaves[n] for n in names})
        given = {**s.constants, **s.values}
        comparisons = []
        for name in names:
            expected = evaluate_formula(grads[name], given, f"--grad {name}", s.program, s.seed)
            shape = s.shape(name)
            try:
                expected = np.broadcast_to(expected, shape)
            except ValueError:
                raise GradcliError(
                    f"--grad {name}: the formula has shape {expected.shape}, but the gradient "
                    f"with respect to {name} has shape {shape}"
                ) from None
            comparisons.append(
                compare(("grad", name), engine[name], expected, atol, rtol, grads[name])
            )
    return comparisons, ()


def evaluate_formula(
    text: str, values: Mapping[str, np.ndarray], option: str, program, seed: int = 0
) -> np.ndarray:
    """The value, in float64, of a formula written in gradcli's language, read in the
    scope of ``program`` (compiled) after its statements: it may use the names the
    program assigns (``h``, ``logits``) and the functions it defines, as the program
    leaves them with its inputs and constants bound to ``values`` (its random draws
    those of ``seed``)."""
    before = gradcli.get_default_dtype()
    gradcli.set_default_dtype(gradcli.float64)
    try:
        formula = _after_statements(program, text, option)
        bound = {
            n: gradcli.tensor(np.asarray(values[n], dtype=np.float64))
            for n in (*formula.inputs, *formula.constants)
            if n in values
        }
        formula.check_free(bound)
        with gradcli.no_grad():
            found = formula.run(bound, generator=seeded(seed), dtype=np.float64)
        return plain_array(found).astype(np.float64)
    except GradcliError as error:
        raise GradcliError(
            f"in {option}: {error.message}", error.span, error.source or text
        ) from None
    finally:
        gradcli.set_default_dtype(before)


def _after_statements(program, text: str, option: str):
    """The formula ``text`` compiled as the statements of ``program`` followed by its own:
    its result is the formula's, and its names are read where the program ends."""
    formula = parse(text)
    tree = ir.Program((*program.ir.statements, *formula.statements))
    try:
        analysis = check_names(tree, program.analysis.inputs)
    except GradcliError as error:
        raise error.with_source(text) from None
    return CompiledProgram(tree, analysis, text, option)


def _disagree(arrays) -> np.ndarray:
    """The rows of many points whose derivatives disagree."""
    return ~np.asarray(arrays["passed"], dtype=bool)


COMMANDS = (
    Command(
        "check",
        check,
        """The engine's gradient (and with --order 2 its Hessian) against central
        finite differences in float64, as torch.autograd.gradcheck; with --grad,
        against derivatives derived by hand. Exit status 1 when any disagrees.

        \b
        Example:
          $ gradcli check "x**2*y" --x 3 --y 2 --grad x=2*x*y --grad y=x**2 --format plain
          passed true
          against hand formulas
          atol 1e-05
          rtol 0.001
          checks.grad.x.formula 2*x*y
          checks.grad.x.expected 12
          checks.grad.x.engine 12
          checks.grad.x.max_abs_error 0
          checks.grad.x.max_rel_error 0
          checks.grad.x.passed true
          checks.grad.y.formula x**2
          checks.grad.y.expected 9
          checks.grad.y.engine 9
          checks.grad.y.max_abs_error 0
          checks.grad.y.max_rel_error 0
          checks.grad.y.passed true

        Many points (--over, --points FILE): a row each, passed and the errors
        (exit status 1 when a row disagrees):

        \b
          $ gradcli check "x**2*y" --over x=1:3:3 --y 2 --grad x=2*x*y --format csv
          x,passed,checks.grad.x.expected,checks.grad.x.engine,checks.grad.x.max_abs_error,checks.grad.x.max_rel_error,checks.grad.x.passed
          1,true,4,4,0,0,true
          2,true,8,8,0,0,true
          3,true,12,12,0,0,true
        """,
        (
            Option("wrt", "The inputs to check [default: all].", kind="names"),
            Option("order", "2 also checks the Hessian.", "int", 1, minimum=1, maximum=2),
            Option(
                "grad",
                "A hand-derived derivative with respect to X to compare (repeatable).",
                kind="assignments",
                metavar="X=EXPR",
                parameter="grads",
                needs="a formula, as in --grad {name}=2*{name}",
            ),
            Option("eps", "Finite-difference step.", "float", 1e-6),
            Option("atol", "Absolute tolerance.", "float", 1e-5),
            Option("rtol", "Relative tolerance.", "float", 1e-3),
            precise.DPS,
        ),
        variants=(precise.variant(precise.check, {"grad": "hand formulas are float64's"}),),
        exit_status=lambda report: 0 if report.passed else 1,
        points=True,
        flagged=Flagged(
            _disagree, "warning: {count} of {rows} points disagree (passed false)", status=1
        ),
    ),
)
