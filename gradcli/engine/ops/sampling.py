"""Random numbers: seeding, the random constructors, the in-place fills and dropout.

Every draw comes from a ``generator.Generator`` (the process's unless one is
passed as ``generator=``) through PyTorch's kernels (``distributions``), so a
program seeded as a PyTorch program draws PyTorch's numbers. The language's
random functions are these same entries, drawing from a generator of the
evaluation's ``--seed``. Each entry that draws declares ``batching=batching.random_draw``:
the mark ``vmap`` reads to follow its ``randomness=``.
"""

from __future__ import annotations

import numpy as np

from ...errors import EngineError, GradcliTypeError
from .. import batching_rules as batching
from .. import distributions as dist
from .. import dtypes, generator, limits
from ..devices import on_cpu
from ..optable import Table
from ..tensor import Tensor
from .common import raw, real_only, shape_arg
from .creation import CONSTRUCTOR, float_dtype, new_tensor, sized

table = Table("sampling")

_RANDOM = (
    "*, generator: Generator = None, dtype: dtype = None, device: device = None, "
    "requires_grad: bool = False"
)


def _gen(g):
    return generator.generator_or_default(g)


# ----- the process's generator -----


@table.composite(
    "manual_seed", "(seed: int)", kind="random", doc="seed the process's random number generator"
)
def manual_seed(over, seed):
    return generator.default_generator.manual_seed(seed)


# ----- constructors -----


def _random(name, draw, doc):
    """A random constructor of sizes (``rand(2, 3)``), its values drawn by ``draw``."""

    def construct(over, *size, generator=None, dtype=None, device=None, requires_grad=False):
        on_cpu(device)
        shape = shape_arg(size, name)
        return new_tensor(draw(_gen(generator), shape, float_dtype(dtype)), requires_grad)

    construct.__name__ = construct.__qualname__ = name
    declare = table.composite(
        name,
        f"(*size: int, {_RANDOM})",
        doc=doc,
        symbolic="a random draw: no formula of its arguments",
        **CONSTRUCTOR,
        batching=batching.random_draw,
    )
    return declare(sized(construct))


rand = _random("rand", dist.uniform, "rand(2, 3): uniform random values in [0, 1)")
randn = _random("randn", dist.normal, "randn(2, 3): standard normal random values")


@table.composite(
    "randint",
    f"(low: int = 0, high: int = None, size: int[] = None, {_RANDOM})",
    doc="randint(low=0, high, size): random integers in [low, high)",
    kind="constructor",
    batching=batching.random_draw,
)
def randint(
    over, low=0, high=None, size=None, generator=None, dtype=None, device=None, requires_grad=False
):
    on_cpu(device)
    if size is None:  # randint(high, size)
        low, high, size = 0, low, high
    if high is None or size is None:
        raise GradcliTypeError("randint() missing required arguments: 'high' and 'size'")
    data = dist.integers(_gen(generator), shape_arg((size,), "randint"), low, high)
    return new_tensor(data.astype(dtypes.to_numpy(dtype) or np.int64), requires_grad)


@table.composite(
    "randperm",
    f"(n: int, {_RANDOM})",
    kind="constructor",
    batching=batching.random_draw,
    doc="randperm(n): the integers 0 .. n-1 in random order",
)
def randperm(over, n, generator=None, dtype=None, device=None, requires_grad=False):
    on_cpu(device)
    n = int(n)
    if n < 0:
        raise EngineError(f"n must be non-negative, got{n}")
    limits.check("randperm", n)
    data = dist.permutation(_gen(generator), n)
    return new_tensor(data.astype(dtypes.to_numpy(dtype) or np.int64), requires_grad)


