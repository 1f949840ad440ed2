"""Complex numbers in the language and on the command line: literals, bindings, how
eval and grad print them, jacobian --holomorphic, and every other command refusing them.

Expected numbers come from Python's complex arithmetic, NumPy, mpmath's derivative and
PyTorch's complex128 gradients, never from gradcli.
"""

from __future__ import annotations

import cmath
import json

import numpy as np
import pytest

from gradcli import api
from gradcli.language.parser import parse
from gradcli.language.printing import to_source


def _plain(gradcli, *args):
    result = gradcli(*args, "--format", "plain")
    assert result.exit_code == 0, result.output
    return dict(line.split(" ", 1) for line in result.stdout.splitlines())


@pytest.mark.parametrize(
    "source, expected",
    [
        ("3j", 3j),
        ("2+3j", 2 + 3j),
        ("1j*pi", 1j * cmath.pi),
        ("exp(1j*pi/3)", cmath.exp(1j * cmath.pi / 3)),
        ("2.5e-1J * 4", 1j),
        ("abs(3+4j)", 5),
        ("sqrt(-4 + 0j)", 2j),
        ("log(1j)", 1j * cmath.pi / 2),
        ("(1+2j) * conj(1+2j)", 5),
    ],
)
def test_literals_evaluate_as_python_computes_them(source, expected):
    value = complex(api.evaluate(source).value[()])
    assert value == pytest.approx(expected, rel=1e-15, abs=1e-15)


def test_a_literal_prints_back_as_it_parses():
    for text in ("3j", "2 + 3j", "1j * pi", "[1j, 2]", "x ** 2.5j"):
        assert parse(to_source(parse(text))) == parse(text)


def test_bindings_and_list_literals_are_complex128():
    result = api.evaluate("z * w", {"z": "[1+2j, 3]", "w": "1j"})
    assert result.value.dtype == np.complex128
    np.testing.assert_array_equal(result.value, [(1 + 2j) * 1j, 3j])
    assert api.evaluate("[1j, 2]").value.tolist() == [1j, 2]
    assert api.evaluate("z", {"z": "1+2j"}, dtype="float32").value.dtype == np.complex64


def test_eval_prints_both_parts_in_every_format(gradcli):
    assert _plain(gradcli, "eval", "z**2", "--z", "[1+2j, 3]") == {"value": "-3+4j 9+0j"}
    out = gradcli("eval", "z**2", "--z", "1+2j", "--format", "json").stdout
    assert json.loads(out) == {"value": {"real": -3, "imag": 4}}
    table = gradcli("eval", "z**2", "--z", "[1+2j, 3]", tty=True).stdout
    assert "-3+4j" in table and "9+0j" in table


def test_the_gradient_of_abs_squared_is_pytorchs_2z(gradcli):
    # The example: PyTorch's conjugate-Wirtinger gradient of |z|**2 is 2z.
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle")
    z = torch.tensor(1 + 2j, dtype=torch.complex128, requires_grad=True)
    (z.abs() ** 2).backward()
    shown = _plain(gradcli, "grad", "abs(z)**2", "--z", "1+2j")
    assert complex(shown["grad.z"]) == pytest.approx(complex(z.grad), rel=1e-15)
    assert shown["grad.z"] == "2+4j"


def test_grad_of_a_real_valued_program_of_complex_inputs_is_pytorchs():
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle")
    source = "sum(real(exp(z) * conj(w)) + abs(z - w)**2) + angle(z[0] * w[1])"
    values = {"z": [0.5 + 1j, -1 + 0.25j], "w": [2 - 1j, 0.3j]}
    result = api.gradient(source, {k: str(v).replace(" ", "") for k, v in values.items()})
    z, w = (torch.tensor(values[k], dtype=torch.complex128, requires_grad=True) for k in "zw")
    out = (torch.real(torch.exp(z) * w.conj()) + (z - w).abs() ** 2).sum()
    out = out + torch.angle(z[0] * w[1])
    gz, gw = torch.autograd.grad(out, (z, w))
    np.testing.assert_allclose(result.grad["z"], gz.numpy(), rtol=1e-12)
    np.testing.assert_allclose(result.grad["w"], gw.numpy(), rtol=1e-12)


