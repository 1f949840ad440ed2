"""``torch.utils.data``: datasets, samplers and ``DataLoader``, drawing PyTorch's numbers.

A dataset maps an index to a sample (``dataset.py``); a sampler orders the indices and
a batch sampler groups them (``sampler.py``); ``DataLoader`` fetches each group and
collates it into tensors (``dataloader.py``). Every random choice (a shuffle, a split)
draws from the generator PyTorch's code draws from, in its order, so a program seeded
as a PyTorch program sees the same batches. Loading runs in the program's own process:
worker processes (``num_workers > 0``) are an error that says so.
"""

from __future__ import annotations

from .dataloader import DataLoader, default_collate, default_convert, get_worker_info
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset",
    "IterableDataset", "RandomSampler", "Sampler", "SequentialSampler", "StackDataset",
    "Subset", "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler",
    "default_collate", "default_convert", "get_worker_info", "random_split",
]  # fmt: skip
