"""Complex numbers in the reverse pass: the rules a node runs where an input or the result
of its op is complex, made from the entry's ``complex`` field (``optable``).

PyTorch's convention (its ``derivatives.yaml`` header): the gradient of a real ``L`` with
respect to ``z`` is ``dL/d(Re z) + i dL/d(Im z)``, so a holomorphic ``f`` passes
``grad * conj(f'(z))`` back. The table's rules compute ``grad * f'(z)`` in ops whose
Taylor coefficients are real, so ``conj(rule(conj(grad)))`` is ``grad * conj(f'(z))``:
``complex="holomorphic"`` reuses the rules so. An entry that is not holomorphic (abs,
angle, real, imag, conj) gives its own rules, ``complex=(rule, ...)``. Either way a real
input of a complex node keeps the real part of its gradient, as PyTorch's
``handle_r_to_c``. Forward mode needs nothing more: ``forward.py`` transposes these rules.
"""

from __future__ import annotations

import numpy as np

from .tensor import Tensor


def conjugate(value):
    # The table's conj on a tensor (a differentiable pass records it), NumPy's on raw arrays.
    return value.conj() if type(value) is Tensor else np.conj(value)


def real_part(value):
    return value.real if type(value) is Tensor else np.real(value)


def is_complex(value) -> bool:
    """Whether a raw array, a number or a tensor holds complex numbers."""
    if type(value) is Tensor:
        value = value._data
    if isinstance(value, (np.ndarray, np.generic)):
        return value.dtype.kind == "c"
    return isinstance(value, complex)


def _fit(grad, input):  # noqa: A002
    """``grad`` as the gradient of ``input``: its real part for a real input."""
    if grad is None or is_complex(input) or not is_complex(grad):
        return grad
    return real_part(grad)


def _holomorphic(rule, i):
    def rule_at_conjugates(g, ans, *args, **kwargs):
        gi = rule(conjugate(g), ans, *args, **kwargs)
        return None if gi is None else _fit(conjugate(gi), args[i])

    return rule_at_conjugates


def _own(rule, i):
    def complex_rule(g, ans, *args, **kwargs):
        return _fit(rule(g, ans, *args, **kwargs), args[i])

    return complex_rule


def _variadic(rule, holomorphic):
    def complex_rule(g, ans, tensors, *params, **kwargs):
        grads = rule(conjugate(g) if holomorphic else g, ans, tensors, *params, **kwargs)
        return [
            _fit(conjugate(gi) if holomorphic and gi is not None else gi, t)
            for gi, t in zip(grads, tensors)
        ]

    return complex_rule


def complex_twin(overload, spec):
    """The overload a node records where its op meets complex numbers: ``overload`` with
    the rules ``spec`` makes (``"holomorphic"``, or the entry's own rules)."""
    holomorphic = spec == "holomorphic"
    rules = overload.rules if holomorphic else tuple(spec)
    if rules is None:
        twin_rules = None
    elif overload.variadic or overload.entry.variadic:
        twin_rules = (_variadic(rules[0], holomorphic),)
    else:
        wrap = _holomorphic if holomorphic else _own
        twin_rules = tuple(None if r is None else wrap(r, i) for i, r in enumerate(rules))
    twin = type(overload)(overload.grad_fn, twin_rules, when=overload.when, key=overload.key)
    for slot in ("entry", "forward", "saves", "lists_numbers", "size", "variadic", "fn"):
        setattr(twin, slot, getattr(overload, slot))
    return twin
