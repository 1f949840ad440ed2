"""fit and minimize replay their program's recorded ops on arrays (``language/tape.py``)
where its graph cannot change from point to point, and leave it to the engine, counted
by reason, where it could. Where they replay, the numbers are the engine's, bit for bit;
the expected values come from formulas by hand (Misra1a's Jacobian) and SciPy's own
Rosenbrock derivatives, and NIST's certified values."""

from __future__ import annotations

import numpy as np
import pytest

from gradcli.analysis.compiled import CompiledFunction
from gradcli.analysis.fit_residuals import COMPILED
from gradcli.analysis.fitting import fit
from gradcli.analysis.optimize import minimize
from gradcli.core.many_points import PointsProgram, layout
from gradcli.language import compile_source, tape

MISRA1A = "b1*(1-exp(-b2*x))"
MISRA1A_X = np.array([77.6, 114.9, 141.1, 190.8, 239.9, 289.0, 332.8, 378.4, 434.8, 477.3,
                      536.8, 593.1, 689.1, 760.0])  # fmt: skip
MISRA1A_Y = np.array([10.07, 14.73, 17.94, 23.93, 29.61, 35.18, 40.02, 44.82, 50.76, 55.05,
                      61.01, 66.40, 75.47, 81.78])  # fmt: skip
ROSENBROCK = "sum(100*(x[1:] - x[:-1]**2)**2 + (1 - x[:-1])**2)"


@pytest.fixture
def refused(monkeypatch):
    """The refusals counted during the test alone."""
    counts = tape.REFUSED.__class__()
    monkeypatch.setattr(tape, "REFUSED", counts)
    return counts


def _misra1a_program(b1, b2):
    n = MISRA1A_X.size
    batch = {"x": MISRA1A_X, "b1": np.full(n, b1), "b2": np.full(n, b2)}
    program = PointsProgram("grad", MISRA1A, {}, layout(batch), wrt=("b1", "b2"))
    return program, batch


def test_the_misra1a_residuals_replay_the_engine_bit_for_bit(refused):
    program, batch = _misra1a_program(500.0, 1e-4)
    found = program.tape(batch)
    assert found is not None and not refused
    b1, b2 = 238.9, 5.5e-4  # another point than the recorded one
    n = MISRA1A_X.size
    leaves = [np.full(n, b1), np.full(n, b2)]
    store = found.forward(leaves)
    grads = found.gradients(store, 0, np.ones(n))
    engine = program.arrays({"x": MISRA1A_X, "b1": leaves[0], "b2": leaves[1]})
    assert np.array_equal(found.output(store, 0), engine["value"])
    assert np.array_equal(grads[0], engine["grad.b1"])
    assert np.array_equal(grads[1], engine["grad.b2"])
    # By hand: d/db1 = 1 - exp(-b2 x), d/db2 = b1 x exp(-b2 x).
    e = np.exp(-b2 * MISRA1A_X)
    np.testing.assert_allclose(found.output(store, 0), b1 * (1 - e), rtol=1e-14)
    np.testing.assert_allclose(grads[0], 1 - e, rtol=1e-14)
    np.testing.assert_allclose(grads[1], b1 * MISRA1A_X * e, rtol=1e-14)


