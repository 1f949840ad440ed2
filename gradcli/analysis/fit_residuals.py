"""``fit``'s residuals and their Jacobian at the parameters SciPy asks for, and the
model compiled for them, kept across fits.

A fit evaluates one model over the same rows at a few dozen values of its parameters.
The model is compiled and bound once for the whole fit (``PointsProgram``), and its
graph recorded as a tape (``language/tape.py``), replayed at every value. Binding the
parameters, compiling the model and recording the tape cost as much as a small fit's
every evaluation together, and a second fit of the same model to the same data (from
another start, in a loop over starts) would do it all again: ``COMPILED`` keeps the
last few, keyed on the fit's own arguments that make them (the model's text, file
name, dtype and seed, the number of rows, the parameters' names and shapes but not
their values, and the contents of every value bound and of every column the model
reads). A tape holds no value of the parameters: the one made at one start replays at
any other, as it replays at every iterate of the fit it was made for, so a kept one
gives the same numbers, bit for bit. What depends on the start (whether the first row
is finite there, the residuals there) is found at each fit. Only fits whose model the
tape replays and whose first row needs no evaluation of its own are kept
(``fitting._quick_start``); the others compile at each fit, as before.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict

import numpy as np

from ..core import many_points


class Compiled:
    """The last ``entries`` models compiled for a fit and their tapes, by what makes them;
    models bound to more than ``largest`` bytes of data are never kept (their own
    evaluations cost more than making them). Threads may share it."""

    def __init__(self, entries: int = 8, largest: int = 1 << 20):
        self.entries, self.largest = entries, largest
        self._kept: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        #: How many fits found theirs kept, and how many made theirs.
        self.hits = self.misses = 0

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()
            self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._kept)

    def get(self, key):
        with self._lock:
            found = self._kept.get(key) if key is not None else None
            if found is None:
                self.misses += 1
                return None
            self.hits += 1
            self._kept.move_to_end(key)
            return found

    def put(self, key, compiled) -> None:
        with self._lock:
            self._kept[key] = compiled
            self._kept.move_to_end(key)
            while len(self._kept) > self.entries:
                self._kept.popitem(last=False)

    def key(self, model, params, bindings, predictors, rows, options):
        """What a fit's parameters' layout, program and tape are made from, read from the
        fit's own arguments (the parameters' values aside: their shapes), or None where
        it is too large to keep or not plainly numbers (then the fit makes its own)."""
        sizes = 0
        described = []
        for name, value in params.items():
            value = np.asarray(value)
            if value.dtype.kind not in "iuf":  # cast to the dtype as they are: any other
                return None  # is said or refused by the evaluation
            described.append((name, value.shape))
        for kind, given in (("bound", bindings), ("column", predictors)):
            for name, value in given.items():
                if isinstance(value, str):
                    described.append((kind, name, value))
                    continue
                value = np.asarray(value)
                sizes += value.nbytes
                if value.dtype.kind not in "biufc" or sizes > self.largest:
                    return None
                described.append((kind, name, value.dtype.str, value.shape, value.tobytes()))
        settings = (options["dtype"], options["seed"], options["filename"])
        return (model, settings, rows, tuple(described))


#: The models compiled for recent fits (``fit`` reads it; ``clear()`` empties it).
COMPILED = Compiled()


class Residuals:
    """The weighted residuals and their Jacobian at parameters b, every row in one batched
    pass: ``residual(b)`` and ``jacobian(b)``, SciPy's two callbacks. The last point is
    kept, since least_squares asks for the Jacobian at the b whose residuals it took
    last; the Jacobian is computed only when asked for (Levenberg-Marquardt rejects some
    steps and needs no Jacobian there).

    The parameters are given at each call as columns that repeat b on every row, so that
    each row's gradient by its own copy is that row of the Jacobian."""

    def __init__(self, model, flat, predictors, observed, scale, options, compiled=None):
        self.flat, self.predictors = flat, predictors
        self.observed, self.scale = observed, scale
        self.rows = observed.size
        #: The model compiled for these columns, and its tape (None where the engine
        #: evaluates it): ``compiled``, kept from a fit before, or made here.
        self.program, self.tape = compiled or self._compiled(model, options)
        self.unit = bool(np.all(scale == 1))
        self.dtype = np.dtype(options["dtype"])
        self.one = np.ones((), self.dtype)
        self.seed = None  # the reverse pass's, made at the first
        # In float64 the columns are views of one vector of the parameters, written at
        # each call (np.broadcast_to costs more than the model); in float32 they are
        # cast copies, as the engine makes them.
        self.copied = self.dtype != np.float64
        self.point = np.zeros(flat.size)
        self.views = [_repeated(v, self.rows) for v in flat.arrays(self.point).values()]
        #: The point kept: [b's bytes, residuals, Jacobian or None, the tape's store].
        self.kept = [None, None, None, None]

    def _compiled(self, model, options):
        flat, predictors = self.flat, self.predictors
        fixed = {k: v for k, v in flat.fixed.items() if k not in predictors}
        batch = {**predictors, **self._columns(flat.start)}
        program = many_points.PointsProgram(
            "grad", model, fixed, many_points.layout(batch), wrt=flat.names, **options
        )
        # The same passes replayed on arrays (the engine's numbers, bit for bit), where
        # the model allows; else the engine at each call.
        return program, program.tape(batch)

    def _columns(self, b) -> dict[str, np.ndarray]:
        """Each parameter as a column: its value repeated on every row."""
        n = self.observed.size
        return {
            name: np.broadcast_to(np.asarray(v, dtype=np.float64), (n, *np.shape(v)))
            for name, v in self.flat.arrays(b).items()
        }

    def __call__(self, b) -> tuple[np.ndarray, np.ndarray]:
        return self.residual(b), self.jacobian(b)

    def residual(self, b) -> np.ndarray:
        return self._at(b)[1]

    def jacobian(self, b) -> np.ndarray:
        kept = self._at(b)
        if kept[2] is None:
            with np.errstate(all="ignore"):
                kept[2] = self._jacobian(self._gradients(kept[3]))
        return kept[2]

    def _at(self, b) -> list:
        """The point kept, made b's if it is not: its residuals (and, where the engine
        evaluates the model, its Jacobian)."""
        b = np.asarray(b, dtype=np.float64)
        key = b.tobytes()
        kept = self.kept
        if kept[0] != key:
            kept[0] = None  # until the point is whole
            # One np.errstate for the call: the tape's passes and the sums below.
            with np.errstate(all="ignore"):
                if self.tape is not None:
                    store = self.tape.forward(self._leaves(b), quiet=False)
                    kept[1:] = self._residual(self.tape.output(store, 0)), None, store
                else:
                    value, grads = self._engine(b)
                    kept[1:] = self._residual(value), self._jacobian(grads), None
            kept[0] = key
        return kept

    def _leaves(self, b) -> list[np.ndarray]:
        """The parameters' columns at b, as the tape takes them (``flat.names``' order)."""
        if self.copied:
            columns = self._columns(b)
            return [np.asarray(columns[name], self.dtype) for name in self.flat.names]
        self.point[...] = b
        return self.views

    def _gradients(self, store) -> list[np.ndarray]:
        """The model's gradient by each parameter, every row, from the tape's store."""
        if self.seed is None:
            # The value's shape (the tape's, at every point): a one-entry vector's rows
            # are (rows, 1).
            shape = self.tape.output(store, 0).shape
            one = self.one.reshape((1,) * (len(shape) - 1)) if shape else self.one
            self.seed = _repeated(one, shape[0]) if shape else one
        # Not copied: the Jacobian made of them is a new array.
        return self.tape.gradients(store, 0, self.seed, copies=False, quiet=False)

    def _engine(self, b) -> tuple[np.ndarray, list[np.ndarray]]:
        """The model's values at b and its gradient by each parameter, by the engine."""
        # nan and inf are looked for in the residuals and the Jacobian.
        got = self.program.arrays({**self.predictors, **self._columns(b)})
        return got["value"], [got[f"grad.{name}"] for name in self.flat.names]

    def _residual(self, value) -> np.ndarray:
        residual = np.asarray(value, dtype=np.float64).reshape(self.rows) - self.observed
        if not self.unit:  # a scale of 1 changes no bit: not multiplied
            residual *= self.scale
        return _finite(residual, 1e150)

    def _jacobian(self, grads) -> np.ndarray:
        n = self.rows
        jacobian = np.concatenate([g.reshape(n, -1) for g in grads], 1)
        if not self.unit:
            jacobian = self.scale[:, None] * jacobian
        return _finite(jacobian, 0.0)

    def first_row_plain(self) -> bool:
        """Whether the model at the start is one finite value per row, of finite gradient
        on the first row (its first row's own evaluation would warn of nothing); the
        residuals there are kept for the solver's first call."""
        if self.tape is None:
            return False
        start = self.flat.start
        with np.errstate(all="ignore"):
            store = self.tape.forward(self._leaves(start), quiet=False)
            value, grads = self.tape.output(store, 0), self._gradients(store)
            n = self.rows
            if np.size(value) != n or not all(np.shape(g)[:1] == (n,) for g in grads):
                return False
            first = [value.reshape(n, -1)[0], *(g.reshape(n, -1)[0] for g in grads)]
            if not np.isfinite(np.concatenate(first)).all():
                return False
            key = np.asarray(start, dtype=np.float64).tobytes()
            self.kept = [key, self._residual(value), self._jacobian(grads), store]
        return True


def _repeated(value: np.ndarray, rows: int) -> np.ndarray:
    """``np.broadcast_to(value, (rows, *value.shape))``, read-only, made directly: a fit
    makes a few of them, and np.broadcast_to costs five times as much."""
    if value.size == 0:
        return np.broadcast_to(value, (rows, *value.shape))
    repeated = np.ndarray((rows, *value.shape), value.dtype, value, 0, (0, *value.strides))
    repeated.flags.writeable = False
    return repeated


def _finite(a: np.ndarray, instead: float) -> np.ndarray:
    """``a``, each entry that is not finite replaced by ``instead``: the sum of the squares
    is finite where every entry is (or overflowed: then the entries are looked at one by
    one, and each finite one kept). Called where NumPy's floating-point errors are
    ignored."""
    entries = a.reshape(-1)
    if math.isfinite(entries.dot(entries)):  # one BLAS call: cheaper than a.sum()
        return a
    return np.where(np.isfinite(a), a, instead)
