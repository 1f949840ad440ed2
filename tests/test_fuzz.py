"""Differential fuzzing: random programs on gradcli and on PyTorch 2.13, and random text
through the real command.

Every random program (``fuzzing.programs``) runs through the library API and,
node by node, on PyTorch (``torch_program.TorchProgram``), in float64: both raise,
or both give the same value and the same gradient (a vector-Jacobian product for
a non-scalar output), and for a sample of programs the same Jacobian, Hessian
and Jacobian-vector product, at rtol 1e-9 with nan and inf in the same places.
Programs that differentiate themselves (``fuzzing.derivative_programs``) are checked
the same way, and at two points at once against each point alone.
The same programs, and near misses and garbage text (``fuzzing.near_misses``),
run through the ``gradcli`` command, which ends every one with exit 0, 2 or 3
and never a traceback.

These tests are marked ``fuzz``. The normal run (and CI) takes a fixed budget of
examples; ``GRADCLI_FUZZ_EXAMPLES=N python -m pytest -m fuzz --hypothesis-seed=S``
runs N examples per test from seed S, to hunt for more.
"""

from __future__ import annotations

import os
import subprocess

import numpy as np
import pytest
from click.testing import CliRunner
from complex_fuzzing import binding_text as complex_binding_text
from complex_fuzzing import complex_programs
from fuzzing import (
    LAYERS,
    FuzzProgram,
    accepts_more,
    binding_text,
    declared_differences,
    derivative_programs,
    near_misses,
    ode_oracle,
    ode_programs,
    oracle_rtol,
    programs,
    transformation_programs,
)
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gradcli import api
from gradcli.cli import cli
from gradcli.engine.ops import FUNCTIONS
from gradcli.errors import GradcliError
from gradcli.language import ir
from gradcli.language.check import builtin_signature
from gradcli.language.printing import to_source

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the oracle of the fuzz tests; install torch==2.13.0"
)
from test_op_matrix import PENDING_FIXES  # noqa: E402  (needs torch)
from torch_program import TorchProgram  # noqa: E402  (needs torch)

pytestmark = [
    pytest.mark.fuzz,
    pytest.mark.usefixtures("float64"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
    pytest.mark.filterwarnings("ignore::RuntimeWarning"),
]

# On demand, many examples from a chosen seed; by default a fixed budget on fixed examples.
ON_DEMAND = int(os.environ.get("GRADCLI_FUZZ_EXAMPLES", "0"))


def fuzz_settings(examples: int):
    return settings(
        max_examples=ON_DEMAND or examples,
        derandomize=not ON_DEMAND,
        deadline=None,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.filter_too_much,
            HealthCheck.function_scoped_fixture,
        ],
        database=None,
    )


RTOL = 1e-9
SIGNATURES = {
    name: (*builtin_signature(name).positional, *filter(None, [builtin_signature(name).variadic]))
    for name in FUNCTIONS
}


# ----------------------------------------------------------------------------
# Comparing two results
# ----------------------------------------------------------------------------


def assert_agree(ours, theirs, what: str, case: FuzzProgram, rtol: float = RTOL):
    ours = np.asarray(ours, dtype=float)
    # force: PyTorch gives an unused input's gradient as a ZeroTensor, which asks for it.
    theirs = np.asarray(
        theirs.detach().numpy(force=True) if hasattr(theirs, "detach") else theirs, float
    )
    context = f"{what} of {case.source!r} at {case.inputs}"
    assert ours.shape == theirs.shape, f"shape {ours.shape} != {theirs.shape}: {context}"
    assert np.array_equal(np.isnan(ours), np.isnan(theirs)), f"nan differs: {context}"
    finite = np.isfinite(theirs)
    infinite = np.isinf(theirs)
    assert np.array_equal(np.isinf(ours), infinite), f"inf differs: {ours} != {theirs}: {context}"
    assert np.array_equal(ours[infinite], theirs[infinite]), f"inf sign: {context}"
    # Relative to the array's scale: entries that cancel to nearly 0 keep their absolute error.
    scale = float(np.max(np.abs(theirs[finite]), initial=1.0))
    np.testing.assert_allclose(
        ours[finite], theirs[finite], rtol=rtol, atol=rtol * scale, err_msg=context
    )


