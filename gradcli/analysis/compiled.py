"""A solver's program compiled and bound once, evaluated at each iterate.

``minimize`` asks for f, its gradient and its Hessian at hundreds of points that
differ only in the inputs varied. Each ``api`` call parses nothing twice (the
compiled program is cached) but binds every input again, builds the frozen
result and, for a Hessian, assembles it and takes its eigenvalues; here the
evaluation is made once, with the fixed inputs as tensors, and each call makes
only the leaves of the inputs varied, then runs the same engine passes as
``api.gradient`` and ``api.hessian`` (so the numbers are the same, bit for
bit). What a result says beyond its numbers (notes, warnings, the verdict) is
the end point's, taken by ``api`` there.
"""

from __future__ import annotations

import numpy as np

import gradcli

from ..core.evaluation import Evaluation, leaf_grads, plain_array, require_scalar, settings
from ..engine.generator import seeded
from .flat import Flat


class CompiledFunction:
    """``source`` as a function of the flat vector of ``flat``'s inputs, the other inputs
    bound as ``flat.fixed`` binds them; ``command`` names it in its errors."""

    def __init__(self, source: str, flat: Flat, options, command: str = "minimize"):
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

    def value_and_gradient(self, x) -> tuple[float, np.ndarray]:
        """f(x) and its gradient as a flat vector (float64)."""
        with settings(*self.settings):
            tensors = self._tensors(x, requires_grad=True)
            out = self._run(tensors)
            require_scalar(out, self.command)
            grads = leaf_grads(out, dict(zip(self.flat.names, tensors)))
        value = float(np.asarray(plain_array(out), dtype=np.float64).reshape(-1)[0])
        return value, self.flat.vector(grads)

    def hessian(self, x) -> np.ndarray:
        """f's Hessian at x as one matrix, in the flat vector's order."""
        from gradcli.autograd import functional

        flat = self.flat
        with settings(*self.settings):
            blocks = functional.hessian(self._function, tuple(self._tensors(x)))
        shapes = [flat.shapes[n] for n in flat.names]
        return flat.matrix(
            {
                a: {
                    b: plain_array(block).reshape(sa + sb)
                    for b, sb, block in zip(flat.names, shapes, row)
                }
                for a, sa, row in zip(flat.names, shapes, blocks)
            }
        )

    def hessian_product(self, x, p) -> np.ndarray:
        """H(x) p, without forming H: one forward-over-reverse pass."""
        from gradcli.autograd import functional

        with settings(*self.settings):
            moves = tuple(self._tensors(p))
            _, products = functional.hvp(self._function, tuple(self._tensors(x)), moves)
        return self.flat.vector(dict(zip(self.flat.names, (plain_array(v) for v in products))))

    def _function(self, *tensors):
        return self._run(tensors)
