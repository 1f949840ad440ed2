"""Derivatives inside programs: grad(F, x), jacobian(F, x) and hessian(F, x).

The oracles: PyTorch's eager ``torch.autograd.grad(create_graph=True)`` (the same
program written in PyTorch), SymPy's ``diff`` and ``idiff``, and derivations by hand.
Each is checked for its value, for the first and second derivatives the commands
take of it, under eval (no_grad) and at many points.
"""

from __future__ import annotations

import numpy as np
import pytest

from gradcli import api
from gradcli.errors import GradcliError

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.usefixtures("float64")

V = [0.3, -1.2, 2.5]


def _grad(f, x):
    """``torch.autograd.grad(f, x, create_graph=True)``, zeros where f does not reach x."""
    if not f.requires_grad:
        return torch.zeros_like(x)
    (g,) = torch.autograd.grad(f, x, create_graph=True, allow_unused=True, materialize_grads=True)
    return g


def _jacobian(f, x):
    return torch.stack([_grad(e, x) for e in f.reshape(-1)]).reshape(*f.shape, *x.shape)


# (gradcli program, the same in PyTorch, the inputs' values)
CASES = [
    ("grad(sin(x)*y**2, x)", lambda x, y: _grad(torch.sin(x) * y**2, x), {"x": 0.7, "y": -1.3}),
    ("F = exp(x*y); grad(F, y)", lambda x, y: _grad(torch.exp(x * y), y), {"x": 0.7, "y": -1.3}),
    (
        "u = x*y; F = u**2 + x*sin(u); grad(F, u)",
        lambda x, y: (lambda u: _grad(u**2 + x * torch.sin(u), u))(x * y),
        {"x": 0.7, "y": -1.3},
    ),
    (
        "grad(grad(x**4*y, x), x) * y",
        lambda x, y: _grad(_grad(x**4 * y, x), x) * y,
        {"x": 0.7, "y": -1.3},
    ),
    (
        "F = x**2 + x*y + y**2 - 7; -grad(F, x) / grad(F, y)",
        lambda x, y: (lambda f: -_grad(f, x) / _grad(f, y))(x**2 + x * y + y**2 - 7),
        {"x": 1.0, "y": 2.0},
    ),
    ("grad(sum(v**3)*y, v)", lambda v, y: _grad((v**3).sum() * y, v), {"v": V, "y": 0.5}),
    (
        "jacobian(v*sin(v)*y, v)",
        lambda v, y: _jacobian(v * torch.sin(v) * y, v),
        {"v": V, "y": 0.5},
    ),
    (
        "hessian(sum(v**2)**2 * y, v)",
        lambda v, y: _jacobian(_grad((v**2).sum() ** 2 * y, v), v),
        {"v": V, "y": 0.5},
    ),
    (
        "f(t) = grad(sum(t**3) * y, t); f(v)",
        lambda v, y: _grad((v**3 * y).sum(), v),
        {"v": V, "y": 0.5},
    ),
    (
        # t is a tensor of its own, as y.clone() is: the path through y itself is held.
        "f(t) = grad(t**3 * y, t); f(y) + f(x)",
        lambda x, y: (lambda f: f(y.clone()) + f(x.clone()))(lambda t: _grad(t**3 * y, t)),
        {"x": 0.7, "y": -1.3},
    ),
    (
        "w = zeros(2); w[0] = y; w[1] = y**2; grad(w[0]*w[1]*y, w)",
        lambda y: (lambda w: _grad(w[0] * w[1] * y, w))(torch.stack([y, y**2])),
        {"y": 0.5},
    ),
]


def _torch_inputs(values):
    return {k: torch.tensor(v, dtype=torch.float64, requires_grad=True) for k, v in values.items()}


def _theirs(function, values):
    """The value, and its Jacobian with respect to each input, in PyTorch."""
    names = list(values)
    point = tuple(_torch_inputs(values).values())

    def f(*tensors):
        return function(**dict(zip(names, tensors)))

    value = f(*point).detach().numpy()
    blocks = torch.autograd.functional.jacobian(f, point)
    return value, {n: b.numpy() for n, b in zip(names, blocks)}


