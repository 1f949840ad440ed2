"""A solver's program compiled and bound once, evaluated at each iterate.

``minimize`` asks for f, its gradient and its Hessian at hundreds of points that
differ only in the inputs varied. Each ``api`` call parses nothing twice (the
compiled program is cached) but binds every input again, builds the frozen
result and, for a Hessian, assembles it and takes its eigenvalues; here the
evaluation is made once, with the fixed inputs as tensors, and each call makes
only the leaves of the inputs varied, then runs the same engine passes as
``api.gradient`` and ``api.hessian`` (so the numbers are the same, bit for
bit). From the second point on, f, the recorded gradient and the Hessian's pass
are the first point's graph replayed on arrays (``language/tape.py``), where the
program allows: the same numbers again, without the evaluator or a tensor per
op. What a result says beyond its numbers (notes, warnings, the verdict) is
the end point's, taken by ``api`` there.
"""

from __future__ import annotations

import math

import numpy as np

import gradcli

from ..core.evaluation import Evaluation, leaf_grads, plain_array, require_scalar, settings
from ..engine.backward import grad as autograd_grad
from ..engine.generator import seeded
from ..language import tape
from .flat import Flat


class CompiledFunction:
    """``source`` as a function of the flat vector of ``flat``'s inputs, the other inputs
    bound as ``flat.fixed`` binds them; ``command`` names it in its errors."""

    def __init__(self, source: str, flat: Flat, options, command: str):
        self.flat, self.command = flat, command
        self.settings = (options["dtype"], options["seed"])
        with settings(*self.settings):
            self.evaluation = s = Evaluation(
                source,
                flat.bindings(flat.start),
                flat.names,
                options["dtype"],
                options["seed"],
                options["filename"],
            )
            self.fixed = {n: t for n, t in s.leaves(()).items() if n not in flat.names}
        #: The last point's leaves and recorded gradient (``value_and_gradient(keep=True)``).
        self.kept = None
        #: The graph of f and of its recorded gradient, replayed on arrays (``language/tape.py``:
        #: the engine's numbers, bit for bit), made at the first point; None where the
        #: program's graph could change from point to point, and False until made.
        self.tape = False
        #: The tape's store (``Tape.forward``) at the point kept.
        self.replayed = None

    def _tensors(self, x, requires_grad: bool = False) -> list:
        dtype = self.evaluation.dtype
        return [
            gradcli.tensor(np.asarray(a, dtype=dtype), requires_grad=requires_grad)
            for a in self.flat.arrays(x).values()
        ]

    def _run(self, tensors):
        s = self.evaluation
        leaves = dict(self.fixed)
        leaves.update(zip(self.flat.names, tensors))
        # A new generator each time: every call draws the same random numbers.
        return s.program.run(leaves, generator=seeded(s.seed), dtype=s.dtype)

    def value_and_gradient(self, x, keep: bool = False) -> tuple[float, np.ndarray]:
        """f(x) and its gradient as a flat vector (float64). ``keep``: the gradient is
        recorded and kept, for ``hessian`` at the same x (SciPy's trust-region methods
        ask for the Hessian at an iterate before its value, Newton's polish after)."""
        if keep:
            _, value, gradient, _ = self._recorded(x)
            return value, gradient
        with settings(*self.settings):
            tensors = self._tensors(x, requires_grad=True)
            out = self._run(tensors)
            require_scalar(out, self.command)
            grads = leaf_grads(out, dict(zip(self.flat.names, tensors)))
        return _number(out), self.flat.vector(grads)

    def hessian(self, x) -> np.ndarray:
        """f's Hessian at x as one matrix, in the flat vector's order: for each input's
        recorded gradient, one reverse pass batched over the rows of the identity (as
        ``functional.hessian`` takes it)."""
        tensors, _, _, gradient = self._recorded(x)
        flat, dtype = self.flat, self.evaluation.dtype
        rows = {}
        with settings(*self.settings):
            for k, (a, g) in enumerate(zip(flat.names, gradient)):
                shape = tuple(g.shape)
                size = math.prod(shape)
                if self.tape:
                    identity = np.eye(size, dtype=dtype).reshape((size, *shape))
                    blocks = self.tape.gradients(self.replayed, 1 + k, identity, 1)
                elif not g.requires_grad or size == 0:
                    blocks = [np.zeros((size, t.numel()), dtype) for t in tensors]
                else:
                    identity = np.eye(size, dtype=dtype).reshape((size, *shape))
                    blocks = autograd_grad(
                        g, tensors, gradcli.tensor(identity), retain_graph=True,
                        allow_unused=True, materialize_grads=True, is_grads_batched=True,
                    )  # fmt: skip
                rows[a] = {
                    b: plain_array(block).reshape(flat.shapes[a] + flat.shapes[b])
                    for b, block in zip(flat.names, blocks)
                }
        return flat.matrix(rows)

    def _recorded(self, x):
        """``(leaves, f, gradient vector, gradient tensors)`` at x, the gradient recorded
        (``create_graph``) to be differentiated again; the last point's is kept."""
        key = np.asarray(x, dtype=np.float64).tobytes()
        if self.tape and (self.kept is None or self.kept[0] != key):
            self.kept = (key, self._replayed(x))
        if self.kept is None or self.kept[0] != key:
            self.kept = None  # the last point's graph is let go first
            with settings(*self.settings):
                tensors = self._tensors(x, requires_grad=True)
                out = self._run(tensors)
                require_scalar(out, self.command)
                with tape.watching() as compared:
                    if out.requires_grad:
                        found = autograd_grad(
                            out, tensors, allow_unused=True, materialize_grads=True,
                            create_graph=True,
                        )  # fmt: skip
                    else:
                        found = [gradcli.zeros_like(t) for t in tensors]
                vector = self.flat.vector(dict(zip(self.flat.names, map(plain_array, found))))
                if self.tape is False:
                    self.tape = self._taped(out, found, tensors, compared[0])
            # Where the tape is made, its numbers from here on (the same, bit for bit:
            # ``Tape.of`` checked its replay at this point).
            found = self._replayed(x) if self.tape else (tensors, _number(out), vector, found)
            self.kept = (key, found)
        return self.kept[1]

    def _taped(self, out, found, tensors, compared):
        """The tape of f and its recorded gradient ``found`` at the leaves ``tensors``, or
        None (``tape.REFUSED`` says why); ``compared``: a rule compared values off the
        graph while the gradient was recorded (``tape.watching``)."""
        reason = tape.refusal(self.evaluation.program, self.flat.names)
        if reason is None and compared:
            reason = "a rule that compares values, differentiated"
        if reason is not None:
            tape.REFUSED[reason] += 1
            return None
        return tape.Tape.of([out, *found], tensors, second_order=True)

    def _replayed(self, x):
        """``_recorded``'s numbers at x from the tape: the leaves as arrays (copies: views of
        them outlive the call), f, the gradient vector and each input's gradient; every
        node's value kept for ``hessian``."""
        dtype = self.evaluation.dtype
        leaves = [np.array(a, dtype=dtype) for a in self.flat.arrays(x).values()]
        self.replayed = store = self.tape.forward(leaves)
        found = [self.tape.output(store, j) for j in range(1, len(self.tape.outputs))]
        vector = self.flat.vector(dict(zip(self.flat.names, found)))
        return leaves, _number(self.tape.output(store, 0)), vector, found

    def hessian_product(self, x, p) -> np.ndarray:
        """H(x) p, without forming H: one forward-over-reverse pass."""
        from gradcli.autograd import functional

        with settings(*self.settings):
            moves = tuple(self._tensors(p))
            _, products = functional.hvp(self._function, tuple(self._tensors(x)), moves)
        return self.flat.vector(dict(zip(self.flat.names, (plain_array(v) for v in products))))

    def _function(self, *tensors):
        return self._run(tensors)


def _number(out) -> float:
    """A one-entry output as a Python float."""
    return float(np.asarray(plain_array(out), dtype=np.float64).reshape(-1)[0])