def _leaves(case):
    return {
        name: torch.tensor(value, dtype=torch.float64, requires_grad=True)
        for name, value in case.inputs.items()
    }


def _grad_output(shape):
    size = int(np.prod(shape))
    return np.linspace(-1.0, 1.5, size).reshape(shape) if size else np.zeros(shape)


def _torch_gradients(program, leaves, v):
    out = program.run(leaves)
    names = list(leaves)
    if not out.requires_grad:
        return {n: torch.zeros_like(leaves[n]) for n in names}
    found = torch.autograd.grad(
        out, [leaves[n] for n in names], torch.tensor(v), allow_unused=True, materialize_grads=True
    )
    return dict(zip(names, found))


def _function_of(program, names):
    return lambda *tensors: program.run(dict(zip(names, tensors)))


def _second_order_differs(name):
    """Whether the function's second derivatives at kinks differ from PyTorch's: by its
    entry's declaration, or until a pending fix of the op-sample matrix lands."""
    second = {"grad2", "jvp", "hessian"}
    pending = {t for (op, _, ts) in PENDING_FIXES if op == name for t in ts.split()}
    return bool((declared_differences(name) | pending) & second)


#: Functions whose kinks hold a case of the matrix's pending fixes, gamma and factorial,
#: whose reference here (exp(lgamma) with a sign) has no poles, and cbrt:
#: their programs on a kink are not compared.
NOT_AT_KINKS = {op for (op, sample, _) in PENDING_FIXES if sample.startswith("at ")}
NOT_AT_KINKS |= {"gamma", "factorial", "polygamma"}  # polygamma(0, x) is digamma
# cbrt's reference, sign(x) * |x| ** (1/3), gives nan at 0 where the slope is inf (gradcli's;
# the matrix checks cbrt against mpmath).
NOT_AT_KINKS |= {"cbrt"}
# And those that declare a first-order difference on a special point (digamma at a pole).
NOT_AT_KINKS |= {
    name
    for name, entry in FUNCTIONS.items()
    for d in entry.differs
    if "grad" in d.transforms and any(s.startswith("at ") for s in d.samples)
}


def _order(a, b):
    return np.sign(a - b)


def _quotient(a, b):
    return np.floor(a / b)


def _jumps(program):
    """The operands of each jump of the program's own statements: ``a < b`` (at a == b),
    ``a % b`` and ``a // b`` (where a / b is an integer); with the statements before it."""
    for k, statement in enumerate(program.statements):
        if isinstance(statement, ir.FuncDef):
            continue  # its operands are its parameters'
        for node in ir.walk(statement):
            if isinstance(node, ir.Compare):
                operands = (node.first, *node.rest)
                yield from ((k, a, b, _order) for a, b in zip(operands, operands[1:]))
            elif isinstance(node, ir.Chain):
                operands = (node.first, *node.rest)
                for op, a, b in zip(node.ops, operands, operands[1:]):
                    if op in ("remainder", "floor_divide") and op == node.ops[0]:
                        yield k, a, b, _quotient


def _side_of_a_jump(case):
    """Which jump, if any, the two libraries' values fall on either side of while they
    agree (at RTOL): each result is right for its own last bit (NumPy sums float64 in
    another order than PyTorch: a sum that cancels to 0 is 0 in one and 4e-16 in the other)."""
    for k, a, b, side in _jumps(case.program):
        values = []
        for operand in (a, b):
            head = FuzzProgram(case.function, ir.Program((*case.program.statements[:k], operand)),
                               case.inputs, case.on_kink)  # fmt: skip
            used = {n.id for n in ir.walk(head.program) if isinstance(n, ir.Name)}
            inputs = {name: v for name, v in case.inputs.items() if name in used}
            try:
                ours = np.asarray(api.evaluate(head.source, inputs).value, float)
                theirs = TorchProgram(head.program, SIGNATURES).run(
                    {n: torch.tensor(v, dtype=torch.float64) for n, v in inputs.items()}
                )
                assert_agree(ours, theirs, "an operand", head)
            except Exception:  # noqa: BLE001  (an operand neither computes alike excuses nothing)
                break
            values.append((ours, theirs.detach().numpy()))
        else:
            (a_ours, a_theirs), (b_ours, b_theirs) = values
            with np.errstate(all="ignore"):
                ours, theirs = side(a_ours, b_ours), side(a_theirs, b_theirs)
            if not np.array_equal(*np.broadcast_arrays(ours, theirs), equal_nan=True):
                return to_source(ir.Program((a,))) + " against " + to_source(ir.Program((b,)))
    return None


