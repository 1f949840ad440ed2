"""Per-point semantics of many-point evaluation, op by op and on random programs.

The oracle is the single-point API called point by point (``api.evaluate``,
``api.gradient``, ...), which never meets a batching rule: ``api.points`` must
give each point exactly what that call gives there (up to rounding), or raise
where it raises. Programs come from the fuzzing strategies (``fuzzing.programs``),
whose inputs are drawn from each function's test domain; the other points of a
batch are small perturbations of the drawn one (which may sit on a kink).
"""

from __future__ import annotations

import os
import zlib

import numpy as np
import pytest
from complex_fuzzing import complex_programs
from fuzzing import MAKE_COMPLEX, programs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gradcli
from gradcli import api
from gradcli.engine import batching_rules as batching
from gradcli.engine import ops
from gradcli.engine.ops import FUNCTIONS, OPS
from gradcli.errors import GradcliError
from gradcli.language.check import ATTRIBUTES
from gradcli.language.evaluate_points import VARYING_MASK

pytestmark = [
    pytest.mark.filterwarnings("ignore::RuntimeWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
]

SINGLE = {
    "eval": api.evaluate,
    "grad": api.gradient,
    "jacobian": api.jacobian,
    "hessian": api.hessian,
    "vjp": api.vjp,
    "jvp": api.jvp,
}
POINTS = 3
RTOL, ATOL = 1e-9, 1e-12


# As in test_fuzz.py: GRADCLI_FUZZ_EXAMPLES=N draws N examples per test, afresh.
ON_DEMAND = int(os.environ.get("GRADCLI_FUZZ_EXAMPLES", "0"))


def examples(count):
    return settings(
        max_examples=ON_DEMAND or count,
        derandomize=not ON_DEMAND,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )


def batch_around(inputs: dict, seed: int) -> dict:
    """``POINTS`` points: the drawn one, then small relative perturbations of it. Masks
    and whole numbers (class indices, sizes) are the same at every point."""
    rng = np.random.default_rng(seed)
    batch = {}
    for name, value in inputs.items():
        value = np.asarray(value)
        rows = [value]
        for _ in range(POINTS - 1):
            fixed = value.dtype == bool or np.all(value == np.round(value))
            rows.append(value if fixed else value * (1 + 0.02 * rng.uniform(-1, 1, value.shape)))
        batch[name] = np.stack(rows)
    return batch


def options(command, source, batch):
    """grad_output (vjp) and tangents (jvp): fixed, of the shapes of the first point."""
    first = {name: rows[0] for name, rows in batch.items()}
    if command == "vjp":
        shape = api.evaluate(source, first).value.shape
        return {"grad_output": np.linspace(0.5, 1.5, int(np.prod(shape))).reshape(shape)}
    if command == "jvp":
        moved = {n: v for n, v in first.items() if np.asarray(v).dtype.kind in "fc"}
        return {"tangents": {n: np.full(np.shape(v), 0.75) for n, v in moved.items()}}
    return {}


def assert_points_agree(command: str, source: str, batch: dict, **kw):
    """api.points equals the single-point call at every point, or both raise."""
    single, failed = [], None
    for i in range(POINTS):
        at_point = {name: rows[i] for name, rows in batch.items()}
        try:
            single.append(SINGLE[command](source, at_point, **kw).arrays())
        except GradcliError:
            failed = i if failed is None else failed
    if failed is not None:
        with pytest.raises(GradcliError) as raised:
            api.points(command, source, batch=batch, **kw)
        assert getattr(raised.value, "row", failed) == failed, raised.value
        return
    try:
        result = api.points(command, source, batch=batch, **kw)
    except GradcliError as err:
        if err.message == VARYING_MASK:  # x[x > 0]: a shape of its own at each point
            return
        raise
    assert result.size == POINTS
    for i, one in enumerate(single):
        assert list(result.arrays) == list(one), (source, command)  # the same names, in order
        for key, expected in one.items():
            got = result.arrays[key][i]
            assert got.shape == expected.shape, (source, command, key, i)
            np.testing.assert_allclose(
                got, expected, rtol=RTOL, atol=ATOL, err_msg=f"{source}: {command} {key}[{i}]"
            )


def check_case(case, second: str):
    """Value, gradient (a vjp for a non-scalar value) and one of the other commands."""
    if not case.inputs:
        return
    batch = batch_around(case.inputs, zlib.crc32(case.source.encode()))
    assert_points_agree("eval", case.source, batch)
    try:
        shape = api.evaluate(case.source, {n: rows[0] for n, rows in batch.items()}).value.shape
    except GradcliError:
        return
    first = "grad" if int(np.prod(shape)) == 1 else "vjp"
    for command in (first, second):
        assert_points_agree(command, case.source, batch, **options(command, case.source, batch))


# ----------------------------------------------------------------------------
# The table
# ----------------------------------------------------------------------------


def test_every_language_function_has_a_batching_rule():
    missing = [name for name, entry in FUNCTIONS.items() if batching.rule_of(entry) is None]
    assert not missing


def test_every_op_the_language_writes_as_an_operator_has_a_batching_rule():
    # Its operators and attributes, and the ops of a subscript, an assignment to one, a
    # chained comparison and a list literal.
    written = [*ops.OPERATORS.values(), *(OPS[n] for n in ATTRIBUTES if n in OPS)]
    written += [ops.getitem.op, ops.setitem.op, ops.logical_and.op, ops.stack.op]
    missing = [entry.name for entry in written if batching.rule_of(entry) is None]
    assert not missing


def test_an_op_without_a_rule_says_that_many_point_evaluation_is_not_implemented():
    entry = OPS["allclose"]  # its kind's rule would not fit: it declares none
    assert batching.rule_of(entry) is None
    x = batching.Batched(gradcli.tensor(np.ones((2, 3))))
    with pytest.raises(GradcliError, match="many-point evaluation of allclose is not implemented"):
        batching.call(entry, x, x)


@pytest.mark.parametrize("name", sorted(set(FUNCTIONS) - MAKE_COMPLEX))
def test_each_function_at_many_points_equals_it_point_by_point(name):
    @examples(2)
    @given(programs(names=[name]), st.sampled_from(["jacobian", "hessian", "jvp"]))
    def check(case, second):
        check_case(case, second)

    check()


@examples(40)
@given(programs(), st.sampled_from(["jacobian", "hessian", "jvp", "vjp"]))
def test_random_programs_at_many_points_equal_them_point_by_point(case, second):
    check_case(case, second)


@examples(20)
@given(complex_programs(), st.sampled_from(["jacobian", "hessian", "jvp", "vjp"]))
def test_random_complex_programs_at_many_points_equal_them_point_by_point(case, second):
    check_case(case, second)


# ----------------------------------------------------------------------------
# Programs that reduce, index, assign into, stack and multiply matrices
# ----------------------------------------------------------------------------

RNG = np.random.default_rng(7)
A = 2 * np.eye(3) + RNG.uniform(-0.5, 0.5, (POINTS, 3, 3))
V = RNG.uniform(-1, 1, (POINTS, 3))
X = RNG.uniform(0.5, 1.5, POINTS)
Y = RNG.uniform(-1, 1, POINTS)

PROGRAMS = [
    ("sum(v)", {"v": V}),
    ("sum(A, dim=1, keepdim=True) * x", {"A": A, "x": X}),
    ("mean(A, -1) + amax(A, 0)", {"A": A}),
    ("max(A, dim=0)", {"A": A}),
    ("[x, y]", {"x": X, "y": Y}),
    ("[x * v[0], y + v[2]]", {"x": X, "y": Y, "v": V}),
    ("k = zeros(3); k[0] = x; k[2] = x * y; k", {"x": X, "y": Y}),
    ("k = v * 1; k[1:] = v[:2] * x; sum(k * k)", {"v": V, "x": X}),
    ("A @ v", {"A": A, "v": V}),
    ("v @ A @ v", {"A": A, "v": V}),
    ("A[1, :] @ v + A[:, 2] @ v", {"A": A, "v": V}),
    ("A[[0, 2], [1, 1]] * x", {"A": A, "x": X}),
    ("A.T @ v", {"A": A, "v": V}),
    ("sum(C[[0, 1], :, [1, 2]] ** 3) * x", {"C": RNG.uniform(-1, 1, (POINTS, 3, 2, 3)), "x": X}),
    ("x.shape * x + len(v) * x + numel(A) * sum(v)", {"x": X, "v": V, "A": A}),
    ("randn(3) * x + rand(3) * v", {"x": X, "v": V}),
    ("softmax(v) * x", {"v": V, "x": X}),
    ("det(A) * x + logdet(A) + trace(inverse(A))", {"A": A, "x": X}),
    ("solve(A, v)", {"A": A, "v": V}),
    ("stack([v, v * x], 1)", {"v": V, "x": X}),
    ("cat([v, [x, y]])", {"v": V, "x": X, "y": Y}),
    ("reshape(A, 9)[::4] * x", {"A": A, "x": X}),
    ("cross_entropy(v * x, [0.2, 0.3, 0.5])", {"v": V, "x": X}),
    ("cross_entropy(A * x, [0, 2, 1], [1, 2, 0.5], ignore_index=2)", {"A": A, "x": X}),
    (
        "cross_entropy(A, [0, 2, 1], label_smoothing=0.1) + cross_entropy(v, t)",
        {"A": A, "v": V, "t": np.array([0.0, 2.0, 1.0])},
    ),
    ("mse_loss(v, A[0], reduction='sum')", {"v": V, "A": A}),
    ("mse_loss(v * x, A[0], weight=A[1] * A[1])", {"v": V, "A": A, "x": X}),
    ("mse_loss(v, A[2], weight=ones_like(v) * 2)", {"v": V, "A": A}),
    (
        "binary_cross_entropy(sigmoid(v), sigmoid(A[0]), [1, 2, 0.5]) + "
        "binary_cross_entropy_with_logits(A * x, sigmoid(A), pos_weight=[1, 2, 3])",
        {"v": V, "A": A, "x": X},
    ),
]


@pytest.mark.parametrize("source, batch", PROGRAMS, ids=[s for s, _ in PROGRAMS])
def test_programs_at_many_points_equal_them_point_by_point(source, batch):
    first = {name: rows[0] for name, rows in batch.items()}
    scalar = api.evaluate(source, first).value.size == 1
    commands = ["eval", "jacobian", "jvp", *(["grad", "hessian"] if scalar else ["vjp"])]
    for command in commands:
        assert_points_agree(command, source, batch, **options(command, source, batch))


def test_the_jacobian_of_a_matrix_times_a_vector_is_each_points_matrix():
    r = api.points("jacobian", "A @ v", batch={"A": A, "v": V})
    np.testing.assert_array_equal(r.arrays["jacobian.v"], A)
    np.testing.assert_allclose(r.arrays["value"], np.einsum("bij,bj->bi", A, V), rtol=1e-14)


def test_random_draws_are_the_same_at_every_point_as_in_one_call_with_that_seed():
    r = api.points("eval", "randn(2) * x", batch={"x": [1.0, 2.0, -1.0]}, seed=5)
    drawn = api.evaluate("randn(2)", seed=5).value
    np.testing.assert_allclose(r.arrays["value"], np.outer([1.0, 2.0, -1.0], drawn), rtol=1e-15)


def test_the_hessian_at_each_point_by_hand():
    r = api.points("hessian", "x**2 * y**3", batch={"x": X, "y": Y})
    np.testing.assert_allclose(r.arrays["hessian.x.x"], 2 * Y**3, rtol=1e-13)
    np.testing.assert_allclose(r.arrays["hessian.x.y"], 6 * X * Y**2, rtol=1e-13)
    np.testing.assert_allclose(r.arrays["hessian.y.y"], 6 * X**2 * Y, rtol=1e-13)


def test_indexing_with_arrays_apart_has_pytorchs_jacobian_and_hessian():
    # NumPy puts the axes of x[[0, 1], :, [1, 2]] first, before any batch axes of a
    # gradient: the reverse pass with leading batch dimensions must follow.
    torch = pytest.importorskip("torch", reason="PyTorch 2.13 is the oracle here")
    c = RNG.uniform(-1, 1, (3, 2, 3))
    source = "sum(C[[0, 1], :, [1, 2]] ** 3)"
    ours = api.hessian(source, {"C": c})

    def f(t):
        return (t[[0, 1], :, [1, 2]] ** 3).sum()

    theirs = torch.autograd.functional.hessian(f, torch.tensor(c))
    np.testing.assert_allclose(ours.hessian["C"]["C"], theirs.numpy(), rtol=1e-12, atol=1e-15)
    jac = api.jacobian("C[[0, 1], :, [1, 2]]", {"C": c}).jacobian["C"]
    expected = torch.autograd.functional.jacobian(lambda t: t[[0, 1], :, [1, 2]], torch.tensor(c))
    np.testing.assert_array_equal(jac, expected.numpy())


# ----------------------------------------------------------------------------
# Errors
# ----------------------------------------------------------------------------


def test_a_singular_matrix_at_one_point_names_the_point():
    singular = A.copy()
    singular[1] = [[1, 2, 3], [2, 4, 6], [0, 1, 1]]
    for source, batch in [
        ("inverse(A)", {"A": singular}),
        ("solve(A, v)", {"A": singular, "v": V}),
    ]:
        with pytest.raises(GradcliError, match="at point 1") as raised:
            api.points("eval", source, batch=batch)
        assert raised.value.row == 1
        with pytest.raises(GradcliError) as alone:
            api.evaluate(source, {name: rows[1] for name, rows in batch.items()})
        assert raised.value.message.startswith(alone.value.message.rstrip("."))


def test_a_shape_error_is_the_single_point_error():
    batch = {"A": A, "v": V[:, :2]}
    with pytest.raises(GradcliError) as many:
        api.points("eval", "A @ v", batch=batch)
    with pytest.raises(GradcliError) as one:
        api.evaluate("A @ v", {"A": A[0], "v": V[0, :2]})
    assert many.value.message == one.value.message
    assert getattr(many.value, "row", None) is None


def test_a_dimension_past_the_points_own_is_an_error_not_the_batch_axis():
    with pytest.raises(GradcliError, match="Dimension out of range"):
        api.points("eval", "sum(v, -2)", batch={"v": V})


@pytest.mark.parametrize(
    "source, match",
    [
        ("v[i]", "index that varies from point to point"),
        ("zeros(n)", "varies from point to point"),
        ("v[v > 0]", "mask that varies from point to point"),
        ("sum(v, n)", "varies from point to point"),
    ],
)
def test_what_cannot_vary_from_point_to_point_is_a_clear_error(source, match):
    batch = {"v": V, "i": np.array([0.0, 1.0, 2.0]), "n": np.array([1.0, 0.0, 1.0])}
    with pytest.raises(GradcliError, match=match):
        used = {name: rows for name, rows in batch.items() if name in source.split("(")[-1]}
        api.points("eval", source, batch=used)


def test_grad_of_an_output_that_is_not_a_number_is_the_single_point_error():
    with pytest.raises(GradcliError, match="grad needs a scalar output"):
        api.points("grad", "v * 2", batch={"v": V})


def test_no_points_for_every_command():
    empty = {"A": np.zeros((0, 3, 3)), "v": np.zeros((0, 3))}
    for command, kw in [
        ("eval", {}),
        ("grad", {}),
        ("jacobian", {}),
        ("hessian", {}),
        ("vjp", {"grad_output": 1.0}),
        ("jvp", {"tangents": {"v": np.ones(3)}}),
    ]:
        r = api.points(command, "v @ A @ v", batch=empty, **kw)
        assert r.size == 0 and all(a.shape[0] == 0 for a in r.arrays.values())


def test_a_weighted_mse_loss_of_0_d_inputs_at_many_points_is_each_points():
    # mse_loss(x, y, weight=w) of 0-d x is w*(x - y)**2 / w = (x - y)**2 at each point,
    # and its derivative 2*(x - y) (by hand); the points' weights are not summed together.
    xs = np.array([0.2, 0.3, 0.5, 0.9])
    value = api.points("eval", "mse_loss(x, y, weight=2*ones_like(x))", {"y": -0.5}, {"x": xs})
    assert np.allclose(value.arrays["value"], (xs + 0.5) ** 2, rtol=1e-14, atol=0)
    source = "h = mse_loss(x, y, weight=ones_like(x))\ngrad(h, x)"
    derivative = api.points("eval", source, {"y": -0.5}, {"x": xs})
    assert np.allclose(derivative.arrays["value"], 2 * (xs + 0.5), rtol=1e-14, atol=0)
