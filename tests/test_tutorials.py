"""The two tutorial programs, run as real programs with only their imports changed.

Each program runs in a subprocess with ``import gradcli as torch`` (and
``from gradcli.autograd import Variable``); its stdout must equal the
``.expected`` file line by line. The ``<...>`` lines of an ``.expected`` file
stand for a printed random tensor: there the printed block is parsed and its
structure checked, and an in-process run checks the exact relations (every row
of x1.grad is -W.T/10, y1.grad is 0.1, W.grad is -x1.sum(0).T/10), derived by
hand from J = mean(y1 - x1 @ W) over its 10 entries.
"""

from __future__ import annotations

import ast
import contextlib
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
CANDIDATES = [os.environ.get("GRADCLI_TUTORIALS"), REPO / "tutorials", "/work/shared/tutorials"]
TUTORIALS = next(
    (Path(p) for p in CANDIDATES if p and (Path(p) / "autograd_basics.py").exists()), None
)
pytestmark = pytest.mark.skipif(
    TUTORIALS is None,
    reason="tutorial programs not found; set GRADCLI_TUTORIALS to their directory",
)

IMPORTS = {
    "import torch": "import gradcli as torch",
    "from torch.autograd import Variable": "from gradcli.autograd import Variable",
}
PROGRAMS = ["autograd_basics", "variables_and_grad"]


def _gradcli_source(name):
    lines = (TUTORIALS / f"{name}.py").read_text().splitlines()
    changed = [IMPORTS.get(line, line) for line in lines]
    assert sum(a != b for a, b in zip(lines, changed)) >= 1
    return "\n".join(changed) + "\n"


def _run(name, tmp_path):
    program = tmp_path / f"{name}.py"
    program.write_text(_gradcli_source(name))
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run(
        [sys.executable, str(program)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def _take_tensor(lines, start):
    """The printed tensor starting at lines[start], as (array, index after it)."""
    depth, end = 0, start
    while True:
        depth += lines[end].count("[") - lines[end].count("]")
        end += 1
        if depth == 0:
            break
    text = " ".join(lines[start:end])
    body = re.fullmatch(r"tensor\((.*?)(, grad_fn=<\w+>)?\)", text.strip()).group(1)
    return np.array(ast.literal_eval(body)), end


def _compare(actual, expected):
    """Line by line; a ``<...>`` line consumes one printed tensor, returned for checking."""
    blocks, i = [], 0
    for want in expected:
        if want.startswith("<"):
            block, i = _take_tensor(actual, i)
            blocks.append((want, block))
        else:
            assert actual[i] == want
            i += 1
    assert i == len(actual), actual[i:]
    return blocks


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_prints_the_expected_output(name, tmp_path):
    expected = (TUTORIALS / f"{name}.expected").read_text().splitlines()
    blocks = _compare(_run(name, tmp_path), expected)
    for description, block in blocks:
        if description.startswith("<x1.grad"):
            assert block.shape == (10, 20)
            assert (block == block[0]).all()  # every row equal
        elif description.startswith("<y1.grad"):
            assert block.shape == (10, 1) and (block == 0.1).all()
        elif description.startswith("<W.grad"):
            assert block.shape == (20, 1)
        else:
            raise AssertionError(f"unknown placeholder {description}")
    assert len(blocks) == (3 if name == "autograd_basics" else 0)


def test_matrix_gradients_follow_from_the_mean():
    # J = (1/10) sum_i (y1_i - sum_j x1_ij W_j): dJ/dx1_ij = -W_j / 10, dJ/dy1_i = 1/10,
    # dJ/dW_j = -sum_i x1_ij / 10.
    namespace = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(_gradcli_source("autograd_basics"), "autograd_basics.py", "exec"), namespace)
    x1, y1, w = (namespace[n] for n in ("x1", "y1", "W"))
    x1_data, w_data = x1.detach().numpy(), w.detach().numpy()
    np.testing.assert_allclose(
        x1.grad.numpy(), np.broadcast_to(-w_data.T / 10, (10, 20)), rtol=1e-6
    )
    np.testing.assert_allclose(y1.grad.numpy(), np.full((10, 1), 0.1), rtol=1e-6)
    np.testing.assert_allclose(
        w.grad.numpy(), -x1_data.sum(0).reshape(20, 1) / 10, rtol=1e-5, atol=1e-7
    )
