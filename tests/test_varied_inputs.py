"""What minimize and solve vary without --wrt: never an input whose value is a size,
and a note naming the inputs varied (with how many numbers each holds) when there
is more than one or one that holds several. Expected values by hand."""

from __future__ import annotations

import numpy as np
import pytest

Y = [1.2, 0.7, 2.3, 1.9, 0.4]


def _mean_square(size: str) -> str:
    return f"const y = {Y}\nn = {size}\nm = 0\nsum((y - m)**2)/n"


@pytest.mark.parametrize("size", ["numel(y)", "len(y)", "y.shape[0]", "numel(y) - 1"])
def test_minimize_never_varies_a_size(gradcli, gradcli_json, size):
    shown = gradcli_json("minimize", _mean_square(size))
    # By hand: sum((y - m)²)/n is least at the mean, whatever the fixed n.
    assert list(shown["point"]) == ["m"]
    assert shown["point"]["m"] == pytest.approx(np.mean(Y), rel=1e-14)
    result = gradcli("minimize", _mean_square(size), "--format", "plain")
    assert f"note: n is not varied: its value, {size}, is a size" in result.stderr
    assert "--wrt" in result.stderr


def test_solve_never_varies_a_size(gradcli_json):
    # By hand: sum(y - m)/n = 0 at the mean; n is no second unknown.
    shown = gradcli_json("solve", f"const y = {Y}\nn = numel(y)\nm = 0\nsum(y - m)/n")
    assert list(shown["point"]) == ["m"]
    assert shown["point"]["m"] == pytest.approx(np.mean(Y), rel=1e-14)


def test_the_sizes_of_a_program():
    from gradcli.core.reach import sizes
    from gradcli.language import compile_source

    program = compile_source(
        "const y = [1, 2, 3]\na = numel(y)\nb = 2*numel(y) + y.shape[0]\nc = sqrt(len(y))\n"
        "d = 5\nk = sum(y)\nf = [numel(y), 2]\ng = y[0]\na + b + c + d + k + f.sum() + g"
    )
    assert sizes(program) == {
        "a": "numel(y)",
        "b": "2 * numel(y) + y.shape[0]",
        "c": "sqrt(len(y))",
        "f": "[numel(y), 2]",
    }


def test_the_calculators_gradient_still_reaches_a_size(gradcli_json):
    # grad differentiates every input, as PyTorch would a float n: d/dn (S/n) = -S/n².
    shown = gradcli_json("grad", _mean_square("numel(y)"))
    s = float(np.sum(np.square(Y)))
    assert shown["grad"]["n"] == pytest.approx(-s / 25, rel=1e-14)


def test_a_note_names_the_inputs_varied_with_their_sizes(gradcli):
    source = f"y = {Y}\nm = 0\nsum((y - m)**2)"
    result = gradcli("minimize", source, "--format", "plain")
    assert result.exit_code == 0, result.output
    assert (
        "note: minimize varies y (5 numbers) and m (1 number) (choose with --wrt NAME,NAME)"
    ) in result.stderr
    # Chosen with --wrt: no note, and the data stays as it is.
    result = gradcli("minimize", source, "--wrt", "m", "--format", "plain")
    assert "varies" not in result.stderr and "point.y" not in result.stdout
    # One scalar input: nothing to say.
    assert "varies" not in gradcli("minimize", "(x-1)**2", "--x", "0").stderr


def test_solve_says_to_choose_the_unknowns_with_wrt(gradcli):
    result = gradcli("solve", "S + K + r + sigma + T - 10", "--S", "1", "--K", "1", "--r", "1",
                     "--sigma", "1", "--T", "1")  # fmt: skip
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "error: solve needs as many equations as unknowns: the program has 1 equation "
        "(entries of its value) in 5 unknowns (S, K, r, sigma, T): choose the unknowns "
        "with --wrt NAME,NAME"
    )
