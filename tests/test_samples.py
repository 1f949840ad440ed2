"""Every program in samples/: its header runs, and its numbers are the ones derived
by hand or with NumPy (the inputs' values, where random, are read from the result)."""

from __future__ import annotations

import shlex
from pathlib import Path

import numpy as np
import pytest

from gradcli import api

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
ALL = sorted(p.name for p in SAMPLES.glob("*.grad"))


def header_commands(name):
    """The ``gradcli ...`` commands of a sample's comment header."""
    commands = []
    for line in (SAMPLES / name).read_text().splitlines():
        if not line.startswith("#"):
            break
        text = line.lstrip("# ").split("  #")[0].strip()
        if text.startswith("gradcli "):
            commands.append(shlex.split(text)[1:])
    return commands


def sample(name, command="gradient", **options):
    source = (SAMPLES / name).read_text()
    return getattr(api, command)(source, filename=f"samples/{name}", **options)


def close(actual, expected, rtol=1e-12, atol=1e-12):
    np.testing.assert_allclose(np.asarray(actual, dtype=float), expected, rtol=rtol, atol=atol)


def test_there_are_samples():
    assert len(ALL) >= 9


@pytest.mark.parametrize("name", ALL)
def test_header_says_what_and_how(name):
    text = (SAMPLES / name).read_text()
    assert text.startswith("# ")
    commands = header_commands(name)
    assert commands, f"{name} names no command to run"
    assert all(f"samples/{name}" in args for args in commands)


@pytest.mark.parametrize("name", ALL)
def test_header_commands_run(gradcli, name, monkeypatch):
    monkeypatch.chdir(SAMPLES.parent)
    for args in header_commands(name):
        result = gradcli(*args)
        assert result.exit_code == 0, (args, result.output)
        # Notes are said (mlp.grad leaves its labels out); nothing else reaches stderr.
        assert all(line.startswith("note: ") for line in result.stderr.splitlines())


def test_tutorial_square():
    r = sample("tutorial_square.grad")
    assert (float(r.value), float(r.grad["x"])) == (19, 8)
    r = sample("tutorial_square.grad", bindings={"x": 5})
    assert (float(r.value), float(r.grad["x"])) == (52, 14)  # 7**2 + 3, 2*7


def test_tutorial_mean_loss():
    r = sample("tutorial_mean_loss.grad", wrt=["W"])
    x1, w, y1 = (r.point[n] for n in ("x1", "W", "y1"))
    assert (x1.shape, w.shape, y1.shape) == ((4, 3), (3, 2), (4, 2))
    close(r.value, np.mean(y1 - x1 @ w))
    # d/dW mean(y1 - x1 W) = -x1^T 1 / 8 in each column
    close(r.grad["W"], -np.tile(x1.sum(axis=0)[:, None], (1, 2)) / 8)
    assert r.inputs == ("W",)


def test_tutorial_mean_loss_with_randn_bindings():
    bindings = {"x1": "randn(10, 3)", "y1": "randn(10, 2)"}
    r = sample("tutorial_mean_loss.grad", wrt=["W"], bindings=bindings)
    x1, w, y1 = (r.point[n] for n in ("x1", "W", "y1"))
    assert (x1.shape, y1.shape) == ((10, 3), (10, 2))
    close(r.value, np.mean(y1 - x1 @ w))
    close(r.grad["W"], -np.tile(x1.sum(axis=0)[:, None], (1, 2)) / 20)


def test_tutorial_mean_loss_seed_changes_the_data():
    a = sample("tutorial_mean_loss.grad", wrt=["W"])
    b = sample("tutorial_mean_loss.grad", wrt=["W"], seed=7)
    assert not np.array_equal(a.point["x1"], b.point["x1"])


def test_tutorial_vector():
    r = sample("tutorial_vector.grad", "jacobian")
    close(r.value, [2**2 + 3 * 3, 2 * 2 + 3**2])
    close(r.jacobian["x"], [[4, 3], [2, 6]])
    r = sample("tutorial_vector.grad", "vjp", grad_output="[1, 0]")
    close(r.vjp["x"], [4, 3])


def test_tutorial_quadratic():
    r = sample("tutorial_quadratic.grad")
    assert (float(r.value), float(r.grad["x"])) == (9, 6)
    r = sample("tutorial_quadratic.grad", "jacobian", bindings={"x": "[2, 3]"})
    close(r.jacobian["x"], np.diag([6, 8]))


def test_rosenbrock():
    r = sample("rosenbrock.grad", "hessian")
    x, y, a, b = -1.2, 1.0, 1.0, 100.0
    close(r.value, (a - x) ** 2 + b * (y - x**2) ** 2)
    close(r.grad["x"], -2 * (a - x) - 4 * b * x * (y - x**2))
    close(r.grad["y"], 2 * b * (y - x**2))
    hessian = [[2 - 4 * b * (y - x**2) + 8 * b * x**2, -4 * b * x], [-4 * b * x, 2 * b]]
    close([[r.hessian[i][j] for j in "xy"] for i in "xy"], hessian)
    close(hessian, [[1330, 480], [480, 200]])
    assert r.inputs == ("x", "y")  # a and b are const


def test_rosenbrock_minimum():
    r = sample("rosenbrock.grad", "hessian", bindings={"x": 1, "y": 1})
    assert float(r.value) == 0
    close([r.grad["x"], r.grad["y"]], [0, 0])


