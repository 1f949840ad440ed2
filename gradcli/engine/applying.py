"""Applying an entry of the op table (``optable``): its public function, and each
overload's, plain NumPy on raw arrays and a recorded ``Node`` on tensors."""

from __future__ import annotations

import operator

import numpy as np

from ..errors import GradcliTypeError
from . import dtypes, graph, limits, state
from .complex_rules import is_complex
from .graph import IN_SLOTS, NO_KWARGS, Node
from .messages import complex_refused, forward_error, operand_error
from .out_argument import with_out
from .tensor import Tensor

_NO_ARG = object()  # an input given by keyword, not by position
_PER_THREAD = state.PER_THREAD
_DUAL_LEVELS = state.DUAL_LEVELS
_INFERENCE = state.INFERENCE  # inference_mode contexts open: results are marked
_GRAD_OFF = state.GRAD_OFF  # no thread has grad mode off: every op records (state.switch_grad)


def public(entry):
    """The public function of an entry declared with ``op``: its only overload's (taking
    keywords through the schema), or the first overload whose ``when`` holds."""
    overloads = entry.overloads
    if not overloads:
        return bind_nondiff(entry)
    if len(overloads) == 1 and overloads[0].when is None:
        return overloads[0].fn
    name = entry.name
    chosen = [(o.when, o.fn) for o in overloads]

    def fn(*args, **kwargs):
        if kwargs:
            if "out" in kwargs:
                return with_out(entry, fn, args, kwargs)
            args = entry.schema.bind(name, args, kwargs)
        for when, apply in chosen:
            if when is None or when(*args):
                return apply(*args)
        raise GradcliTypeError(f"{name}(): no overload takes these arguments; see {entry.schema}")

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = entry.doc
    return fn


# ----------------------------------------------------------------------------
# Applying an overload: NumPy on raw arrays, a recorded Node on tensors
# ----------------------------------------------------------------------------


def _recorded_overload(overload, raws, out):
    """``overload``, or its complex twin where an input or the result is complex (refused
    where the entry takes no complex numbers), for the paths of many inputs."""
    if out.dtype.kind == "c" or any(is_complex(r) for r in raws):
        return complex_overload(overload)
    return overload


def complex_overload(overload):
    """The overload recorded for complex numbers (``complex_rules``), or the refusal."""
    if overload.complex is None:
        raise complex_refused(overload.entry.name)
    return overload.complex


def _record(overload, inputs, raws, out, params, kwargs):
    t = Tensor._make(out, None, True)
    parents = tuple(
        [(x._grad_fn or x) if type(x) is Tensor and x.requires_grad else None for x in inputs]
    )
    t._grad_fn = Node(overload, parents, raws, t._data, params, kwargs)
    return t


_F64 = np.dtype(np.float64)
_C128 = np.dtype(np.complex128)
_ARRAY = np.ndarray
_new = object.__new__
_array = np.array
# The ufuncs whose float64 result on single numbers Python's float arithmetic gives bit
# for bit (IEEE double, rounded to nearest; no division, which raises at 0): on 0-d
# float64 operands they skip NumPy's ufunc machinery and its scalar's conversion back,
# 0.25 us of a 0-d op's 1 us (a higher derivative's graph is thousands of them).
_ON_FLOATS = {(np.add, 2): operator.add, (np.subtract, 2): operator.sub,
              (np.multiply, 2): operator.mul, (np.negative, 1): operator.neg}  # fmt: skip


def _promote(out, x, y=None):
    """NumPy's result dtype made PyTorch's: an integer or bool meeting a float takes that
    float's dtype (the default dtype for a Python float), not float64; int / int, exp(int)
    are in the default dtype too. NumPy's choice stands where a float64 operand is involved."""
    if out.dtype is _C128:
        return _promote_complex(out, x, y)
    if out.dtype is not _F64:
        return out
    floats = [
        a.dtype for a in (x, y) if isinstance(a, (np.ndarray, np.generic)) and a.dtype.kind in "fc"
    ]
    if _F64 in floats or _C128 in floats:
        return out
    return out.astype(np.finfo(floats[0]).dtype if floats else state.default_dtype())


