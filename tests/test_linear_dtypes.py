"""F.linear refuses operands of different dtypes with PyTorch's own messages (it promotes
none of them), and logsumexp over ``dim=[]`` of a tensor with dims raises as PyTorch's
does: both found by the differential fuzzer, which requires gradcli to raise where
PyTorch raises."""

from __future__ import annotations

import itertools

import pytest

import gradcli

torch = pytest.importorskip("torch", reason="PyTorch 2.13 is the oracle; install torch==2.13.0")

DTYPES = ("float64", "complex128", "float32")


def _message(library, functional, shape, x, w, b):
    bias = None if b is None else library.ones(3, dtype=getattr(library, b))
    try:
        functional.linear(
            library.ones(shape, dtype=getattr(library, x)),
            library.ones(3, 4, dtype=getattr(library, w)),
            bias,
        )
    except Exception as error:  # noqa: BLE001  (the message is what is compared)
        return str(error)
    return "ok"


@pytest.mark.parametrize("shape", [(4,), (2, 4), (2, 2, 4)])
def test_linear_of_mixed_dtypes_says_what_pytorch_says(shape):
    for x, w, b in itertools.product(DTYPES, DTYPES, (None, *DTYPES)):
        theirs = _message(torch, torch.nn.functional, shape, x, w, b)
        ours = _message(gradcli, gradcli.nn.functional, shape, x, w, b)
        assert ours == theirs, (shape, x, w, b)


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 1, 3)])
def test_logsumexp_over_no_dims_raises_where_pytorch_raises(shape):
    try:
        expected = torch.logsumexp(torch.ones(shape, dtype=torch.float64), []).item()
    except RuntimeError as error:
        with pytest.raises(RuntimeError, match=str(error).replace("[", r"\[").replace("]", r"\]")):
            gradcli.logsumexp(gradcli.ones(shape, dtype=gradcli.float64), [])
    else:
        got = gradcli.logsumexp(gradcli.ones(shape, dtype=gradcli.float64), []).item()
        assert got == expected
