"""Many-point evaluation: a command's results at every point of a batch, in one
vectorised evaluation (``api.points``).

The inputs named in ``batch`` vary from point to point; the program runs once
on them as ``Batched`` values (``engine.batching_rules``: every op through its
batching rule), so the value has the points along its first axis and one
reverse pass gives every point's gradient (each point's output depends on that
point's inputs only). A Jacobian is one reverse pass whose gradient carries the
rows of the identity as a leading dimension; a Hessian is the Jacobian of the
gradient, recorded with ``create_graph``; jvp is ``functional.jvp`` on the
batched function. Inputs differentiated but not in ``batch`` are copied to
every point, so that each point has its own gradient; the others stay single.

A program that draws random numbers draws them once: every point sees the same
draws, those a single-point call with the same seed sees.

``PointsProgram`` compiles and binds the program once for all the chunks of a run;
the inputs that vary have no value until a batch gives theirs.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Mapping, Sequence
from types import MappingProxyType

import numpy as np

import gradcli

from ..engine import limits
from ..engine.batched_values import Batched
from ..engine.dtypes import complex_of
from ..engine.generator import seeded
from ..engine.limits import DEFAULT_MAX_ELEMENTS
from ..engine.messages import implicit_gradient
from ..errors import GradcliError
from ..language import tape
from .computing import COMMANDS
from .evaluation import Evaluation, require_scalar, settings, value_kinds
from .holomorphic import derivative
from .result import Diagnostic, PointsResult


def points(
    command: str,
    source: str,
    bindings: Mapping | None = None,
    batch: Mapping | None = None,
    *,
    wrt: Sequence[str] | None = None,
    grad_output=None,
    tangents: Mapping | None = None,
    unit: bool = False,
    holomorphic: bool = False,
    dtype: str = "float64",
    seed: int = 0,
    filename: str = "<expr>",
    max_elements: int = DEFAULT_MAX_ELEMENTS,
) -> PointsResult:
    """The results of ``command`` at every point of ``batch``.

    ``batch`` maps input names to arrays with the points along the first axis,
    all of the same length B (which may be 0); point i binds each name to its
    row i. ``bindings`` binds other inputs, the same at every point. Then
    ``arrays[k][i]`` is ``Result.arrays()[k]`` of the single-point call at point
    i (``evaluate``, ``gradient``, ``jacobian``, ``vjp``, ``jvp`` or ``hessian``
    for the commands ``eval``, ``grad``, ``jacobian``, ``vjp``, ``jvp``,
    ``hessian``, with the same options; ``grad_output`` and ``tangents`` are the
    same at every point, as is ``unit``; ``holomorphic``: jacobian's f'(z)). An error
    at one point says ``at point i`` and sets the error's ``row``. ``max_elements``
    bounds the arrays of one point.
    """
    _known(command)
    options = dict(wrt=wrt, grad_output=grad_output, tangents=tangents, unit=unit, dtype=dtype)
    options.update(holomorphic=holomorphic)
    options.update(seed=seed, filename=filename, max_elements=max_elements)
    varying, _ = _batch(batch, bindings or {})
    return PointsProgram(command, source, bindings, layout(varying), **options).at(varying)


def layout(batch: Mapping[str, np.ndarray]) -> dict[str, tuple]:
    """``{name: (shape at a point, dtype)}`` of a batch's arrays: what a
    ``PointsProgram`` is compiled for."""
    return {name: (tuple(a.shape[1:]), a.dtype) for name, a in batch.items()}


class PointsProgram:
    """A command's program compiled and bound once, for any number of batches of points
    whose arrays have the ``layout`` given (a run's chunks): ``at(batch)`` is
    ``points(command, source, bindings, batch, ...)``. The inputs that vary are bound
    to nothing until a batch gives their values. Only read after it is made, so
    threads may share one. ``program``: ``source`` compiled already (see
    ``Evaluation``)."""

    def __init__(
        self,
        command: str,
        source: str,
        bindings: Mapping | None,
        layout: Mapping[str, tuple],
        *,
        wrt: Sequence[str] | None = None,
        grad_output=None,
        tangents: Mapping | None = None,
        unit: bool = False,
        holomorphic: bool = False,
        dtype: str = "float64",
        seed: int = 0,
        filename: str = "<expr>",
        max_elements: int = DEFAULT_MAX_ELEMENTS,
        program=None,
    ):
        _known(command)
        if holomorphic and command != "jacobian":
            raise GradcliError("holomorphic is jacobian's: the complex derivative f'(z)")
        self.holomorphic = holomorphic
        self.command, self.source, self.filename = command, source, filename
        self.bindings = dict(bindings or {})
        self.layout = dict(layout)
        self.settings = (dtype, seed, max_elements)
        chosen = () if command in ("eval", "jvp") else wrt
        with settings(*self.settings):
            bindings = dict(self.bindings)
            s = Evaluation(source, bindings, chosen, dtype, seed, filename, layout, program)
            # What the options give is read once, not at each batch.
            self.directions = s.directions(tangents, unit) if command == "jvp" else None
            if command == "vjp" and grad_output is not None:
                grad_output = s.value_of("--grad-output", grad_output)
        self.grad_output = grad_output
        self.evaluation = s

    def at(self, batch: Mapping) -> PointsResult:
        """The results at every point of ``batch`` (arrays of this program's layout)."""
        arrays, varying, size = self._computed(batch)
        with settings(*self.settings):
            nonfinite, warnings = _nonfinite(arrays, size)
        return PointsResult(
            command=self.command,
            source=self.source,
            filename=self.filename,
            inputs=tuple(self.evaluation.wrt),
            varying=varying,
            size=size,
            arrays=MappingProxyType(arrays),
            nonfinite=_frozen(nonfinite, ()),
            warnings=warnings,
            notes=self.evaluation.binding_notes,
        )

    def arrays(self, batch: Mapping) -> dict[str, np.ndarray]:
        """``at(batch).arrays``, without looking for nan and infinity in them: a run's
        chunk loop looks itself, and names each row's place in its file."""
        return self._computed(batch)[0]

    def _computed(self, batch):
        """``(arrays, varying, size)``: the result arrays, the inputs that vary, B."""
        s = self.evaluation
        varying, size = _batch(batch, self.bindings)
        if layout(varying) != self.layout:
            raise GradcliError(
                f"a batch of {_described(layout(varying))}: the program is compiled for "
                f"{_described(self.layout)}"
            )
        every_point = self.settings[2] * max(size, 1)
        budget = _chunk_limit()  # --max-memory's share of a chunk, in numbers
        limit = every_point if budget is None else min(every_point, budget)
        with settings(*self.settings):
            with limits.max_elements(limit), _over_budget(limit < every_point, size):
                varying = {name: _cast(a, s.dtype) for name, a in varying.items()}
                varying.update(self._defined_from(varying, size))
                arrays = self._evaluated(varying, size)
            given = {id(a) for a in varying.values()}
            arrays = {key: _frozen(s._numeric(a), given) for key, a in arrays.items()}
        return arrays, tuple(varying), size

    def _evaluated(self, varying, size) -> dict[str, np.ndarray]:
        """The command's arrays at every point: in one evaluation of them all, or, where
        the points take different paths through the program (an if true at some, a loop
        of other lengths), in one evaluation a point, each on its own path."""
        from ..language.evaluate_points import PointsDiffer

        try:
            return _Points(self.evaluation, varying, size).command(self)
        except PointsDiffer:
            pass
        parts = []
        for i in range(size):
            at_point = {name: a[i : i + 1] for name, a in varying.items()}
            try:
                parts.append(_Points(self.evaluation, at_point, 1).command(self))
            except GradcliError as error:
                if getattr(error, "row", None) is not None:  # at point 0 of one: point i
                    error.message = error.message.replace(" at point 0", f" at point {i}")
                    error.args, error.row = (error.message,), i
                raise
        return {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}

    def tape(self, batch: Mapping) -> tape.Tape | None:
        """``grad``'s passes at the points of ``batch`` as a tape (``language/tape.py``),
        to replay at other values of the inputs differentiated (columns of the same
        layout, in ``wrt``'s order), the other inputs held at their values in ``batch``;
        None (counted in ``tape.REFUSED``) where the engine keeps the program."""
        s = self.evaluation
        reason = tape.refusal(s.program, s.wrt)
        varying, size = _batch(batch, self.bindings)
        if reason is None and any(name in s.program.constants for name in varying):
            reason = "a const given at each point"
        if self.command != "grad" or reason is not None:
            tape.REFUSED[reason or f"the command {self.command}"] += 1
            return None
        with settings(*self.settings):
            varying = {name: _cast(a, s.dtype) for name, a in varying.items()}
            points = _Points(s, varying, size)
            leaves = points.leaves(s.wrt)
            try:
                out = points.run(leaves)
            except GradcliError:  # the engine's evaluation says what went wrong
                tape.REFUSED["an error, or points on different paths, at the recorded point"] += 1
                return None
            return tape.Tape.of([out], [leaves[name].physical for name in s.wrt])

    def _defined_from(self, varying, size) -> dict[str, np.ndarray]:
        """The inputs the program defines from a const that varies (``const c = 2;
        b = c * 3``, c in the batch), at each point, as a call at one point gives them."""
        s = self.evaluation
        if not any(name in s.program.constants for name in varying):
            return {}
        constants = dict(s.constants)
        constants.update(
            (n, Batched(gradcli.Tensor._make(a)))
            for n, a in varying.items()
            if n in s.program.constants
        )
        found = s.program.defaults(
            generator=seeded(s.seed), dtype=s.dtype, constants=constants, points=size
        )
        return {
            name: s._cast(value.physical._data)
            for name, value in found.items()
            if type(value) is Batched and name not in self.bindings and name not in varying
        }


def _chunk_limit() -> int | None:
    """The memory budget's limit on a chunk's arrays (``point_files.budget.bounded``),
    where a run of many points has loaded it: a call of ``points`` alone has none."""
    module = sys.modules.get("gradcli.core.point_files.budget")
    return None if module is None else module.CHUNK_LIMIT.value


@contextlib.contextmanager
def _over_budget(budget_binds: bool, size: int):
    """A result refused for the memory budget's share of a chunk, said as such (not as
    the --max-elements it would name): ``over_budget`` marks it for the caller."""
    try:
        yield
    except limits.ResultTooLarge as error:
        if not budget_binds:
            raise
        what, _, rest = error.message.partition(": the result would hold ")
        count = rest.partition(" numbers")[0]
        points = "one point" if size == 1 else f"{size:,} points"
        refused = GradcliError(
            f"{what} at {points} would make an array of {count} numbers, more than "
            "--max-memory leaves a chunk"
        )
        refused.over_budget = True
        raise refused from None


def _known(command: str) -> None:
    """Refuse a command not declared to run at many points (``Computing.points``)."""
    known = [c.name for c in COMMANDS if c.points]
    if command not in known:
        raise GradcliError(f"unknown command {command!r}: use one of {', '.join(known)}")


def _described(layout) -> str:
    return ", ".join(
        f"{n} of shape {shape} ({dtype}) at a point" for n, (shape, dtype) in layout.items()
    )


def _batch(batch, bindings):
    """The arrays of ``batch`` and their common length."""
    if not batch:
        raise GradcliError("points needs at least one input in batch, with a value at each point")
    found, size, first = {}, None, None
    for name, values in batch.items():
        if name in bindings:
            raise GradcliError(f"{name} is both bound and in batch: give it one or the other")
        if isinstance(values, str):
            raise GradcliError(f"batch[{name!r}] must be an array of values, not text")
        array = np.asarray(values)
        if array.ndim == 0:
            raise GradcliError(
                f"batch[{name!r}] must have the points along its first axis, not be one number"
            )
        if array.dtype.kind not in "biufc":
            raise GradcliError(f"batch[{name!r}] is not numeric (dtype {array.dtype})")
        if size is None:
            size, first = array.shape[0], name
        elif array.shape[0] != size:
            raise GradcliError(
                f"batch[{name!r}] has {array.shape[0]} points, but batch[{first!r}] has {size}: "
                "every input in batch needs the same number"
            )
        found[name] = array
    return found, size


class _Points:
    """One evaluation at ``size`` points: the leaves and the passes of each command."""

    def __init__(self, s, varying, size):
        self.s = s
        self.varying = varying
        self.size = size

    def leaves(self, wrt, given=None, as_complex=False) -> dict:
        """Each input's value: Batched where it varies or is differentiated (``given``:
        the physical tensors of some, by name; ``as_complex``: those differentiated taken
        as complex, as ``--holomorphic`` takes them)."""
        s, size = self.s, self.size
        given = given or {}
        values, varying = s.values, self.varying
        if as_complex:
            values = {n: _complex(v) if n in wrt else v for n, v in values.items()}
            varying = {n: _complex(v) if n in wrt else v for n, v in varying.items()}
        leaves = {name: gradcli.tensor(v) for name, v in s.constants.items()}
        for name, v in values.items():
            if name in varying:  # defined from a const that varies: below
                continue
            if name in given:
                leaves[name] = Batched(given[name])
            elif name in wrt:
                copies = np.broadcast_to(v, (size, *v.shape)).copy()
                leaves[name] = Batched(gradcli.tensor(copies, requires_grad=True))
            else:
                leaves[name] = gradcli.tensor(v)
        for name, data in varying.items():
            if name in given:
                leaves[name] = Batched(given[name])
            else:
                leaves[name] = Batched(gradcli.Tensor._make(data, None, name in wrt))
        return leaves

    def run(self, leaves):
        """The program at every point: a tensor with the points along axis 0."""
        s = self.s
        out = s.program.run(leaves, generator=seeded(s.seed), dtype=s.dtype, points=self.size)
        if type(out) is Batched:
            return out.physical
        return out.expand(self.size, *out.shape)  # the same at every point

    def command(self, program: PointsProgram) -> dict[str, np.ndarray]:
        s, command = self.s, program.command
        if command == "eval":
            with gradcli.no_grad():
                return {"value": _data(self.run(self.leaves(())))}
        if command == "jvp":
            return self.jvp(program.directions)
        leaves = self.leaves(s.wrt, as_complex=program.holomorphic)
        inputs = [leaves[name].physical for name in s.wrt]
        out = self.run(leaves)
        value = _data(out)
        if command == "jacobian" and program.holomorphic:
            return {"value": value, **self.holomorphic(out, inputs)}
        if command == "jacobian":
            blocks = self.jacobian(out, inputs)
            return {"value": value, **{f"jacobian.{n}": b for n, b in zip(s.wrt, blocks)}}
        if command == "vjp":
            v = s.grad_output(program.grad_output, _at_a_point(out), "vjp")
            start = np.broadcast_to(v, out.shape)
            grads = self.grads(out, inputs, start)
            return {"value": value, **{f"vjp.{n}": g for n, g in zip(s.wrt, grads)}}
        require_scalar(_at_a_point(out), command)
        if out.is_complex():  # as at one point: backward() starts from a real output only
            raise GradcliError(implicit_gradient(_at_a_point(out)._data))
        hessian = command == "hessian"
        ones = np.broadcast_to(np.ones((), out._data.dtype), out.shape)  # read-only, no memory
        grads = self.grads(out, inputs, ones, keep=hessian)
        arrays = {"value": value, **{f"grad.{n}": _data(g) for n, g in zip(s.wrt, grads)}}
        if hessian:
            for x, g in zip(s.wrt, grads):
                blocks = self.jacobian(g, inputs)
                arrays.update(
                    (f"hessian.{x}.{y}", b.reshape(self.size, *s.shape(x), *s.shape(y)))
                    for y, b in zip(s.wrt, blocks)
                )
        return arrays

    def holomorphic(self, out, inputs) -> dict[str, np.ndarray]:
        """Each point's f'(z) for each input (``core/holomorphic.py``), from the Jacobians
        of the real part and of the imaginary part; an error at the first point where the
        Cauchy–Riemann equations fail."""
        real = out.real if out.is_complex() else out
        imag = out.imag if out.is_complex() else out * 0
        blocks = zip(self.s.wrt, self.jacobian(real, inputs), self.jacobian(imag, inputs))
        arrays = {}
        for name, a, b in blocks:
            found = np.empty(a.shape, np.result_type(a.dtype, np.complex64))
            for i in range(self.size):
                try:
                    found[i] = derivative(name, a[i], b[i], f"at point {i}")
                except GradcliError as error:
                    error.row = i
                    raise
            arrays[f"jacobian.{name}"] = found
        return arrays

    def grads(self, out, inputs, start, keep=False):
        """d(out)/d(input) along ``start`` (of out's shape), zeros for an unused input;
        ``keep``: recorded, to be differentiated again."""
        if not out.requires_grad:
            return [np.zeros(t.shape, t._data.dtype) for t in inputs]
        if not keep:
            # backward, not grad: each leaf's gradient is taken as it is, not copied.
            out.backward(gradcli.Tensor._make(np.asarray(start, out._data.dtype)), inputs=inputs)
            return [np.zeros(t.shape, t._data.dtype) if t.grad is None else t.grad for t in inputs]
        found = gradcli.autograd.grad(
            out,
            inputs,
            gradcli.tensor(start),
            allow_unused=True,
            materialize_grads=True,
            create_graph=keep,
        )
        return list(found) if keep else [_data(g) for g in found]

    def jacobian(self, out, inputs) -> list[np.ndarray]:
        """Each point's Jacobian of ``out`` for each input: ``(B,) + out + input`` shaped;
        one reverse pass per chunk of the identity's rows."""
        from gradcli.autograd.functional import graph_width

        size, shape = self.size, tuple(out.shape[1:])
        m = int(np.prod(shape, dtype=np.int64))
        blocks = [np.zeros((size, *shape, *t.shape[1:]), t._data.dtype) for t in inputs]
        if type(out) is not gradcli.Tensor or not out.requires_grad or m == 0 or size == 0:
            return blocks
        itemsize = max(out._data.dtype.itemsize, 1)
        step = max(1, _CHUNK_BYTES // (itemsize * graph_width([out])))
        eye = np.eye(m, dtype=out._data.dtype).reshape(m, 1, *shape)
        for start in range(0, m, step):
            stop = min(start + step, m)
            rows = np.broadcast_to(eye[start:stop], (stop - start, size, *shape))
            found = gradcli.autograd.grad(
                out,
                inputs,
                gradcli.Tensor._make(rows),  # the broadcast view: never copied, never written
                retain_graph=True,
                allow_unused=True,
                is_grads_batched=True,
            )
            for block, g in zip(blocks, found):
                if g is None:  # unused: its zeros stay
                    continue
                g = _data(g)  # (rows, B, *input): written straight into the block, in one pass
                rows_first = g.reshape(stop - start, size, -1)
                block.reshape(size, m, -1)[:, start:stop] = rows_first.transpose(1, 0, 2)
        return blocks

    def jvp(self, directions) -> dict[str, np.ndarray]:
        s, size = self.s, self.size
        names = s.wrt
        from gradcli.autograd import functional

        start = self.leaves(names)
        inputs = tuple(start[n].physical.detach() for n in names)
        # A real tangent of a complex input moves along its real axis.
        moves = tuple(
            gradcli.tensor(
                np.broadcast_to(directions[n], (size, *s.shape(n))).copy(), dtype=z.dtype
            )
            for n, z in zip(names, inputs)
        )

        def f(*tensors):
            return self.run(self.leaves((), dict(zip(names, tensors))))

        value, product = functional.jvp(f, inputs, moves)
        return {"value": _data(value), "jvp": _data(product)}


def _complex(array: np.ndarray) -> np.ndarray:
    """An input's values as complex numbers of their precision (``--holomorphic``)."""
    return array if array.dtype.kind == "c" else array.astype(complex_of(array.dtype))


#: The gradients of one reverse pass over rows of the identity, at most: beside the whole
#: block they fill, a pass's few arrays of this size are what the peak memory adds.
_CHUNK_BYTES = 16 * 2**20


def _data(value) -> np.ndarray:
    """A tensor's array (not a copy: ``_frozen`` decides), or the array given."""
    return value._data if type(value) is gradcli.Tensor else np.asarray(value)


def _cast(array, dtype):
    """An input's values as floats of the evaluation's dtype, complex ones as its complex
    dtype (a mask stays boolean), copied only to convert them: the engine never writes
    into a leaf."""
    if array.dtype.kind == "c":
        return np.asarray(array, complex_of(dtype))
    return array if array.dtype.kind == "b" else np.asarray(array, dtype)


def _frozen(array, given) -> np.ndarray:
    """``array`` read-only: as it is when it owns its memory and is none of the arrays
    ``given`` (by id; the inputs' values, which the leaves share), else a copy."""
    array = np.asarray(array)
    if not array.flags.owndata or id(array) in given:
        array = array.copy()
    array.flags.writeable = False
    return array


def _at_a_point(out):
    """A stand-in of one point's output, for the checks of its shape."""
    return gradcli.tensor(np.zeros(tuple(out.shape[1:]), out._data.dtype))


def _nonfinite(arrays, size):
    """Which points have a nan or an infinity in any array, and a warning for each array
    that has some."""
    found = np.zeros(size, dtype=bool)
    warnings = []
    for key, a in arrays.items():
        if a.dtype.kind not in "fc" or np.isfinite(np.add.reduce(a, axis=None)):
            continue  # a sum is finite only if every entry is: one pass, no array made
        flat = a.reshape(size, int(np.prod(a.shape[1:], dtype=np.int64)))
        bad = ~np.isfinite(flat).all(axis=1)
        if not bad.any():
            continue
        found |= bad
        rows = np.flatnonzero(bad)
        where = "1 point" if len(rows) == 1 else f"{len(rows)} points"
        message = (
            f"{key} contains {value_kinds(flat[rows])} at {where} (the first: point {rows[0]})"
        )
        warnings.append(Diagnostic("warning", message))
    return found, tuple(warnings)