def test_jacobian_holomorphic_is_the_complex_derivative(gradcli):
    mpmath = pytest.importorskip("mpmath", reason="mpmath's derivative is the oracle")
    assert _plain(gradcli, "jacobian", "z**2", "--z", "1+2j", "--holomorphic") == {
        "value": "-3+4j",
        "jacobian.z": "2+4j",
    }
    z = 0.7 - 0.4j
    result = api.jacobian("exp(z) * sin(z) / (z + 2)", {"z": repr(z)}, holomorphic=True)
    expected = complex(mpmath.diff(lambda t: mpmath.exp(t) * mpmath.sin(t) / (t + 2), z))
    assert complex(result.jacobian["z"][()]) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("source", ["abs(z)**2", "conj(z)", "real(z)", "z * conj(z)"])
def test_jacobian_holomorphic_refuses_where_cauchy_riemann_fails(gradcli, source):
    result = gradcli("jacobian", source, "--z", "1+2j", "--holomorphic")
    assert result.exit_code == 2
    assert "is not holomorphic in z here: the Cauchy–Riemann equations fail" in result.output


@pytest.mark.parametrize(
    "args",
    [
        ("taylor", "abs(z)**2"),
        ("check", "abs(z)**2"),
        ("minimize", "abs(z)**2"),
        ("diff", "abs(z)**2"),
        ("graph", "abs(z)**2"),
        ("propagate", "abs(z)", "--sigma", "z=0.1"),
        ("solve", "z"),
        ("laplacian", "abs(z)**2"),
    ],
)
def test_the_analyses_refuse_complex_inputs_by_name(gradcli, args):
    result = gradcli(*args, "--z", "1+2j")
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: complex input (--z) is not supported")
    assert args[0] in lines[0]


def _torch_point(values):
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle")
    return torch, tuple(torch.tensor(v, dtype=torch.complex128) for v in values.values())


def _text(values):
    return {k: str(v).replace(" ", "") for k, v in values.items()}


#: A real output of two complex inputs, in gradcli's language and in PyTorch.
REAL_SOURCE = "sum(abs(z)**2 * real(w) + imag(z * conj(w)) + real(exp(z) * w**2))"
REAL_VALUES = {"z": [0.5 + 1j, -1 + 0.25j], "w": [2 - 1j, 0.3j]}


def _real_output(torch):
    return lambda z, w: (
        z.abs() ** 2 * w.real + (z * w.conj()).imag + (torch.exp(z) * w**2).real
    ).sum()


def test_hessian_of_a_real_output_is_pytorchs():
    torch, point = _torch_point(REAL_VALUES)
    result = api.hessian(REAL_SOURCE, _text(REAL_VALUES))
    expected = torch.autograd.functional.hessian(_real_output(torch), point, vectorize=True)
    for i, x in enumerate("zw"):
        for j, y in enumerate("zw"):
            np.testing.assert_allclose(result.hessian[x][y], expected[i][j].numpy(), rtol=1e-12)
    gz, gw = torch.autograd.grad(_real_output(torch)(*(p.requires_grad_() for p in point)), point)
    np.testing.assert_allclose(result.grad["z"], gz.numpy(), rtol=1e-12)
    assert result.assembled is None  # eigenvalues are of real Hessians


HOLOMORPHIC_SOURCE = "exp(z) * w + z**2 * conj(w)"


def test_jacobian_vjp_and_jvp_of_a_complex_output_are_pytorchs():
    torch, point = _torch_point(REAL_VALUES)

    def f(z, w):
        return torch.exp(z) * w + z**2 * w.conj()

    values = _text(REAL_VALUES)
    result = api.jacobian(HOLOMORPHIC_SOURCE, values)
    expected = torch.autograd.functional.jacobian(f, point, vectorize=True)
    for k, name in enumerate("zw"):
        np.testing.assert_allclose(result.jacobian[name], expected[k].numpy(), rtol=1e-12)
    v = np.array([1 - 2j, 0.5j])
    result = api.vjp(HOLOMORPHIC_SOURCE, values, grad_output=str(v.tolist()).replace(" ", ""))
    _, expected = torch.autograd.functional.vjp(f, point, torch.tensor(v))
    for k, name in enumerate("zw"):
        np.testing.assert_allclose(result.vjp[name], expected[k].numpy(), rtol=1e-12)
    tangents = {"z": "[1j,2]", "w": "[0.5,-1+1j]"}
    result = api.jvp(HOLOMORPHIC_SOURCE, values, tangents=tangents)
    t = tuple(torch.tensor(v, dtype=torch.complex128) for v in ([1j, 2], [0.5, -1 + 1j]))
    _, expected = torch.autograd.functional.jvp(f, point, t)
    np.testing.assert_allclose(result.jvp, expected.numpy(), rtol=1e-12)


