"""Samplers: the order in which a DataLoader visits a dataset's indices, and their
grouping into batches. The random ones draw as PyTorch's do, from the same generator."""

from __future__ import annotations

import itertools

from ...engine import generator as _generator
from ...engine.dtypes import float64, int64
from ...engine.ops.every import LIBRARY
from ...errors import GradcliTypeError, GradcliValueError

_randperm, _randint = LIBRARY["randperm"], LIBRARY["randint"]


class Sampler:
    """Iterates over indices (or lists of indices) of a dataset; may have a length."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError

    def __class_getitem__(cls, item):  # Sampler[int] in a program's annotations
        return cls


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def fresh_seed(generator=None) -> int:
    """``torch.empty((), dtype=torch.int64).random_(generator=generator).item()``: the seed
    PyTorch's data loading draws (one 64-bit draw, below 2**63)."""
    return int(LIBRARY["empty"]((), dtype=int64).random_(generator=generator).item())


class RandomSampler(Sampler):
    """The indices shuffled: one ``randperm`` per pass over the data (or ``randint``
    draws with ``replacement``). Without a generator, each pass seeds a new one with a
    draw from the process's generator, as PyTorch's does."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise GradcliTypeError(
                f"replacement should be a boolean value, but got replacement={self.replacement}"
            )
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise GradcliValueError(
                "num_samples should be a positive integer value, "
                f"but got num_samples={self.num_samples}"
            )

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        generator = self.generator
        if generator is None:  # drawn when the pass starts (a generator function's first step)
            generator = _generator.Generator()
            generator.manual_seed(fresh_seed())
        if self.replacement:
            # Drawn 32 at a time, as PyTorch's, so the numbers are the same.
            for _ in range(self.num_samples // 32):
                yield from _randint(0, n, (32,), dtype=int64, generator=generator).tolist()
            rest = (self.num_samples % 32,)
            yield from _randint(0, n, rest, dtype=int64, generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from _randperm(n, generator=generator).tolist()
            yield from _randperm(n, generator=generator).tolist()[: self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order (one ``randperm`` per pass)."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in _randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with the given weights (``multinomial``)."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise GradcliValueError(
                f"num_samples should be a positive integer value, but got num_samples={num_samples}"
            )
        if not isinstance(replacement, bool):
            raise GradcliValueError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        weights = LIBRARY["as_tensor"](weights, dtype=float64)
        if len(weights.shape) != 1:
            raise GradcliValueError(
                "weights should be a 1d sequence but given "
                f"weights have shape {tuple(weights.shape)}"
            )
        self.weights = weights
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        drawn = LIBRARY["multinomial"](
            self.weights, self.num_samples, self.replacement, generator=self.generator
        )
        yield from iter(drawn.tolist())

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Another sampler's indices in lists of ``batch_size`` (the last shorter, or dropped
    with ``drop_last``)."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise GradcliValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        if not isinstance(drop_last, bool):
            raise GradcliValueError(
                f"drop_last should be a boolean value, but got drop_last={drop_last}"
            )
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        indices = iter(self.sampler)
        if self.drop_last:
            yield from (list(batch) for batch in zip(*[indices] * self.batch_size))
            return
        batch = list(itertools.islice(indices, self.batch_size))
        while batch:
            yield batch
            batch = list(itertools.islice(indices, self.batch_size))

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
