"""``gradcli diff`` of the derivatives inside programs: ``grad(F, x)``, ``jacobian(F, x)``
and ``hessian(F, x)`` as SymPy's ``diff``, with the engine's meaning.

The engine differentiates with respect to the tensor the name x holds where the
call is evaluated (``language.derivatives``): the paths from it to F count, and
what it was computed from is held fixed. Here each value bound to such a name
(a *tracked* name) is stood for by fresh symbols, remembered with the value they
stand for. The derivative with respect to them is SymPy's ``diff`` of F once every
stand-in made after them (which may depend on them) is replaced by its value; the
ones made before are held, as the engine holds them. The program's result has
every stand-in replaced, latest first, so that its formula is in the inputs alone.
"""

from __future__ import annotations

import numpy as np

from ..errors import GradcliError


class StandIns:
    """The symbols standing for the values of the tracked names, in binding order."""

    def __init__(self, sympy, names):
        self.sympy = sympy
        self.names = frozenset(names)
        #: ``(symbols, value)`` of each binding of a tracked name, in order.
        self.made: list[tuple[np.ndarray, np.ndarray]] = []

    def bind(self, name: str, value: np.ndarray) -> np.ndarray:
        """What ``name`` holds: ``value`` itself, or symbols standing for it when tracked."""
        if name not in self.names:
            return value
        k = len(self.made)
        symbols = np.empty(value.shape, dtype=object)
        for index in np.ndindex(*value.shape):
            suffix = f"[{','.join(map(str, index))}]" if index else ""
            symbols[index] = self.sympy.Dummy(f"{name}{suffix}_{k}", real=True)
        self.made.append((symbols, value))
        return symbols

    def replaced(self, value: np.ndarray, after: int = 0) -> np.ndarray:
        """``value`` with the stand-ins made from the ``after``-th on replaced by what
        they stand for, latest first (a later value may hold earlier stand-ins)."""
        out = np.array(value, dtype=object)
        for symbols, meaning in reversed(self.made[after:]):
            mapping = dict(zip(symbols.reshape(-1), np.broadcast_to(meaning, symbols.shape).flat))
            for index in np.ndindex(*out.shape):
                entry = out[index]
                if isinstance(entry, self.sympy.Basic):
                    out[index] = entry.xreplace(mapping)
        return out

    def derivative(self, form: str, f: np.ndarray, x: np.ndarray, node) -> np.ndarray:
        """``form(f, x)`` of arrays of expressions, ``x`` the symbols a name holds."""
        after = self._made_after(x)
        f = self.replaced(f, after)
        if form in ("grad", "hessian") and f.size != 1:
            raise GradcliError(
                f"{form} needs a scalar F, but F has shape {f.shape}: for the derivative of"
                " each of its entries use jacobian(F, x)",
                node.args[0].span,
            )
        if form == "jacobian":
            return self._jacobian(f, x)
        first = self._jacobian(f.reshape(()), x)
        return first if form == "grad" else self._jacobian(first, x)

    def _made_after(self, x: np.ndarray) -> int:
        """The stand-ins to replace before differentiating by ``x``: those made after
        it (all of them for an input's own symbols)."""
        for k, (symbols, _) in enumerate(self.made):
            if symbols is x:
                return k + 1
        return 0

    def _jacobian(self, f: np.ndarray, x: np.ndarray) -> np.ndarray:
        out = np.empty(f.shape + x.shape, dtype=object)
        for i in np.ndindex(*f.shape):
            for j in np.ndindex(*x.shape):
                out[i + j] = self.sympy.diff(f[i], x[j])
        return out
