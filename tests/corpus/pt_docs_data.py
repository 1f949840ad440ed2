# follows: PyTorch documentation, "torch.utils.data" (Dataset Types, Data Loading Order and
#   Sampler, Loading Batched and Non-Batched Data, Working with collate_fn), and the
#   examples of random_split, BatchSampler and WeightedRandomSampler,
#   https://pytorch.org/docs/stable/data.html
"""Map-style and iterable-style datasets through a DataLoader: the default sampler and
batch sampler, shuffling from a seeded generator, drop_last, batch_size=None,
default_collate of tuples, dicts and numbers and a custom collate_fn; random_split by
lengths and by fractions; BatchSampler and WeightedRandomSampler as the page shows them,
and a model trained a few steps on the shuffled batches."""

import torch
from torch.utils.data import (
    BatchSampler,
    DataLoader,
    Dataset,
    IterableDataset,
    SequentialSampler,
    TensorDataset,
    WeightedRandomSampler,
    default_collate,
    random_split,
)

torch.manual_seed(0)


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"x": torch.tensor([float(i)]), "y": i * i, "name": f"s{i}"}


class Counter(IterableDataset):
    def __init__(self, start, end):
        super().__init__()
        self.start, self.end = start, end

    def __iter__(self):
        return iter(range(self.start, self.end))


print(next(iter(DataLoader(Squares(10), batch_size=4))))
g = torch.Generator().manual_seed(42)
print([b["y"].tolist() for b in DataLoader(Squares(10), batch_size=4, shuffle=True, generator=g)])
print([b["y"].tolist() for b in DataLoader(Squares(10), batch_size=4, drop_last=True)])
print(list(DataLoader(Counter(3, 7), num_workers=0)))
print(list(DataLoader(Counter(3, 10), batch_size=3)))
print(next(iter(DataLoader(Squares(3), batch_size=None))))
print(default_collate([(1, 2.5), (3, 4.5)]))


def collate_pairs(batch):
    xs, ys = zip(*[(d["x"], d["y"]) for d in batch])
    return torch.cat(xs), torch.tensor(ys)


print(list(DataLoader(Squares(5), batch_size=2, collate_fn=collate_pairs)))

generator1 = torch.Generator().manual_seed(42)
generator2 = torch.Generator().manual_seed(42)
print([list(s) for s in random_split(range(10), [3, 7], generator=generator1)])
print([list(s) for s in random_split(range(30), [0.3, 0.3, 0.4], generator=generator2)])
print(list(BatchSampler(SequentialSampler(range(10)), batch_size=3, drop_last=False)))
print(list(BatchSampler(SequentialSampler(range(10)), batch_size=3, drop_last=True)))
print(list(WeightedRandomSampler([0.1, 0.9, 0.4, 0.7, 3.0, 0.6], 5, replacement=True)))
print(list(WeightedRandomSampler([0.9, 0.4, 0.05, 0.2, 0.3, 0.1], 5, replacement=False)))

x = torch.linspace(-1, 1, 40).unsqueeze(1)
train, valid = random_split(TensorDataset(x, 3 * x - 1), [0.75, 0.25])
print(len(train), len(valid), sorted(valid.indices))
model = torch.nn.Linear(1, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.2)
for epoch in range(4):
    for xb, yb in DataLoader(train, batch_size=10, shuffle=True):
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(xb), yb)
        loss.backward()
        optimizer.step()
    xv, yv = valid[:]
    print(epoch, f"{torch.nn.functional.mse_loss(model(xv), yv).item():.4f}")
