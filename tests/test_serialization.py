"""``gradcli.save`` and ``gradcli.load`` against PyTorch 2.13: a checkpoint (a model's and
an optimiser's state_dicts, numbers, a size, a dtype) written and read back gives what
PyTorch's round trip gives; ``weights_only`` loads refuse other objects, as PyTorch's."""

from __future__ import annotations

import io
import pickle

import pytest
from test_engine_programs import run

import gradcli

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
)

CHECKPOINT = """
    import os, tempfile
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model(torch.randn(5, 3)).sum().backward()
    opt.step()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.pt")
        torch.save({"epoch": 5, "model_state_dict": model.state_dict(),
                    "optimizer_state_dict": opt.state_dict(), "loss": torch.tensor(0.25),
                    "shape": torch.Size([2, 3]), "dtype": torch.float64}, path)
        checkpoint = torch.load(path, weights_only=True)
    print(checkpoint["epoch"], checkpoint["loss"], checkpoint["shape"], checkpoint["dtype"])
    other = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
    print(other.load_state_dict(checkpoint["model_state_dict"]))
    other_opt = torch.optim.SGD(other.parameters(), lr=0.5)
    other_opt.load_state_dict(checkpoint["optimizer_state_dict"])
    print(other_opt.state_dict())
    print(other(torch.ones(1, 3)))
    buffer = io.BytesIO()
    x = torch.ones(2, requires_grad=True)
    torch.save([x * 2, torch.nn.Parameter(torch.zeros(2, dtype=torch.float64)), x, x,
                torch.arange(6).reshape(2, 3).t(), torch.tensor(True)], buffer)
    buffer.seek(0)
    doubled, parameter, same, again, transposed, flag = torch.load(buffer, map_location="cpu")
    print(doubled, doubled.grad_fn, doubled.is_leaf, parameter, same is again, transposed, flag)
"""


def test_a_checkpoint_round_trip_gives_pytorchs_objects():
    ours = run("import io\n" + CHECKPOINT.replace("\n    ", "\n"), gradcli)
    assert ours == run("import io\n" + CHECKPOINT.replace("\n    ", "\n"), torch)
    assert "'momentum_buffer'" in ours


class Thing:
    pass


@pytest.mark.parametrize("lib", [gradcli, torch], ids=["gradcli", "torch"])
def test_a_weights_only_load_refuses_other_objects(lib):
    buffer = io.BytesIO()
    lib.save({"thing": Thing()}, buffer)
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        lib.load(buffer)
    buffer.seek(0)
    assert isinstance(lib.load(buffer, weights_only=False)["thing"], Thing)


def test_a_file_pytorch_wrote_is_refused_with_a_reason():
    buffer = io.BytesIO()
    torch.save({"w": torch.ones(2)}, buffer)
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="PyTorch's zip archive"):
        gradcli.load(buffer)


def test_a_save_that_fails_on_the_way_leaves_the_file_it_would_replace(tmp_path, monkeypatch):
    import os

    import gradcli

    target = tmp_path / "model.pt"
    target.write_bytes(b"the checkpoint before")

    def full_disk(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError, match="No space left"):
        gradcli.save({"w": gradcli.ones(3)}, target)
    assert target.read_bytes() == b"the checkpoint before"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.pt"]
    monkeypatch.undo()
    gradcli.save({"w": gradcli.ones(3)}, target)
    assert gradcli.load(target)["w"].tolist() == [1.0, 1.0, 1.0]
