"""Every case of the hand-written per-op list that the op-sample matrix replaced is a
sample of the matrix.

That list (305 calls of ops, with their input shapes and domains, each run through
gradcheck, gradgradcheck, PyTorch and forward mode) is kept as data in
``data/old_op_cases.json``: for each case, its inputs (domain and shape), the nodes it
recorded for the ops it was written for (op, PyTorch's grad_fn, the shapes of the
node's saved inputs), as one run of the list with a hook on the recorded nodes
(``graph.on_record``) wrote them, and the sample of the matrix (entry, sample name)
that stands for each node. That sample must exist and record the node: the same op and
overload on inputs of the same form (the same number of dimensions, with the axes of
size 1 and 0 in the same places: a (3, 2) input stands for a (2, 3) one, a (2, 1, 3)
one only for a broadcast of the same kind).
"""

from __future__ import annotations

import json
import pathlib
import warnings

import numpy as np
import pytest

import gradcli
from gradcli.engine import graph, ops

pytest.importorskip("torch", reason="the matrix's machinery imports PyTorch")

import op_matrix  # noqa: E402  (needs torch)

OLD_CASES = json.loads((pathlib.Path(__file__).parent / "data" / "old_op_cases.json").read_text())


def _form(shape):
    """A shape's form: its rank, and where it has axes of size 1 or 0."""
    if shape and isinstance(shape[0], list):  # the tensors of a list input (stack, cat)
        return tuple(_form(s) for s in shape)
    return "".join("1" if d == 1 else "0" if d == 0 else "n" for d in shape)


def _node(op, grad_fn, shapes):
    return op, grad_fn, tuple(_form(s) for s in shapes)


def _saved_shape(value):
    if isinstance(value, tuple):
        return [list(np.shape(v)) for v in value]
    return list(np.shape(value))


def _samples():
    by_name = {**ops.OPS, **ops.INTERNAL}
    named = {(case_op, name) for case in OLD_CASES for case_op, name in case["samples"]}
    found = {}
    for op, name in named:
        found[op, name] = next(
            (b for b in op_matrix.samples_of(by_name[op]) if b.name == name), None
        )
    return found


@pytest.fixture(scope="module")
def recorded_by_the_matrix():
    """The nodes each named sample records, run with inputs that require grad."""
    found = {}
    current = []

    def record(node):
        saved = [_saved_shape(v) for v in node.saved]
        found.setdefault(current[0], set()).add(_node(node.op.entry.name, node.op.grad_fn, saved))

    old = graph.on_record, gradcli.get_default_dtype()
    graph.on_record = record
    gradcli.set_default_dtype(gradcli.float64)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for key, built in _samples().items():
                if built is None:
                    continue
                current[:] = [key]
                f = op_matrix.Program(gradcli, built)
                f(*(gradcli.tensor(a, dtype=gradcli.float64, requires_grad=True)
                    for a in f.arrays()))  # fmt: skip
    finally:
        graph.on_record = old[0]
        gradcli.set_default_dtype(old[1])
    return found


def test_the_old_list_is_all_there():
    assert len(OLD_CASES) == 305
    assert all(case["nodes"] for case in OLD_CASES)


def test_every_old_case_is_a_sample_of_the_matrix(recorded_by_the_matrix):
    assert [key for key, built in _samples().items() if built is None] == []
    missing = [
        (case["case"], node, sample)
        for case in OLD_CASES
        for node, sample in zip(case["nodes"], case["samples"], strict=True)
        if _node(*node) not in recorded_by_the_matrix.get(tuple(sample), ())
    ]
    assert missing == []


def test_a_case_no_sample_makes_is_missing(recorded_by_the_matrix):
    # The check can fail: matmul of a 5-d batch and a vector is no sample's.
    recorded = set().union(*recorded_by_the_matrix.values())
    assert _node("matmul", "UnsafeViewBackward0", [[2, 2, 2, 2, 3], [3]]) not in recorded
    assert _node("matmul", "UnsafeViewBackward0", [[2, 2, 3], [3]]) in recorded
