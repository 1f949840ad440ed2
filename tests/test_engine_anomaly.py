"""detect_anomaly (PyTorch's) and first_nonfinite (gradcli's): which op's derivative made nan."""

import pytest

import gradcli


def test_first_nonfinite_names_the_op_whose_rule_made_inf():
    x = gradcli.tensor([0.0, 4.0], dtype=gradcli.float64, requires_grad=True)
    y = (gradcli.sqrt(x) * 2 + x).sum()  # d sqrt(x)/dx = 1/(2 sqrt x): inf at 0
    with gradcli.autograd.first_nonfinite() as watch:
        y.backward()
    assert watch.node.name() == "SqrtBackward0" and watch.index == 0
    assert x.grad.tolist() == [float("inf"), 1.5]  # 2 / (2 sqrt 4) + 1 at x = 4


def test_first_nonfinite_names_the_op_whose_rule_made_nan_of_an_inf():
    x = gradcli.tensor([0.0, 1.0], dtype=gradcli.float64, requires_grad=True)
    y = gradcli.sqrt(x**2).sum()  # sqrt's rule makes inf at 0; pow's, 2x times it, nan
    with gradcli.autograd.first_nonfinite() as watch:
        y.backward()
    assert watch.node.name() == "SqrtBackward0"
    assert watch.nan_node.name() == "PowBackward0" and watch.nan_index == 0
    assert watch.nan_of_infinite
    assert str(x.grad.tolist()) == "[nan, 1.0]"  # d|x|/dx = 1 at x = 1


def test_first_nonfinite_names_one_op_when_its_rule_makes_nan_of_a_finite_gradient():
    x = gradcli.tensor(0.0, dtype=gradcli.float64, requires_grad=True)
    with gradcli.autograd.first_nonfinite() as watch:
        (gradcli.sqrt(x) * 0).backward()  # 0 / (2 sqrt 0) is nan
    assert watch.node is watch.nan_node and watch.node.name() == "SqrtBackward0"
    assert not watch.nan_of_infinite


def test_first_nonfinite_records_nothing_for_finite_gradients():
    x = gradcli.tensor(2.0, requires_grad=True)
    with gradcli.autograd.first_nonfinite() as watch:
        (x**2).backward()
    assert watch.node is None


def test_anomaly_hook_is_removed_after_the_block():
    with gradcli.autograd.detect_anomaly():
        assert gradcli.autograd.is_anomaly_enabled()
    assert not gradcli.autograd.is_anomaly_enabled()


@pytest.mark.filterwarnings("ignore::UserWarning")  # torch's notes on anomaly mode
def test_detect_anomaly_raises_as_torch_does():
    torch = pytest.importorskip(
        "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
    )
    messages = []
    for lib in (gradcli, torch):
        x = lib.tensor([0.0, 4.0], requires_grad=True)
        with pytest.raises(RuntimeError) as err, lib.autograd.detect_anomaly():
            (lib.sqrt(x) * 0).sum().backward()  # 0 / (2 * 0) is nan
        messages.append(str(err.value).splitlines()[0])
    assert (
        messages[0]
        == messages[1]
        == ("Function 'SqrtBackward0' returned nan values in its 0th output.")
    )