def _promote_complex(out, x, y):
    """A complex result without a float64 or complex128 operand is in the default float's
    complex dtype (int * 1j is complex64 under float32), as PyTorch's."""
    wide = [
        a.dtype
        for a in (x, y)
        if isinstance(a, (np.ndarray, np.generic)) and a.dtype in (_F64, _C128)
    ]
    return out if wide else out.astype(dtypes.complex_of(state.default_dtype()))


def bind(overload):
    """The function that applies ``overload``: plain NumPy on raw arrays, recording on tensors.

    Under forward-mode AD (``PER_THREAD.forward_ad``, see ``forward.py``) the result is
    handed to the dual level, which gives it a tangent where an input has one.

    Inputs given by keyword (``sin(input=x)``) are bound through the schema first
    (the function's own parameters are positional-only, so ``sin(x=t)`` is an
    unknown keyword, as in PyTorch); a call by position, the hot path, goes
    straight to the forward.
    """
    entry = overload.entry
    forward = overload.forward
    n = len(overload.rules)
    promotes = entry.promotes
    name = entry.name
    size = _result_size(entry, overload.size, n)
    if size is not None:
        limit, lowest = limits.MaxElements, limits.LOWEST
    on_floats = _ON_FLOATS.get((forward, n))  # an op of n inputs, as many NumPy operands

    def by_keyword(args, kwargs):
        args = [a for a in args if a is not _NO_ARG]
        if "out" in kwargs:
            return with_out(entry, fn, args, kwargs)
        return fn(*entry.schema.bind(name, args, kwargs))

    if entry.variadic:

        def fn(tensors=_NO_ARG, /, *params, **kwargs):
            if kwargs or tensors is _NO_ARG:
                return by_keyword((tensors, *params), kwargs)
            tensors = tuple(tensors)
            if not any(type(t) is Tensor for t in tensors):
                return forward(tensors, *params)
            raws = tuple(t._data if type(t) is Tensor else np.asarray(t) for t in tensors)
            if size is not None and size(raws, *params) > limit.value:
                limits.check(name, size(raws, *params))
            try:
                out = forward(raws, *params)
            except (ValueError, IndexError, TypeError) as err:
                if any(is_complex(r) for r in raws):
                    complex_overload(overload)
                if isinstance(err, TypeError):
                    raise
                raise forward_error(name, raws, err) from None
            used = _recorded_overload(overload, raws, np.asarray(out))
            if _PER_THREAD.grad_enabled and any(
                type(t) is Tensor and t.requires_grad for t in tensors
            ):
                t = _record(used, tensors, raws, out, params, None)
            else:
                t = Tensor._make(out)
            if _DUAL_LEVELS[0] and _PER_THREAD.forward_ad is not None:
                _PER_THREAD.forward_ad.propagate(used, tensors, params, None, t)
            return t
    elif n == 1:

        def fn(x=_NO_ARG, /, *params, **kwargs):
            if kwargs or x is _NO_ARG:
                return by_keyword((x, *params), kwargs)
            if type(x) is not Tensor:
                return forward(x, *params)
            xd = x._data
            if size is not None and size(xd, *params) > limit.value:
                limits.check(name, size(xd, *params))
            if (
                on_floats is not None
                and not params
                and type(xd) is _ARRAY
                and not xd.ndim
                and xd.dtype is _F64
            ):
                out = _array(on_floats(xd.item()))
            else:
                try:
                    # A call without * is quicker, and most calls have no params.
                    out = forward(xd, *params) if params else forward(xd)
                except (ValueError, IndexError, TypeError) as err:
                    if xd.dtype.kind == "c":
                        complex_overload(overload)
                    if isinstance(err, TypeError):
                        raise
                    raise forward_error(name, (xd,), err) from None
            if promotes and out.dtype is not xd.dtype:
                out = _promote(out, xd)
            if type(out) is not _ARRAY:  # a NumPy scalar of a 0-d input
                out = np.asarray(out)
            used = overload
            if out.dtype.kind == "c" or xd.dtype.kind == "c":
                used = overload.complex or complex_overload(overload)
            t = _new(Tensor)  # Tensor._make, inline: this is every op's result
            t._data = out
            t.grad = None
            if x.requires_grad and (not _GRAD_OFF[0] or _PER_THREAD.grad_enabled):
                t.requires_grad = True
                # The node, made here: Node.__init__'s fields without the class call (it
                # finds __init__, builds the parents tuple and tests the arity), the largest
                # part of recording an op after NumPy's own work.
                node = _new(Node)
                node.op = used
                node.n = 1
                node.p0 = x._grad_fn or x
                node.p1 = node.pn = node.s1 = None
                node.s0 = xd
                node.sn = IN_SLOTS
                node.ans = out
                node.params = params
                node.kwargs = NO_KWARGS
                node.hooks = None
                node.t = graph.clock
                node.wired = None
                if graph.on_record is not None:
                    graph.on_record(node)
                t._grad_fn = node
            else:
                t.requires_grad = False
                t._grad_fn = None
                if _INFERENCE[0]:
                    state.mark_inference(t)
            if _DUAL_LEVELS[0] and _PER_THREAD.forward_ad is not None:
                _PER_THREAD.forward_ad.propagate(used, (x,), params, None, t)
            return t
    elif n == 2:

        def fn(x=_NO_ARG, y=_NO_ARG, /, *params, **kwargs):
            if kwargs or y is _NO_ARG:
                return by_keyword((x, y, *params), kwargs)
            # Each operand's data and its parent on the graph (None: a constant, or no grad).
            if type(x) is Tensor:
                xd = x._data
                px = (x._grad_fn or x) if x.requires_grad else None
                if type(y) is Tensor:
                    yd = y._data
                    py = (y._grad_fn or y) if y.requires_grad else None
                    # Without params, the product of the sizes bounds the result's (``size``
                    # in ``optable``): most calls need no more, nor the thread's own limit.
                    big = params or size is not None and xd.size * yd.size > lowest[0]
                else:
                    yd, py, big = y, None, params
            elif type(y) is Tensor:
                xd, px, big = x, None, params
                yd = y._data
                py = (y._grad_fn or y) if y.requires_grad else None
            else:
                return forward(x, y, *params)
            if big and size is not None and size(xd, yd, *params) > limit.value:
                limits.check(name, size(xd, yd, *params))
            if (
                on_floats is not None
                and type(xd) is _ARRAY
                and not xd.ndim
                and xd.dtype is _F64
                and not params
                and (type(yd) is float or type(yd) is _ARRAY and not yd.ndim and yd.dtype is _F64)
            ):
                out = _array(on_floats(xd.item(), yd if type(yd) is float else yd.item()))
            else:
                try:
                    out = forward(xd, yd, *params) if params else forward(xd, yd)
                except (ValueError, IndexError) as err:
                    if is_complex(xd) or is_complex(yd):
                        complex_overload(overload)
                    raise forward_error(name, (xd, yd), err) from None
                except TypeError:
                    if is_complex(xd) or is_complex(yd):
                        complex_overload(overload)
                    if params:  # a wrong argument, not an operand NumPy cannot take
                        raise
                    raise operand_error(name, x, y) from None
            if promotes and out.dtype is not (yd if xd is x else xd).dtype:  # a tensor's dtype
                out = _promote(out, xd, yd)
            if type(out) is not _ARRAY:  # a NumPy scalar of 0-d inputs
                out = np.asarray(out)
            used = overload
            if (
                out.dtype.kind == "c"
                or (xd.dtype.kind == "c" if type(xd) is _ARRAY else type(xd) is complex)
                or (yd.dtype.kind == "c" if type(yd) is _ARRAY else type(yd) is complex)
            ):
                used = overload.complex or complex_overload(overload)
            t = _new(Tensor)  # Tensor._make, inline: this is every op's result
            t._data = out
            t.grad = None
            if (px is not None or py is not None) and (
                not _GRAD_OFF[0] or _PER_THREAD.grad_enabled
            ):
                t.requires_grad = True
                node = _new(Node)  # as for one input, above
                node.op = used
                node.n = 2
                node.p0 = px
                node.p1 = py
                node.pn = None
                node.s0 = xd
                node.s1 = yd
                node.sn = IN_SLOTS
                node.ans = out
                node.params = params
                node.kwargs = NO_KWARGS
                node.hooks = None
                node.t = graph.clock
                node.wired = None
                if graph.on_record is not None:
                    graph.on_record(node)
                t._grad_fn = node
                if _DUAL_LEVELS[0] and _PER_THREAD.forward_ad is not None:
                    _PER_THREAD.forward_ad.propagate(used, (x, y), params, None, t)
                return t
            t.requires_grad = False
            t._grad_fn = None
            if _INFERENCE[0]:
                state.mark_inference(t)
            if _DUAL_LEVELS[0] and _PER_THREAD.forward_ad is not None:
                _PER_THREAD.forward_ad.propagate(used, (x, y), params, None, t)
            return t
    else:

        def fn(*args, **kwargs):
            if kwargs:
                return by_keyword(args, kwargs)
            inputs, params = args[:n], args[n:]
            if not any(type(a) is Tensor for a in inputs):
                return forward(*args)
            raws = tuple(a._data if type(a) is Tensor else a for a in inputs)
            if size is not None and size(*raws, *params) > limit.value:
                limits.check(name, size(*raws, *params))
            try:
                out = forward(*raws, *params)
            except (ValueError, IndexError, TypeError) as err:
                if any(is_complex(r) for r in raws):
                    complex_overload(overload)
                if isinstance(err, TypeError):
                    raise
                raise forward_error(name, raws, err) from None
            used = _recorded_overload(overload, raws, np.asarray(out))
            if _PER_THREAD.grad_enabled and any(
                type(a) is Tensor and a.requires_grad for a in inputs
            ):
                t = _record(used, inputs, raws, out, params, None)
            else:
                t = Tensor._make(out)
            if _DUAL_LEVELS[0] and _PER_THREAD.forward_ad is not None:
                _PER_THREAD.forward_ad.propagate(used, inputs, params, None, t)
            return t

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = entry.doc
    return fn


