"""The op-sample matrix through the real command: each function's samples of the
language (``opinfo.samples_of``) as an expression with its inputs bound by ``--var``,
in-process through Click's runner and a few in a real process; each ends with exit
0, 2 or 3 and never a traceback."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
from click.testing import CliRunner
from fuzzing import binding_text, num
from test_op_matrix import _pending

from gradcli.cli import cli
from gradcli.engine import opinfo, ops, opsamples
from gradcli.language import ir
from gradcli.language.printing import to_source

SAMPLES = {"2-d", "keywords", "0-d", "empty", "at nan", "dim -1", "scale 1e+300"}
NAMES = "xyz"


def _expression(built):
    """The sample as a call of the language, and its bindings."""
    args, kwargs = built.arguments(
        lambda v, i: (
            ir.Name(NAMES[i])
            if isinstance(v, np.ndarray)
            else ir.Str(v)  # einsum's equation
            if isinstance(v, str)
            else num(v)
        )
    )

    def literal(value):
        if isinstance(value, ir.Expr):
            return value
        if isinstance(value, str):
            return ir.Str(value)
        if isinstance(value, (list, tuple)):  # a layer's size: output_size=(3, 2)
            return ir.ListLit(tuple(num(v) for v in value))
        return num(value)

    call = ir.Call(
        built.entry.name,
        tuple(map(literal, args)),
        tuple(ir.Keyword(k, literal(v)) for k, v in kwargs.items()),
    )
    bindings = [
        f"--var={NAMES[i]}={binding_text(v)}"
        for i, v in enumerate(built.values)
        if isinstance(v, np.ndarray)
    ]
    return to_source(ir.Program((ir.Assign("h", call), ir.Call("sum", (ir.Name("h"),))))), bindings


def _literal(built):
    # The language writes numbers and binds float arrays; a list of tensors, an index
    # tuple or an index array (opsamples' Tensors, Raw) has no such form.
    values = (*built.values, *built.sample.params.values())
    return not any(
        isinstance(v, (opsamples.Tensors, opsamples.Raw))
        or (isinstance(v, np.ndarray) and v.dtype.kind != "f")
        for v in values
    )


def _param(built):
    reason = _pending(built.entry.name, built.name, "command")
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(built, marks=marks, id=f"{built.entry.name}-{built.name}")


CASES = [
    _param(b)
    for e in ops.FUNCTIONS.values()
    for b in opinfo.samples_of(e)
    if b.name in SAMPLES
    and all(not isinstance(v, str) for v in b.sample.params.values())
    and "dtype" not in b.sample.params
    and _literal(b)
]


@pytest.mark.parametrize("built", CASES)
def test_each_sample_through_the_command(built):
    source, bindings = _expression(built)
    for command in ("eval", "grad", "hessian"):
        result = CliRunner().invoke(cli, [command, source, *bindings, "--format", "json"])
        assert result.exit_code in (0, 2, 3), (command, source, result.output, result.exception)
        assert "Traceback" not in result.output and "internal error" not in result.output, (
            command,
            source,
            result.output,
        )


@pytest.mark.parametrize("built", [c for c in CASES[::40] if not c.marks])
def test_some_samples_through_a_real_process(gradcli_script, tmp_path, built):
    source, bindings = _expression(built)
    run = subprocess.run(
        [*gradcli_script, "grad", source, *bindings],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert run.returncode in (0, 2, 3), (source, run.stderr)
    assert "Traceback" not in run.stderr, (source, run.stderr)
