"""``gradcli.utils.data`` against PyTorch 2.13: from the same seed, the same batches in the
same order, the same splits, the same collated types, and the same numbers drawn after
(a DataLoader's pass draws from the process's generator as PyTorch's does)."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import gradcli

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
)

Pair = collections.namedtuple("Pair", "a b")


def plain(value):
    """Tensors as (dtype, shape, values), containers as theirs, to compare across libraries."""
    if isinstance(value, (torch.Tensor, gradcli.Tensor)):
        return (str(value.dtype).split(".")[-1], tuple(value.shape), value.tolist())
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [plain(v) for v in value])
    return value


def _data(m):
    return m.utils.data


@pytest.mark.parametrize(
    "fill",
    [
        lambda m: m.empty(5, dtype=m.int64).random_(),
        lambda m: m.empty(5, dtype=m.int32).random_(),
        lambda m: m.empty(5, dtype=m.float32).random_(),
        lambda m: m.empty(5, dtype=m.float64).random_(),
        lambda m: m.empty(5, dtype=m.bool).random_(),
        lambda m: m.empty(5, dtype=m.uint8).random_(),
        lambda m: m.empty(5, dtype=m.int64).random_(10),
        lambda m: m.empty(5, dtype=m.int64).random_(-3, 10),
        lambda m: m.empty(2, 3, dtype=m.int64).t().random_(2**40, 2**41),
        lambda m: m.empty((), dtype=m.int64).random_(generator=m.Generator().manual_seed(5)),
    ],
    ids=["int64", "int32", "float32", "float64", "bool", "uint8", "to", "from_to", "wide_t",
         "generator"],
)  # fmt: skip
def test_random_fills_draw_pytorchs_numbers(fill):
    torch.manual_seed(3)
    gradcli.manual_seed(3)
    assert plain(fill(gradcli)) == plain(fill(torch))
    assert gradcli.rand(3).tolist() == torch.rand(3).tolist()  # and the generator moved alike


def _shuffled_epochs(m, generator_seed):
    m.manual_seed(0)
    data = _data(m)
    dataset = data.TensorDataset(m.arange(23.0).reshape(23, 1), m.arange(23))
    generator = None if generator_seed is None else m.Generator().manual_seed(generator_seed)
    loader = data.DataLoader(dataset, batch_size=5, shuffle=True, generator=generator)
    epochs = [[plain(batch) for batch in loader] for _ in range(3)]
    return len(loader), epochs, m.randn(2).tolist()


@pytest.mark.parametrize("generator_seed", [None, 42])
def test_a_shuffled_loader_gives_pytorchs_batches_epoch_after_epoch(generator_seed):
    ours = _shuffled_epochs(gradcli, generator_seed)
    assert ours == _shuffled_epochs(torch, generator_seed)
    assert ours[0] == 5 and len(ours[1][0]) == 5


def _loaders(m):
    m.manual_seed(1)
    data = _data(m)
    dataset = data.TensorDataset(m.arange(10).reshape(10, 1) * 1.5, m.arange(10))
    out = []
    for kwargs in (
        {"batch_size": 4},
        {"batch_size": 4, "drop_last": True},
        {"batch_size": 3, "shuffle": True, "drop_last": True},
        {"batch_size": None},
        {"batch_sampler": data.BatchSampler(data.SequentialSampler(dataset), 4, True)},
        {"sampler": data.SubsetRandomSampler([1, 4, 6, 7]), "batch_size": 3},
    ):
        loader = data.DataLoader(dataset, **kwargs)
        out.append((len(loader), [plain(b) for b in loader]))
    it = iter(data.DataLoader(dataset, batch_size=6, shuffle=True))
    out.append((len(it), plain(next(it))))
    return out, m.rand(2).tolist()


def test_loader_options_give_pytorchs_batches():
    assert _loaders(gradcli) == _loaders(torch)


def _splits(m):
    m.manual_seed(7)
    data = _data(m)
    out = [s.indices for s in data.random_split(range(10), [3, 7])]
    out += [s.indices for s in data.random_split(range(11), [0.3, 0.3, 0.4])]
    g = m.Generator().manual_seed(42)
    parts = data.random_split(range(30), [0.5, 0.5], generator=g)
    out += [list(p) for p in parts] + [len(p) for p in parts]
    dataset = data.TensorDataset(m.arange(8) * 2)
    train, _ = data.random_split(dataset, [5, 3])
    out.append(plain(next(iter(data.DataLoader(train, batch_size=5)))))
    return out, m.rand(1).tolist()


def test_random_split_gives_pytorchs_subsets():
    assert _splits(gradcli) == _splits(torch)


def _samplers(m):
    m.manual_seed(2)
    data = _data(m)
    return [
        list(data.RandomSampler(range(5), replacement=True, num_samples=70)),
        list(data.RandomSampler(range(4), num_samples=10)),
        list(data.WeightedRandomSampler([0.1, 0.9, 0.4, 0.7, 3.0, 0.6], 5)),
        list(data.WeightedRandomSampler([0.9, 0.4, 0.05, 0.2, 0.3, 0.1], 5, replacement=False)),
        list(data.BatchSampler(range(10), 3, drop_last=False)),
        list(data.BatchSampler(range(10), 3, drop_last=True)),
        len(data.BatchSampler(range(10), 3, drop_last=False)),
        m.rand(1).tolist(),
    ]


def test_samplers_draw_pytorchs_indices():
    assert _samplers(gradcli) == _samplers(torch)


def _collated(m):
    data = _data(m)

    class Samples(data.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return {
                "x": float(i) / 3,
                "n": i,
                "flag": i % 2 == 0,
                "t": m.tensor([i, 2.0 * i]),
                "name": f"s{i}",
                "pair": Pair(np.float32(i), np.arange(i, i + 2)),
                "list": [i, m.tensor(i)],
            }

    return [plain(b) for b in data.DataLoader(Samples(), batch_size=3)] + [
        plain(data.default_convert((np.arange(3), [np.float64(1.5)]))),
        plain(data.default_collate([(1, 2.0), (3, 4.0)])),
    ]


def test_collation_gives_pytorchs_types_and_values():
    assert _collated(gradcli) == _collated(torch)


def _streams(m):
    data = _data(m)

    class Counting(data.IterableDataset):
        def __iter__(self):
            return iter(range(3, 10))

    stream = Counting()
    return [
        [plain(b) for b in data.DataLoader(stream, batch_size=3)],
        [plain(b) for b in data.DataLoader(stream, batch_size=3, drop_last=True)],
        [plain(b) for b in data.DataLoader(stream, batch_size=None)],
        list(data.ConcatDataset([range(3), range(5, 7)])),
        plain(data.StackDataset(a=range(3), b=range(3, 6))[1]),
    ]


def test_iterable_and_combined_datasets_as_pytorchs():
    assert _streams(gradcli) == _streams(torch)


def _train(m):
    # A float64 regression through a shuffled loader: batches and updates as PyTorch's.
    m.manual_seed(4)
    x = m.randn(40, 3, dtype=m.float64)
    y = x @ m.tensor([[1.0], [-2.0], [0.5]], dtype=m.float64) + 0.1
    loader = m.utils.data.DataLoader(m.utils.data.TensorDataset(x, y), batch_size=8, shuffle=True)
    model = m.nn.Linear(3, 1, dtype=m.float64)
    opt = m.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        for xb, yb in loader:
            opt.zero_grad()
            m.nn.functional.mse_loss(model(xb), yb).backward()
            opt.step()
    return [p.detach().numpy().copy() for p in model.parameters()]


def test_training_through_a_loader_ends_on_pytorchs_parameters():
    for ours, theirs in zip(_train(gradcli), _train(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=0)


def _mistakes(m):
    data = _data(m)
    dataset = data.TensorDataset(m.zeros(4))
    said = []
    for attempt in (
        lambda: data.DataLoader(dataset, shuffle=True, sampler=data.SequentialSampler(dataset)),
        lambda: data.DataLoader(dataset, batch_size=2, batch_sampler=[[0, 1]]),
        lambda: data.DataLoader(dataset, batch_size=None, drop_last=True),
        lambda: data.DataLoader(dataset, num_workers=-1),
        lambda: setattr(data.DataLoader(dataset), "batch_size", 3),
        lambda: data.random_split(dataset, [2, 3]),
        lambda: data.TensorDataset(m.zeros(3), m.zeros(2)),
        lambda: data.BatchSampler(range(3), 0, False),
        lambda: data.default_collate([object()]),
    ):
        try:
            attempt()
        except Exception as error:  # noqa: BLE001  (the class name is compared)
            said.append((type(error).__name__, str(error).replace("torch.", "")))
    return said


def test_mistakes_raise_pytorchs_errors():
    ours = _mistakes(gradcli)
    assert len(ours) == 9
    assert ours == _mistakes(torch)


def test_worker_processes_are_an_error_that_says_so():
    dataset = gradcli.utils.data.TensorDataset(gradcli.zeros(4))
    with pytest.raises(NotImplementedError, match="num_workers=2 .* not implemented in gradcli"):
        gradcli.utils.data.DataLoader(dataset, num_workers=2)


def test_a_program_imports_torch_utils_data_under_gradcli_run(tmp_path):
    from gradcli.torch import run_program

    program = tmp_path / "p.py"
    program.write_text(
        "import torch\n"
        "from torch.utils.data import DataLoader, TensorDataset\n"
        "import torch.utils.data as tud\n"
        "assert DataLoader is torch.utils.data.DataLoader is tud.DataLoader\n"
        "print(len(DataLoader(TensorDataset(torch.zeros(5)), batch_size=2)))\n"
    )
    assert run_program(str(program)) == 0