def check_against_torch(case: FuzzProgram, sample: int):
    """Both raise, or both agree: the value, the gradient or vjp, and by ``sample`` the
    Jacobian, the Hessian and a jvp. Where they differ because their values agree but fall
    on either side of one of the program's jumps (``_side_of_a_jump``), neither is wrong."""
    try:
        return _check_against_torch(case, sample)
    except AssertionError:
        jump = _side_of_a_jump(case)
        if jump is None:
            raise
        return f"either side of a jump: {jump}"


def _check_against_torch(case: FuzzProgram, sample: int):
    if case.on_kink and case.function in NOT_AT_KINKS:
        return "a pending fix"
    program = TorchProgram(case.program, SIGNATURES)
    bindings = dict(case.inputs)
    # Looser where PyTorch is the less accurate (digamma's derivative, its trigamma).
    rtol = max(RTOL, oracle_rtol(case.function) or RTOL)
    try:
        expected = program.run(_leaves(case))
    except Exception as torch_error:  # noqa: BLE001  (any error PyTorch raises)
        if isinstance(torch_error, TypeError) and accepts_more(case.function):
            return "a declared difference: gradcli accepts the call"  # clamp(x, y, 0.5)...
        with pytest.raises(GradcliError):
            api.evaluate(case.source, bindings)
        return f"both raise: {type(torch_error).__name__}"
    ours = api.evaluate(case.source, bindings)
    assert_agree(ours.value, expected, "the value", case, rtol)
    if not case.inputs or not expected.is_floating_point():
        return "value"
    # Every input, as PyTorch's materialized gradients: left to itself gradcli leaves out
    # an input used only where no derivative exists (argmax's), where PyTorch gives zeros.
    names = list(case.inputs)
    scalar = expected.ndim == 0
    v = np.ones(()) if scalar else _grad_output(tuple(expected.shape))
    theirs = _torch_gradients(program, _leaves(case), v)
    if scalar:
        result = api.gradient(case.source, bindings, wrt=names)
        for name in names:
            assert_agree(result.grad[name], theirs[name], f"grad {name}", case, rtol)
    else:
        result = api.vjp(case.source, bindings, grad_output=v, wrt=names)
        for name in names:
            assert_agree(result.vjp[name], theirs[name], f"vjp {name}", case, rtol)
    point = tuple(torch.tensor(case.inputs[n], dtype=torch.float64) for n in names)
    f = _function_of(program, names)
    # A declared second-order difference holds at a kink, drawn as one or met by chance:
    # var of one entry is such a point (its value nan or inf), drawn as any other.
    off_the_line = case.on_kink or not bool(torch.isfinite(expected).all())
    second_order_known = (
        off_the_line and case.function in FUNCTIONS and _second_order_differs(case.function)
    )
    if sample == 0 and expected.numel() > 0:  # PyTorch's jacobian fails on empty outputs
        jac = torch.autograd.functional.jacobian(f, point)
        ours = api.jacobian(case.source, bindings, wrt=names)
        for name, block in zip(names, jac):
            assert_agree(ours.jacobian[name], block, f"jacobian {name}", case, rtol)
    elif sample == 1 and scalar and not second_order_known:
        hess = torch.autograd.functional.hessian(f, point)
        ours = api.hessian(case.source, bindings, wrt=names)
        for name, row in zip(names, hess):
            for other, block in zip(names, row):
                assert_agree(
                    ours.hessian[name][other], block, f"hessian {name},{other}", case, rtol
                )
    elif sample == 2 and not second_order_known:  # jvp is a double backward, as in PyTorch
        tangents = tuple(torch.tensor(_grad_output(p.shape)) for p in point)
        _, product = torch.autograd.functional.jvp(f, point, tangents)
        given_tangents = {n: t.numpy() for n, t in zip(names, tangents)}
        ours = api.jvp(case.source, bindings, tangents=given_tangents)
        if case.function in FUNCTIONS and "jvp" in declared_differences(case.function):
            # Its declared difference (std at zero variance): PyTorch's double-backward jvp
            # is nan where gradcli's tangent is 0, as its gradient.
            theirs = product.detach().numpy()
            declared = np.isnan(theirs) & (np.asarray(ours.jvp, float) == 0)
            product = torch.tensor(np.where(declared, 0.0, theirs))
        assert_agree(ours.jvp, product, "jvp", case, rtol)
    return "agree"