@pytest.mark.parametrize("source, function, values", CASES, ids=[c[0] for c in CASES])
def test_value_and_derivative_agree_with_pytorch(source, function, values):
    value, jacobian = _theirs(function, values)
    np.testing.assert_allclose(api.evaluate(source, values).value, value, rtol=1e-12)
    ours = api.jacobian(source, values)
    np.testing.assert_allclose(ours.value, value, rtol=1e-12)
    for name, block in jacobian.items():
        np.testing.assert_allclose(ours.jacobian[name], block, rtol=1e-12, atol=1e-12)


SCALAR = [c for c in CASES if np.ndim(_theirs(c[1], c[2])[0]) == 0]


@pytest.mark.parametrize("source, function, values", SCALAR, ids=[c[0] for c in SCALAR])
def test_second_derivative_agrees_with_pytorch(source, function, values):
    names = list(values)
    point = tuple(torch.tensor(values[n], dtype=torch.float64) for n in names)
    hessian = torch.autograd.functional.hessian(lambda *t: function(**dict(zip(names, t))), point)
    ours = api.hessian(source, values)
    for name, row in zip(names, hessian):
        for other, block in zip(names, row):
            np.testing.assert_allclose(
                ours.hessian[name][other], block.numpy(), rtol=1e-10, atol=1e-12
            )


def test_grad_of_a_cube_is_differentiable_again():
    # d/dx x**3 = 3x**2 = 12 at 2; its derivative 6x = 12; the next 6.
    r = api.hessian("grad(x**3, x)", {"x": 2})
    assert (float(r.value), float(r.grad["x"]), float(r.hessian["x"]["x"])) == (12, 12, 6)


def test_third_derivative_against_sympy():
    sympy = pytest.importorskip("sympy")
    s = sympy.Symbol("x")
    f = s**5 * sympy.exp(-s) + sympy.sin(3 * s)
    at = 0.8
    r = api.gradient("f = x**5*exp(-x) + sin(3*x); grad(grad(grad(f, x), x), x)", {"x": at})
    np.testing.assert_allclose(r.value, float(sympy.diff(f, s, 3).subs(s, at)), rtol=1e-12)
    np.testing.assert_allclose(r.grad["x"], float(sympy.diff(f, s, 4).subs(s, at)), rtol=1e-12)


def test_implicit_derivative_against_sympy_idiff():
    sympy = pytest.importorskip("sympy")
    x, y = sympy.symbols("x y")
    slope = sympy.idiff(x**2 + x * y + y**2 - 7, y, x)  # dy/dx on the curve F = 0
    expected = float(slope.subs({x: 1, y: 2}))
    assert expected == pytest.approx(-0.8, rel=1e-15)
    source = "F = x**2 + x*y + y**2 - 7; -grad(F, x) / grad(F, y)"
    r = api.gradient(source, {"x": 1, "y": 2})
    assert float(r.value) == pytest.approx(expected, rel=1e-15)
    # The quotient's own partial derivatives, y held fixed: -3y/(x+2y)**2 and 3x/(x+2y)**2.
    np.testing.assert_allclose([r.grad["x"], r.grad["y"]], [-6 / 25, 3 / 25], rtol=1e-15)


def test_the_sample_gives_the_slope_of_the_curve():
    from pathlib import Path

    source = (Path(__file__).resolve().parent.parent / "samples/implicit_curve.grad").read_text()
    r = api.gradient(source)
    np.testing.assert_allclose([r.value, r.grad["x"], r.grad["y"]], [-0.8, -0.24, 0.12])