def _result_size(entry, declared, n):
    """The function that gives the size of an op's result (``size`` in ``optable``), or None
    where the result is never larger than the largest input."""
    if declared is not None:
        return declared
    if n >= 2 and (entry.promotes or entry.kind == "binary"):
        return limits.broadcast_size
    return None


def bind_nondiff(entry):
    """The function of an op with no gradient at all (comparisons, argmax): its results
    never require grad."""
    forward, name = entry.forward, entry.name
    n = None  # the number of inputs, from the schema on the first call
    size = None

    def fn(*args, **kwargs):
        nonlocal n, size
        if n is None:
            n = entry.schema.n_inputs
            size = _result_size(entry, entry.size, n)
        if kwargs:
            if "out" in kwargs:
                return with_out(entry, fn, args, kwargs)
            args = entry.schema.bind(name, args, kwargs)
        if graph.off_graph is not None:
            graph.off_graph(entry, args)
        raws = [a._data if type(a) is Tensor else a for a in args]
        if not any(type(a) is Tensor for a in args[:n]):
            return forward(*raws)
        if size is not None and size(*raws) > limits.MaxElements.value:
            limits.check(name, size(*raws))
        if not entry.complex and any(is_complex(r) for r in raws[:n]):
            raise complex_refused(name)
        try:
            out = forward(*raws)
        except (ValueError, IndexError) as err:
            raise forward_error(name, raws[:n], err) from None
        return Tensor._make(out)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = entry.doc
    return fn
