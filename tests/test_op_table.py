"""The entries' input domains (``Op.domain``: one name per input, and a dict of keyword
arguments where the op needs some): every elementwise and binary function declares
one, each names a domain of ``opinfo.DOMAINS``, and the helpers that draw an entry's
inputs from it (for ``test_keyword_arguments.py`` and ``test_forward_ad.py``). The
gradcheck and gradgradcheck of every entry on its samples, drawn from these domains,
are the op-sample matrix's (``test_op_matrix.py``).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

import gradcli
from gradcli.engine import ops
from gradcli.engine.opinfo import DOMAINS  # the domains the entries name

SWEPT = [entry for entry in ops.OPS.values() if entry.domain]


def _inputs(entry):
    rng = np.random.default_rng(zlib.crc32(entry.name.encode()))
    shape = (3, 3) if entry.kind == "linalg" else (2, 3)
    arrays = [DOMAINS[d](rng, shape) for d in entry.domain if isinstance(d, str)]
    return [
        gradcli.tensor(a) if a.dtype == bool else gradcli.tensor(a, requires_grad=True)
        for a in arrays
    ]


def _keywords(entry):
    return next((d for d in entry.domain if isinstance(d, dict)), {})


def _function(entry, inputs):
    """The entry's function of the inputs that require grad (masks held fixed)."""
    differentiable = [i for i, t in enumerate(inputs) if t.requires_grad]

    def f(*xs):
        args = list(inputs)
        for i, x in zip(differentiable, xs):
            args[i] = x
        return entry.call(*args, **_keywords(entry))

    return f, tuple(inputs[i] for i in differentiable)


def test_the_sweep_covers_the_elementwise_and_binary_entries():
    swept = {e.name for e in SWEPT}
    for entry in ops.OPS.values():
        if entry.kind in ("elementwise", "binary") and entry.differentiable and entry.function:
            assert entry.name in swept, f"{entry.name} declares no domain"
    assert all(d in DOMAINS for e in SWEPT for d in e.domain if isinstance(d, str))


# ----------------------------------------------------------------------------
# The modules loaded on first use (ops.LATER)
# ----------------------------------------------------------------------------


def test_the_index_of_the_later_modules_is_current(tmp_path):
    spec = importlib.util.spec_from_file_location(
        "gen_op_index", Path(__file__).resolve().parent.parent / "scripts" / "gen_op_index.py"
    )
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    assert generator.text() == generator.OUTPUT.read_text(encoding="utf-8"), (
        "an op module of ops.LATER changed: run `python scripts/gen_op_index.py`"
    )


#: In a fresh process: an op of each kind of use, of a module not loaded yet, works
#: as if it were (the tables, the library, a method, the language, ops.NAME), and the
#: entry read before the load is the one after it.
LATER_USE = """
import sys
import gradcli
from gradcli.engine import ops

def loaded():
    return sorted(m for m in ops.LATER if f"gradcli.engine.ops.{m}" in sys.modules)

assert loaded() == [], loaded()
assert "softmax" in ops.FUNCTIONS and type(ops.FUNCTIONS["softmax"]).__name__ == "Later"
print(loaded())
x = gradcli.tensor([[1.0, 2.0], [3.0, 5.0]], requires_grad=True)
print(x.softmax(1).sum(0).tolist())
print(gradcli.logsumexp(x, 1).tolist())
print(ops.cumsum(x, 0).tolist())
print(x.det().item())
y = gradcli.zeros(3)
y.normal_(generator=gradcli.Generator().manual_seed(0))
print(ops.OPS["sort"].schema.names, ops.OPS["sort"] is ops.OPS["sort"].call.op)
import gradcli.api
print(gradcli.api.gradient("sum(cumsum(x, 0))", {"x": [1.0, 2.0]}).grad["x"].tolist())
print("logsumexp" in dir(gradcli), loaded() == sorted(ops.LATER))
"""


def test_an_op_of_a_module_loaded_on_first_use_works_before_it_loads():
    done = subprocess.run(
        [sys.executable, "-c", LATER_USE], capture_output=True, text=True, timeout=60,
        cwd=Path(__file__).resolve().parent.parent,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    # softmax along rows, summed over them (by hand: e/(1+e) and e**2/(1+e**2))
    e = np.e
    expected = [1 / (1 + e) + 1 / (1 + e**2), e / (1 + e) + e**2 / (1 + e**2)]
    assert np.allclose(eval(lines[1]), expected)
    assert np.allclose(eval(lines[2]), [np.log(e + e**2), np.log(e**3 + e**5)])
    assert eval(lines[3]) == [[1.0, 2.0], [4.0, 7.0]]
    assert float(lines[4]) == pytest.approx(1.0 * 5.0 - 2.0 * 3.0)
    assert lines[5] == "('input', 'dim', 'descending', 'stable') True"
    assert eval(lines[6]) == [2.0, 1.0]  # d/dx of x0 + (x0 + x1)
    assert lines[7] == "True True"  # dir() lists them all, every module loaded for it


LATER_THREADS = """
import threading
from gradcli.engine import ops
found = []
threads = [threading.Thread(target=lambda: found.append(ops.OPS["conv2d"].schema.names[:2]))
           for _ in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(found == [("input", "weight")] * 8)
"""


def test_threads_meeting_an_op_whose_module_loads_each_get_the_loaded_entry():
    # The second thread waits for the first one's load to finish, rather than reading
    # the entry before its module has put it in the table.
    done = subprocess.run(
        [sys.executable, "-c", LATER_THREADS], capture_output=True, text=True, timeout=60,
        cwd=Path(__file__).resolve().parent.parent,
    )  # fmt: skip
    assert (done.returncode, done.stdout, done.stderr) == (0, "True\n", "")
