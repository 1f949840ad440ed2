"""The determinant of the square Jacobian of one vector input (a robot's joint angles
q to its pose), and a note when it is singular."""

from __future__ import annotations

import json

import numpy as np
import pytest

ARM = "[cos(q[0]) + 0.5*cos(q[0] + q[1]), sin(q[0]) + 0.5*sin(q[0] + q[1])]"


def _arm_determinant(q1):
    # By hand: a planar arm of links 1 and 0.5 has det J = l1 l2 sin(q1).
    return 0.5 * np.sin(q1)


def test_every_format_shows_it(gradcli):
    args = ["jacobian", ARM, "--q", "[0.3, 0.7]"]
    shown = json.loads(gradcli(*args, "--format", "json").stdout)
    assert shown["determinant"] == pytest.approx(_arm_determinant(0.7), rel=1e-14)
    plain = gradcli(*args, "--format", "plain").stdout.splitlines()
    (line,) = [line for line in plain if line.startswith("determinant ")]
    assert float(line.split()[1]) == pytest.approx(_arm_determinant(0.7), rel=1e-14)
    fetched = gradcli(*args, "--get", "determinant")
    assert float(fetched.stdout) == pytest.approx(_arm_determinant(0.7), rel=1e-14)
    table = gradcli(*args, "--format", "table").stdout
    assert "determinant: 0.322109" in table  # 0.5 sin(0.7) to 6 digits
    assert "whole Jacobian" not in table  # ∂f/∂q above is the matrix already
    assert "note:" not in gradcli(*args, "--format", "plain").stderr


def test_against_pytorch_for_three_joints(gradcli_json):
    torch = pytest.importorskip("torch")
    source = "[q[0]*cos(q[1]) + q[2], q[0]*sin(q[1])*q[2], exp(q[0]) - q[2]**2]"
    q = [0.4, 1.1, -0.6]

    def f(t):
        return torch.stack([t[0] * torch.cos(t[1]) + t[2], t[0] * torch.sin(t[1]) * t[2],
                            torch.exp(t[0]) - t[2] ** 2])  # fmt: skip

    J = torch.autograd.functional.jacobian(f, torch.tensor(q, dtype=torch.float64))
    shown = gradcli_json("jacobian", source, "--q", str(q))
    assert shown["determinant"] == pytest.approx(float(torch.linalg.det(J)), rel=1e-12)


def test_a_singular_jacobian_has_a_note(gradcli):
    # By hand: the arm stretched out (q1 = 0) has det J = 0, rank 1.
    result = gradcli("jacobian", ARM, "--q", "[0.3, 0]", "--format", "json")
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert abs(shown["determinant"]) < 1e-15
    (note,) = shown["notes"]
    assert note["message"].startswith("the Jacobian is singular (rank 1 of 2)")
    assert "note: the Jacobian is singular (rank 1 of 2)" in result.stderr


def test_not_square_no_determinant(gradcli_json):
    shown = gradcli_json("jacobian", "[q[0], q[1], q[0]*q[1]]", "--q", "[1, 2]")
    assert "determinant" not in shown
