"""The entries' input domains (``Op.domain``: one name per input, and a dict of keyword
arguments where the op needs some): every elementwise and binary function declares
one, each names a domain of ``opinfo.DOMAINS``, and the helpers that draw an entry's
inputs from it (for ``test_keyword_arguments.py`` and ``test_forward_ad.py``). The
gradcheck and gradgradcheck of every entry on its samples, drawn from these domains,
are the op-sample matrix's (``test_op_matrix.py``).
"""

from __future__ import annotations

import zlib

import numpy as np

import gradcli
from gradcli.engine import ops
from gradcli.engine.opinfo import DOMAINS  # the domains the entries name

SWEPT = [entry for entry in ops.OPS.values() if entry.domain]


def _inputs(entry):
    rng = np.random.default_rng(zlib.crc32(entry.name.encode()))
    shape = (3, 3) if entry.kind == "linalg" else (2, 3)
    arrays = [DOMAINS[d](rng, shape) for d in entry.domain if isinstance(d, str)]
    return [
        gradcli.tensor(a) if a.dtype == bool else gradcli.tensor(a, requires_grad=True)
        for a in arrays
    ]


def _keywords(entry):
    return next((d for d in entry.domain if isinstance(d, dict)), {})


def _function(entry, inputs):
    """The entry's function of the inputs that require grad (masks held fixed)."""
    differentiable = [i for i, t in enumerate(inputs) if t.requires_grad]

    def f(*xs):
        args = list(inputs)
        for i, x in zip(differentiable, xs):
            args[i] = x
        return entry.call(*args, **_keywords(entry))

    return f, tuple(inputs[i] for i in differentiable)


def test_the_sweep_covers_the_elementwise_and_binary_entries():
    swept = {e.name for e in SWEPT}
    for entry in ops.OPS.values():
        if entry.kind in ("elementwise", "binary") and entry.differentiable and entry.function:
            assert entry.name in swept, f"{entry.name} declares no domain"
    assert all(d in DOMAINS for e in SWEPT for d in e.domain if isinstance(d, str))
