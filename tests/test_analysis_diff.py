"""``gradcli diff``: SymPy's derivative formulas, checked at random points against
central finite differences of the same function written in NumPy, and against
the engine's gradient."""

from __future__ import annotations

import json

import numpy as np
import pytest

sympy = pytest.importorskip("sympy", reason="gradcli diff needs SymPy")

from gradcli.analysis import derivative  # noqa: E402

# (source, the same function in NumPy, the inputs' names, a domain for random points)
FUNCTIONS = [
    ("(x+2)**2+3", lambda x: (x + 2) ** 2 + 3, ("x",), (-3, 3)),
    ("sin(x) * exp(y)", lambda x, y: np.sin(x) * np.exp(y), ("x", "y"), (-2, 2)),
    ("log(1 + x**2) / y", lambda x, y: np.log(1 + x**2) / y, ("x", "y"), (0.5, 2)),
    ("x**y", lambda x, y: x**y, ("x", "y"), (0.5, 2)),
    ("atan2(y, x)", lambda x, y: np.arctan2(y, x), ("x", "y"), (0.5, 2)),
    ("sqrt(x**2 + y**2)", lambda x, y: np.sqrt(x**2 + y**2), ("x", "y"), (0.5, 2)),
    ("sigmoid(x) + tanh(x) * softplus(x)",
     lambda x: 1 / (1 + np.exp(-x)) + np.tanh(x) * np.log1p(np.exp(x)), ("x",), (-2, 2)),
    ("g(t) = t**3 - 2*t; u = g(x) * y; u / (1 + y**2)",
     lambda x, y: (x**3 - 2 * x) * y / (1 + y**2), ("x", "y"), (-2, 2)),
    ("sum([x, y, x*y]**2)", lambda x, y: x**2 + y**2 + (x * y) ** 2, ("x", "y"), (-2, 2)),
    ("abs(x - 1) + x", lambda x: abs(x - 1) + x, ("x",), (-3, 3)),
    ("x / (1 + abs(x)) + relu(y) * y", lambda x, y: x / (1 + abs(x)) + max(y, 0) * y,
     ("x", "y"), (-2, 2)),
    ("where(x > 0, x**2, -x) * y", lambda x, y: (x**2 if x > 0 else -x) * y, ("x", "y"), (-2, 2)),
    ("where(0 < x < 1, x * y, y**3) + (y >= x) * x",
     lambda x, y: (x * y if 0 < x < 1 else y**3) + (y >= x) * x, ("x", "y"), (-2, 2)),
]  # fmt: skip


def central(f, point, i, eps=1e-6):
    up, down = list(point), list(point)
    up[i] += eps
    down[i] -= eps
    return (f(*up) - f(*down)) / (2 * eps)


def value_of(formula: str, names, point) -> float:
    symbols = {n: sympy.Symbol(n, real=True) for n in names}
    expression = sympy.parse_expr(formula, local_dict=symbols)  # the formula gradcli printed
    return float(expression.subs({symbols[n]: v for n, v in zip(names, point)}))


@pytest.mark.parametrize("source, f, names, domain", FUNCTIONS, ids=[s for s, *_ in FUNCTIONS])
def test_formulas_against_finite_differences(source, f, names, domain):
    report = derivative(source)  # no bindings: the formulas alone
    rng = np.random.default_rng(12)
    formulas = {d.name: d.formula for d in report.derivatives}
    assert set(formulas) == set(names)
    for _ in range(5):
        point = rng.uniform(*domain, size=len(names))
        for i, name in enumerate(names):
            expected = central(f, point, i)
            assert value_of(formulas[name], names, point) == pytest.approx(
                expected, rel=1e-6, abs=1e-8
            )


@pytest.mark.parametrize("source, f, names, domain", FUNCTIONS, ids=[s for s, *_ in FUNCTIONS])
def test_values_agree_with_grad(gradcli_json, source, f, names, domain):
    point = np.random.default_rng(3).uniform(*domain, size=len(names))
    bindings = [a for n, v in zip(names, point) for a in (f"--{n}", repr(float(v)))]
    out = gradcli_json("diff", source, *bindings)
    grad = gradcli_json("grad", source, *bindings)["grad"]
    for i, name in enumerate(names):
        entry = out["derivatives"][name]
        assert entry["agrees"] is True
        assert entry["value"] == pytest.approx(grad[name], rel=1e-9)
        assert entry["value"] == pytest.approx(central(f, point, i), rel=1e-6, abs=1e-8)