def test_logistic_regression():
    r = sample("logistic_regression.grad")
    xs = np.array([[1, 2], [2, 0.5], [-1, -1.5], [0.5, -2]])
    t = np.array([1, 1, 0, 0])
    w, c = np.array([0.1, -0.2]), 0.0
    p = 1 / (1 + np.exp(-(xs @ w + c)))
    close(r.value, -np.mean(t * np.log(p) + (1 - t) * np.log(1 - p)))
    close(r.grad["w"], xs.T @ (p - t) / 4)
    close(r.grad["c"], np.mean(p - t))
    assert r.inputs == ("w", "c")


def test_logistic_regression_hessian():
    r = sample("logistic_regression.grad", "hessian", wrt=["w"])
    xs = np.array([[1, 2], [2, 0.5], [-1, -1.5], [0.5, -2]])
    p = 1 / (1 + np.exp(-(xs @ np.array([0.1, -0.2]))))
    close(r.hessian["w"]["w"], xs.T @ np.diag(p * (1 - p)) @ xs / 4)


def test_softmax_cross_entropy():
    r = sample("softmax_cross_entropy.grad")
    z = np.array([2.0, 1.0, 0.1])
    softmax = np.exp(z) / np.exp(z).sum()
    close(r.value, -np.log(softmax[1]))
    close(r.grad["z"], softmax - [0, 1, 0])
    r = sample("softmax_cross_entropy.grad", bindings={"z": "[0, 0, 0]"})
    close(r.grad["z"], np.array([1, 1, 1]) / 3 - [0, 1, 0])


def test_two_layer_network():
    r = sample("two_layer_network.grad")
    p = {n: r.point[n] for n in ("W1", "b1", "W2", "b2")}
    x = np.array(
        [[0.5, -1.0, 2.0], [1.5, 0.2, -0.3], [-0.7, 0.9, 0.4], [0.0, -1.2, 1.1], [2.0, 0.3, -1.5]]
    )
    y = np.array([[1.0], [0.0], [0.5], [-0.5], [1.5]])
    # forward, then backpropagation written out by hand
    h = np.tanh(x @ p["W1"] + p["b1"])
    out = h @ p["W2"] + p["b2"]
    close(r.value, np.mean((out - y) ** 2))
    d_out = 2 * (out - y) / out.size
    d_h = d_out @ p["W2"].T
    d_pre = d_h * (1 - h**2)
    close(r.grad["W2"], h.T @ d_out)
    close(r.grad["b2"], d_out.sum(axis=0))
    close(r.grad["W1"], x.T @ d_pre)
    close(r.grad["b1"], d_pre.sum(axis=0))


def test_polar_to_cartesian():
    r = sample("polar_to_cartesian.grad", "jacobian")
    radius, theta = 2.0, np.pi / 6
    close(r.value, [radius * np.cos(theta), radius * np.sin(theta)])
    jac = np.column_stack([r.jacobian["r"], r.jacobian["θ"]])
    close(jac, [[np.cos(theta), -radius * np.sin(theta)], [np.sin(theta), radius * np.cos(theta)]])
    close(np.linalg.det(jac), radius)


def test_polar_to_cartesian_at_a_right_angle(gradcli_json, monkeypatch):
    monkeypatch.chdir(SAMPLES.parent)
    out = gradcli_json("jacobian", "samples/polar_to_cartesian.grad", "--var", "θ=pi/2")
    close(out["value"], [0, 2], atol=1e-15)
    close(out["jacobian"]["θ"], [-2, 0], atol=1e-15)


def _arm_angles(l1, l2, px, py):
    """The two-link arm's joint angles by hand, elbow up (t2 > 0): the law of cosines
    gives t2, the target's angle less the second link's gives t1."""
    t2 = np.arccos((px**2 + py**2 - l1**2 - l2**2) / (2 * l1 * l2))
    t1 = np.arctan2(py, px) - np.arctan2(l2 * np.sin(t2), l1 + l2 * np.cos(t2))
    return np.array([t1, t2])


def test_two_link_arm(gradcli_json, monkeypatch):
    monkeypatch.chdir(SAMPLES.parent)
    out = gradcli_json("solve", "samples/two_link_arm.grad", "--sensitivity")
    given = {"l1": 1.0, "l2": 0.8, "px": 1.2, "py": 0.9}
    close([out["point"]["t1"], out["point"]["t2"]], _arm_angles(**given))
    h = 1e-6  # the closed form's derivative by central differences
    for name, value in given.items():
        up = _arm_angles(**{**given, name: value + h})
        down = _arm_angles(**{**given, name: value - h})
        found = [out["sensitivity"]["t1"][name], out["sensitivity"]["t2"][name]]
        close(found, (up - down) / (2 * h), rtol=1e-7, atol=1e-8)


def test_conv_layer_against_pytorch():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference of conv_layer.grad")
    F = torch.nn.functional
    r = sample("conv_layer.grad")
    assert r.inputs == ("K", "c", "W", "b")
    image = torch.tensor(
        [[[[0.3, -0.8, 1.2, 0.5, -0.1], [0.9, 0.4, -0.6, 1.1, 0.2], [-0.5, 1.3, 0.7, -0.9, 0.6],
           [0.1, -1.1, 0.8, 0.35, -0.4], [1.0, 0.25, -0.3, 0.45, 0.75]]]],
        dtype=torch.float64,
    )  # fmt: skip
    weights = {
        n: torch.tensor(np.asarray(r.point[n]), dtype=torch.float64, requires_grad=True)
        for n in r.inputs
    }
    K, c, W, b = weights.values()
    features = F.max_pool2d(F.relu(F.conv2d(image, K, c)), 2)
    z = F.layer_norm(F.linear(features.flatten(1), W, b), [3])
    loss = F.mse_loss(z, torch.tensor([[1.0, 0.0, -1.0]], dtype=torch.float64))
    loss.backward()
    close(r.value, loss.item())
    for name, t in weights.items():
        close(r.grad[name], t.grad.numpy())
