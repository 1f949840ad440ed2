"""``gradcli check``: finite differences and hand formulas catch wrong derivatives.

The wrong derivative rule is a test-only op registered for the test and removed
after it; the expected errors are derived by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gradcli.analysis import check


@pytest.fixture
def wrong_sin(monkeypatch):
    """``wrongsin(x)``: sin, whose rule claims d/dx sin x = sin x (it is cos x)."""
    from gradcli.engine import ops
    from gradcli.engine.optable import Table

    call = Table("tests").op(
        "wrongsin",
        np.sin,
        grad_fn="WrongSinBackward0",
        rules=(lambda g, ans, x: g * ops.sin(x),),
        doc="sine with a wrong derivative (tests only)",
        kind="elementwise",
        function=True,
    )
    monkeypatch.setitem(ops.OPS, "wrongsin", call.op)
    monkeypatch.setitem(ops.FUNCTIONS, "wrongsin", call.op)
    yield
    # monkeypatch takes both entries out again; the language caches signatures by name.
    from gradcli.language import check as language_check

    getattr(language_check, "_SIGNATURES", {}).pop("wrongsin", None)


def test_right_derivatives_pass(gradcli_json):
    out = gradcli_json("check", "x**2*y + sin(x)", "--x", "3", "--y", "2", "--order", "2")
    assert out["passed"] is True
    assert set(out["checks"]) == {"grad", "hessian"}
    assert set(out["checks"]["hessian"]) == {"x", "y"}
    for entry in out["checks"]["grad"].values():
        assert entry["passed"] is True and entry["max_abs_error"] < 1e-7


def test_a_wrong_rule_is_caught_with_exit_1(gradcli, wrong_sin):
    result = gradcli("check", "wrongsin(x) * y", "--x", "0.5", "--y", "2", "--format", "json")
    assert result.exit_code == 1
    import json

    out = json.loads(result.stdout)
    assert out["passed"] is False
    assert out["checks"]["grad"]["x"]["passed"] is False
    assert out["checks"]["grad"]["y"]["passed"] is True
    # engine: y sin x; true: y cos x.
    expected = 2 * abs(math.sin(0.5) - math.cos(0.5))
    assert out["checks"]["grad"]["x"]["max_abs_error"] == pytest.approx(expected, rel=1e-6)


def test_a_wrong_rule_shows_in_the_hessian(wrong_sin):
    # The gradient of y is right (sin x); d/dx of it is where the wrong rule shows.
    report = check("wrongsin(x) * y", {"x": 0.5, "y": 2}, order=2)
    failed = {c.path for c in report.comparisons if not c.passed}
    assert ("hessian", "y", "x") in failed and ("grad", "x") in failed


def test_jacobian_of_a_vector_output():
    report = check("x**2", {"x": [1.0, 2.0, 3.0]})
    assert report.passed
    (comparison,) = report.comparisons
    assert comparison.path == ("jacobian", "x")
    np.testing.assert_allclose(comparison.expected, np.diag([2.0, 4.0, 6.0]), atol=1e-8)


def test_hand_formulas(gradcli):
    right = gradcli(
        "check", "x**2*y", "--x", "3", "--y", "2", "--grad", "x=2*x*y", "--grad", "y=x**2"
    )
    assert right.exit_code == 0, right.output
    assert right.stdout.splitlines()[0] == "passed true"
    wrong = gradcli(
        "check", "x**2*y", "--x", "3", "--y", "2", "--grad", "y=x**3", "--format", "json"
    )
    assert wrong.exit_code == 1
    import json

    out = json.loads(wrong.stdout)["checks"]["grad"]["y"]
    # x**3 = 27 against the engine's x**2 = 9.
    assert out == {
        "formula": "x**3",
        "expected": 27,
        "engine": 9,
        "max_abs_error": 18,
        "max_rel_error": 18 / 27,
        "passed": False,
    }


def test_hand_formula_of_a_vector_input():
    report = check("sum(w**3)", {"w": [1.0, -2.0]}, grads={"w": "3*w**2"})
    assert report.passed
    np.testing.assert_allclose(report.comparisons[0].expected, [3.0, 12.0])


def test_tolerances_decide():
    # sin'(1) by hand would be cos(1) = 0.5403...; 0.54 is off by 3e-4.
    loose = check("sin(x)", {"x": 1}, grads={"x": "0.54"}, atol=1e-3, rtol=0)
    strict = check("sin(x)", {"x": 1}, grads={"x": "0.54"}, atol=1e-5, rtol=0)
    assert loose.passed and not strict.passed
    assert strict.comparisons[0].max_abs_error == pytest.approx(math.cos(1) - 0.54)


def test_table_says_which_disagree(gradcli):
    result = gradcli("check", "x**2*y", "--x", "3", "--y", "2", "--grad", "y=x**3", tty=True)
    assert result.exit_code == 1
    assert "FAIL" in result.stdout and "1 of 1 disagree" in result.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["--grad", "z=1"], "--grad z=...: the program has no input named 'z'"),
        (["--grad", "x=2*q"], "in --grad x: unknown name 'q'"),
        (["--grad", "x=[1, 2]"], "--grad x: the formula has shape (2,)"),
        (["--eps", "0"], "--eps must be a finite positive number"),
        (["--grad", "x="], "--grad x= needs a formula"),
        (["--grad", "x=1", "--order", "2"], "--grad compares first derivatives"),
    ],
)
def test_bad_input(gradcli, args, message):
    result = gradcli("check", "x**2*y", "--x", "3", "--y", "2", *args)
    assert result.exit_code == 2
    assert message in result.stderr


def test_order_2_needs_a_scalar(gradcli):
    result = gradcli("check", "x**2", "--x", "[1, 2]", "--order", "2")
    assert result.exit_code == 2
    assert "check --order 2 needs a scalar output" in result.stderr


def test_hessian_of_one_vector_input():
    # d²/dx² sum(x³) = diag(6 x).
    report = check("sum(x**3)", {"x": [1.0, 2.0, 3.0]}, order=2)
    assert report.passed
    hessian = next(c for c in report.comparisons if c.path == ("hessian", "x", "x"))
    np.testing.assert_allclose(hessian.expected, np.diag([6.0, 12.0, 18.0]), atol=1e-6)


def test_hessian_of_vector_and_scalar_inputs():
    # f = y sum(x³): d²f/dx dy = 3 x², d²f/dy dx the same, transposed shape.
    report = check("sum(x**3) * y", {"x": [1.0, 2.0], "y": 2.0}, order=2)
    assert report.passed
    blocks = {c.path: c.expected for c in report.comparisons}
    np.testing.assert_allclose(blocks[("hessian", "x", "y")], [3.0, 12.0], atol=1e-6)
    np.testing.assert_allclose(blocks[("hessian", "y", "x")], [3.0, 12.0], atol=1e-6)


def test_hand_formulas_need_a_scalar_output(gradcli):
    result = gradcli("check", "x * [1, 2]", "--x", "1", "--grad", "x=1")
    assert result.exit_code == 2
    assert "check --grad compares gradients, of a scalar output" in result.stderr


NETWORK = "h = tanh(w * x)\nlogits = 3 * h\nlogits**2\n"


def test_hand_formulas_read_the_programs_own_names(gradcli, tmp_path):
    # f = (3 tanh(w x))**2: df/dw = 2 logits * 3 (1 - h**2) * x, with h and logits the
    # program's own; by hand at x = 0.5, w = 2 (h = tanh 1).
    program = tmp_path / "net.grad"
    program.write_text(NETWORK)
    formulas = ["--grad", "w=2*logits*3*(1-h**2)*x", "--grad", "x=2*logits*3*(1-h**2)*w"]
    result = gradcli("check", program, "--x", "0.5", "--w", "2", "--format", "json", *formulas)
    assert result.exit_code == 0, result.output
    import json

    checks = json.loads(result.stdout)["checks"]["grad"]
    h = math.tanh(1.0)
    assert checks["w"]["expected"] == pytest.approx(2 * 3 * h * 3 * (1 - h**2) * 0.5, rel=1e-14)
    assert checks["x"]["expected"] == pytest.approx(2 * 3 * h * 3 * (1 - h**2) * 2, rel=1e-14)


def test_a_hand_formula_misspelling_a_programs_name_is_offered_that_name(gradcli, tmp_path):
    program = tmp_path / "net.grad"
    program.write_text(NETWORK)
    result = gradcli("check", program, "--x", "0.5", "--w", "2", "--grad", "w=2*logit")
    assert result.exit_code == 2
    assert "unknown name 'logit' (did you mean 'logits'?)" in result.stderr
    assert "logdet" not in result.stderr


def test_hand_formulas_see_the_programs_functions_and_random_draws():
    # The formula's noise is the program's draw at this seed: d/dx (x + noise)**2.
    source = "sq(a) = a**2\nnoise = randn()\nsq(x + noise)\n"
    right = check(source, {"x": 1.5}, grads={"x": "2*(x + noise)"}, seed=3)
    assert right.passed
    noise = float(right.comparisons[0].engine) / 2 - 1.5
    via_function = check(source, {"x": 1.5}, grads={"x": "sq(x + noise)/(x + noise)*2"}, seed=3)
    assert via_function.passed
    assert float(via_function.comparisons[0].expected) == pytest.approx(2 * (1.5 + noise))