@table.composite(
    "normal",
    f"(mean: Tensor|Number, std: Tensor|Number = 1.0, size: int[] = None, {_RANDOM})",
    doc="normal(mean, std, size): normal random values",
    kind="constructor",
    batching=batching.random_draw,
)
def normal(
    over, mean, std=1.0, size=None, generator=None, dtype=None, device=None, requires_grad=False
):
    on_cpu(device)
    gen = _gen(generator)
    tensors = [v for v in (mean, std) if type(v) is Tensor]
    if not tensors:  # normal(mean, std, size): one fill
        if size is None:
            raise GradcliTypeError("normal() missing required argument: 'size'")
        shape = shape_arg((size,), "normal")
        data = dist.normal(gen, shape, float_dtype(dtype), float(mean), float(std))
        return new_tensor(data, requires_grad)
    # PyTorch fills N(0, 1) (N(0, std) for a number std), then scales and shifts.
    like = np.result_type(*(t._data for t in tensors))
    if type(std) is not Tensor:
        if std < 0:
            raise EngineError(f"normal expects std >= 0.0, but found std {std}")
        out = dist.normal(gen, np.shape(raw(mean)), like, 0.0, float(std))
        return Tensor._make(out) + mean
    if np.any(std._data < 0):
        raise EngineError("normal expects all elements of std >= 0.0")
    shape = np.broadcast_shapes(np.shape(raw(mean)), std._data.shape)
    return Tensor._make(dist.normal(gen, shape, like)) * std + mean


def _like(name, make, doc):
    @table.composite(
        name, f"(input: Tensor, {_RANDOM})", kind="constructor", doc=doc,
        batching=batching.random_draw,
    )  # fmt: skip
    def like(over, input, generator=None, dtype=None, device=None, requires_grad=False):
        return make(
            *np.shape(input), generator=generator, dtype=dtype or np.asarray(input).dtype,
            device=device, requires_grad=requires_grad,
        )  # fmt: skip

    return like


rand_like = _like("rand_like", rand, "rand_like(x): uniform random values of x's shape")
randn_like = _like("randn_like", randn, "randn_like(x): normal random values of x's shape")


# ----- in-place fills: recorded as a copy, x's old values get no gradient -----


def _fill(input, values):
    return input.copy_(Tensor._make(values.astype(input._data.dtype)))


def _in_memory_order(data, draw):
    """``draw(shape)``'s values laid out as PyTorch's kernels fill ``data``: one after
    another in the order of memory, so a transposed tensor takes them down its columns."""
    axes = sorted(range(data.ndim), key=lambda a: -abs(data.strides[a]) if data.shape[a] > 1 else 0)
    if axes == sorted(axes) or data.flags.c_contiguous:
        return draw(data.shape)
    values = draw(tuple(data.shape[a] for a in axes))
    return values.transpose(np.argsort(axes))


@table.composite(
    "normal_",
    "(input: Tensor, mean: Number = 0.0, std: Number = 1.0, *, generator: Generator = None)",
    kind="random",
    batching=batching.random_draw,
    method=True,
    library=False,
    doc="x filled in place with normal random values",
)
def normal_(over, input, mean=0.0, std=1.0, generator=None):
    data = input._data
    gen = _gen(generator)
    contiguous = data.flags.c_contiguous
    return _fill(
        input,
        _in_memory_order(
            data,
            lambda shape: dist.normal(gen, shape, data.dtype, float(mean), float(std), contiguous),
        ),
    )


@table.composite(
    "uniform_",
    "(input: Tensor, a: Number = 0.0, b: Number = 1.0, *, generator: Generator = None)",
    kind="random",
    batching=batching.random_draw,
    method=True,
    library=False,
    doc="x filled in place with uniform random values in [a, b)",
)
def uniform_(over, input, a=0.0, b=1.0, generator=None):
    data = input._data
    gen = _gen(generator)
    return _fill(
        input, _in_memory_order(data, lambda shape: dist.uniform(gen, shape, data.dtype, a, b))
    )