def test_the_commands_print_complex_derivatives(gradcli):
    # d(z**2)/dz = 2z: PyTorch's Jacobian row (a vjp of 1) is its conjugate, the jvp 2z t.
    assert _plain(gradcli, "jacobian", "z**2", "--z", "1+2j")["jacobian.z"] == "2-4j"
    assert _plain(gradcli, "jvp", "z**2", "--z", "1+2j", "--tangent", "z=1j")["jvp"] == "-4+2j"
    shown = _plain(gradcli, "vjp", "z**2", "--z", "1+2j", "--grad-output", "1j")
    assert shown["vjp.z"] == "4+2j"
    shown = _plain(gradcli, "hessian", "abs(z)**2", "--z", "1+2j")
    assert shown["hessian.z.z"] == "2+0j"


def test_grad_of_a_complex_output_needs_a_real_one(gradcli):
    result = gradcli("hessian", "z**2", "--z", "1+2j")
    assert result.exit_code == 2
    assert "real scalar outputs" in result.output


def test_an_op_without_complex_support_refuses_it_in_one_line(gradcli):
    result = gradcli("eval", "floor(z) + 1", "--z", "1+2j")
    assert result.exit_code == 2
    assert result.output.startswith("error: complex input is not supported by gradcli's floor yet")


def test_many_points_take_complex_values_and_complex_steps(gradcli):
    result = gradcli("eval", "x*1j + 1", "--over", "x=0:1:3", "--format", "csv")
    assert result.stdout == "x,value\n0,1+0j\n0.5,1+0.5j\n1,1+1j\n"
    # A real result through complex steps: d|1 + ix|/dx = x / sqrt(1 + x**2).
    rows = gradcli("grad", "abs(x*1j + 1)", "--over", "x=0:1:3", "--format", "csv").stdout
    grads = [float(line.split(",")[2]) for line in rows.splitlines()[1:]]
    np.testing.assert_allclose(grads, [0, 0.5 / np.sqrt(1.25), 1 / np.sqrt(2)], rtol=1e-14)


def test_complex_arrays_in_files_bind_an_input(gradcli, tmp_path):
    z = np.array([1 + 2j, 3 - 0.5j])
    np.save(tmp_path / "z.npy", z)
    np.savez(tmp_path / "z.npz", z=z)
    (tmp_path / "z.csv").write_text("z\n1+2j\n3-0.5j\n")
    for name in ("z.npy", "z.npz", "z.csv"):
        shown = _plain(gradcli, "grad", "sum(abs(z)**2)", "--z", f"@{tmp_path / name}")
        # The gradient of |z|**2 is 2z in PyTorch's convention.
        assert [complex(v) for v in shown["grad.z"].split()] == list(2 * z), name


def test_jvp_along_a_complex_unit_tangent_and_refusing_higher_orders(gradcli):
    # (3+4j)/5 times d(z**2)/dz = 2z at 1+2j: (0.6+0.8j)(2+4j) = -2+4j, by hand.
    shown = _plain(gradcli, "jvp", "z**2", "--z", "1+2j", "--tangent", "z=3+4j", "--unit")
    assert complex(shown["jvp"]) == pytest.approx(-2 + 4j, rel=1e-15)
    result = gradcli("jvp", "exp(z)", "--z", "1+2j", "--tangent", "z=1j", "--order", "3")
    assert result.exit_code == 2
    assert "complex input is not supported by gradcli's jvp --order yet" in result.output
