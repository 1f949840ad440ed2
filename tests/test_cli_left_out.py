"""Inputs used only where no derivative exists (class indices, indices, sizes, flags,
comparisons) are left out of grad, check, jacobian and hessian unless named with --wrt,
and the output says which and why: as PyTorch, which refuses a gradient to the integer
tensors they would be there."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

MLP = Path(__file__).resolve().parent.parent / "samples" / "mlp.grad"
LABELS_NOTE = (
    "note: y is left out: it is used only as the target of cross_entropy (indices), "
    "where it has no derivative (name it with --wrt to differentiate)\n"
)


def test_check_on_an_ml_program_leaves_the_class_labels_out(gradcli):
    # Before, check perturbed the labels too and failed inside cross_entropy (exit 2).
    result = gradcli("check", MLP, "--format", "json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["passed"] is True
    assert list(report["checks"]["grad"]) == ["W1", "b1", "W2", "b2"]
    assert report["left_out"] == {
        "y": "it is used only as the target of cross_entropy (indices), where it has no derivative"
    }
    assert result.stderr == LABELS_NOTE
    table = gradcli("check", MLP, tty=True)
    assert table.exit_code == 0 and "∂f/∂y" not in table.stdout and "∂f/∂W1" in table.stdout
    assert table.stderr == LABELS_NOTE


@pytest.fixture
def weights():
    rng = np.random.default_rng(7)
    return {
        "W1": rng.normal(size=(2, 4)),
        "b1": rng.normal(size=4),
        "W2": rng.normal(size=(4, 3)),
        "b2": rng.normal(size=3),
    }


def _bind(values):
    return [a for name, v in values.items() for a in (f"--{name}", json.dumps(v.tolist()))]


def test_the_gradient_of_an_ml_program_is_pytorchs_without_the_labels(gradcli, weights):
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle")
    x = torch.tensor(
        [[0.5, -1.0], [1.5, 0.2], [-0.7, 0.9], [0.0, -1.2], [2.0, 0.3], [-1.1, -0.4]],
        dtype=torch.float64,
    )
    labels = [2, 0, 1, 1, 2, 0]
    leaves = {n: torch.tensor(v, requires_grad=True) for n, v in weights.items()}
    logits = torch.tanh(x @ leaves["W1"] + leaves["b1"]) @ leaves["W2"] + leaves["b2"]
    loss = torch.nn.functional.cross_entropy(logits, torch.tensor(labels))
    loss.backward()
    args = [MLP, *_bind(weights), "--y", json.dumps(labels), "--format", "json"]
    result = gradcli("grad", *args)
    assert result.exit_code == 0 and result.stderr == LABELS_NOTE
    out = json.loads(result.stdout)
    assert out["value"] == pytest.approx(loss.item(), rel=1e-12)
    assert list(out["grad"]) == ["W1", "b1", "W2", "b2"]
    for name, leaf in leaves.items():
        np.testing.assert_allclose(out["grad"][name], leaf.grad.numpy(), rtol=1e-10, atol=1e-14)
    # PyTorch's labels are integers, which cannot require grad; named, y keeps the
    # derivative of a function constant between its whole numbers: 0.
    named = json.loads(gradcli("grad", *args, "--wrt", "y,b2").stdout)
    assert named["grad"]["y"] == [0] * 6 and "left_out" not in named
    np.testing.assert_allclose(named["grad"]["b2"], leaves["b2"].grad.numpy(), rtol=1e-10)


@pytest.mark.parametrize("command, section", [("jacobian", "jacobian"), ("hessian", "hessian")])
def test_jacobian_and_hessian_leave_the_labels_out_too(gradcli, command, section):
    result = gradcli(command, MLP, "--format", "json")
    assert result.exit_code == 0 and result.stderr == LABELS_NOTE
    out = json.loads(result.stdout)
    assert list(out[section]) == ["W1", "b1", "W2", "b2"] and "y" in out["left_out"]


@pytest.mark.parametrize(
    "source, bindings, left_out, why, grads",
    [
        # d/dx sum(zeros(3) + x) = 3 by hand; n only sizes the zeros.
        ("sum(zeros(n) + x)", {"n": "3", "x": "1"}, "n", "as the size of zeros", {"x": 3}),
        ("x[i] * 2", {"x": "[1, 2, 3]", "i": "1"}, "i", "as an index", {"x": [0, 2, 0]}),
        (
            "where(t > 0, a, b)",
            {"t": "1", "a": "2", "b": "3"},
            "t",
            "in a comparison",
            {"a": 1, "b": 0},
        ),
        ("argmax(x) * y", {"x": "[1, 3, 2]", "y": "2"}, "x", "in argmax", {"y": 1}),
        # A user function passes its parameters on: m reaches zeros' size through k.
        (
            "f(a, k) = a**2 + sum(zeros(k))\nf(x, m)",
            {"x": "3", "m": "2"},
            "m",
            "as the size",
            {"x": 6},
        ),
    ],
)
def test_an_input_used_only_where_no_derivative_exists_is_left_out(
    gradcli, source, bindings, left_out, why, grads
):
    args = [a for name, v in bindings.items() for a in (f"--{name}", v)]
    result = gradcli("grad", source, *args, "--format", "json")
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["grad"] == grads
    assert list(out["left_out"]) == [left_out] and why in out["left_out"][left_out]
    assert result.stderr.startswith(f"note: {left_out} is left out: it is used only {why}")


def test_a_flag_of_a_function_is_left_out_of_the_jacobian(gradcli_json):
    # leaky_relu's negative_slope is a number in PyTorch, never differentiated.
    out = gradcli_json("jacobian", "leaky_relu(x, s)", "--x", "[1, -1]", "--s", "0.1")
    assert out["jacobian"] == {"x": [[1, 0], [0, 0.1]]}
    assert out["left_out"] == {
        "s": "it is used only as the negative_slope of leaky_relu, where it has no derivative"
    }


@pytest.mark.parametrize(
    "source, bindings, grads",
    [
        # Also used where it has a derivative: d(x[i] * i)/di = x[1] = 2.
        ("x[i] * i", {"x": "[1, 2, 3]", "i": "1"}, {"x": [0, 1, 0], "i": 2}),
        # A program's input that the output does not use keeps its zero gradient.
        ("a = 3\nx**2", {"x": "1"}, {"a": 0, "x": 2}),
        # x // y is piecewise constant, as floor: its derivative is 0, not none.
        ("x // y + y", {"x": "3", "y": "2"}, {"x": 0, "y": 1}),
    ],
)
def test_an_input_with_a_derivative_somewhere_is_kept(gradcli, source, bindings, grads):
    args = [a for name, v in bindings.items() for a in (f"--{name}", v)]
    result = gradcli("grad", source, *args, "--format", "json")
    assert result.exit_code == 0 and result.stderr == ""
    out = json.loads(result.stdout)
    assert out["grad"] == grads and "left_out" not in out


def test_class_probabilities_are_a_target_with_a_derivative(gradcli_json):
    # A target of the input's shape holds probabilities: d/dp -sum(p * log_softmax(z))
    # is -log_softmax(z), by hand.
    z = np.array([1.0, 2.0, 3.0])
    out = gradcli_json("grad", "cross_entropy(z, p)", "--z", "[1, 2, 3]", "--p", "[0.2, 0.3, 0.5]")
    expected = -(z - np.log(np.sum(np.exp(z))))
    np.testing.assert_allclose(out["grad"]["p"], expected, rtol=1e-12)
    assert "left_out" not in out


@pytest.mark.parametrize(
    "command, source, columns",
    [
        # d/dx x*sum(one_hot(k, 3)) = 1 at every point, by hand; k has no derivative.
        ("grad", "x * sum(one_hot(k, 3))", "x,value,grad.x"),
        ("jacobian", "x * one_hot(k, 3)", "x,value[0],value[1],value[2],jacobian.x[0]"),
        ("check", "x * sum(one_hot(k, 3))", "x,passed,checks.grad.x.max_abs_error"),
    ],
)
def test_many_points_say_once_which_inputs_are_left_out(
    gradcli, tmp_path, command, source, columns
):
    # Before, the rows left k out without a word (one point says it).
    note = (
        "note: k is left out: it is used only in one_hot, where it has no derivative "
        "(name it with --wrt to differentiate)\n"
    )
    result = gradcli(command, source, "--over", "x=0:1:3", "--k", "1", "--format", "csv")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0].startswith(columns) and "grad.k" not in result.stdout
    assert result.stderr == note
    rows = tmp_path / "rows.csv"
    rows.write_text("x,k\n1,0\n2,2\n" + "3,1\n" * 5000)  # over one chunk: still said once
    result = gradcli(command, source, "--points", rows, "--chunk-size", "1000", "--format", "csv")
    assert result.exit_code == 0 and result.stderr == note
    assert len(result.stdout.splitlines()) == 5003


def test_check_asked_to_move_the_labels_says_why_it_cannot(gradcli):
    # Named with --wrt, the labels are moved by finite differences off their whole
    # numbers; before, the error was cross_entropy's alone, naming neither check nor --wrt.
    result = gradcli("check", MLP, "--wrt", "y")
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.stderr.startswith(
        "error: check --wrt y: finite differences move y, which is used as the target of "
        "cross_entropy (indices), where it has no derivative (leave it out of --wrt): "
        "cross_entropy: a target of another shape than input holds class indices"
    )
    assert "mlp.grad:15:1\n  cross_entropy(h @ W2 + b2, y)\n  ^~~~~~~~~~~~~\n" in result.stderr
    # i is kept (x[i] * i has a derivative in i), and moving it breaks the index.
    result = gradcli("check", "x[i] * i", "--x", "[1, 2, 3]", "--i", "1")
    assert result.exit_code == 2 and result.stderr.startswith(
        "error: check: finite differences move i, which is used as an index, where it has "
        "no derivative (--wrt names the inputs to check): index must be an integer"
    )