def test_fit_takes_the_tape_for_misra1a(refused, monkeypatch):
    made = []
    of = tape.Tape.of

    def recorded(*args, **kwargs):
        made.append(of(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(tape.Tape, "of", recorded)
    COMPILED.clear()  # a fit of Misra1a earlier in the run would be served what it kept
    report = fit(MISRA1A, data={"x": MISRA1A_X, "y": MISRA1A_Y}, params={"b1": 500, "b2": 1e-4})
    assert len(made) == 1 and made[0] is not None and not refused
    # NIST's certified values.
    np.testing.assert_allclose(float(report.parameters["b1"]), 2.3894212918e02, rtol=1e-9)
    np.testing.assert_allclose(float(report.parameters["b2"]), 5.5015643181e-04, rtol=1e-9)
    np.testing.assert_allclose(report.rss, 1.2455138894e-01, rtol=1e-9)


def _rosenbrock(n):
    from gradcli.analysis.flat import Flat

    start = np.tile([-1.2, 1.0], n // 2)
    flat = Flat(("x",), {"x": (n,)}, {"x": start})
    options = {"dtype": "float64", "seed": 0, "filename": "<expr>"}
    return CompiledFunction(ROSENBROCK, flat, options, "minimize"), start


def test_the_rosenbrock_hessian_replays_against_scipys_formulas(refused):
    import scipy.optimize as so

    function, start = _rosenbrock(20)
    function.hessian(start)  # the first point goes through the engine, which records the tape
    assert function.tape and not refused
    x = start + np.linspace(0.1, 0.7, 20)
    value, gradient = function.value_and_gradient(x, keep=True)
    hessian = function.hessian(x)
    np.testing.assert_allclose(value, so.rosen(x), rtol=1e-14)
    np.testing.assert_allclose(gradient, so.rosen_der(x), rtol=1e-13, atol=1e-12)
    np.testing.assert_allclose(hessian, so.rosen_hess(x), rtol=1e-13, atol=1e-12)
    # The engine's own passes at x give the same bits.
    engine, _ = _rosenbrock(20)
    engine.tape = None
    assert engine.value_and_gradient(x, keep=True)[0] == value
    assert np.array_equal(engine.value_and_gradient(x, keep=True)[1], gradient)
    assert np.array_equal(engine.hessian(x), hessian)


def test_minimize_takes_the_tape_for_rosenbrock(refused, monkeypatch):
    taken = []
    replayed = CompiledFunction._replayed

    def counted(self, x):
        taken.append(True)
        return replayed(self, x)

    monkeypatch.setattr(CompiledFunction, "_replayed", counted)
    report = minimize(ROSENBROCK, {"x": np.full(10, 0.5)})
    assert report.converged and not refused
    assert len(taken) >= report.iterations
    np.testing.assert_allclose(report.point["x"], np.ones(10), atol=1e-8)  # by hand: (1, ..., 1)


@pytest.mark.parametrize(
    "source, reason",
    [
        ("b*x if b > 0 else -b*x", "a condition on an input varied"),
        ("b*(x > b)", "a comparison of an input varied"),
        ("x[b]", "a subscript read from an input varied"),
        ("sum(x, dim=b)", "sum's dim read from an input varied"),
        ("b // 2 + x", "the operator floor_divide of an input varied"),
        ("max(b, x)", "max of an input varied"),
        ("c = b * 2; for i in range(3):\n    c = c * x\nc", "a For statement"),
    ],
)
def test_a_program_whose_graph_could_change_is_refused(source, reason):
    assert tape.refusal(compile_source(source), ("b",)) == reason


def test_what_reads_no_input_varied_is_replayed():
    program = compile_source("const k = 3; c = [1, 2, 3]; sum(c[c > 1] * b) + k // 2")
    assert tape.refusal(program, ("b",)) is None


def test_minimize_counts_what_it_leaves_to_the_engine(refused):
    # prod's rule reads the zeros of its input off the graph: its recorded gradient
    # cannot be replayed at another point, so the engine keeps it, and says so.
    report = minimize("prod(x)**2 + sum(x**2)", {"x": np.array([0.5, -1.0, 2.0])})
    assert report.converged
    np.testing.assert_allclose(report.point["x"], 0, atol=1e-8)  # by hand: the origin
    assert refused == {"ProdBackward0: a rule that reads values, differentiated": 1}


def test_fit_counts_what_it_leaves_to_the_engine(refused):
    x = np.linspace(0, 1, 8)
    report = fit("a*x if a > 0 else -a*x", data={"x": x, "y": 2 * x}, params={"a": 1.0})
    np.testing.assert_allclose(float(report.parameters["a"]), 2.0, rtol=1e-10)  # y = 2x
    assert refused == {"a condition on an input varied": 1}


def test_a_rule_that_compares_values_keeps_the_engine(refused):
    # clamp's rule masks its gradient where x is outside [0, 1]; where that gradient is
    # a constant (f linear there), the mask is made off the graph, and a recorded
    # gradient would keep the recorded point's mask. By hand, each entry minimises
    # clamp(x, 0, 1) + (x - 0.3)**2: x = 0.3 - 1/2 < 0 is outside, so the kink x = 0.
    report = minimize("sum(clamp(x, 0, 1)) + sum((x - 0.3)**2)", {"x": np.array([-0.5, 1.5])})
    np.testing.assert_allclose(report.point["x"], [0, 0], atol=1e-2)
    assert refused == {"a rule that compares values, differentiated": 1}