# ----------------------------------------------------------------------------
# The tests
# ----------------------------------------------------------------------------


def test_every_parameter_has_a_strategy():
    """Every function of the op table is fuzzed: drawing one call of each never meets
    a parameter the strategies do not know."""
    from fuzzing import call_of

    for name in FUNCTIONS:

        @settings(max_examples=5, derandomize=True, database=None, deadline=None)
        @given(call_of(name))
        def draw(call):
            expression, inputs, _ = call
            assert inputs["x"].dtype == float

        draw()


def test_the_kinks_come_from_the_entries():
    from fuzzing import KINKS

    # Once missing from a hand list: now each entry's kink_at names its points.
    assert {"hypot", "cbrt", "gamma", "elu", "leaky_relu", "abs", "atan2"} <= set(KINKS)
    assert KINKS["gamma"] == (0.0, -1.0, -2.0) and KINKS["hypot"] == ("origin",)


@fuzz_settings(400)
@given(programs(), st.integers(0, 3))
def test_random_programs_agree_with_pytorch(case, sample):
    check_against_torch(case, sample)


@fuzz_settings(60)
@given(programs(control=True), st.integers(0, 3))
def test_random_programs_with_loops_and_conditions_agree_with_pytorch(case, sample):
    check_against_torch(case, sample)


@fuzz_settings(40)
@given(programs(names=sorted(LAYERS)), st.integers(0, 3))
def test_random_programs_of_the_layers_agree_with_pytorch(case, sample):
    # The layers have many parameters whose sizes must fit: a share of the budget of
    # their own, for the random programs of every function draw each only now and then.
    check_against_torch(case, sample)


def _kinked(name):
    from fuzzing import KINKS

    return sorted(KINKS)


@fuzz_settings(200)
@given(programs(names=_kinked(None)), st.integers(0, 3))
def test_random_programs_at_kinks_agree_with_pytorch(case, sample):
    check_against_torch(case, sample)


def _smooth(name):
    """The functions whose second derivatives agree with PyTorch's everywhere (none
    declared to differ): derivatives inside programs differentiate once more."""
    second = {"grad", "grad2", "jvp", "hessian", "jacobian"}
    return sorted(n for n in FUNCTIONS if not declared_differences(n) & second)


def _as_real(array):
    """A complex array as its parts along a last axis (``assert_agree`` compares floats)."""
    if hasattr(array, "detach"):
        array = array.detach().resolve_conj().numpy()
    array = np.asarray(array)
    return np.stack([array.real, array.imag], -1) if array.dtype.kind == "c" else array


def _dtype(array):
    if hasattr(array, "detach"):
        array = array.detach().resolve_conj().numpy()
    return np.asarray(array).dtype


def check_complex_against_torch(case: FuzzProgram):
    """A complex program on gradcli (its inputs bound as text, ``--z 1+2j``) and on
    PyTorch in complex128: both raise, or the same value, dtype and gradient (of a real
    scalar) or vector-Jacobian product (with a complex cotangent for a complex output)."""
    program = TorchProgram(case.program, SIGNATURES)
    bindings = {name: complex_binding_text(v) for name, v in case.inputs.items()}
    names = list(case.inputs)

    def leaves():
        return {n: torch.tensor(v, requires_grad=True) for n, v in case.inputs.items()}

    try:
        expected = program.run(leaves())
    except Exception as torch_error:  # noqa: BLE001  (any error PyTorch raises)
        if isinstance(torch_error, TypeError) and accepts_more(case.function):
            return "a declared difference: gradcli accepts the call"
        with pytest.raises(GradcliError):
            api.evaluate(case.source, bindings)
        return f"both raise: {type(torch_error).__name__}"
    ours = api.evaluate(case.source, bindings)
    assert ours.value.dtype == _dtype(expected), case.source
    assert_agree(_as_real(ours.value), _as_real(expected), "the value", case)
    if not expected.requires_grad:
        return "value"
    tensors = leaves()
    out = program.run(tensors)
    if out.ndim == 0 and not out.is_complex():
        found = torch.autograd.grad(out, list(tensors.values()), allow_unused=True,
                                    materialize_grads=True)  # fmt: skip
        result = api.gradient(case.source, bindings, wrt=names).grad
    else:
        v = _grad_output(tuple(out.shape))
        if out.is_complex():  # a complex cotangent: both parts of the output weighted
            v = v + 1j * np.flip(v) - 0.5j
        found = torch.autograd.grad(out, list(tensors.values()), torch.tensor(v),
                                    allow_unused=True, materialize_grads=True)  # fmt: skip
        result = api.vjp(case.source, bindings, grad_output=v, wrt=names).vjp
    for name, theirs in zip(names, found):
        assert_agree(_as_real(result[name]), _as_real(theirs), f"grad {name}", case)
    return "agree"


