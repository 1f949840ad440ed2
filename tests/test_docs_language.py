"""Every example of the language reference (docs/language.md) runs and gives what it says."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import gradcli
from gradcli.engine.ops import FUNCTIONS
from gradcli.errors import GradcliError
from gradcli.language import compile_source

PAGE = Path(__file__).resolve().parent.parent / "docs" / "language.md"


def language_section() -> str:
    text = PAGE.read_text(encoding="utf-8")
    start = text.index("<!-- language:start -->")
    end = text.index("<!-- language:end -->")
    return text[start:end]


EXAMPLES = re.findall(r"```gradcli\n(.*?)```", language_section(), re.S)


pytestmark = pytest.mark.usefixtures("float64")


def test_the_section_has_examples():
    assert len(EXAMPLES) >= 15


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.splitlines()[0] for e in EXAMPLES])
def test_example(example):
    bindings, expected, grads, error = {}, None, {}, None
    for line in example.splitlines():
        if m := re.fullmatch(r"# with (\w+) = (.*)", line):
            bindings[m[1]] = np.asarray(json.loads(m[2]), float)
        elif m := re.fullmatch(r"# => (.*)", line):
            expected = np.asarray(json.loads(m[1]), float)
        elif m := re.fullmatch(r"# grad (\w+) => (.*)", line):
            grads[m[1]] = np.asarray(json.loads(m[2]), float)
        elif m := re.fullmatch(r"# error: (.*)", line):
            error = m[1]
    assert expected is not None or error is not None, "an example must say what it gives"
    leaves = {k: gradcli.tensor(v, requires_grad=True) for k, v in bindings.items()}
    if error is not None:
        with pytest.raises(GradcliError) as info:
            program = compile_source(example)
            program.run({**program.defaults(), **leaves})
        pattern = ".*".join(re.escape(part) for part in error.split("..."))
        first_line = info.value.render().splitlines()[0]
        assert re.fullmatch("error: " + pattern, first_line), first_line
        return
    program = compile_source(example)
    for name, value in program.defaults().items():
        leaves.setdefault(name, gradcli.tensor(value, requires_grad=True))
    result = program.run(leaves)
    np.testing.assert_allclose(result.detach().numpy(), expected, rtol=1e-12, atol=1e-12)
    if grads:
        result.sum().backward()
        for name, grad in grads.items():
            np.testing.assert_allclose(leaves[name].grad.numpy(), grad, rtol=1e-12)


def test_listed_functions_are_the_op_table():
    listed = set()
    for line in re.findall(r"^- [^:`]+: `([^`]*)`", language_section(), re.M):
        listed |= set(re.findall(r"[a-z_][a-z_0-9]*", line))
    assert listed - set(FUNCTIONS) == set(), "docs/language.md lists functions the engine lacks"
    assert set(FUNCTIONS) - listed == set(), "add these functions to docs/language.md's Calls list"