def test_the_issue_example(gradcli):
    result = gradcli("diff", "(x+2)**2+3", "--format", "json")
    assert json.loads(result.stdout)["derivatives"]["x"]["formula"] == "2*x + 4"
    bound = gradcli("diff", "(x+2)**2+3", "--x", "2", "--format", "json")
    assert json.loads(bound.stdout)["derivatives"]["x"]["value"] == 8


@pytest.mark.parametrize(
    "source, x, expected",
    [
        # d/dx hypot(x, 3) = x / sqrt(x**2 + 9): 4/5 at x = 4 (hypot had no form before).
        ("hypot(x, 3)", "4", 0.8),
        # d/dx floor(x) x = floor(x) off the integers (SymPy leaves floor's derivative
        # unevaluated: this was an internal error).
        ("floor(x) * x", "2.4", 2.0),
        # d/dx cbrt(x) = x**(-2/3) / 3: 1/12 at x = 8, and at -8 too.
        ("cbrt(x)", "8", 1 / 12),
        ("cbrt(x)", "-8", 1 / 12),
    ],
)
def test_functions_added_to_the_table_have_their_form(gradcli_json, source, x, expected):
    out = gradcli_json("diff", source, "--x", x)
    assert out["derivatives"]["x"]["value"] == pytest.approx(expected, rel=1e-12)
    assert out["derivatives"]["x"]["agrees"] is True


@pytest.mark.parametrize(
    "source, formula",
    [
        # SymPy's simplify wrote sign(x - 1) as a Piecewise at x = 1 of (x + |x - 1| - 1)/|x - 1|.
        ("abs(x - 1) + x", "sign(x - 1) + 1"),
        ("relu(x) * x", "Piecewise((2*x, x > 0), (0, True))"),  # relu'(0) = 0, not 1/2
        ("x / (1 + abs(x))", "(-x*sign(x) + Abs(x) + 1)/(Abs(x) + 1)**2"),
        # where's form is SymPy's Piecewise of its condition (it was refused).
        ("where(x > 0, x**2, -x)", "Piecewise((2*x, x > 0), (-1, True))"),
        ("(x > 0) * x**2 + x", "Piecewise((2*x + 1, x > 0), (1, True))"),
    ],
)
def test_kinks_and_choices_are_written_readably(gradcli_json, source, formula):
    assert gradcli_json("diff", source)["derivatives"]["x"]["formula"] == formula


def test_a_tie_among_many_entries_is_one_term_per_entry():
    # d min(x)/dx[i] = [x[i] is the min] / (the number of entries that are): simplify would
    # fold the quotient into a branch per way four entries can tie, a minute of SymPy's time.
    report = derivative("min(x)", {"x": "[2, 2, 2, 3]"})
    (d,) = report.derivatives
    is_min = [
        f"Piecewise((1, Eq(x[{i}], Min(x[0], x[1], x[2], x[3]))), (0, True))" for i in range(4)
    ]
    assert d.formula == tuple(f"{term}/({' + '.join(is_min)})" for term in is_min)
    np.testing.assert_array_equal(d.value, [1 / 3, 1 / 3, 1 / 3, 0])  # PyTorch's even share


def test_latex(gradcli):
    result = gradcli("diff", "x**2 * sin(y)", "--format", "latex")
    assert result.stdout.splitlines() == [
        "f = x^{2} \\sin{\\left(y \\right)}",
        "\\frac{\\partial f}{\\partial x} = 2 x \\sin{\\left(y \\right)}",
        "\\frac{\\partial f}{\\partial y} = x^{2} \\cos{\\left(y \\right)}",
    ]


