"""PyTorch's CPU random number generator: the same numbers from the same seed.

PyTorch draws every random number on the CPU from a 32-bit Mersenne Twister
(mt19937) seeded by the standard ``init_genrand``, and keeps beside it one
cached normal sample of each precision (Box-Muller makes two at a time). This
``Generator`` holds exactly that: the twister's 624 words run through NumPy's
``MT19937`` bit generator (same recurrence and tempering, so its raw outputs
are PyTorch's ``random()``), the seed, and the two caches. ``get_state`` and
``set_state`` read and write PyTorch's 5056-byte layout (``torch.get_rng_state``),
so a state saved by one loads in the other.

The distributions built on these draws live in ``distributions``.
"""

from __future__ import annotations

import os
import struct
import threading

import numpy as np

from ..errors import EngineError, GradcliTypeError
from .devices import on_cpu
from .tensor import Tensor

_N = 624  # words of the twister's state
# PyTorch's seed for a new torch.Generator() (default_rng_seed_val).
DEFAULT_SEED = 67280421310721
_U64 = 2**64

# CPUGeneratorImplState: the legacy POD (seed, left, seeded, next, 624 words as
# uint64, normal_x, normal_y, normal_rho, normal_is_valid), then the float cache.
_LAYOUT = struct.Struct(f"<QiiQ{_N}Qdddi4xf?3x")
STATE_SIZE = _LAYOUT.size  # 5056


def _seed_words(seed: int) -> np.ndarray:
    """``init_genrand``: the twister's state for a seed (its low 32 bits)."""
    words = [seed & 0xFFFFFFFF]
    for j in range(1, _N):
        prev = words[-1]
        words.append((1812433253 * (prev ^ (prev >> 30)) + j) & 0xFFFFFFFF)
    return np.array(words, dtype=np.uint32)


def _as_seed(seed) -> int:
    """A seed as PyTorch reads it: an integer in [-2**63, 2**64), negatives as two's
    complement."""
    if isinstance(seed, bool) or not isinstance(seed, (int, float, str, np.integer, np.floating)):
        if hasattr(seed, "item"):  # a one-element tensor
            seed = seed.item()
        else:
            raise GradcliTypeError(f"manual_seed expected an int, but got {type(seed).__name__}")
    value = int(seed)
    if not -(2**63) <= value < _U64:
        raise ValueError("Overflow when unpacking long long")
    return value % _U64


class Generator:
    """``torch.Generator``: a seeded source of random numbers that draws what PyTorch's
    CPU generator draws. rand, randn and the other random functions take one as
    ``generator=``; without, they draw from ``default_generator``."""

    def __init__(self, device="cpu"):
        if str(device) != "cpu":
            on_cpu(device)  # the error that says gradcli computes on the CPU
        self.device = "cpu"
        self._lock = threading.Lock()
        self.manual_seed(DEFAULT_SEED)

    def __repr__(self):
        return f"<gradcli.Generator object at {id(self):#x}>"

    # ----- seeding -----

    def manual_seed(self, seed) -> Generator:
        seed = _as_seed(seed)
        with self._lock:
            self._seed = seed
            self._words = None  # computed on the first draw: most seeds are never drawn from
            self._bits = None
            self._fresh = True  # seeded, nothing drawn: PyTorch's next index is 0, not 624
            self.next_double_normal = None
            self.next_float_normal = None
        return self

    def seed(self) -> int:
        """Seed with a nondeterministic number, as PyTorch's (53 bits), and return it."""
        value = _nondeterministic_seed()
        self.manual_seed(value)
        return value

    def initial_seed(self) -> int:
        return self._seed

    # ----- raw draws -----

    def _bit_generator(self):
        if self._bits is None:
            bits = np.random.MT19937(0)
            words = _seed_words(self._seed) if self._words is None else self._words
            bits.state = {
                "bit_generator": "MT19937",
                "state": {"key": words, "pos": _N if self._fresh else self._pos},
            }
            self._bits = bits
        return self._bits

    def random(self, n: int) -> np.ndarray:
        """``n`` draws of PyTorch's ``random()``: 32-bit words, as uint64."""
        bits = self._bit_generator()
        if n:
            self._fresh = False
        return bits.random_raw(int(n))

    def random64(self, n: int) -> np.ndarray:
        """``n`` draws of PyTorch's ``random64()``: two words each, the first the high half."""
        words = self.random(2 * int(n))
        return (words[0::2] << np.uint64(32)) | words[1::2]

    # ----- PyTorch's state bytes -----

    def get_state(self):
        """The state as PyTorch's ``get_state()`` gives it: 5056 bytes (a uint8 tensor)."""
        return Tensor._make(np.frombuffer(self._state_bytes(), dtype=np.uint8).copy())

    def _state_bytes(self) -> bytes:
        with self._lock:
            if self._fresh:
                words = _seed_words(self._seed) if self._words is None else self._words
                left, nxt = 1, 0
            else:
                state = self._bit_generator().state["state"]
                words, pos = state["key"], int(state["pos"])
                left, nxt = _N + 1 - pos, pos
            double, single = self.next_double_normal, self.next_float_normal
            return _LAYOUT.pack(
                self._seed, left, 1, nxt, *(int(w) for w in words),
                0.0, 0.0 if double is None else double, 0.0, double is not None,
                0.0 if single is None else single, single is not None,
            )  # fmt: skip

    def set_state(self, new_state) -> Generator:
        data = np.asarray(getattr(new_state, "_data", new_state))
        if data.dtype != np.uint8:
            raise GradcliTypeError(
                "expected a torch.ByteTensor, but got "
                f"{getattr(new_state, 'type', lambda: type(new_state).__name__)()}"
            )
        if data.size != STATE_SIZE:
            raise EngineError(
                f"Expected a CPUGeneratorImplState of size {STATE_SIZE} but found the "
                f"input RNG state size to be {data.size}"
            )
        fields = _LAYOUT.unpack(data.tobytes())
        seed, left, seeded, nxt = fields[:4]
        words = np.array(fields[4 : 4 + _N], dtype=np.uint64).astype(np.uint32)
        _, normal_y, _, normal_valid, single, single_valid = fields[4 + _N :]
        if not (seeded and 0 < left <= _N and nxt <= _N):
            raise EngineError("Invalid mt19937 state")
        with self._lock:
            self._seed = seed
            self._words = words
            self._fresh = left == 1 and nxt == 0
            self._pos = _N + 1 - left
            self._bits = None
            self.next_double_normal = normal_y if normal_valid else None
            self.next_float_normal = single if single_valid else None
        return self

    def clone_state(self) -> Generator:
        other = Generator()
        other.set_state(self.get_state())
        return other


def _nondeterministic_seed() -> int:
    return int.from_bytes(os.urandom(8), "little") & (2**53 - 1)


# The process's generator: seeded from the system at start, as PyTorch's is.
default_generator = Generator().manual_seed(_nondeterministic_seed())


def seed() -> int:
    """``torch.seed()``: seed the process's generator from the system; the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """``torch.initial_seed()``: the seed of the process's generator."""
    return default_generator.initial_seed()


def get_rng_state():
    """``torch.get_rng_state()``: the process's generator state (5056 bytes)."""
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    """``torch.set_rng_state(state)``: restore the process's generator state."""
    default_generator.set_state(new_state)


def seeded(seed) -> Generator:
    """A new generator seeded with ``seed``, as ``torch.Generator().manual_seed(seed)``."""
    return Generator().manual_seed(seed)


def generator_or_default(generator) -> Generator:
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise GradcliTypeError(f"expected a torch.Generator, but got {type(generator).__name__}")
    return generator
