"""The limit on a result's size: refused before anything is allocated, with exit 2."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from gradcli import api
from gradcli.cli import cli
from gradcli.engine import limits
from gradcli.errors import GradcliError

# Each result holds 4 * 10**8 numbers (3.2 GB in float64): refused at the default limit.
# tracemalloc would show the allocation; a refusal that comes first needs no memory at all,
# and these would take seconds and gigabytes if they were computed.
TOO_LARGE = [
    ("ones(20000) * ones(20000, 1)", "mul"),
    ("ones(20000) < ones(20000, 1)", "lt"),
    ("where(ones(20000) > 0, ones(20000), ones(20000, 1))", "where"),
    ("ones(20000, 1) @ ones(1, 20000)", "matmul"),
    ("ones(20000, 3) @ ones(3, 20000)", "matmul"),
    ("outer(ones(20000), ones(20000))", "outer"),
    ("diag(ones(20000))", "diag"),
    ("zeros(20000, 20000)", "zeros"),
    ("ones([20000, 20000])", "ones"),
    ("randn(20000, 20000)", "randn"),
    ("rand(4e8)", "rand"),
    ("full([20000, 20000], 1.5)", "full"),
    ("eye(20000)", "eye"),
    ("arange(4e8)", "arange"),
    ("arange(0, 1, 2.5e-9)", "arange"),
    ("linspace(0, 1, 4e8)", "linspace"),
]


@pytest.mark.parametrize(("source", "op"), TOO_LARGE)
def test_a_result_over_the_limit_is_refused_before_it_is_computed(source, op):
    with pytest.raises(GradcliError) as caught:
        api.evaluate(source)
    message = caught.value.message
    assert message.startswith(f"{op}: the result would hold 400,000,000 numbers")
    assert "--max-elements" in message


def test_the_command_says_how_to_raise_the_limit_and_exits_2():
    result = CliRunner().invoke(cli, ["eval", "ones(20000) * ones(20000, 1)"])
    assert result.exit_code == 2
    assert result.output.splitlines()[0] == (
        "error: mul: the result would hold 400,000,000 numbers, more than the limit of "
        "100,000,000; raise the limit with --max-elements N (max_elements=N in gradcli.api) "
        "at 1:13"
    )
    assert "Traceback" not in result.output


def test_the_option_sets_the_limit_both_ways():
    runner = CliRunner()
    refused = runner.invoke(cli, ["eval", "ones(3) * ones(4, 1)", "--max-elements", "11"])
    assert refused.exit_code == 2
    assert "12 numbers, more than the limit of 11" in refused.output
    allowed = runner.invoke(
        cli, ["eval", "sum(ones(3) * ones(4, 1))", "--max-elements", "12", "--format", "plain"]
    )
    assert (allowed.exit_code, allowed.output) == (0, "value 12\n")


def test_the_library_takes_the_limit_as_a_parameter():
    assert float(api.evaluate("sum(ones(30, 40))", max_elements=1200).value) == 1200
    with pytest.raises(GradcliError, match="1,200 numbers, more than the limit of 1,199"):
        api.evaluate("sum(ones(30, 40))", max_elements=1199)
    with pytest.raises(GradcliError, match="must be a positive integer"):
        api.evaluate("1", max_elements=0)


def test_the_limit_is_restored_after_a_call():
    with pytest.raises(GradcliError):
        api.evaluate("ones(10) * ones(10, 1)", max_elements=50)
    assert limits.MaxElements.value == limits.DEFAULT_MAX_ELEMENTS


def test_a_binding_over_the_limit_is_refused():
    with pytest.raises(GradcliError, match="zeros: the result would hold 1,000 numbers"):
        api.evaluate("sum(x)", {"x": "zeros(10, 100)"}, max_elements=999)


def test_a_jacobian_is_output_size_times_input_size():
    # 100 outputs by 30 + 20 inputs: 5000 numbers.
    source = "sum(x) * ones(100) + sum(y)"
    bindings = {"x": np.ones(30), "y": np.ones(20)}
    result = api.jacobian(source, bindings, max_elements=5000)
    assert result.jacobian["x"].shape == (100, 30)
    np.testing.assert_array_equal(result.jacobian["y"], np.ones((100, 20)))
    with pytest.raises(GradcliError, match="jacobian: the result would hold 5,000 numbers"):
        api.jacobian(source, bindings, max_elements=4999)


def test_a_hessian_is_input_size_squared():
    bindings = {"x": np.ones(30), "y": np.ones(20)}
    result = api.hessian("sum(x**2) + sum(y)", bindings, max_elements=2500)
    np.testing.assert_array_equal(result.hessian["x"]["x"], 2 * np.eye(30))
    with pytest.raises(GradcliError, match="hessian: the result would hold 2,500 numbers"):
        api.hessian("sum(x**2) + sum(y)", bindings, max_elements=2499)


def test_results_under_the_limit_are_unchanged():
    # Broadcasts and products under the limit run as before.
    value = api.evaluate("sum(ones(50) * ones(20, 1)) + sum(ones(20, 3) @ ones(3, 50))", {})
    assert float(value.value) == 1000 + 3000


def test_the_lowest_limit_in_force_bounds_every_thread_and_each_keeps_its_own():
    # An op's hot path compares a broadcast's size with the smallest limit open in any
    # thread (limits.LOWEST) before it asks for its own thread's: exact both ways.
    import threading

    import gradcli

    assert limits.LOWEST[0] == limits.DEFAULT_MAX_ELEMENTS
    column, row = gradcli.ones(10, 1), gradcli.ones(1, 10)
    opened, done = threading.Event(), threading.Event()

    def other_thread():
        with limits.max_elements(5):
            opened.set()
            done.wait(10)

    thread = threading.Thread(target=other_thread)
    thread.start()
    try:
        opened.wait(10)
        assert limits.LOWEST[0] == 5
        assert (column * row).shape == (10, 10)  # this thread's limit is the default
        with limits.max_elements(10**16):  # a higher limit here leaves the lowest alone
            assert limits.LOWEST[0] == 5
        with limits.max_elements(99), pytest.raises(limits.ResultTooLarge, match="100 numbers"):
            column * row
    finally:
        done.set()
        thread.join()
    assert limits.LOWEST[0] == limits.DEFAULT_MAX_ELEMENTS