def test_constants_and_defaults_of_a_program(gradcli_json):
    # Rosenbrock with a = 1, b = 100 at its defaults (-1.2, 1): by hand
    # df/dx = -2(a - x) - 4b x (y - x²), df/dy = 2b (y - x²).
    out = gradcli_json("diff", "samples/rosenbrock.grad")
    x, y = -1.2, 1
    assert out["derivatives"]["x"]["value"] == pytest.approx(-2 * (1 - x) - 400 * x * (y - x**2))
    assert out["derivatives"]["y"]["value"] == pytest.approx(200 * (y - x**2))
    assert out["derivatives"]["y"]["formula"] == "-200*x**2 + 200*y"


def test_vector_input_entry_by_entry(gradcli_json):
    out = gradcli_json("diff", "sum(w**2) * s", "--w", "[1, 2]", "--s", "3")
    assert out["derivatives"]["w"]["formula"] == ["2*s*w[0]", "2*s*w[1]"]
    assert out["derivatives"]["w"]["value"] == [6, 12]


def test_vector_output_gives_the_jacobian(gradcli_json):
    out = gradcli_json("diff", "x**2", "--x", "[1, 3]")
    assert out["derivatives"]["x"]["formula"] == [["2*x[0]", "0"], ["0", "2*x[1]"]]
    assert out["derivatives"]["x"]["value"] == [[2, 0], [0, 6]]


def test_matrix_product_and_indexing(gradcli_json):
    out = gradcli_json("diff", "(A @ v)[0] + A[1, 1]", "--A", "[[1, 2], [3, 4]]", "--v", "[5, 6]")
    # d/dA of A00 v0 + A01 v1 + A11 is [[v0, v1], [0, 1]]; d/dv is [A00, A01].
    assert out["derivatives"]["A"]["value"] == [[5, 6], [0, 1]]
    assert out["derivatives"]["v"]["value"] == [1, 2]
    assert all(d["agrees"] for d in out["derivatives"].values())


@pytest.mark.parametrize(
    "source, construct",
    [
        ("round(x)", "round(...)"),
        ("sum(x, dim=0)", "sum(...) with keyword arguments"),
        ("randn(3) * x", "randn(...)"),
    ],
)
def test_constructs_without_a_symbolic_form(gradcli, source, construct):
    result = gradcli("diff", source)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {construct} has no symbolic form")


def test_a_disagreement_is_loud(gradcli, monkeypatch):
    from gradcli.engine import ops

    # A wrong rule for sin, for this test only: d/dx sin x = sin x.
    wrong = (lambda g, ans, x: g * ops.sin(x),)
    monkeypatch.setattr(ops.OPS["sin"].overloads[0], "rules", wrong)
    result = gradcli("diff", "sin(x)", "--x", "1", "--format", "json")
    assert result.exit_code == 1
    out = json.loads(result.stdout)["derivatives"]["x"]
    assert out["agrees"] is False
    assert out["value"] == pytest.approx(np.cos(1))
    assert "warning: the symbolic derivative with respect to x is" in result.stderr
    assert "they disagree" in result.stderr


def test_without_sympy(gradcli, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "sympy", None)  # import sympy now raises ImportError
    result = gradcli("diff", "x**2")
    assert result.exit_code == 2
    assert "pip install 'gradcli[symbolic]'" in result.stderr


def test_index_assignment_is_substituted(gradcli_json):
    # samples/tutorial_vector.grad: k = [x0² + 3 x1, 2 x0 + x1²] at (2, 3).
    out = gradcli_json("diff", "samples/tutorial_vector.grad")
    assert out["derivatives"]["x"]["formula"] == [["2*x[0]", "3"], ["2", "2*x[1]"]]
    assert out["derivatives"]["x"]["value"] == [[4, 3], [2, 6]]


def test_a_large_program_agrees_with_the_engine(gradcli_json):
    # Too large to simplify in reasonable time: SymPy's derivative as it comes.
    out = gradcli_json("diff", "samples/logistic_regression.grad")
    assert all(d["agrees"] for d in out["derivatives"].values())


def test_float32_agrees_within_its_precision(gradcli_json):
    out = gradcli_json("diff", "sin(x)*exp(x)", "--x", "0.7", "--dtype", "float32")
    assert out["derivatives"]["x"]["agrees"] is True
    assert out["derivatives"]["x"]["value"] == pytest.approx(
        np.exp(0.7) * (np.sin(0.7) + np.cos(0.7)), rel=1e-6
    )