def test_an_input_left_out_of_wrt_and_a_const_are_tracked():
    # grad(F, x) with only y differentiated: 2 x y**3, and d/dy 6 x y**2.
    r = api.gradient("F = x**2 * y**3; grad(F, x)", {"x": 2, "y": 4}, wrt=["y"])
    assert (float(r.value), float(r.grad["y"]), r.inputs) == (256, 192, ("y",))
    # A const: c x**2 + d/dc (c x**3) = c x**2 + x**3; its gradient 2 c x + 3 x**2.
    r = api.gradient("const c = 3; c*x**2 + grad(c*x**3, c)", {"x": 2})
    assert (float(r.value), float(r.grad["x"]), r.inputs) == (20, 24, ("x",))
    r = api.evaluate("const c = 3; const d = grad(c**2, c); d*x", {"x": 2, "c": 5})
    assert float(r.value) == 20


def test_a_derivative_that_does_not_reach_x_is_zeros():
    r = api.gradient("sum(grad(y**2, v)) + y", {"v": V, "y": 3})
    assert float(r.value) == 3 and float(r.grad["y"]) == 1
    np.testing.assert_array_equal(r.grad["v"], [0, 0, 0])
    r = api.evaluate("jacobian(y*[1, 2], v)", {"v": V, "y": 3})
    np.testing.assert_array_equal(r.value, np.zeros((2, 3)))
    # x assigned again holds a new tensor, which F (computed before) does not depend on.
    r = api.evaluate("a = x; F = a**2; a = a + 1; grad(F, a)", {"x": 2})
    assert float(r.value) == 0


def _torch_grad_at(x, y):
    tx = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    ty = torch.tensor(y, dtype=torch.float64, requires_grad=True)
    value = _grad(tx**3 * torch.sin(ty), tx)
    gx, gy = torch.autograd.grad(value, (tx, ty))
    return float(value.detach()), float(gx), float(gy)


@pytest.mark.parametrize("command", ["eval", "grad"])
def test_at_many_points_each_point_is_its_own(command):
    """Each point's F is differentiated by its own x (not their sum), the x varying or
    the same at every point, against PyTorch point by point."""
    xs, ys = np.array([0.5, -1.0, 2.0]), np.array([0.3, 1.1, -0.7])
    source = "grad(x**3 * sin(y), x)"
    for batch, bindings in (({"x": xs, "y": ys}, {}), ({"y": ys}, {"x": 1.5})):
        r = api.points(command, source, bindings, batch)
        for i in range(3):
            x = xs[i] if "x" in batch else 1.5
            value, gx, gy = _torch_grad_at(x, ys[i])
            assert r.arrays["value"][i] == pytest.approx(value, rel=1e-13)
            if command == "grad":
                assert r.arrays["grad.x"][i] == pytest.approx(gx, rel=1e-13)
                assert r.arrays["grad.y"][i] == pytest.approx(gy, rel=1e-13)


def test_a_hessian_at_many_points_is_each_points():
    v = np.array([[1.0, 2.0], [-0.5, 0.25]])
    r = api.points("eval", "hessian(v[0]**2 * v[1]**3 * s, v)", {}, {"v": v, "s": [1.0, 2.0]})
    for i, (a, b) in enumerate(v):
        s = [1.0, 2.0][i]
        expected = s * np.array([[2 * b**3, 6 * a * b**2], [6 * a * b**2, 6 * a**2 * b]])
        np.testing.assert_allclose(r.arrays["value"][i], expected, rtol=1e-14)


@pytest.mark.parametrize(
    "source, message, where",
    [
        (
            "v = [1, 2]; grad(v**2, v)",
            "grad needs a scalar F, but F has shape (2,): for the derivative of each of its"
            " entries use jacobian(F, x)",
            (1, 18),
        ),
        ("v = [1, 2]; hessian(v, v)", "hessian needs a scalar F, but F has shape (2,)", (1, 21)),
        ("grad(x**2, 2*x)", "the second argument of grad must be a name", (1, 12)),
        ("grad(x**2, pi)", "the second argument of grad must be a name", (1, 12)),
        (
            "grad(x**2)",
            "wrong number of arguments: grad takes 2 arguments but 1 was given: grad(F, x)",
            (1, 1),
        ),
        ("jacobian(x, x=2)", "jacobian does not take the keyword 'x'", (1, 13)),
        ("grad(F, x) = F", "cannot redefine the built-in function 'grad'", (1, 1)),
    ],
)
def test_errors_point_at_their_place(source, message, where):
    with pytest.raises(GradcliError) as info:
        api.evaluate(source, {} if source.startswith("v =") else {"x": 1.0})
    assert message in info.value.message
    assert (info.value.span.line, info.value.span.column) == where


