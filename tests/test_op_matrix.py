"""The op-sample matrix: every entry of the op table × each of its samples × every
transformation, against PyTorch 2.13 in float64 (mpmath where PyTorch lacks the op).

Generated from the table (``opinfo.samples_of``, ``opinfo.TRANSFORMS``; the machinery
is ``op_matrix.py``): each case agrees at rtol 1e-9 with nan and inf in the same
places, or both raise (gradcli a ``GradcliError``), or it differs exactly where the
entry declares a difference (``differs=``): there it must differ, so a declaration
cannot outlive its cause. ``PENDING_FIXES`` lists the cases known to be wrong until
their fixes land; each is a strict xfail, so a fixed one fails until it is deleted.

CI runs a fixed subset (every entry, the samples in ``CI_SAMPLES``, every
transformation); ``GRADCLI_MATRIX=all python -m pytest tests/test_op_matrix.py``
runs the whole matrix. ``test_op_matrix_cli.py`` sends the samples through the command.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch 2.13 is the oracle of the op-sample matrix")

import op_matrix  # noqa: E402  (needs torch)

import gradcli  # noqa: E402
from gradcli.engine import opinfo, ops  # noqa: E402

pytestmark = [
    pytest.mark.usefixtures("float64"),
    pytest.mark.filterwarnings("ignore::RuntimeWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
]

WHOLE = os.environ.get("GRADCLI_MATRIX") == "all"
#: The samples CI runs of each entry (with every transformation).
CI_SAMPLES = {"2-d", "keywords", "0-d", "empty", "broadcast", "dim -1", "0-d dim -1", "at nan"}
CI_SAMPLES |= {"tensor min, number max"}  # a declared difference
CI_SAMPLES |= {"tails"}  # the normal distribution's, where its CDF underflows or its quantile grows

#: Cases known to be wrong, until their fixes land: (op, sample, transformation), "*" for
#: any. Each is a strict xfail: delete an entry once its fix is merged.
PENDING_FIXES: dict[tuple[str, str, str], str] = {}


def _pending(entry, sample, transform):
    for (op, at, transforms), reason in PENDING_FIXES.items():
        if op == entry and at in (sample, "*") and transform in transforms.split():
            return reason
    return None


#: Every entry with samples: the public ones against their reference and finite
#: differences, the internal ones (only rules call them) against finite differences and,
#: where aten has them, PyTorch.
ENTRIES = [
    e for e in (*ops.OPS.values(), *ops.INTERNAL.values())
    if (op_matrix.has_reference(e) or e.internal) and op_matrix.samples_of(e)
]  # fmt: skip
CASES = list(op_matrix.all_cases(ENTRIES))


#: The entries none of whose samples is in CI_SAMPLES (the kinds listed op by op, with a
#: few samples each): CI runs all of theirs.
ALL_SAMPLES = {
    e.name for e in ENTRIES if not {b.name for b in op_matrix.samples_of(e)} & CI_SAMPLES
} | {e.name for e in ENTRIES if e.kind in opinfo.LISTED}


#: The sample of each entry CI differentiates by finite differences: its first (the
#: others' derivatives are PyTorch's to check), and every sample of an entry with no
#: reference but the differences (the internal ops).
FIRST_DIFFERENCED = {}
for _entry, _built, _transform in CASES:
    if _transform in op_matrix.FINITE_DIFFERENCES:
        FIRST_DIFFERENCED.setdefault(_entry.name, _built.name)


#: What CI runs of an op that records no node of its own (a composite: ``cross``,
#: ``mse_loss``): its value and its first and second derivatives, which check how it
#: composes its parts; the parts' rules are checked in every transformation on their own.
COMPOSITE_TRANSFORMS = ("value", "grad", "grad2")


def _chosen(case):
    entry, built, transform = case
    if WHOLE:
        return True
    if transform in op_matrix.FINITE_DIFFERENCES and op_matrix.has_reference(entry):
        return FIRST_DIFFERENCED[entry.name] == built.name
    composite = not entry.differentiable and entry.name not in op_matrix.MPMATH
    if composite and transform not in (*COMPOSITE_TRANSFORMS, *op_matrix.FINITE_DIFFERENCES):
        return False
    return built.name in CI_SAMPLES or entry.name in ALL_SAMPLES


def _param(case):
    entry, built, transform = case
    reason = _pending(entry.name, built.name, transform)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(
        entry, built, transform, marks=marks, id=f"{entry.name}-{built.name}-{transform}"
    )


@pytest.mark.parametrize("entry, built, transform", [_param(c) for c in CASES if _chosen(c)])
def test_each_op_sample_and_transformation_agrees_with_the_reference(entry, built, transform):
    if transform in op_matrix.FINITE_DIFFERENCES:
        try:
            why = op_matrix.finite_difference_check(built, transform)
        except op_matrix.NoReference as reason:
            pytest.skip(str(reason))
        assert why is None, why
        return
    try:
        outcome, detail = op_matrix.compare(built, transform)
    except op_matrix.NoReference as why:
        pytest.skip(str(why))
    declared = opinfo.differences(entry, built.name, transform)
    if declared:
        assert outcome == "differ", f"{entry.name} declares {declared[0]} but agrees here"
    else:
        assert outcome in ("agree", "both raise"), detail


def test_every_pending_fix_names_a_case_of_the_matrix():
    names = {(e.name, b.name, t) for e, b, t in CASES}
    for op, sample, transforms in PENDING_FIXES:
        for transform in set(transforms.split()) - {"command"}:  # test_op_matrix_cli.py's
            found = [n for n in names if n[0] == op and sample in ("*", n[1]) and n[2] == transform]
            assert found, (op, sample, transform)


def test_every_declared_difference_names_cases_of_the_matrix():
    for entry in ops.OPS.values():
        for d in entry.differs:
            assert d.where and d.what and d.why, entry.name
            assert set(d.transforms) <= set(opinfo.TRANSFORMS), entry.name
            names = {b.name for b in opinfo.samples_of(entry)}
            assert set(d.samples) <= names, (entry.name, set(d.samples) - names)


def test_every_entry_of_the_table_is_in_the_matrix():
    # No silent gaps: every public op has samples and a reference, every internal one
    # (the rules' helpers) samples of its own, checked against finite differences.
    assert all(opinfo.samples_of(e) for e in ops.OPS.values())
    assert all(op_matrix.samples_of(e) for e in ops.INTERNAL.values())
    everything = set(ops.OPS) | set(ops.INTERNAL)
    assert {e.name for e in ENTRIES} == everything
    assert {e.name for e, _, _ in CASES} == everything
    differenced = {e.name for e, _, t in CASES if t in op_matrix.FINITE_DIFFERENCES}
    assert set(ops.INTERNAL) <= differenced


def test_every_function_of_a_kind_with_samples_has_them():
    for entry in ops.FUNCTIONS.values():
        if entry.kind in opinfo.BY_KIND and entry.schema.n_inputs:
            assert opinfo.samples_of(entry), f"{entry.name} has no samples"


def test_the_kinds_samples_cover_the_shapes_and_special_points():
    for name, expected in {
        "sin": {"0-d", "one element", "empty", "keywords", "at 0", "at -0", "at nan"},
        "pow": {"broadcast", "number other", "at 0 (input)", "scale 1e+300", "scale 1e-300"},
        "sum": {"dim -1", "dim 0", "dims", "0-d dim 0"},
        "hypot": {"at origin"},
        "gamma": {"at -1", "at -2"},
        "leaky_relu": {"at 0", "positional", "keywords"},
    }.items():
        names = {b.name for b in opinfo.samples_of(ops.OPS[name])}
        assert expected <= names, (name, expected - names)


def test_every_parameter_of_every_op_is_accepted_by_keyword():
    # By keyword, each sample's call gives what it gives by position.
    checked = 0
    for entry in ENTRIES:
        for built in opinfo.samples_of(entry):
            if built.sample.keywords or built.sample.special:
                continue
            by_keyword = opinfo.Sample(
                built.name, built.sample.inputs, built.sample.params, keywords=True
            )
            twin = opinfo.Built(entry, by_keyword, built.values)
            values = []
            for b in (built, twin):
                try:
                    values.append(op_matrix.run(gradcli, b, "value"))
                except Exception as err:  # noqa: BLE001  (the same error either way)
                    values.append(type(err))
            assert type(values[0]) is type(values[1]), (entry.name, built.name, values)
            if isinstance(values[0], tuple):
                assert op_matrix.disagreement(values[0], values[1], 0.0) is None, (
                    entry.name,
                    built.name,
                )
            else:
                assert values[0] == values[1], (entry.name, built.name)
            checked += 1
    assert checked > len(ENTRIES)


def test_the_matrix_counts_its_cases():
    # The counts the report quotes: the whole matrix, and the subset CI runs.
    chosen = [c for c in CASES if _chosen(c)]
    assert len({c[0].name for c in chosen}) == len(ENTRIES)
    assert len(CASES) > 5000 and len(chosen) > 2000
    transforms = (*opinfo.TRANSFORMS, *op_matrix.FINITE_DIFFERENCES)
    assert np.unique([t for *_, t in chosen]).tolist() == sorted(transforms)


def test_xlogy_jacobian_rows_stay_zero_off_their_entry_beside_a_negative_y():
    # d xlogy(x, y)/dx is xlogy(g, y): a zero cotangent gives 0 even where log(y) is nan
    # (it was g * log(y): nan in every row of the Jacobian's column).
    x, y = np.array([0.27, -0.46, -0.91]), np.array([0.38, 0.02, -0.2])
    ours = gradcli.autograd.functional.jacobian(
        lambda a: gradcli.xlogy(a, gradcli.tensor(y)), gradcli.tensor(x)
    )
    theirs = torch.autograd.functional.jacobian(
        lambda a: torch.xlogy(a, torch.tensor(y)), torch.tensor(x)
    )
    assert op_matrix.disagreement((ours.numpy(),), (theirs.numpy(),)) is None
    assert np.isnan(ours.numpy()).sum() == 1


@pytest.mark.parametrize(
    "call",
    [lambda m, x: m.transpose(x, 0, -1) * 2, lambda m, x: m.flip(x, [0]) + 1],
    ids=["transpose", "flip"],
)
def test_many_points_of_a_0d_transpose_or_flip_are_the_identity_at_each(call):
    # At each point x is 0-d, where dims 0 and -1 name no axis (it was "dim 1 out of range").
    points = np.array([0.5, -1.5, 2.0])
    ours = gradcli.func.vmap(lambda x: call(gradcli, x))(gradcli.tensor(points)).numpy()
    theirs = np.array([call(torch, torch.tensor(p)).item() for p in points])  # point by point
    assert np.array_equal(ours, theirs)


#: Where gradcli records another grad_fn than PyTorch (found by the test below, left to
#: their fixes): each must still differ, so an entry is deleted once its fix lands.
GRAD_FN_DIFFERENCES = {
    ("round", "keywords"): "RoundBackward0 for RoundBackward1 (round with decimals)",
    ("round", "positional"): "RoundBackward0 for RoundBackward1",
    ("max", "0-d dim 0"): "MaxBackward1 for MaxBackward0 (max(x, dim) of a 0-d x)",
    ("max", "0-d dim -1"): "MaxBackward1 for MaxBackward0",
    ("min", "0-d dim 0"): "MinBackward1 for MinBackward0",
    ("min", "0-d dim -1"): "MinBackward1 for MinBackward0",
    ("sort", "0-d dim 0"): "CloneBackward0 for SortBackward0 (sort of a 0-d x)",
    ("sort", "0-d dim -1"): "CloneBackward0 for SortBackward0",
}


def _recorded(m, built):
    f = op_matrix.Program(m, built)
    out = f(*f.point())
    node = out.grad_fn
    name = None if node is None else node.name().removeprefix("torch::autograd::")
    return name, out.requires_grad, out.is_leaf


def test_each_op_sample_records_pytorchs_grad_fn():
    # The node each sample records, as PyTorch names it, and the result's flags, for the
    # ops called by PyTorch's own function of the same name: CI their first sample,
    # GRADCLI_MATRIX=all every sample.
    differ, checked = {}, set()
    for entry in ENTRIES:
        if entry.internal or entry.name in op_matrix.REFERENCES or entry.name in op_matrix.MPMATH:
            continue
        for built in op_matrix.samples_of(entry):
            if built.sample.special or not _chosen((entry, built, "value")):
                continue
            if not WHOLE and any(name == entry.name for name, _ in checked):
                break  # CI: the first sample of each op
            try:
                ours, theirs = _recorded(gradcli, built), _recorded(torch, built)
            except Exception:  # noqa: BLE001,S112  (raising is the value transform's to check)
                continue
            checked.add((entry.name, built.name))
            if ours != theirs:
                differ[entry.name, built.name] = (ours, theirs)
    assert len(checked) > 200
    assert set(differ) == set(GRAD_FN_DIFFERENCES) & checked, differ
