"""The limit on a result's size at every op that can make a result larger than its
inputs: each declares its result's size (``size=`` in the op table, or the broadcast
of its inputs by default), checked before anything is allocated.

Each case's expected shape is written by hand (NumPy's and PyTorch's rules for the
call); under a limit of exactly that many numbers the call runs and gives that shape,
and one number fewer refuses it, naming the op.
"""

from __future__ import annotations

import math

import numpy as np
import peak_memory
import pytest

import gradcli
from gradcli.engine import limits, ops
from gradcli.engine.limits import ResultTooLarge


def _long(*shape):
    return gradcli.zeros(*shape, dtype=gradcli.int64)


def _t(*shape):
    return gradcli.ones(*shape, dtype=gradcli.float64)


_T34 = _t(3, 4)  # made before any limit: an input as large as the result

# (what the error names, the call, the result's shape); each input smaller than the result.
GROWING = [
    ("broadcast_to", lambda: _t(1).expand(7, 5), (7, 5)),
    ("broadcast_to", lambda: _t(3, 1).expand_as(_T34), (3, 4)),
    ("broadcast_to", lambda: gradcli.broadcast_to(_t(1), (6, 6)), (6, 6)),
    ("where", lambda: gradcli.where(_t(40, 1) > 0, _t(1, 30), 0.0), (40, 30)),
    ("where", lambda: gradcli.where(_t(1, 30) > 0, 1.0, _t(40, 1)), (40, 30)),
    ("clamp", lambda: gradcli.clamp(_t(40, 1), _t(1, 30), 2.0), (40, 30)),
    ("clamp", lambda: gradcli.clamp(_t(40, 1), max=_t(1, 30)), (40, 30)),
    ("clamp", lambda: gradcli.clamp(_t(40, 1), np.ones((1, 30)), 2.0), (40, 30)),
    ("cat", lambda: gradcli.cat([_t(30), _t(40)]), (70,)),
    ("stack", lambda: gradcli.stack([_t(30), _t(30), _t(30)]), (3, 30)),
    ("getitem", lambda: _t(1, 30)[_long(40)], (40, 30)),
    ("getitem", lambda: _t(30, 1)[np.zeros((40, 1), int), np.zeros((1, 20), int)], (40, 20)),
    ("getitem", lambda: _t(5, 6)[np.ones(5, bool), np.zeros((40, 1), int)], (40, 5)),
    ("index_select", lambda: _t(1, 30).index_select(0, _long(40)), (40, 30)),
    ("take_along_dim", lambda: gradcli.take_along_dim(_t(40, 1), _long(1, 30), 1), (40, 30)),
    ("masked_fill", lambda: _t(40, 1).masked_fill(_t(1, 30) > 0, 0.0), (40, 30)),
    ("mul", lambda: _t(40, 1) * _t(1, 30), (40, 30)),
    ("lt", lambda: _t(40, 1) < _t(1, 30), (40, 30)),
    ("matmul", lambda: _t(40, 1) @ _t(1, 30), (40, 30)),
    ("outer", lambda: gradcli.outer(_t(40), _t(30)), (40, 30)),
    ("nonzero", lambda: gradcli.nonzero(_t(20, 30)), (600, 2)),
    ("randperm", lambda: gradcli.randperm(50), (50,)),
    ("randint", lambda: gradcli.randint(0, 5, (40, 30)), (40, 30)),
    ("normal", lambda: gradcli.normal(0.0, 1.0, (40, 30)), (40, 30)),
    ("zeros", lambda: _t(2).new_zeros(40, 30), (40, 30)),
    ("one_hot", lambda: gradcli.nn.functional.one_hot(_long(40), 30), (40, 30)),
    ("one_hot", lambda: gradcli.nn.functional.one_hot(_long(40) + 29), (40, 30)),
]


@pytest.mark.parametrize(("op", "call", "shape"), GROWING, ids=lambda c: getattr(c, "__name__", c))
def test_a_growing_op_runs_at_the_limit_and_is_refused_one_number_below(op, call, shape):
    size = math.prod(shape)
    with limits.max_elements(size):
        assert tuple(call().shape) == shape
    with limits.max_elements(size - 1), pytest.raises(ResultTooLarge) as caught:
        call()
    assert caught.value.message.startswith(f"{op}: the result would hold {size:,} numbers")
    assert "--max-elements" in caught.value.message


def _broadcasting_entries():
    """The elementwise and binary entries of two inputs or more that declare a domain:
    each broadcasts, so each must be checked by the default size."""
    return [
        e
        for e in ops.OPS.values()
        if e.domain
        and e.kind in ("elementwise", "binary")
        and sum(isinstance(d, str) for d in e.domain) >= 2
    ]


@pytest.mark.parametrize("entry", _broadcasting_entries(), ids=lambda e: e.name)
def test_every_broadcasting_entry_is_refused_before_it_broadcasts(entry):
    n = sum(isinstance(d, str) for d in entry.domain)
    keywords = next((d for d in entry.domain if isinstance(d, dict)), {})
    column = np.full((300, 1), 0.7) if entry.domain[0] != "mask" else np.ones((300, 1), bool)
    row = np.full((1, 300), 0.6)
    inputs = [gradcli.tensor(column), *(gradcli.tensor(row) for _ in range(n - 1))]
    with limits.max_elements(300 * 300 - 1), pytest.raises(ResultTooLarge, match="90,000"):
        entry.call(*inputs, **keywords)


# The issue's commands: each would take gigabytes; refused at once, with exit 2.
COMMANDS = [
    ["eval", "sum(ones(1).expand(1000000000)*2)"],
    ["eval", "ones(1).expand(1000000000)"],  # printing it
    ["eval", "sum(exp(ones(1).expand(1000000000)))"],
    ["eval", "sum(cumsum(ones(1).expand(1000000000), 0))"],
    ["eval", "sum(cumprod(ones(1).expand(1000000000), 0))"],
    ["eval", "sum(sort(ones(1).expand(1000000000))[0])"],
    ["eval", "sum(flip(ones(1).expand(1000000000), [0]))"],
    ["grad", "sum(x.expand(1000000000))", "--x", "[1]"],
    ["eval", "sum(where(ones(40000,1)>0, ones(1,40000), 0))"],
    ["eval", "sum(clamp(ones(40000,1), ones(1,40000), 2))"],
    ["eval", "sum(clamp(ones(40000,1), max=ones(1,40000)))"],
    ["eval", "sum(cat([ones(600000), ones(600000)]))", "--max-elements", "1000000"],
    ["eval", "sum(stack([ones(600000), ones(600000)]))", "--max-elements", "1000000"],
]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: a[1])
def test_the_commands_of_the_issue_are_refused(gradcli, args):
    result = gradcli(*args)
    assert result.exit_code == 2
    first = result.output.splitlines()[0]
    limit = "1,000,000" if "--max-elements" in args else "100,000,000"
    assert first.startswith("error: ") and f"more than the limit of {limit};" in first
    assert "--max-elements" in first and "Traceback" not in result.output


def test_a_refused_expand_takes_no_memory():
    # 10**9 numbers would be 8 GB; the process stays near its start-up size.
    code, _, err, peak = peak_memory.run(["eval", "sum(ones(1).expand(1000000000)*2)"])
    assert (code, err.startswith("error: broadcast_to: the result would hold 1,000,000,000")) == (
        2,
        True,
    )
    assert peak < 300 * 2**20, peak
