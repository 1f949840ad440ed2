"""The corpus of tutorial programs: each runs unchanged on PyTorch 2.13 and through
``gradcli run``, and prints the same, character for character.

``tests/corpus/`` holds one program per section of a public tutorial (PyTorch's
tutorials, notes and reference pages, d2l, Dive-into-DL-PyTorch, pytorch-handbook,
jcjohnson's pytorch-examples, Karpathy's micrograd and makemore lectures, learnpytorch.io,
pytorch/examples, Raschka's PyTorch in One Hour, yunjey's pytorch-tutorial, Raschka's
deeplearning-models, Machine Learning Mastery, Aladdin Persson's Machine-Learning-Collection,
the PyTorch Forums, Understanding Deep Learning's notebooks,
MorvanZhou's PyTorch-Tutorial): autograd,
and models built and trained with ``torch.nn`` and ``torch.optim``. Each is written
anew for this corpus, exercising the calls that section shows, and naming it in its
first lines (``# follows: <tutorial, section, URL>``). Each is deterministic (seeded)
and quick.

PyTorch runs every program in one interpreter (PyTorch is imported once), each in a
namespace of its own with PyTorch's global switches reset in between; gradcli runs each
through the ``gradcli run`` command, in a process of its own. Object addresses aside
(``at 0x...>``), standard output must be equal, and both must end with status 0.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(__file__).resolve().parent / "corpus"
PROGRAMS = sorted(CORPUS.glob("*.py"))
HEADER = re.compile(r"\A# follows: (?P<text>.+?)\n(?!#   )", re.S)

# Runs the programs named on its command line with PyTorch, printing a JSON object:
# each program's name, its standard output and its status (0, or what it raised).
_ON_TORCH = r"""
import contextlib, io, json, runpy, sys, traceback, warnings
import torch

warnings.simplefilter("ignore")
results = {}
for path in sys.argv[1:]:
    torch.set_default_dtype(torch.float32)
    torch.set_grad_enabled(True)
    torch.set_printoptions(profile="default")
    torch.autograd.set_detect_anomaly(False)
    out = io.StringIO()
    status = 0
    with contextlib.redirect_stdout(out):
        try:
            runpy.run_path(path, run_name="__main__")
        except SystemExit as stop:
            status = stop.code or 0
        except BaseException:
            status = traceback.format_exc()
    results[path] = {"stdout": out.getvalue(), "status": status}
json.dump(results, sys.__stdout__)
"""


def _addresses_hidden(text):
    return re.sub(r" at 0x[0-9a-f]+>", " at 0x...>", text)


def test_the_corpus_has_170_programs_half_training_each_naming_its_source():
    assert len(PROGRAMS) >= 170
    texts = [p.read_text(encoding="utf-8") for p in PROGRAMS]
    # Half of them train a model: torch.nn's modules, an optimiser, and its steps.
    training = [
        t
        for t in texts
        if re.search(r"nn\.(Module|Linear|Sequential)\b", t)
        and re.search(r"\boptim\.[A-Z]", t)
        and ".step(" in t
    ]
    assert 2 * len(training) >= len(PROGRAMS)
    for path in PROGRAMS:
        found = HEADER.match(path.read_text(encoding="utf-8"))
        assert found, f"{path.name} does not start with '# follows: <tutorial, section, URL>'"
        assert re.search(r"https?://\S+", found.group("text")), f"{path.name} names no URL"


@pytest.fixture(scope="module")
def on_torch():
    pytest.importorskip("torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0")
    done = subprocess.run(
        [sys.executable, "-c", _ON_TORCH, *map(str, PROGRAMS)],
        capture_output=True,
        text=True,
        cwd=CORPUS,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_the_program_prints_on_gradcli_what_it_prints_on_torch(on_torch, path):
    theirs = on_torch[str(path)]
    assert theirs["status"] == 0, f"the program fails on PyTorch:\n{theirs['status']}"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-m", "gradcli", "run", str(path)],
        capture_output=True,
        text=True,
        cwd=CORPUS,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert _addresses_hidden(done.stdout) == _addresses_hidden(theirs["stdout"])