@fuzz_settings(150)
@given(complex_programs())
def test_random_complex_programs_agree_with_pytorch(case):
    check_complex_against_torch(case)


@fuzz_settings(60)
@given(derivative_programs(names=_smooth(None)), st.integers(0, 3))
def test_random_derivatives_inside_programs_agree_with_pytorch(case, sample):
    """grad(F, x), jacobian(F, x), hessian(F, x) of random programs: the value, its
    gradient (one order more) and by ``sample`` its Jacobian, Hessian or jvp."""
    check_against_torch(case, sample)


@fuzz_settings(40)
@given(derivative_programs(names=_smooth(None)), st.sampled_from(["eval", "jacobian"]))
def test_random_derivatives_inside_programs_at_many_points_are_each_points(case, command):
    """At two points at once, each point's value and derivatives are those of the
    program run at that point alone (or many-point evaluation refuses the program)."""
    compare_at_many_points(case, command)


def compare_at_many_points(case: FuzzProgram, command: str) -> str:
    x = case.inputs["x"]
    batch = {"x": np.stack([x, x * 0.5 + 0.125])}
    others = {name: v for name, v in case.inputs.items() if name != "x"}
    one = api.evaluate if command == "eval" else api.jacobian
    alone = []
    for point in batch["x"]:
        try:
            alone.append(one(case.source, {**others, "x": point}).arrays())
        except GradcliError:
            alone.append(None)
    try:
        many = api.points(command, case.source, others, batch)
    except GradcliError:
        return "refused"
    for i, arrays in enumerate(alone):
        assert arrays is not None, f"point {i} alone raises, not at many points: {case.source}"
        for key, array in arrays.items():
            assert_agree(many.arrays[key][i], array, f"{key} at point {i}", case)
    return "agree"


def _exit_cleanly(args):
    result = CliRunner().invoke(cli, args)
    assert result.exit_code in (0, 2, 3), (args, result.output, result.exception)
    assert "Traceback" not in result.output and "internal error" not in result.output, (
        args,
        result.output,
    )
    return result


@fuzz_settings(200)
@given(programs(), st.sampled_from(["eval", "grad", "jacobian", "hessian", "vjp"]))
def test_random_programs_through_the_command(case, command):
    bindings = [f"--var={name}={binding_text(value)}" for name, value in case.inputs.items()]
    _exit_cleanly([command, case.source, *bindings, "--format", "json"])


@fuzz_settings(40)
@given(derivative_programs(), st.sampled_from(["eval", "grad", "jacobian", "hessian", "vjp"]))
def test_random_derivatives_inside_programs_through_the_command(case, command):
    bindings = [f"--var={name}={binding_text(value)}" for name, value in case.inputs.items()]
    _exit_cleanly([command, case.source, *bindings, "--format", "json"])


_SOURCES = programs().map(lambda case: case.source)


@fuzz_settings(300)
@given(near_misses(_SOURCES), st.sampled_from(["eval", "grad", "hessian"]))
def test_near_misses_and_garbage_through_the_command(text, command):
    _exit_cleanly([command, text, "--x", "[0.5, -1, 2]", "--y", "1.5", "--format", "plain"])