def test_the_command_line(gradcli):
    out = gradcli("grad", "grad(x**3, x)", "--x", "2", "--format", "plain")
    assert out.exit_code == 0 and out.output == "value 12\ngrad.x 12\n"
    out = gradcli("eval", "v = [1, 2]; grad(v**2, v)")
    assert out.exit_code == 2
    assert out.output.splitlines()[0].startswith("error: grad needs a scalar F")
    assert out.output.splitlines()[-1].strip() == "^~~~"


def test_steps_and_graph_place_the_derivatives_nodes_at_its_call():
    r = api.gradient("F = x**2*y; grad(F, x)", {"x": 2, "y": 3}, steps=True)
    assert (float(r.value), float(r.grad["x"]), float(r.grad["y"])) == (12, 6, 4)
    made = [node for node in r.graph.nodes if node.text == "grad(F, x)"]
    assert len(made) >= 3  # the nodes of 2*x*y that the reverse pass recorded
    # x is tracked: a copy of its own on the graph, placed where x is first read.
    r = api.gradient("grad(x**3, x)", {"x": 2}, steps=True)
    copies = [(n.name, n.text) for n in r.graph.nodes if n.name == "CloneBackward0"]
    assert copies == [("CloneBackward0", "x")]


def test_diff_gives_sympys_derivative():
    sympy = pytest.importorskip("sympy")
    from gradcli.analysis.symbolic import derivative

    x, y = sympy.symbols("x y", real=True)
    r = derivative("F = x**2 + x*y + y**2 - 7; -grad(F, x) / grad(F, y)")
    slope = sympy.idiff(x**2 + x * y + y**2 - 7, y, x)
    assert sympy.simplify(sympy.sympify(r.function, {"x": x, "y": y}) - slope) == 0
    r = derivative("grad(x**3, x)")
    assert (r.function, r.derivatives[0].formula) == ("3*x**2", "6*x")


@pytest.mark.parametrize(
    "source, bindings, value",
    [
        # grad through u holds x fixed; grad through x counts the path through u too.
        ("u = x*y; F = u**2 + x; grad(F, u) + grad(F, x)", {"x": 2, "y": 3}, 12 + 37),
        # a assigned again holds a new tensor: F, computed before, does not depend on it.
        ("a = x; F = a**2; a = a + 1; grad(F, a) + grad(a**3, a) * y", {"x": 2, "y": 3}, 81),
        ("const c = 3; c*x**2 + grad(c*x**3, c)", {"x": 2}, 20),
        ("const c = 3; const d = c*2; grad(d*x + c*x, c)", {"x": 2}, 2),
        ("f(t) = grad(t**3 * y, t); f(x) + f(y)", {"x": 2, "y": 3}, 36 + 81),
        ("v = [1, 2]; sum(hessian(v[0]**2 * v[1]**3 * y, v))", {"y": 0.5}, 38),
        ("v = [1, 2]; sum(jacobian([v[0]*v[1], v[0]**2 * y], v))", {"y": 0.5}, 4),
    ],
)
def test_diff_agrees_with_the_engine(source, bindings, value):
    """The value by hand; diff's formula at the point and the engine's gradient agree."""
    pytest.importorskip("sympy")
    from gradcli.analysis.symbolic import derivative

    r = derivative(source, bindings)
    assert float(r.value) == pytest.approx(value, rel=1e-14)
    assert r.derivatives and all(d.agrees for d in r.derivatives), r.derivatives
    assert r.warnings == ()


