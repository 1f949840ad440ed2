"""The worked example of docs/architecture.md's "How to add an op": an op declared with
the table's API, with no test of its own, is checked by the op-sample matrix's
machinery on the samples of its kind, and a wrong rule is caught.
"""

from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine.optable import Table

pytest.importorskip("torch", reason="the matrix's machinery imports PyTorch")

import op_matrix  # noqa: E402  (needs torch)


def _cube(rule):
    """``cube(x) = x**3``, declared as an entry of ``ops/elementwise.py`` is, with ``rule``."""
    table = Table("example")
    table.op(
        "cube", lambda x: np.power(x, 3), "(input: Tensor)", grad_fn="PowBackward0",
        rules=(rule,), doc="x cubed", kind="elementwise", domain=("real",),
    )  # fmt: skip
    return table.entries[0]


def _disagreements(entry):
    found = []
    for built in op_matrix.samples_of(entry):  # its kind's: 0-d, empty, 1-d, keywords...
        for transform in op_matrix.FINITE_DIFFERENCES:
            if not op_matrix.differentiates(entry) or not op_matrix._by_differences(built):
                continue
            why = op_matrix.finite_difference_check(built, transform)
            if why:
                found.append((built.name, transform, why))
    return found


def test_a_new_op_is_checked_on_its_kinds_samples_with_no_list_to_update():
    cube = _cube(lambda g, ans, x: g * 3 * x * x)
    names = {b.name for b in op_matrix.samples_of(cube)}
    assert {"2-d", "0-d", "1-d", "keywords", "at 0", "at nan"} <= names
    assert _disagreements(cube) == []


def _constant(x):
    # x cut from the graph: a rule not written in differentiable ops.
    return x.detach() if hasattr(x, "detach") else x


def test_a_wrong_rule_is_caught_by_the_finite_differences():
    wrong = _cube(lambda g, ans, x: g * 2 * x * x)  # d x**3/dx is 3 x**2, not 2 x**2
    assert {t for _, t, _ in _disagreements(wrong)} == {"gradcheck"}
    # Right first derivatives, but a rule the graph cannot differentiate: second ones wrong.
    cut = _cube(lambda g, ans, x: g * 3 * _constant(x) ** 2)
    assert {t for _, t, _ in _disagreements(cut)} == {"gradgradcheck"}
