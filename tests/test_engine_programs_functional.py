"""The smaller parts of PyTorch's API that tutorials call, run on PyTorch 2.13 and on gradcli.

As ``test_engine_programs.py`` (whose runner these use): each program says
``torch``, runs once with PyTorch and once with gradcli bound to that name, and
must print the same, character for character: values, gradients and grad_fn
names. These cover ``F.linear``, ``F.one_hot``, ``F.normalize``, ``F.pad``,
``F.dropout``, the Huber, smooth L1 and KL losses, ``index_add_``, the in-place
activations (``F.relu_``, ``inplace=True``: PyTorch's ``...Backward1`` nodes), the
anomaly switches, the grad mode objects' reprs and ``torch.linalg`` as a module.
"""

from __future__ import annotations

import re

import pytest
from test_engine_programs import run

import gradcli

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
)
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

PROGRAMS = {}


def program(source):
    PROGRAMS[re.search(r"#\s*(\w+)", source).group(1)] = source


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_prints_what_torch_prints(name):
    theirs = run(PROGRAMS[name], torch)
    ours = run(PROGRAMS[name], gradcli)
    assert ours == theirs