def test_diff_on_the_command_line(gradcli):
    out = gradcli("diff", "grad(x**3, x)", "--x", "2", "--format", "plain")
    assert out.exit_code == 0
    assert "function 3*x**2\n" in out.output and "derivatives.x.formula 6*x\n" in out.output


def test_the_forms_are_known_by_name(gradcli):
    out = gradcli("eval", "grad + 1")
    assert out.exit_code == 2
    assert out.output.startswith("error: 'grad' is a function: call it as grad(...) at 1:1")
    out = gradcli("eval", "gard(x**2, x)", "--x", "1")
    assert out.output.startswith("error: unknown function 'gard' (did you mean 'grad'?)")
    out = gradcli("functions", "hessian")
    assert out.exit_code == 0 and out.output.startswith("hessian(F, x)  the second derivative")
    out = gradcli("eval", "v = [3, 1, 2]; i = argmax(v); grad(v[i]*i, i)")
    assert out.exit_code == 2
    assert "the second argument of grad holds integers (indices)" in out.output
    from gradcli.cli.session import Session

    assert Session().completions("hess") == (["hessian"], 4)


def _plain(out) -> dict:
    assert out.exit_code == 0, out.output
    lines = (line.split(" ", 1) for line in out.output.splitlines() if " " in line)
    return {key: value for key, value in lines}


def test_a_program_file_with_derivatives_runs_under_every_command(gradcli, tmp_path):
    """The slope -(2x + y)/(x + 2y) of samples/implicit_curve.grad at (1, 2): its value
    -0.8, gradient (-3y, 3x)/(x + 2y)**2 and Hessian (6y, 9/125; 9/125, -12x)/(x + 2y)**3."""
    from pathlib import Path

    curve = Path(__file__).resolve().parent.parent / "samples/implicit_curve.grad"
    plain = ("--format", "plain")

    def run(*args):
        return _plain(gradcli(*args, *plain))

    def close(text, expected):
        np.testing.assert_allclose([float(v) for v in text.split()], expected, rtol=1e-12)

    close(run("eval", curve)["value"], [-0.8])
    close(run("grad", curve)["grad.x"], [-0.24])
    close(run("jacobian", curve)["jacobian.y"], [0.12])
    hessian = run("hessian", curve)
    close(hessian["hessian.x.x"] + " " + hessian["hessian.x.y"], [12 / 125, 9 / 125])
    close(hessian["hessian.y.y"], [-12 / 125])
    close(run("jvp", curve, "--tangent", "x=1", "--tangent", "y=1")["jvp"], [-0.24 + 0.12])
    assert run("check", curve)["passed"] == "true"
    # Taylor: the second-order coefficient of (x - 1)**2 is half of hessian.x.x.
    assert "0.048*(x - 1)**2" in run("taylor", curve)["polynomial"]
    close(run("plot", curve, "--over", "x=0:2:3")["f"], [-0.5, -0.8, -1])  # -(2x+2)/(x+4)
    sigma = run("propagate", curve, "--x", "1+-0.01", "--y", "2+-0.01")["sigma"]
    close(sigma, [0.01 * np.hypot(0.24, 0.12)])
    # Where the derivative of x**4/4 - 2x + y**2 vanishes: x = 2**(1/3), y = 0.
    program = tmp_path / "stationary.grad"
    program.write_text("f = x**4/4 - 2*x + y**2\ngrad(f, x)**2 + grad(f, y)**2\n")
    found = run("minimize", program, "--x", "1", "--y", "1")
    close(found["point.x"], [2 ** (1 / 3)])
    assert abs(float(found["point.y"])) < 1e-8
    close(run("solve", "grad(x**3/3 - 2*x, x)", "--x", "1")["point.x"], [2**0.5])
    data = tmp_path / "line.csv"
    data.write_text("x,y\n1,3\n2,6\n3,9\n")
    fitted = run("fit", "F = b*x**2; grad(F, x)", "--points", data, "--params", "b=1")
    close(fitted["parameters.b.value"], [1.5])  # 2*b*x = 3*x