def test_a_nul_in_a_program_read_from_standard_input_is_a_clear_error(gradcli_script, tmp_path):
    # The near misses' NUL went into argv ("embedded null byte" in the harness itself).
    run = subprocess.run(
        [*gradcli_script, "eval", "--x", "1", "--file", "-"],
        input="x+1\x00",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert run.returncode == 2, run.stderr
    assert run.stderr.startswith("error: unknown character '\\x00' at 1:4"), run.stderr
    assert "Traceback" not in run.stderr


@fuzz_settings(3)
@given(near_misses(_SOURCES))
@example("x+1\x00")  # a NUL: through standard input (it was "embedded null byte" in argv)
def test_near_misses_through_a_real_process(gradcli_script, tmp_path, text):
    text = text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    # No one can put a NUL in argv (the OS ends the string there): such text comes
    # through standard input, as a program file's would.
    through_stdin = "\x00" in text
    run = subprocess.run(
        [
            *gradcli_script,
            "eval",
            "--x",
            "1",
            *(["--file", "-"] if through_stdin else ["--", text]),
        ],
        input=text if through_stdin else None,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert run.returncode in (0, 2, 3), (text, run.stderr)
    assert "Traceback" not in run.stderr, (text, run.stderr)


# ----------------------------------------------------------------------------
# Transformations against mpmath
# ----------------------------------------------------------------------------


@fuzz_settings(12)
@given(transformation_programs())
def test_random_transformations_agree_with_mpmath(case):
    """integrate, root and minimizer of a drawn function: the value, the gradient and the
    Hessian's diagonal against mpmath (quad, findroot, and diff of them at 30 digits)."""
    import mpmath

    from gradcli import autograd, tensor
    from gradcli.language import compile_source

    program = compile_source(case.source)
    leaves = {k: tensor(float(v), requires_grad=True) for k, v in case.inputs.items()}
    out = program.run(leaves)
    names = list(leaves)
    grads = autograd.grad(out, [leaves[n] for n in names], create_graph=True)
    with mpmath.workdps(30):
        point = {k: mpmath.mpf(float(v)) for k, v in case.inputs.items()}

        def at(name):
            return lambda x: case.oracle(mpmath, {**point, name: x})

        assert float(out.detach().numpy()) == pytest.approx(
            float(case.oracle(mpmath, point)), rel=1e-10, abs=1e-12
        ), case.source
        for name, g in zip(names, grads):
            first = float(mpmath.diff(at(name), point[name]))
            assert float(g.detach().numpy()) == pytest.approx(first, rel=1e-8, abs=1e-10), (
                case.source,
                name,
            )
            second = 0.0
            if g.requires_grad:
                (h,) = autograd.grad(g, leaves[name], retain_graph=True, allow_unused=True)
                second = 0.0 if h is None else float(h.detach().numpy())
            expected = float(mpmath.diff(at(name), point[name], 2))
            assert second == pytest.approx(expected, rel=1e-7, abs=1e-9), (case.source, name)


@fuzz_settings(6)
@given(ode_programs())
def test_random_odes_agree_with_solve_ivp(case):
    """odeint of a drawn right-hand side: the value, the gradient with respect to p, y0 and
    the end time, and the Hessian's diagonal, against solve_ivp of the equation with its
    forward sensitivities (first and second)."""
    from gradcli import autograd, tensor
    from gradcli.language import compile_source

    program = compile_source(case.source)
    leaves = {k: tensor(float(v), requires_grad=True) for k, v in case.inputs.items()}
    out = program.run(leaves)
    expected = ode_oracle(case)
    assert float(out.detach().numpy()) == pytest.approx(expected["value"], rel=1e-8), case.source
    grads = autograd.grad(out, list(leaves.values()), create_graph=True)
    for (name, leaf), g in zip(leaves.items(), grads):
        assert float(g.detach().numpy()) == pytest.approx(
            expected["grad"][name], rel=1e-7, abs=1e-9
        ), (case.source, name)
        (h,) = autograd.grad(g, leaf, retain_graph=True, allow_unused=True)
        second = 0.0 if h is None else float(h.detach().numpy())
        # A second derivative of the discrete solution is less accurate than the first
        # (docs/language.md: 1.5e-8 off a true 0 at rtol 1e-10).
        assert second == pytest.approx(expected["second"][name], rel=1e-6, abs=1e-7), (
            case.source,
            name,
        )
