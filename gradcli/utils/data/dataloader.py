"""``DataLoader``: a dataset's samples in batches, fetched in the program's process and
collated into tensors (``default_collate``), with PyTorch's draws from its generator."""

from __future__ import annotations

import collections.abc
import copy
import math
import re
import warnings

import numpy as np

from ...engine.dtypes import float64
from ...engine.ops.every import LIBRARY
from ...engine.tensor import Tensor
from ...errors import GradcliTypeError, GradcliValueError, NotImplementedByGradcli
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler, fresh_seed

_STRINGS = re.compile(r"[SaUO]")  # NumPy dtypes of strings and objects: left as they are
_COLLATE_ERROR = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def get_worker_info():
    """None: every sample is loaded in the program's own process."""
    return None


def default_convert(data):
    """NumPy arrays and scalars (also inside dicts, tuples and lists) as tensors; the rest
    as it is. What a DataLoader without batching (``batch_size=None``) yields."""
    if isinstance(data, Tensor):
        return data
    kind = type(data)
    if kind.__module__ == "numpy" and kind.__name__ not in ("str_", "string_"):
        if isinstance(data, np.ndarray) and _STRINGS.search(data.dtype.str):
            return data
        return LIBRARY["as_tensor"](data)
    if isinstance(data, collections.abc.Mapping):
        return _remade_mapping(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # a namedtuple
        return kind(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _remade_sequence(data, [default_convert(d) for d in data])
    return data


def _remade_mapping(like, items):
    # A mapping of like's own type where it can be made (a copy updated), else a dict.
    try:
        if isinstance(like, collections.abc.MutableMapping):
            clone = copy.copy(like)
            clone.update(items)
            return clone
        return type(like)(items)
    except TypeError:
        return items


def _remade_sequence(like, items):
    try:
        if isinstance(like, collections.abc.MutableSequence):
            clone = copy.copy(like)
            for i, item in enumerate(items):
                clone[i] = item
            return clone
        return type(like)(items)
    except TypeError:
        return items


def default_collate(batch):
    """A list of samples as one batch: tensors stacked on a new first dimension, numbers
    as a tensor (floats in float64), and dicts, tuples and lists collated entry by entry
    (a tuple's batch is a list, as PyTorch's)."""
    elem = batch[0]
    kind = type(elem)
    if isinstance(elem, Tensor):
        return LIBRARY["stack"](batch, 0)
    if isinstance(elem, np.ndarray):
        if _STRINGS.search(elem.dtype.str):
            raise GradcliTypeError(_COLLATE_ERROR.format(elem.dtype))
        return default_collate([LIBRARY["as_tensor"](b) for b in batch])
    if isinstance(elem, (np.bool_, np.number, np.object_)):
        return LIBRARY["as_tensor"](batch)
    if isinstance(elem, float):
        return LIBRARY["tensor"](batch, dtype=float64)
    if isinstance(elem, int):
        return LIBRARY["tensor"](batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return _remade_mapping(
            elem, {key: default_collate([d[key] for d in batch]) for key in elem}
        )
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a namedtuple
        return kind(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [default_collate(list(samples)) for samples in zip(*batch)]
        return columns if isinstance(elem, tuple) else _remade_sequence(elem, columns)
    raise GradcliTypeError(_COLLATE_ERROR.format(kind))


class _Forever(Sampler):
    """The sampler of an iterable dataset: no index, as long as the stream lasts."""

    def __iter__(self):
        while True:
            yield None


class DataLoader:
    """Batches of a dataset: ``batch_size`` samples in the order of ``sampler`` (shuffled
    with ``shuffle=True``, from ``generator`` if given), collated by ``collate_fn``."""

    _guarded = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset")

    def __init__(
        self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
        num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
        worker_init_fn=None, multiprocessing_context=None, generator=None, *,
        prefetch_factor=None, persistent_workers=False, pin_memory_device="", in_order=True,
    ):  # fmt: skip
        if num_workers < 0:
            raise GradcliValueError(
                "num_workers option should be non-negative; "
                "use num_workers=0 to disable multiprocessing."
            )
        if num_workers > 0:
            raise NotImplementedByGradcli(
                f"DataLoader with num_workers={num_workers} (worker processes) is not "
                "implemented in gradcli: it loads in the program's process, num_workers=0"
            )
        if timeout < 0:
            raise GradcliValueError("timeout option should be non-negative")
        if prefetch_factor is not None:
            raise GradcliValueError(
                "prefetch_factor option could only be specified in multiprocessing."
                "let num_workers > 0 to enable multiprocessing, otherwise set "
                "prefetch_factor to None."
            )
        if persistent_workers:
            raise GradcliValueError("persistent_workers option needs num_workers > 0")
        if multiprocessing_context is not None:
            raise GradcliValueError(
                "multiprocessing_context can only be used with multi-process loading "
                f"(num_workers > 0), but got num_workers={num_workers}"
            )
        iterable = isinstance(dataset, IterableDataset)
        if iterable:
            if shuffle not in {False, None}:
                raise GradcliValueError(
                    "DataLoader with IterableDataset: expected unspecified shuffle option, "
                    f"but got shuffle={shuffle}"
                )
            for name, given in (("sampler", sampler), ("batch_sampler", batch_sampler)):
                if given is not None:
                    raise GradcliValueError(
                        f"DataLoader with IterableDataset: expected unspecified {name} "
                        f"option, but got {name}={given}"
                    )
        shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise GradcliValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise GradcliValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, "
                    "sampler, and drop_last"
                )
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise GradcliValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive "
                "with drop_last"
            )
        if sampler is None:
            if iterable:
                sampler = _Forever()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._iterable = iterable
        self._initialized = True

    def __setattr__(self, attr, value):
        if getattr(self, "_initialized", False) and attr in self._guarded:
            raise GradcliValueError(
                f"{attr} attribute should not be set after {type(self).__name__} is initialized"
            )
        super().__setattr__(attr, value)

    @property
    def _index_sampler(self):
        return self.sampler if self.batch_sampler is None else self.batch_sampler

    def __iter__(self):
        return _LoaderIterator(self)

    def __len__(self):
        if not self._iterable:
            return len(self._index_sampler)
        length = len(self.dataset)
        if self.batch_size is None:
            return length
        if self.drop_last:
            return length // self.batch_size
        return math.ceil(length / self.batch_size)


class _LoaderIterator:
    """One pass over a DataLoader: the next batch of indices, fetched and collated."""

    def __init__(self, loader):
        self._loader = loader
        self._index_sampler = loader._index_sampler
        self._batches = iter(self._index_sampler)
        self._batched = loader.batch_sampler is not None
        self._stream = iter(loader.dataset) if loader._iterable else None
        self._ended = False
        if loader.pin_memory:
            warnings.warn(
                "'pin_memory' argument is set as true but no accelerator is found, "
                "then device pinned memory won't be used.",
                stacklevel=3,
            )
        # PyTorch draws its workers' base seed at every pass, workers or not: the next
        # numbers drawn (the shuffle's seed, a model's weights) depend on it.
        self._base_seed = fresh_seed(loader.generator)

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._index_sampler)

    def __next__(self):
        index = next(self._batches)
        if self._stream is not None:
            return self._loader.collate_fn(self._from_stream(index))
        dataset = self._loader.dataset
        if not self._batched:
            return self._loader.collate_fn(dataset[index])
        if callable(getattr(dataset, "__getitems__", None)):
            return self._loader.collate_fn(dataset.__getitems__(index))
        return self._loader.collate_fn([dataset[i] for i in index])

    def _from_stream(self, index):
        if self._ended:
            raise StopIteration
        if not self._batched:
            return next(self._stream)
        samples = []
        for _ in index:
            try:
                samples.append(next(self._stream))
            except StopIteration:
                self._ended = True
                break
        if not samples or (self._loader.drop_last and len(samples) < len(index)):
            raise StopIteration
        return samples
