"""``gradcli run`` and ``python -m gradcli.torch``: a PyTorch program on gradcli, in a
process of its own, with its exit status and its errors as Python would give them."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run(*args, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60
    )


@pytest.mark.parametrize("runner", [["-m", "gradcli.torch"], ["-m", "gradcli", "run"]])
def test_a_program_runs_with_its_arguments(runner, tmp_path):
    program = tmp_path / "p.py"
    program.write_text(
        "import sys\nimport torch\nimport torch.nn.functional as F\nimport torch.linalg\n"
        "x = torch.tensor([1.0, 3.0], requires_grad=True)\n"
        "F.relu(x - 2).sum().backward()\nprint(x.grad, sys.argv[1:], __name__)\n"
    )
    done = run(*runner, str(program), "--lr", "1", tmp_path=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "tensor([0., 1.]) ['--lr', '1'] __main__\n"  # as PyTorch prints it


def test_a_torch_module_gradcli_lacks_is_named(tmp_path):
    program = tmp_path / "p.py"
    program.write_text("import torch\nfrom torch.ao.quantization import QConfig\n")
    done = run("-m", "gradcli", "run", str(program), tmp_path=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        "error: gradcli has no module torch.ao (the program imports torch.ao.quantization)\n"
    )


@pytest.mark.parametrize("name", ["torch.nn.parallel", "torch.nn.utils.rnn", "torch.distributions"])
def test_a_torch_submodule_gradcli_lacks_is_named_too(tmp_path, name):
    program = tmp_path / "p.py"
    program.write_text(f"import {name}\n")
    done = run("-m", "gradcli", "run", str(program), tmp_path=tmp_path)
    assert (done.returncode, done.stderr) == (2, f"error: gradcli has no module {name}\n")


def test_the_program_is_the_main_module_while_it_runs(tmp_path):
    # pickle finds a class of the program in sys.modules["__main__"] (torch.save of a
    # whole model), as under `python p.py`; Python's own run is the expected output.
    program = tmp_path / "p.py"
    program.write_text(
        "import io, pickle, sys\nimport torch\n"
        "class Net(torch.nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n"
        "        self.fc = torch.nn.Linear(2, 1)\n"
        "torch.manual_seed(0)\nbuffer = io.BytesIO()\ntorch.save(Net(), buffer)\n"
        "buffer.seek(0)\nnet = torch.load(buffer, weights_only=False)\n"
        "print(type(net).__name__, sys.modules['__main__'].Net is Net, net.fc.weight.shape)\n"
        "print(pickle.loads(pickle.dumps(Net)) is Net)\n"
    )
    expected = "Net True torch.Size([1, 2])\nTrue\n"
    if importlib.util.find_spec("torch") is not None:
        assert run(str(program), tmp_path=tmp_path).stdout == expected
    done = run("-m", "gradcli", "run", str(program), tmp_path=tmp_path)
    assert (done.returncode, done.stderr, done.stdout) == (0, "", expected)


def test_the_programs_own_exception_prints_as_python_does(tmp_path):
    program = tmp_path / "p.py"
    program.write_text("import torch\n\nraise ValueError('mine')\n")
    done = run("-m", "gradcli", "run", str(program), tmp_path=tmp_path)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "Traceback (most recent call last):",
        f'  File "{program}", line 3, in <module>',
        "    raise ValueError('mine')",
        "ValueError: mine",
    ]


@pytest.mark.parametrize("name", ["autograd_tutorial.py", "train_model.py"])
def test_the_tutorial_samples_print_what_pytorch_prints(tmp_path, name):
    torch = pytest.importorskip("torch", reason="PyTorch 2.13 is the test oracle")
    sample = ROOT / "samples" / name
    done = run("-m", "gradcli", "run", str(sample), tmp_path=tmp_path)
    expected = subprocess.run(
        [sys.executable, str(sample)], capture_output=True, text=True, timeout=120
    )
    assert torch.__version__.startswith("2.13")
    assert (done.returncode, done.stdout) == (0, expected.stdout)


def test_a_reader_that_leaves_ends_the_program_quietly(tmp_path):
    # `gradcli run p.py | head -1`: the program's prints meet a closed pipe, and no
    # traceback follows (Python's own would print one).
    program = tmp_path / "p.py"
    program.write_text("import torch\nfor i in range(100000):\n    print(torch.tensor(float(i)))\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    shell = f"{sys.executable} -m gradcli run {program} | head -1"
    done = subprocess.run(
        ["bash", "-c", f"set -o pipefail; {shell}"],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60,
    )  # fmt: skip
    assert done.stdout == "tensor(0.)\n"
    assert done.stderr == ""
    assert done.returncode == 141  # 128 + SIGPIPE, as the other commands


def test_a_torch_feature_gradcli_lacks_is_one_error_at_the_programs_line(tmp_path):
    # Not the program's own exception (those print as Python prints them, status 1):
    # gradcli's gap, said as gradcli says bad input, with the line and a caret.
    program = tmp_path / "p.py"
    program.write_text("import torch\n\nnorm = torch.nn.InstanceNorm2d(3)\n")
    done = run("-m", "gradcli", "run", str(program), tmp_path=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        "error: gradcli has no torch.nn.InstanceNorm2d yet: the modules it has are listed"
        " in docs/library.md (p.py, line 3)\n"
        "  norm = torch.nn.InstanceNorm2d(3)\n"
        "         ^~~~~~~~~~~~~~~~~~~~~~~\n"
    )


def test_the_program_may_catch_what_gradcli_lacks(tmp_path):
    program = tmp_path / "p.py"
    program.write_text(
        "import torch\ntry:\n    torch.nn.InstanceNorm2d(3)\n"
        "except NotImplementedError as e:\n    print(type(e).__name__)\n"
    )
    done = run("-m", "gradcli", "run", str(program), tmp_path=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "NotImplementedError\n", "")