@table.composite(
    "random_",
    "(input: Tensor, from_: int = None, to: int = None, *, generator: Generator = None)",
    kind="random",
    batching=batching.random_draw,
    method=True,
    library=False,
    doc="x filled in place with random integers: random_(to) in [0, to), random_(from, to)",
)
def random_(over, input, from_=None, to=None, generator=None):
    data = input._data
    gen = _gen(generator)
    if from_ is None and to is None:
        draw = lambda shape: dist.whole_numbers(gen, shape, data.dtype)  # noqa: E731
    else:
        low, high = (0, from_) if to is None else (from_, to)  # random_(to) or random_(from, to)
        draw = lambda shape: dist.integers(gen, shape, 0 if low is None else low, high)  # noqa: E731
    return _fill(input, _in_memory_order(data, draw))


@table.composite(
    "exponential_",
    "(input: Tensor, lambd: Number = 1.0, *, generator: Generator = None)",
    kind="random",
    batching=batching.random_draw,
    method=True,
    library=False,
    doc="x filled in place with exponential random values of rate lambd",
)
def exponential_(over, input, lambd=1.0, generator=None):
    if not lambd > 0:
        raise EngineError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    gen = _gen(generator)
    draw = lambda shape: dist.exponential(gen, shape, float(lambd))  # noqa: E731
    return _fill(input, _in_memory_order(input._data, draw))


@table.composite(
    "bernoulli_",
    "(input: Tensor, p: Tensor|Number = 0.5, *, generator: Generator = None)",
    kind="random",
    batching=batching.random_draw,
    method=True,
    library=False,
    doc="x filled in place with 1 with probability p, else 0",
)
def bernoulli_(over, input, p=0.5, generator=None):
    if type(p) is Tensor:
        probs = np.broadcast_to(p._data, input._data.shape)
        draws = dist.bernoulli(_gen(generator), probs, p._data.dtype)
    else:
        draws = dist.bernoulli(_gen(generator), np.full(input._data.shape, float(p)))
    return _fill(input, draws)


@table.composite(
    "bernoulli",
    "(input: Tensor, p: Number = None, *, generator: Generator = None)",
    kind="constructor",
    batching=batching.random_draw,
    method=True,
    doc="bernoulli(p): 1 with probability p (each entry of p), else 0",
)
def bernoulli(over, input, p=None, generator=None):
    real_only("bernoulli", input)
    data = raw(input)
    if p is None:  # each entry of input is its own probability
        draws = dist.bernoulli(_gen(generator), data, data.dtype)
    else:
        draws = dist.bernoulli(_gen(generator), np.full(data.shape, float(p)))
    return Tensor._make(draws.astype(data.dtype))


@table.composite(
    "multinomial",
    "(input: Tensor, num_samples: int, replacement: bool = False, *, generator: Generator = None)",
    kind="constructor",
    batching=batching.random_draw,
    method=True,
    doc="multinomial(p, n): n indices drawn with the weights of p (each row of p)",
)
def multinomial(over, input, num_samples, replacement=False, generator=None):
    return Tensor._make(dist.multinomial(_gen(generator), raw(input), num_samples, replacement))


# ----- dropout: x times a mask of 1 / (1 - p) with probability 1 - p, else 0 -----


@table.composite(
    "dropout",
    "(input: Tensor, p: float = 0.5, train: bool = True)",
    kind="other",
    batching=batching.random_draw,
    nn_functional="dropout",
    doc="dropout(x, p): x's entries zeroed with probability p, the rest scaled by 1/(1 - p)",
)
def dropout(over, input, p=0.5, train=True):
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    data = raw(input)
    if p == 0 or not train or data.size == 0:
        return input
    real_only("dropout", input)
    if p == 1:
        return input * Tensor._make(np.zeros((), data.dtype))
    keep = dist.bernoulli(generator.default_generator, np.full(data.shape, 1 - p))
    # PyTorch divides the 0/1 mask by 1 - p in the tensor's dtype, then multiplies.
    scale = data.dtype.type(1) / data.dtype.type(1 - p)
    return input * Tensor._make(keep.astype(data.dtype) * scale)
