"""The op table: every differentiable operation of gradcli, defined once.

Each entry gives the op's name (as the language and the module know it), its
forward computation on NumPy arrays, one vector-Jacobian rule per tensor input,
the ``grad_fn`` name PyTorch shows for it, and a one-line description.

Conventions
- A rule is ``rule(g, ans, *inputs, *params, **kwargs)`` and returns the
  gradient for its input. It is written in the ops of this module, so it runs
  on raw arrays in the fast reverse pass and on tensors (recording a graph) when
  ``create_graph=True``: second derivatives need no second set of rules.
- ``g`` may carry extra leading batch dimensions (a Jacobian is one reverse
  pass over the identity), so rules use negative axes and keep ``g``'s leading
  dimensions; see ``_batch``.
- Broadcasting: a rule may return a gradient of the broadcast shape; the
  engine sums it back to its input's shape (``sum_to``), once, for every op.
- Kinks follow PyTorch: d|x|/dx = 0 at 0, relu'(0) = 0, sqrt'(0) = inf,
  clamp passes the gradient on its bounds, ties in max/min/amax/amin share the
  gradient evenly (``max(x, dim)`` gives it to the index it returns), the
  gradient of floor/ceil/round/sign is 0. Where PyTorch is plainly wrong
  gradcli follows mathematics instead (det at a singular matrix, prod beside an
  inf, sign of nan); each op's ``kink`` text says which convention it keeps.
- ``None`` as a rule: no gradient flows to that input (an index, a mask).
"""

from __future__ import annotations

import builtins
import functools
import math

import numpy as np

from ..errors import (
    EngineError,
    GradcliIndexError,
    GradcliTypeError,
    GradcliValueError,
    NotImplementedByGradcli,
    ShapeError,
)
from . import dtypes, limits
from .tensor import LEAF_INPLACE, OVERLAPPING_WRITE, DefaultDType, GradMode, Node, Tensor

# ----------------------------------------------------------------------------
# The Op record and how an op becomes a function
# ----------------------------------------------------------------------------


class Op:
    """One operation: its forward, its rules, its PyTorch grad_fn name, its docs."""

    __slots__ = (
        "name",
        "grad_fn",
        "forward",
        "rules",
        "doc",
        "kind",
        "saves",
        "kink",
        "variadic",
        "promotes",
        "fn",
    )

    def __init__(
        self,
        name,
        forward,
        rules,
        grad_fn,
        doc,
        kind,
        saves=True,
        kink=None,
        variadic=False,
        promotes=None,
    ):
        self.name = name
        self.forward = forward
        self.rules = rules
        self.grad_fn = grad_fn
        self.doc = doc
        self.kind = kind
        self.saves = saves
        self.kink = kink
        self.variadic = variadic
        # Whether the result's dtype follows PyTorch's type promotion (see _promote);
        # the elementwise ops do, the others choose their dtype themselves.
        self.promotes = kind in ("elementwise", "binary") if promotes is None else promotes
        self.fn = None

    def variadic_backward(self, g, ans, args, params, kwargs):
        """The gradients of all inputs of a variadic op (stack, cat): its one rule
        returns them together. The reverse pass calls every other op's rules itself,
        one per input (``tensor.run_backward``)."""
        return self.rules[0](g, ans, args, *params, **kwargs)

    def variant(self, grad_fn, rules=None):
        """The same op under another PyTorch grad_fn name (x.T versus x.t()); ``rules``
        replace the op's where the variant differentiates other inputs (pow's exponent)."""
        twin = Op(
            self.name,
            self.forward,
            self.rules if rules is None else tuple(rules),
            grad_fn,
            self.doc,
            self.kind,
            self.saves,
            self.kink,
            self.variadic,
            self.promotes,
        )
        twin.fn = _bind(twin)
        return twin

    def __repr__(self):
        return f"Op({self.name!r}, grad_fn={self.grad_fn!r})"


OPS: dict[str, Op] = {}


def _record(op, inputs, raws, out, params, kwargs):
    t = Tensor._make(out, None, True)
    parents = tuple(
        [(x.grad_fn or x) if type(x) is Tensor and x.requires_grad else None for x in inputs]
    )
    t.grad_fn = Node(op, parents, raws, t._data, params, kwargs)
    return t


def _forward_error(op, raws, err):
    shapes = [tuple(np.shape(r)) for r in raws]
    if isinstance(err, np.exceptions.AxisError) and err.ndim is not None:
        span = builtins.max(err.ndim, 1)
        return GradcliIndexError(
            f"{op.name}: Dimension out of range (expected to be in range of "
            f"[{-span}, {span - 1}], but got {err.axis})"
        )
    if isinstance(err, IndexError):  # in PyTorch's words: a tensor has dimensions, not axes
        return GradcliIndexError(f"{op.name}: {str(err).replace(' for axis ', ' for dimension ')}")
    if isinstance(err, np.linalg.LinAlgError):
        return ShapeError(f"{op.name}: {err}")
    mismatch = _broadcast_mismatch(shapes)
    if mismatch is not None:
        return ShapeError(f"{op.name}: {mismatch}")
    return ShapeError(f"{op.name}: shapes {' and '.join(map(str, shapes))} do not fit: {err}")


def _operand_error(op, x, y):
    names = [type(a).__name__ for a in (x, y)]
    return GradcliTypeError(
        f"unsupported operand type(s) for {op.name}: '{names[0]}' and '{names[1]}'"
    )


def _broadcast_mismatch(shapes):
    """PyTorch's message for two shapes that do not broadcast, naming both; else None."""
    for i, a in enumerate(shapes):
        for b in shapes[i + 1 :]:
            n = builtins.max(len(a), len(b))
            for k in range(1, builtins.min(len(a), len(b)) + 1):
                if a[-k] != b[-k] and 1 not in (a[-k], b[-k]):
                    return (
                        f"The size of tensor a ({a[-k]}) must match the size of tensor b "
                        f"({b[-k]}) at non-singleton dimension {n - k} "
                        f"(shapes {a} and {b})"
                    )
    return None


_F64 = np.dtype(np.float64)


def _promote(out, x, y=None):
    """NumPy's result dtype made PyTorch's: an integer or bool meeting a float takes that
    float's dtype (the default dtype for a Python float), not float64; int / int, exp(int)
    are in the default dtype too. NumPy's choice stands where a float64 operand is involved."""
    if out.dtype is not _F64:
        return out
    floats = [
        a.dtype for a in (x, y) if isinstance(a, (np.ndarray, np.generic)) and a.dtype.kind == "f"
    ]
    if _F64 in floats:
        return out
    return out.astype(floats[0] if floats else DefaultDType.value)


def _bind(op):
    """The function that applies ``op``: on raw arrays it is plain NumPy, on tensors it records."""
    forward = op.forward
    n = len(op.rules)
    promotes = op.promotes

    if op.variadic:

        def fn(tensors, *params, **kwargs):
            tensors = tuple(tensors)
            if not any(type(t) is Tensor for t in tensors):
                return forward(tensors, *params, **kwargs)
            raws = tuple(t._data if type(t) is Tensor else np.asarray(t) for t in tensors)
            try:
                out = forward(raws, *params, **kwargs)
            except (ValueError, IndexError) as err:
                raise _forward_error(op, raws, err) from None
            if GradMode.enabled and any(type(t) is Tensor and t.requires_grad for t in tensors):
                return _record(op, tensors, raws, out, params, kwargs)
            return Tensor._make(out)
    elif n == 1:

        def fn(x, *params, **kwargs):
            if type(x) is not Tensor:
                return forward(x, *params, **kwargs)
            xd = x._data
            try:
                # A call without * and ** is quicker, and most calls have no params.
                out = forward(xd, *params, **kwargs) if params or kwargs else forward(xd)
            except (ValueError, IndexError) as err:
                raise _forward_error(op, (xd,), err) from None
            if promotes and out.dtype is not xd.dtype:
                out = _promote(out, xd)
            if x.requires_grad and GradMode.enabled:
                t = Tensor._make(out, None, True)
                t.grad_fn = Node(op, (x.grad_fn or x,), (xd,), t._data, params, kwargs)
                return t
            return Tensor._make(out)
    elif n == 2:

        def fn(x, y, *params, **kwargs):
            tx = type(x) is Tensor
            ty = type(y) is Tensor
            if not (tx or ty):
                return forward(x, y, *params, **kwargs)
            xd = x._data if tx else x
            yd = y._data if ty else y
            # The product of the sizes bounds any result's: most calls need no more.
            if tx and ty and xd.size * yd.size > limits.MaxElements.value:
                _check_result_size(op, xd, yd)
            try:
                out = forward(xd, yd, *params, **kwargs) if params or kwargs else forward(xd, yd)
            except (ValueError, IndexError) as err:
                raise _forward_error(op, (xd, yd), err) from None
            except TypeError:
                if params or kwargs:  # a wrong argument, not an operand NumPy cannot take
                    raise
                raise _operand_error(op, x, y) from None
            if promotes and out.dtype is not (xd if tx else yd).dtype:
                out = _promote(out, xd, yd)
            if GradMode.enabled:
                px = (x.grad_fn or x) if tx and x.requires_grad else None
                py = (y.grad_fn or y) if ty and y.requires_grad else None
                if px is not None or py is not None:
                    t = Tensor._make(out, None, True)
                    t.grad_fn = Node(op, (px, py), (xd, yd), t._data, params, kwargs)
                    return t
            return Tensor._make(out)
    else:

        def fn(*args, **kwargs):
            inputs, params = args[:n], args[n:]
            if not any(type(a) is Tensor for a in inputs):
                return forward(*args, **kwargs)
            raws = tuple(a._data if type(a) is Tensor else a for a in inputs)
            try:
                out = forward(*raws, *params, **kwargs)
            except (ValueError, IndexError) as err:
                raise _forward_error(op, raws, err) from None
            if GradMode.enabled and any(type(a) is Tensor and a.requires_grad for a in inputs):
                return _record(op, inputs, raws, out, params, kwargs)
            return Tensor._make(out)

    fn.__name__ = op.name
    fn.__doc__ = op.doc
    return fn


def _check_result_size(op, x, y):
    """Refuse, before computing it, a result of op(x, y) larger than the limit."""
    if op.name == "matmul":
        limits.check_matmul(op.name, x.shape, y.shape)
    elif op.name == "outer":
        limits.check(op.name, x.size * y.size)
    elif op.promotes or op.kind == "binary":  # elementwise: the operands broadcast
        limits.check_broadcast(op.name, x.shape, y.shape)


def defop(name, forward, rules, grad_fn, doc, kind, **options):
    """Declare an op (one entry of the table) and return its function."""
    op = Op(name, forward, tuple(rules), grad_fn, doc, kind, **options)
    op.fn = _bind(op)
    OPS[name] = op
    return op.fn


def zero_rule(g, ans, *args, **kwargs):
    """The rule of a piecewise-constant op: the gradient is 0 wherever it exists."""
    return zeros_like(g)


def defop_piecewise_constant(
    name, forward, grad_fn, doc, kind="elementwise", kink="gradient 0 everywhere, jumps included"
):
    return defop(name, forward, (zero_rule,), grad_fn, doc, kind, saves=False, kink=kink)


def defop_nondiff(name, forward, n_inputs, doc, kind):
    """An op with no gradient at all (comparisons, argmax): its results never require grad."""

    def fn(*args, **kwargs):
        raws = [a._data if type(a) is Tensor else a for a in args]
        if not builtins.any(type(a) is Tensor for a in args[:n_inputs]):
            return forward(*raws, **kwargs)
        if n_inputs == 2 and kind == "binary":  # comparisons broadcast
            limits.check_broadcast(name, np.shape(raws[0]), np.shape(raws[1]))
        try:
            out = forward(*raws, **kwargs)
        except (ValueError, IndexError) as err:
            raise _forward_error(op, raws[:n_inputs], err) from None
        return Tensor._make(out)

    op = Op(name, forward, (None,) * n_inputs, None, doc, kind)
    op.fn = fn
    fn.__name__ = name
    fn.__doc__ = doc
    OPS[name] = op
    return fn


# ----------------------------------------------------------------------------
# Helpers for rules: shapes with leading batch dimensions
# ----------------------------------------------------------------------------


def _raw(x):
    return x._data if type(x) is Tensor else x


def _batch(g, ans):
    """The leading batch dimensions ``g`` carries beyond ``ans``'s shape."""
    return tuple(g.shape[: g.ndim - np.ndim(ans)])


def _dims(dim, ndim):
    """``dim`` (None, int or sequence) as a sorted tuple of negative axes.

    None and an empty sequence mean every dimension, as in PyTorch's reductions
    (``sum(x, [])`` is ``sum(x)``); a dimension named twice is PyTorch's error."""
    if dim is None or (not isinstance(dim, (int, np.integer)) and len(dim) == 0):
        return tuple(range(-ndim, 0))
    if isinstance(dim, (int, np.integer)):
        dim = (dim,)
    out = []
    span = builtins.max(ndim, 1)  # this module's max is the tensor op
    for d in dim:
        d = int(d)
        if not -span <= d < span:
            raise GradcliIndexError(
                f"Dimension out of range (expected to be in range of "
                f"[{-span}, {span - 1}], but got {d})"
            )
        d = d - ndim if d >= 0 else d
        if d in out:
            raise EngineError(f"dim {d % span} appears multiple times in the list of dims")
        out.append(d)
    if ndim == 0:
        return ()  # a 0-d tensor has nothing to reduce: dim 0 or -1 leaves it as it is
    return tuple(sorted(out))


def _one_dim(name, dim):
    """``dim`` where ``name`` takes a single dimension and PyTorch refuses a list."""
    if dim is not None and not isinstance(dim, (int, np.integer)):
        raise GradcliTypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__}")
    return dim


def _axis(dim, ndim):
    """A PyTorch ``dim`` argument as a NumPy ``axis``: checked, negative, a tuple."""
    return None if dim is None else _dims(dim, ndim)


def _expand_reduced(g, shape, dim, keepdim):
    """Bring a reduced gradient back to ``shape``: the rule shared by every reduction."""
    dims = _dims(dim, len(shape))
    kept = list(shape)
    for d in dims:
        kept[d] = 1
    out_ndim = len(shape) if keepdim else len(shape) - len(dims)
    batch = tuple(g.shape[: g.ndim - out_ndim])
    return broadcast_to(reshape(g, batch + tuple(kept)), batch + tuple(shape))


def _count(shape, dim):
    dims = _dims(dim, len(shape))
    return math.prod(shape[d] for d in dims) if shape else 1


def _swap(x):
    return transpose(x, -1, -2)


def _contiguous(forward):
    """A reduction's forward whose result is C-contiguous whatever the input's layout, as
    PyTorch's reductions are (so ``view`` of it works); NumPy keeps the input's order."""

    @functools.wraps(forward)
    def contiguous_forward(*args, **kwargs):
        out = forward(*args, **kwargs)
        if isinstance(out, np.ndarray) and not out.flags.c_contiguous:
            return np.ascontiguousarray(out)
        return out

    return contiguous_forward


# The table: one entry per op, kept on one or two lines so it reads as a table.
# fmt: off
# ----------------------------------------------------------------------------
# Arithmetic
# ----------------------------------------------------------------------------

add = defop("add", np.add, (lambda g, ans, x, y: g, lambda g, ans, x, y: g), "AddBackward0",
            "x + y", "binary", saves=False)
sub = defop("sub", np.subtract, (lambda g, ans, x, y: g, lambda g, ans, x, y: -g), "SubBackward0",
            "x - y", "binary", saves=False)
rsub = defop("rsub", lambda x, y: np.subtract(y, x),
             (lambda g, ans, x, y: -g, lambda g, ans, x, y: g), "RsubBackward1",
             "y - x (a number minus a tensor)", "binary", saves=False)
mul = defop("mul", np.multiply, (lambda g, ans, x, y: g * y, lambda g, ans, x, y: g * x),
            "MulBackward0", "x * y", "binary")


# int / int is a float in the default dtype, as PyTorch: see _promote.
div = defop("div", np.true_divide,
            (lambda g, ans, x, y: g / y, lambda g, ans, x, y: -g * x / (y * y)), "DivBackward0",
            "x / y", "binary")
reciprocal = defop("reciprocal", lambda x: np.true_divide(1, x),
                   (lambda g, ans, x: -g * ans * ans,),
                   "ReciprocalBackward0", "1 / x", "elementwise",
                   kink="-g * ans * ans from the left: a zero gradient stays 0 where "
                        "ans * ans overflows (|x| < 1e-154; PyTorch squares first: nan)")
neg = defop("neg", np.negative, (lambda g, ans, x: -g,), "NegBackward0", "-x", "elementwise",
            saves=False)


def not_implemented(aten_name):
    """The rule of an op whose derivative PyTorch does not implement: backward raises, as there."""

    def rule(g, ans, *args, **kwargs):
        raise EngineError(f"derivative for aten::{aten_name} is not implemented")

    return rule


def _integer_division(ufunc):
    """An integer division that raises on a zero divisor, as PyTorch does (NumPy gives 0)."""

    def forward(x, y):
        if np.result_type(x, y).kind in "iu" and np.any(np.asarray(y) == 0):
            raise EngineError("ZeroDivisionError")
        return ufunc(x, y)

    return forward


floor_divide = defop("floor_divide", _integer_division(np.floor_divide),
                     (not_implemented("floor_divide"), not_implemented("floor_divide")),
                     "NotImplemented", "x // y, rounded down", "binary",
                     kink="no derivative: backward raises, as in PyTorch")
remainder = defop("remainder", _integer_division(np.remainder),
                  (lambda g, ans, x, y: g, lambda g, ans, x, y: -g * floor(x / y)),
                  "RemainderBackward0", "x % y, with the sign of y", "binary",
                  kink="the jumps of floor(x / y) get gradient 0")
_remainder_tensors = OPS["remainder"].variant("RemainderBackward1")
_remainder_of_number = OPS["remainder"].variant("NotImplemented",
                                                (None, not_implemented("remainder")))


def _remainder(input, other):
    """x % y, with the sign of y."""
    if type(other) is Tensor:
        return (_remainder_tensors if type(input) is Tensor else _remainder_of_number).fn(
            input, other)
    return remainder(input, other)


def _pow_base_rule(g, ans, x, p):
    # d/dx x**p = p x**(p-1); PyTorch makes it 0 for p == 0 (not 0 * inf at x = 0).
    if type(p) is Tensor or isinstance(p, np.ndarray):
        return where(p == 0, 0.0, g * p * x ** (p - 1))
    if p == 0:
        return zeros_like(g * x)
    return g * p * x ** (p - 1)


def _pow_exponent_rule(g, ans, x, p):
    # d/dp x**p = x**p log x; 0 where x == 0 and p >= 0 (the limit), as in PyTorch.
    at_zero = logical_and(x == 0, p >= 0)  # x may be a Python number
    return where(at_zero, 0.0, g * ans * log(where(at_zero, 1.0, x)))


def _power(x, p):
    if isinstance(p, (int, np.integer)) and not isinstance(p, bool) and np.ndim(x) is not None:
        x = np.asarray(x)
        if x.dtype.kind in "iu" and p < 0:
            raise EngineError("Integers to negative integer powers are not allowed.")
    return np.power(x, p)


_pow_tensor_scalar = defop("pow", _power, (_pow_base_rule, None), "PowBackward0",
                           "x ** p, also written x ^ p", "binary",
                           kink="d/dx x**0 = 0 everywhere; at a zero base higher derivatives are "
                                "p(p-1)...x**(p-k) as PyTorch, and with a tensor exponent the "
                                "limits from x > 0 (0 for d/dp; PyTorch gives nan)")
_pow_tensor_tensor = OPS["pow"].variant("PowBackward1", (_pow_base_rule, _pow_exponent_rule))
_pow_scalar_tensor = OPS["pow"].variant("PowBackward2", (None, _pow_exponent_rule))


def pow(x, p):  # noqa: A001  (PyTorch's name)
    """x ** p, also written x ^ p."""
    if type(p) is Tensor:
        if type(x) is Tensor:
            return _pow_tensor_tensor.fn(x, p)
        return _pow_scalar_tensor.fn(x, p)
    return _pow_tensor_scalar(x, p)


def _where_forward(x, y, cond):
    return np.where(cond, x, y)


_where = defop(
    "where",
    _where_forward,
    (
        lambda g, ans, x, y, cond: where(cond, g, 0.0),
        lambda g, ans, x, y, cond: where(cond, 0.0, g),
    ),
    "WhereBackward0",
    "where(cond, x, y): x where cond is true, else y",
    "other",
    promotes=True,
)


def where(condition, input, other):  # noqa: A002
    """where(cond, x, y): x where cond is true, else y."""
    cond = condition._data if type(condition) is Tensor else condition
    return _where(input, other, np.asarray(cond, dtype=bool))


def _pick_rules(beats):
    """The rules of maximum (``beats`` is >) or minimum (<): g goes to each input that the
    other does not beat; where they tie, each gets half. With a nan neither beats the
    other, so both get g, as in PyTorch."""

    def first(g, ans, x, y):
        return where(beats(y, x), 0.0, where(x == y, g / 2, g))

    def second(g, ans, x, y):
        return where(beats(x, y), 0.0, where(x == y, g / 2, g))

    return first, second


maximum = defop("maximum", np.maximum, _pick_rules(lambda a, b: a > b), "MaximumBackward0",
                "elementwise larger of x and y", "binary",
                kink="ties share the gradient evenly; at a nan both inputs get it, as PyTorch")
minimum = defop("minimum", np.minimum, _pick_rules(lambda a, b: a < b), "MinimumBackward0",
                "elementwise smaller of x and y", "binary",
                kink="ties share the gradient evenly; at a nan both inputs get it, as PyTorch")


def _atan2_rule(sign, numerator):
    # At the origin the gradient is 0, as in PyTorch. The second derivative does not
    # exist there: the branch not taken divides by 0, so it is nan, as in PyTorch.
    def rule(g, ans, y, x):
        r2 = x * x + y * y
        value = numerator(y, x) / r2
        return where(r2 == 0, 0.0, g * value if sign > 0 else -g * value)

    return rule


atan2 = defop("atan2", np.arctan2,
              (_atan2_rule(1, lambda y, x: x), _atan2_rule(-1, lambda y, x: y)), "Atan2Backward0",
              "atan2(y, x): the angle of the point (x, y)", "binary",
              kink="gradient 0 at the origin; second derivatives nan there (they do not "
                   "exist), as PyTorch")

# ----------------------------------------------------------------------------
# Elementwise functions
# ----------------------------------------------------------------------------

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)

abs = defop("abs", np.abs, (lambda g, ans, x: g * sign(x),), "AbsBackward0", "absolute value",
            "elementwise",
            kink="d|x|/dx = 0 at x = 0; nan at nan (PyTorch gives 0: its sign(nan) is 0)")
sign = defop_piecewise_constant("sign", np.sign, "SignBackward0", "-1, 0 or 1 by the sign of x",
                                kink="gradient 0 everywhere; sign(nan) is nan (PyTorch gives 0)")
sqrt = defop("sqrt", np.sqrt, (lambda g, ans, x: g / (2 * ans),), "SqrtBackward0", "square root",
             "elementwise", kink="derivative inf at 0")
exp = defop("exp", np.exp, (lambda g, ans, x: g * ans,), "ExpBackward0", "e ** x", "elementwise")
expm1 = defop("expm1", np.expm1, (lambda g, ans, x: g * (ans + 1),), "Expm1Backward0",
              "exp(x) - 1, accurate near 0", "elementwise")
log = defop("log", np.log, (lambda g, ans, x: g / x,), "LogBackward0", "natural logarithm",
            "elementwise")
log2 = defop("log2", np.log2, (lambda g, ans, x: g / (x * _LN2),), "Log2Backward0",
             "base-2 logarithm", "elementwise")
log10 = defop("log10", np.log10, (lambda g, ans, x: g / (x * _LN10),), "Log10Backward0",
              "base-10 logarithm", "elementwise")
log1p = defop("log1p", np.log1p, (lambda g, ans, x: g / (x + 1),), "Log1PBackward0",
              "log(1 + x), accurate near 0", "elementwise")
sin = defop("sin", np.sin, (lambda g, ans, x: g * cos(x),), "SinBackward0", "sine (radians)",
            "elementwise")
cos = defop("cos", np.cos, (lambda g, ans, x: -g * sin(x),), "CosBackward0", "cosine (radians)",
            "elementwise")
tan = defop("tan", np.tan, (lambda g, ans, x: g * (1 + ans * ans),), "TanBackward0",
            "tangent (radians)", "elementwise")
asin = defop("asin", np.arcsin, (lambda g, ans, x: g / sqrt(1 - x * x),), "AsinBackward0",
             "inverse sine", "elementwise")
acos = defop("acos", np.arccos, (lambda g, ans, x: -g / sqrt(1 - x * x),), "AcosBackward0",
             "inverse cosine", "elementwise")
atan = defop("atan", np.arctan, (lambda g, ans, x: g / (1 + x * x),), "AtanBackward0",
             "inverse tangent", "elementwise")
sinh = defop("sinh", np.sinh, (lambda g, ans, x: g * cosh(x),), "SinhBackward0", "hyperbolic sine",
             "elementwise")
cosh = defop("cosh", np.cosh, (lambda g, ans, x: g * sinh(x),), "CoshBackward0",
             "hyperbolic cosine", "elementwise")
tanh = defop("tanh", np.tanh, (lambda g, ans, x: g * (1 - ans * ans),), "TanhBackward0",
             "hyperbolic tangent", "elementwise")
asinh = defop("asinh", np.arcsinh, (lambda g, ans, x: g / sqrt(x * x + 1),), "AsinhBackward0",
              "inverse hyperbolic sine", "elementwise")
acosh = defop("acosh", np.arccosh, (lambda g, ans, x: g / sqrt(x * x - 1),), "AcoshBackward0",
              "inverse hyperbolic cosine", "elementwise")
atanh = defop("atanh", np.arctanh, (lambda g, ans, x: g / (1 - x * x),), "AtanhBackward0",
              "inverse hyperbolic tangent", "elementwise")


def _sigmoid(x):
    # exp(-|x|) never overflows; the two branches agree where both are exact.
    e = np.exp(-np.abs(x))
    return np.where(np.asarray(x) >= 0, 1 / (1 + e), e / (1 + e)).astype(np.result_type(x, 1.0))


sigmoid = defop("sigmoid", _sigmoid, (lambda g, ans, x: g * ans * (1 - ans),), "SigmoidBackward0",
                "logistic function 1 / (1 + exp(-x))", "elementwise")
relu = defop("relu", lambda x: np.maximum(x, 0), (lambda g, ans, x: where(x <= 0, 0.0, g),),
             "ReluBackward0", "max(x, 0)", "elementwise",
             kink="relu'(0) = 0; at nan the gradient passes, as PyTorch")


def _softplus(x, beta=1.0, threshold=20.0):
    bx = np.multiply(x, beta)
    return np.where(bx > threshold, x, np.logaddexp(0, bx) / beta).astype(np.result_type(x, 1.0))


softplus = defop(
    "softplus",
    _softplus,
    (
        lambda g, ans, x, beta=1.0, threshold=20.0: where(
            x * beta > threshold, g, g * sigmoid(x * beta)
        ),
    ),
    "SoftplusBackward0",
    "log(1 + exp(x)), smooth relu",
    "elementwise",
    kink="at beta*x == threshold the value and every derivative are the smooth branch's "
         "(PyTorch's second derivative there is 0, not its first derivative's)",
)


def _erf(x):
    # math.erf is exact; vectorised over the array (no SciPy dependency).
    x = np.asarray(x)
    out = np.asarray(np.frompyfunc(math.erf, 1, 1)(x)).astype(np.result_type(x, 1.0))
    return out


erf = defop("erf", _erf, (lambda g, ans, x: g * _TWO_OVER_SQRT_PI * exp(-(x * x)),), "ErfBackward0",
            "error function", "elementwise")
rsqrt = defop("rsqrt", lambda x: 1 / np.sqrt(x), (lambda g, ans, x: -0.5 * g * ans * ans * ans,),
              "RsqrtBackward0", "1 / sqrt(x)", "elementwise")
floor = defop_piecewise_constant("floor", np.floor, "FloorBackward0", "round down")
trunc = defop_piecewise_constant("trunc", np.trunc, "TruncBackward0", "round toward zero")
ceil = defop_piecewise_constant("ceil", np.ceil, "CeilBackward0", "round up")
round = defop_piecewise_constant("round", np.round, "RoundBackward0", "round half to even")


def _clamp(x, min=None, max=None):  # noqa: A002
    if min is None and max is None:
        raise GradcliTypeError("clamp: at least one of 'min' or 'max' must not be None")
    return np.clip(x, min, max)


def _clamp_rule(g, ans, x, min=None, max=None):  # noqa: A002
    inside = True
    if min is not None:
        inside = x >= min
    if max is not None:
        inside = (x <= max) if min is None else inside & (x <= max)
    return where(inside, g, 0.0)


def _clamp_min_rule(g, ans, x, min, max=None):  # noqa: A002
    # The lower bound is the result where it exceeds x, unless the upper bound wins
    # (below it, or equal to it: then neither bound gets the gradient, as in PyTorch).
    above = x < min
    if max is not None:
        above = above & (min < max)
    return where(above, g, 0.0)


def _clamp_max_rule(g, ans, x, min=None, max=None):  # noqa: A002
    below = x > max
    if min is not None:
        below = below | (min > max)
    return where(below, g, 0.0)


_clamp_numbers = defop("clamp", _clamp, (_clamp_rule,), "ClampBackward1",
                       "clamp(x, min, max): x limited to [min, max]", "elementwise",
                       kink="x gets the gradient on the bounds; a tensor bound gets it where it "
                            "is the result, max where min > max, neither where x < min == max")
_clamp_tensors = OPS["clamp"].variant("ClampBackward0",
                                      (_clamp_rule, _clamp_min_rule, _clamp_max_rule))


def clamp(input, min=None, max=None):  # noqa: A002
    """clamp(x, min, max): x limited to [min, max]."""
    if type(min) is Tensor or type(max) is Tensor:
        return _clamp_tensors.fn(input, min, max)
    return _clamp_numbers(input, min, max)


clip = clamp

# ----------------------------------------------------------------------------
# Comparisons and logic: no gradient
# ----------------------------------------------------------------------------

lt = defop_nondiff("lt", np.less, 2, "x < y", "binary")
le = defop_nondiff("le", np.less_equal, 2, "x <= y", "binary")
gt = defop_nondiff("gt", np.greater, 2, "x > y", "binary")
ge = defop_nondiff("ge", np.greater_equal, 2, "x >= y", "binary")
eq = defop_nondiff("eq", np.equal, 2, "x == y", "binary")
ne = defop_nondiff("ne", np.not_equal, 2, "x != y", "binary")
logical_and = defop_nondiff("logical_and", np.logical_and, 2, "x and y", "binary")
logical_or = defop_nondiff("logical_or", np.logical_or, 2, "x or y", "binary")
logical_not = defop_nondiff("logical_not", np.logical_not, 1, "not x", "elementwise")
isnan = defop_nondiff("isnan", np.isnan, 1, "true where x is nan", "elementwise")
isinf = defop_nondiff("isinf", np.isinf, 1, "true where x is infinite", "elementwise")
isfinite = defop_nondiff("isfinite", np.isfinite, 1, "true where x is finite", "elementwise")
argmax = defop_nondiff("argmax",
                       lambda x, dim=None, keepdim=False:
                       np.argmax(x, axis=_one_dim("argmax", dim), keepdims=keepdim),
                       1, "index of the largest entry", "reduction")
# Named _all and _any here, not to shadow the builtins this module uses; gradcli.all, x.all().
_all = defop_nondiff("all",
                   lambda x, dim=None, keepdim=False:
                   np.all(x, axis=_axis(dim, np.ndim(x)), keepdims=keepdim),
                   1, "true where every entry is nonzero", "reduction")
_any = defop_nondiff("any",
                   lambda x, dim=None, keepdim=False:
                   np.any(x, axis=_axis(dim, np.ndim(x)), keepdims=keepdim),
                   1, "true where some entry is nonzero", "reduction")
argmin = defop_nondiff("argmin",
                       lambda x, dim=None, keepdim=False:
                       np.argmin(x, axis=_one_dim("argmin", dim), keepdims=keepdim),
                       1, "index of the smallest entry", "reduction")

# ----------------------------------------------------------------------------
# Reductions
# ----------------------------------------------------------------------------


def _reduction(over_all, along_dim):
    """sum, mean or prod: ``over_all`` (grad_fn ...Backward0) without a dim, the variant
    ``along_dim`` (...Backward1) with one, as PyTorch records them."""

    def reduction(input, dim=None, keepdim=False, *, dtype=None, axis=None):
        dim = axis if dim is None else dim
        if dim is None:
            return over_all(input, None, keepdim, dtype)
        return along_dim.fn(input, dim, keepdim, dtype)

    reduction.__name__ = reduction.__qualname__ = along_dim.name
    reduction.__doc__ = along_dim.doc
    return reduction


@_contiguous
def _sum(x, dim=None, keepdim=False, dtype=None):
    return np.sum(x, axis=_axis(dim, np.ndim(x)), keepdims=keepdim, dtype=dtypes.to_numpy(dtype))


def _sum_rule(g, ans, x, dim=None, keepdim=False, dtype=None):
    return _expand_reduced(g, x.shape, dim, keepdim)


_sum_all = defop("sum", _sum, (_sum_rule,), "SumBackward0",
                 "sum(x, dim=None, keepdim=False): sum of entries", "reduction")
_sum_dim = OPS["sum"].variant("SumBackward1")


sum = _reduction(_sum_all, _sum_dim)  # noqa: A001


@_contiguous
def _mean(x, dim=None, keepdim=False, dtype=None):
    x = np.asarray(x)
    if x.dtype.kind not in "fc" and dtype is None:
        raise EngineError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {dtypes.scalar_name(x.dtype)}"
        )
    return np.mean(x, axis=_axis(dim, np.ndim(x)), keepdims=keepdim, dtype=dtypes.to_numpy(dtype))


def _mean_rule(g, ans, x, dim=None, keepdim=False, dtype=None):
    return _expand_reduced(g, x.shape, dim, keepdim) / _count(x.shape, dim)


_mean_all = defop("mean", _mean, (_mean_rule,), "MeanBackward0",
                  "mean(x, dim=None, keepdim=False): average of entries", "reduction")
_mean_dim = OPS["mean"].variant("MeanBackward1")


mean = _reduction(_mean_all, _mean_dim)


def _prod_others(x, dim=None):
    """For each entry, the product of the other entries along ``dim``: exact with zeros."""
    x = np.asarray(x)
    if dim is None:
        flat = x.reshape(-1)
        return _prod_others(flat, 0).reshape(x.shape)
    if x.ndim == 0:
        return np.ones_like(x)  # a 0-d tensor: no other entries, an empty product
    moved = np.moveaxis(x, dim, -1)
    ones = np.ones(moved.shape[:-1] + (1,), dtype=x.dtype)
    with np.errstate(invalid="ignore", over="ignore"):  # inf * 0 is nan, silently
        left = np.cumprod(np.concatenate([ones, moved[..., :-1]], axis=-1), axis=-1)
        right = np.cumprod(np.concatenate([ones, moved[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
        return np.moveaxis(left * right, -1, dim)


def _prod_others_rule(g, ans, x, dim=None):
    # o_k = prod_{j != k} x_j, so d o_k / d x_i = o_k / x_i for k != i: the cheap
    # form, exact when no entry is 0. With a zero, the table form below.
    if not np.any(np.asarray(_raw(x)) == 0):
        total = sum(g * ans, _dims(dim, np.ndim(x)), keepdim=True)
        return (total - g * ans) / x
    shape = tuple(np.shape(x))
    if dim is not None:
        return _prod_others_vjp(g, x, _dims(dim, len(shape))[0])
    batch = _batch(g, ans)
    n = math.prod(shape)
    flat = _prod_others_vjp(reshape_op(g, batch + (n,)), reshape_op(x, (n,)), -1)
    return reshape_op(flat, batch + shape)


def _prod_others_vjp(g, x, d):
    """sum over k != i of g_k * prod_{j not in {i, k}} x_j along axis d: exact with zeros."""
    n = np.shape(x)[d]
    off = np.eye(n, dtype=bool)
    # Row i of y is x with x_i replaced by 1, so prod_others(y)[i, k] (k != i) is
    # the product over j not in {i, k}.
    y = where(off, 1.0, unsqueeze(transpose(x, d, -1), -2))
    table = where(off, 0.0, prod_others(y, -1))
    grad = sum(table * unsqueeze(transpose(g, d, -1), -2), -1)
    return transpose(grad, d, -1)


prod_others = defop("prod_others", _prod_others, (_prod_others_rule,), "ProdOthersBackward",
                    "product of the other entries (internal to prod's rule)", "other")


@_contiguous
def _prod(x, dim=None, keepdim=False, dtype=None):
    _one_dim("prod", dim)
    return np.prod(x, axis=_axis(dim, np.ndim(x)), keepdims=keepdim, dtype=dtypes.to_numpy(dtype))


def _prod_rule(g, ans, x, dim=None, keepdim=False, dtype=None):
    return _expand_reduced(g, x.shape, dim, keepdim) * prod_others(x, dim)


_prod_all = defop("prod", _prod, (_prod_rule,), "ProdBackward0",
                  "prod(x, dim=None, keepdim=False): product of entries", "reduction",
                  kink="exact with zero, inf and nan entries: each entry's derivative is the "
                       "product of the others (PyTorch divides, giving nan beside an inf or nan)")
_prod_dim = OPS["prod"].variant("ProdBackward1")


prod = _reduction(_prod_all, _prod_dim)


def _extreme_rule(g, ans, x, dim=None, keepdim=False):
    # Ties share the gradient evenly, as PyTorch does for amax/amin and max()/min().
    mask = x == _expand_reduced(ans, np.shape(x), dim, keepdim)
    mask = mask._data if type(mask) is Tensor else mask
    share = mask / np.sum(mask, axis=_axis(dim, mask.ndim), keepdims=True)
    return _expand_reduced(g, x.shape, dim, keepdim) * share.astype(np.result_type(_raw(x), 1.0))


@_contiguous
def _amax(x, dim=None, keepdim=False):
    return np.amax(x, axis=_axis(dim, np.ndim(x)), keepdims=keepdim)


@_contiguous
def _amin(x, dim=None, keepdim=False):
    return np.amin(x, axis=_axis(dim, np.ndim(x)), keepdims=keepdim)


amax = defop("amax", _amax, (_extreme_rule,), "AmaxBackward0",
             "amax(x, dim=None, keepdim=False): largest entry", "reduction",
             kink="ties share the gradient evenly; a nan result gives nan gradients (max(x) "
                  "gives the gradient to the nan entries), as PyTorch")
amin = defop("amin", _amin, (_extreme_rule,), "AminBackward0",
             "amin(x, dim=None, keepdim=False): smallest entry", "reduction",
             kink="ties share the gradient evenly; a nan result gives nan gradients (min(x) "
                  "gives the gradient to the nan entries), as PyTorch")
def _evenly_distribute_rule(g, ans, x):
    # max(x) and min(x) share g among the entries equal to the result; a nan result
    # came from the nan entries, and they share it (amax/amin give nan), as PyTorch.
    data = np.asarray(_raw(x))
    mask = np.isnan(data) if np.isnan(_raw(ans)) else data == np.asarray(_raw(ans))
    share = (mask / np.sum(mask)).astype(np.result_type(data, 1.0))
    return _expand_reduced(g, data.shape, None, False) * share


_max_all = OPS["amax"].variant("MaxBackward1", (_evenly_distribute_rule,))
_min_all = OPS["amin"].variant("MinBackward1", (_evenly_distribute_rule,))


def _along(index, dim):
    """``index`` as an array and ``dim`` as a negative axis, so batch dims pass in front."""
    index = np.asarray(index)
    return index, (dim - index.ndim if dim >= 0 else dim)


def _take_along(x, index, dim, keepdim=True):
    x = np.asarray(x)
    index, dim = _along(index, dim)
    index = np.broadcast_to(index, x.shape[: x.ndim - index.ndim] + index.shape)
    out = np.take_along_axis(x, index, axis=dim)
    return out if keepdim else np.squeeze(out, axis=dim)


def _put_along(g, index, dim, shape):
    # Scatter-add, the adjoint of take_along_dim: an index taken twice gets both gradients.
    g = np.asarray(g)
    index, dim = _along(index, dim)
    batch = tuple(g.shape[: g.ndim - index.ndim])
    out = np.zeros(batch + tuple(shape), dtype=g.dtype)
    index = np.broadcast_to(index, batch + index.shape)
    grid = list(np.ogrid[tuple(slice(n) for n in index.shape)])
    grid[dim] = index
    np.add.at(out, tuple(grid), np.broadcast_to(g, index.shape))
    return out


take_along_dim = defop(
    "take_along_dim",
    _take_along,
    (
        lambda g, ans, x, index, dim, keepdim=True: put_along_dim(
            g if keepdim else unsqueeze(g, _along(index, dim)[1]), index, dim, np.shape(x)
        ),
    ),
    "GatherBackward0",
    "take_along_dim(x, index, dim): entries at index along dim",
    "other",
)
put_along_dim = defop("put_along_dim", _put_along,
                      (lambda g, ans, x, index, dim, shape: take_along_dim(g, index, dim),),
                      "PutAlongDimBackward", "the gradient of take_along_dim (internal)", "other")
_max_dim = OPS["take_along_dim"].variant("MaxBackward0")
_min_dim = OPS["take_along_dim"].variant("MinBackward0")


class _ValuesIndices(tuple):
    """What max(x, dim) returns: (values, indices), also by name."""

    function = "max"

    def __repr__(self):
        return f"torch.return_types.{self.function}(\nvalues={self[0]!r},\nindices={self[1]!r})"

    @property
    def values(self):
        return self[0]

    @property
    def indices(self):
        return self[1]


def _return_type(function):
    """The (values, indices) pair of ``function``, printed as torch.return_types.<function>."""
    return type(f"{function}_return", (_ValuesIndices,), {"function": function})


_MinValuesIndices = _return_type("min")


def _extreme(x, dim, keepdim, other, pick, grad_all, grad_dim, binary, result):
    if other is not None:
        return binary(x, other)
    if dim is None:
        return grad_all.fn(x)
    data = x._data if type(x) is Tensor else np.asarray(x)
    if data.ndim == 0:
        _dims(dim, 0)  # only 0 and -1 name the dimension of a 0-d tensor
        return result((grad_all.fn(x), Tensor._make(np.asarray(0))))
    dim = _dims(dim, data.ndim)[0]
    index = np.expand_dims(pick(data, axis=dim), dim)
    values = grad_dim.fn(x, index, dim, keepdim)
    return result((values, Tensor._make(index if keepdim else np.squeeze(index, dim))))


def max(input, dim=None, keepdim=False, *, other=None):  # noqa: A001
    """max(x): largest entry; max(x, dim): (values, indices); max(x, y): elementwise."""
    if type(dim) is Tensor:
        return maximum(input, dim)
    _one_dim("max", dim)
    return _extreme(input, dim, keepdim, other, np.argmax, _max_all, _max_dim, maximum,
                    _ValuesIndices)


def min(input, dim=None, keepdim=False, *, other=None):  # noqa: A001
    """min(x): smallest entry; min(x, dim): (values, indices); min(x, y): elementwise."""
    if type(dim) is Tensor:
        return minimum(input, dim)
    _one_dim("min", dim)
    return _extreme(input, dim, keepdim, other, np.argmin, _min_all, _min_dim, minimum,
                    _MinValuesIndices)


@_contiguous
def _logsumexp(x, dim=None, keepdim=False):
    x = np.asarray(x)
    axis = _axis(dim, np.ndim(x))
    peak = np.amax(x, axis=axis, keepdims=True)
    peak = np.where(np.isfinite(peak), peak, 0)
    out = np.log(np.sum(np.exp(x - peak), axis=axis, keepdims=True)) + peak
    return out if keepdim else np.squeeze(out, axis=axis) if axis is not None else out.reshape(())


logsumexp = defop(
    "logsumexp",
    _logsumexp,
    (
        lambda g, ans, x, dim=None, keepdim=False: (
            _expand_reduced(g, x.shape, dim, keepdim)
            * exp(x - _expand_reduced(ans, x.shape, dim, keepdim))
        ),
    ),
    "LogsumexpBackward0",
    "logsumexp(x, dim, keepdim=False): log(sum(exp(x))) without overflow",
    "reduction",
)


@_contiguous
def _norm(x, p=2, dim=None, keepdim=False):
    kind = np.asarray(x).dtype
    if kind.kind not in "fc":
        raise EngineError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. "
            f"Got {dtypes.scalar_name(kind)}"
        )
    axis = _axis(dim, np.ndim(x))
    a = np.abs(x)
    if p == 2:
        return np.sqrt(np.sum(a * a, axis=axis, keepdims=keepdim))
    if p == 1:
        return np.sum(a, axis=axis, keepdims=keepdim)
    if p == math.inf:
        return np.amax(a, axis=axis, keepdims=keepdim)
    if p == -math.inf:
        return np.amin(a, axis=axis, keepdims=keepdim)
    if p == 0:  # the number of non-zero entries
        return np.sum(a != 0, axis=axis, keepdims=keepdim).astype(a.dtype)
    # p < 0: a zero entry makes the sum inf and the norm 0, as in PyTorch.
    return np.sum(a**p, axis=axis, keepdims=keepdim) ** (1.0 / p)


def _norm_rule(g, ans, x, p=2, dim=None, keepdim=False):
    shape = np.shape(x)
    ge = _expand_reduced(g, shape, dim, keepdim)
    if p == 0:
        return zeros_like(ge * x)  # a count: piecewise constant
    if p == 1:
        return ge * sign(x)
    if p in (math.inf, -math.inf):
        return _extreme_rule(g, ans, abs(x), dim, keepdim) * sign(x)
    norm_e = _expand_reduced(ans, shape, dim, keepdim)
    # The gradient is 0 where the norm is 0 (a subgradient), and for p < 1 at a zero
    # entry, where |x|**p has no derivative, as in PyTorch. The branch not taken divides
    # by 0, so second derivatives there are nan (they do not exist), as in PyTorch.
    if p == 2:
        return where(norm_e == 0, 0.0, ge * x / norm_e)
    return where((norm_e == 0) | (x == 0), 0.0,
                 ge * sign(x) * abs(x) ** (p - 1) / norm_e ** (p - 1))


norm = defop("norm", _norm, (_norm_rule,), "LinalgVectorNormBackward0",
             "norm(x, p=2, dim=None, keepdim=False): vector p-norm (p=0 counts non-zero entries)",
             "reduction",
             kink="gradient 0 where the norm is 0, at a zero entry for p < 1, and for p = 0; "
                  "second derivatives nan at the origin, as PyTorch")


def _correction(unbiased, correction):
    if correction is not None:
        if unbiased is not None:  # PyTorch has no signature that takes both
            raise GradcliTypeError("var and std take unbiased or correction, not both")
        return correction
    return 1 if unbiased in (None, True) else 0


@_contiguous
def _var(x, dim=None, unbiased=None, keepdim=False, *, correction=None):
    if np.asarray(x).dtype.kind not in "fc":
        raise EngineError("std and var only support floating point and complex dtypes")
    ddof = _correction(unbiased, correction)
    axis = _axis(dim, np.ndim(x))
    if _count(np.shape(x), dim) > ddof:
        return np.var(x, axis=axis, ddof=ddof, keepdims=keepdim)
    # No degrees of freedom left: the sum of squares over 0, inf (nan where it is 0), as
    # PyTorch; computed here so that NumPy's "Degrees of freedom <= 0" warning never shows.
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.var(x, axis=axis, keepdims=keepdim) / 0.0


def _var_rule(g, ans, x, dim=None, unbiased=None, keepdim=False, *, correction=None):
    n = _count(x.shape, dim) - _correction(unbiased, correction)
    centred = x - mean(x, _dims(dim, x.ndim), keepdim=True)
    # No degrees of freedom left: the value is inf or nan whatever x is, so it has no
    # derivative: nan (PyTorch gives inf or finite numbers, depending on dim).
    return _expand_reduced(g, x.shape, dim, keepdim) * centred * (2.0 / n if n > 0 else math.nan)


def _std(x, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return np.sqrt(_var(x, dim, unbiased, keepdim, correction=correction))


def _std_rule(g, ans, x, dim=None, unbiased=None, keepdim=False, *, correction=None):
    # Where std is 0 (all entries equal) the gradient is 0, as in PyTorch.
    std_e = _expand_reduced(ans, x.shape, dim, keepdim)
    zero = std_e == 0
    var_grad = _var_rule(g, ans, x, dim, unbiased, keepdim, correction=correction)
    return where(zero, 0.0, var_grad / (2 * where(zero, 1.0, std_e)))


var = defop("var", _var, (_var_rule,), "VarBackward0",
            "var(x, dim=None, keepdim=False, correction=1): variance", "reduction",
            kink="correction >= N: value inf (nan if all entries are equal), as PyTorch; "
                 "gradient nan (PyTorch's depends on dim)")
std = defop("std", _std, (_std_rule,), "StdBackward0",
            "std(x, dim=None, keepdim=False, correction=1): standard deviation", "reduction",
            kink="gradient 0 at zero variance, as PyTorch; correction >= N: value inf (nan if "
                 "all entries are equal), gradient nan")


def _softmax_input(name, x, dim):
    """``x`` as an array, refused as PyTorch refuses a softmax of integers (its kernel's name)."""
    _one_dim(name, dim)
    x = np.asarray(x)
    if x.dtype.kind not in "fc":
        last = x.ndim == 0 or _dims(dim, x.ndim) == (-1,)
        raise NotImplementedByGradcli(
            f'"{name}{"_lastdim" if last else ""}_kernel_impl" not implemented for '
            f"'{dtypes.scalar_name(x.dtype)}'"
        )
    return x


@_contiguous
def _softmax(x, dim):
    x = _softmax_input("softmax", x, dim)
    axis = _axis(dim, x.ndim)
    shifted = np.exp(x - np.amax(x, axis=axis, keepdims=True))
    return shifted / np.sum(shifted, axis=axis, keepdims=True)


@_contiguous
def _log_softmax(x, dim):
    x = _softmax_input("log_softmax", x, dim)
    axis = _axis(dim, x.ndim)
    shifted = x - np.amax(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def _softmax_dim(dim, ans):
    return _dims(dim, np.ndim(ans))  # negative, so a batched g keeps its leading dims


softmax = defop(
    "softmax",
    _softmax,
    (lambda g, ans, x, dim: ans * (g - sum(g * ans, _softmax_dim(dim, ans), keepdim=True)),),
    "SoftmaxBackward0",
    "softmax(x, dim): exp(x) / sum(exp(x)) along dim",
    "reduction",
)
log_softmax = defop(
    "log_softmax",
    _log_softmax,
    (lambda g, ans, x, dim: g - exp(ans) * sum(g, _softmax_dim(dim, ans), keepdim=True),),
    "LogSoftmaxBackward0",
    "log_softmax(x, dim): log of softmax, stably",
    "reduction",
)

# ----------------------------------------------------------------------------
# Linear algebra
# ----------------------------------------------------------------------------


def _matmul_rule_x(g, ans, x, y):
    if np.ndim(y) == 1:
        return unsqueeze(g, -1) * y  # (..., m) -> (..., m, k); a dot product: (k,)
    if np.ndim(x) == 1:
        if np.ndim(y) == 2:
            return matmul(g, _swap(y))
        return sum(unsqueeze(g, -2) * y, -1)
    return matmul(g, _swap(y))


def _matmul_rule_y(g, ans, x, y):
    if np.ndim(y) == 1:
        if np.ndim(x) == 2:
            return matmul(g, x)
        return unsqueeze(g, -1) * x
    if np.ndim(x) == 1:
        return unsqueeze(g, -2) * unsqueeze(x, -1)  # an outer product: no BLAS call needed
    return matmul(_swap(x), g)


def _matmul(x, y):
    x = np.asarray(x)
    y = np.asarray(y)
    if x.ndim == 0 or y.ndim == 0:
        raise ShapeError(
            f"both arguments to matmul need to be at least 1D, but they are {x.ndim}D and {y.ndim}D"
        )
    if x.shape[-1] != y.shape[-2 if y.ndim > 1 else 0]:
        left = "x".join(map(str, x.shape))
        right = "x".join(map(str, y.shape))
        raise ShapeError(f"shapes cannot be multiplied ({left} and {right})")
    if x.ndim == 2 and y.ndim == 2 and x.shape[1] == 1:
        return x * y  # inner dimension 1: an outer product, cheaper than BLAS
    return np.matmul(x, y)


_matmul_general = defop("matmul", _matmul, (_matmul_rule_x, _matmul_rule_y), "UnsafeViewBackward0",
                        "x @ y: matrix product", "linalg")
_mm = OPS["matmul"].variant("MmBackward0")
_mv = OPS["matmul"].variant("MvBackward0")
_dot = OPS["matmul"].variant("DotBackward0")
_vm = OPS["matmul"].variant("SqueezeBackward4")
_matrix_by_batch = OPS["matmul"].variant("CloneBackward0")
_MATMUL_BY_NDIM = {(2, 2): _mm, (2, 1): _mv, (1, 1): _dot, (1, 2): _vm}


def matmul(input, other):
    """x @ y: matrix product."""
    if type(input) is not Tensor and type(other) is not Tensor:
        return _matmul(input, other)
    ndims = (np.ndim(input), np.ndim(other))
    op = _MATMUL_BY_NDIM.get(ndims)
    if op is None and ndims[0] == 2 and ndims[1] > 2:
        op = _matrix_by_batch
    return (op.fn if op is not None else _matmul_general)(input, other)


def mm(input, mat2):
    """mm(x, y): product of two matrices."""
    if np.ndim(input) != 2 or np.ndim(mat2) != 2:
        raise ShapeError(f"mm: expected 2-D matrices, got {np.ndim(input)}-D and {np.ndim(mat2)}-D")
    return matmul(input, mat2)


def dot(input, other):
    """dot(x, y): inner product of two vectors."""
    if np.ndim(input) != 1 or np.ndim(other) != 1:
        raise ShapeError(
            f"1D tensors expected, but got {np.ndim(input)}D and {np.ndim(other)}D tensors"
        )
    return matmul(input, other)


outer = defop("outer", lambda x, y: np.multiply.outer(_vector("outer", x), _vector("outer", y)),
              (lambda g, ans, x, y: matmul(g, y), lambda g, ans, x, y: matmul(x, g)),
              "MulBackward0", "outer(x, y): outer product of two vectors", "linalg")


def _vector(name, x):
    if np.ndim(x) != 1:
        raise ShapeError(f"{name}: expected 1-D vectors, but got a {np.ndim(x)}-D argument")
    return x


def _transpose(x, dim0, dim1):
    return np.swapaxes(x, dim0, dim1)


def _transpose_rule(g, ans, x, dim0, dim1):
    n = np.ndim(x)
    return transpose(g, dim0 - n if dim0 >= 0 else dim0, dim1 - n if dim1 >= 0 else dim1)


transpose = defop("transpose", _transpose, (_transpose_rule,), "TransposeBackward0",
                  "transpose(x, dim0, dim1): swap two dimensions", "shape", saves=False)
_t_op = OPS["transpose"].variant("TBackward0")
_numpy_T_op = OPS["transpose"].variant("PermuteBackward0")


def t(input):
    """t(x): transpose of a matrix (a vector stays as it is)."""
    if np.ndim(input) > 2:
        raise ShapeError(
            f"t() expects a tensor with <= 2 dimensions, but self is {np.ndim(input)}D"
        )
    if np.ndim(input) < 2:
        return _t_vector.fn(input, tuple(range(np.ndim(input))))
    return _t_op.fn(input, 0, 1)


def numpy_T(input):
    """x.T: reverse the dimensions (a matrix's transpose)."""
    if np.ndim(input) < 2:
        return permute_op(input, tuple(range(np.ndim(input))))  # a new node, as in PyTorch
    if np.ndim(input) > 2:
        return permute(input, tuple(range(np.ndim(input) - 1, -1, -1)))
    return _numpy_T_op.fn(input, 0, 1)


def _permute_rule(g, ans, x, dims):
    n = np.ndim(x)
    inverse = np.argsort([d % n for d in dims])
    nb = g.ndim - n
    return permute_op(g, tuple(range(nb)) + tuple(int(i) + nb for i in inverse))


permute_op = defop("permute", lambda x, dims: np.transpose(x, tuple(dims)), (_permute_rule,),
                   "PermuteBackward0", "permute(x, dims): reorder dimensions", "shape", saves=False)
_t_vector = OPS["permute"].variant("TBackward0")  # t() of a vector: a new node, as in PyTorch


def permute(input, *dims):
    """permute(x, dims): reorder dimensions."""
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = dims[0]
    if len(dims) != np.ndim(input):
        raise ShapeError(
            f"permute: number of dimensions in the tensor input does not match "
            f"the length of the desired ordering of dimensions i.e. input.dim() = "
            f"{np.ndim(input)} is not equal to len(dims) = {len(dims)}"
        )
    return permute_op(input, tuple(int(d) for d in dims))


def _trace(x):
    if np.ndim(x) != 2:
        raise ShapeError(f"trace: expected a matrix, but got tensor with dim {np.ndim(x)}")
    return np.trace(x)


trace = defop(
    "trace",
    _trace,
    (
        lambda g, ans, x: (
            unsqueeze(unsqueeze(g, -1), -1) * np.eye(x.shape[-2], x.shape[-1], dtype=_raw(x).dtype)
        ),
    ),
    "TraceBackward0",
    "sum of the diagonal of a matrix",
    "linalg",
)


def _cofactors(x):
    """The cofactor matrix of ``x`` (the adjugate transposed), from the minors' determinants:
    no inversion, so it exists at singular matrices, and it is written in differentiable ops."""
    n = np.shape(x)[-1]
    if n == 1:
        return ones_like(x)
    others = np.array([[k for k in range(n) if k != i] for i in range(n)])
    rows = others[:, None, :, None]  # rows[i, j] picks the rows but i, cols[i, j] the columns but j
    cols = others[None, :, None, :]
    minors = det(getitem(x, (Ellipsis, rows, cols)))
    signs = 1.0 - 2.0 * (np.add.outer(np.arange(n), np.arange(n)) % 2)
    return minors * signs.astype(np.asarray(_raw(x)).dtype)


def _svd_cofactors(x):
    """The cofactor matrix of ``x`` from its SVD, U S V^T: det(U) det(V) U P V^T with P the
    diagonal of the products of the other singular values. Exact at singular matrices
    (no inversion), in O(n^3); on arrays only (no second derivatives)."""
    u, s, vt = np.linalg.svd(x)
    orientation = np.linalg.det(u) * np.linalg.det(vt)
    others = _prod_others(s, -1) * orientation[..., None]
    return (u * others[..., None, :]) @ vt


_MAX_DIFFERENTIABLE_COFACTORS = 32  # the minors take n**4 numbers


def _det_rule(g, ans, x):
    # d det(A) / dA is the cofactor matrix. det(A) * inverse(A)^T is it where det(A) != 0
    # (and quicker); at a singular matrix it comes without inversion, as mathematics says:
    # from the minors (exact for integer entries, and differentiable), or for a large
    # matrix in the reverse pass from the SVD.
    if np.all(np.asarray(_raw(ans)) != 0):
        adjugate_t = unsqueeze(unsqueeze(ans, -1), -1) * _swap(inverse(x))
    elif np.shape(x)[-1] <= _MAX_DIFFERENTIABLE_COFACTORS:
        adjugate_t = _cofactors(x)
    elif type(x) is not Tensor:
        adjugate_t = _svd_cofactors(x)
    else:
        raise NotImplementedByGradcli(
            f"second derivatives of det at a singular matrix larger than "
            f"{_MAX_DIFFERENTIABLE_COFACTORS} x {_MAX_DIFFERENTIABLE_COFACTORS} are not implemented"
        )
    return unsqueeze(unsqueeze(g, -1), -1) * adjugate_t


def _square(name, f):
    def forward(x):
        x = np.asarray(x)
        if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
            raise ShapeError(
                f"{name}: A must be batches of square matrices, but they are "
                f"{' by '.join(map(str, x.shape[-2:]))} matrices"
            )
        return f(x)

    return forward


det = defop("det", _square("det", np.linalg.det), (_det_rule,), "LinalgDetBackward0",
            "determinant of a square matrix", "linalg",
            kink="the gradient is the cofactor matrix everywhere, singular matrices included "
                 "(PyTorch 2.13 gives zeros at rank n-1: gradcli follows mathematics)")
inverse = defop("inverse", _square("inverse", np.linalg.inv),
                (lambda g, ans, x: -matmul(matmul(_swap(ans), g), _swap(ans)),),
                "LinalgInvExBackward0", "inverse of a square matrix", "linalg")


def _diag_embed(x, rows, cols):
    x = np.asarray(x)
    limits.check("diag", x.shape[:-1] + (rows, cols))
    out = np.zeros(x.shape[:-1] + (rows, cols), dtype=x.dtype)
    k = builtins.min(rows, cols)
    idx = np.arange(k)
    out[..., idx, idx] = x[..., :k]
    return out


_diagonal_last = defop("diagonal", lambda x: np.diagonal(x, 0, -2, -1).copy(),
                       (lambda g, ans, x: diag_embed(g, x.shape[-2], x.shape[-1]),),
                       "DiagonalBackward0", "the diagonal of a matrix", "linalg", saves=True)
diag_embed = defop("diag_embed", _diag_embed,
                   (lambda g, ans, x, rows, cols: _diagonal_last(g)[..., : x.shape[-1]],),
                   "DiagEmbedBackward0", "a matrix with x on its diagonal", "linalg")


_diag_of_matrix = OPS["diagonal"].variant("DiagonalBackward0_copy")  # PyTorch's name


def diagonal(input, offset=0, dim1=0, dim2=1):
    """diagonal(x, offset=0, dim1=0, dim2=1): the diagonal of the matrices in dims dim1, dim2."""
    n = np.ndim(input)
    if offset != 0:
        raise NotImplementedByGradcli("diagonal with an offset other than 0 is not implemented")
    d1, d2 = _dims(dim1, n)[0], _dims(dim2, n)[0]
    if d1 == d2:
        raise GradcliIndexError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    if (d1, d2) != (-2, -1):
        rest = tuple(d + n for d in range(-n, 0) if d not in (d1, d2))
        input = permute_op(input, rest + (d1 + n, d2 + n))
    return _diagonal_last(input)


def diag(input):
    """diag(v): a diagonal matrix from a vector; diag(A): the diagonal of a matrix."""
    n = np.ndim(input)
    if n == 1:
        size = np.shape(input)[0]
        return diag_embed(input, size, size)
    if n == 2:
        return _diag_of_matrix.fn(input)
    raise ShapeError(f"diag(): Supports 1D or 2D tensors. Got {n}D")


# ----------------------------------------------------------------------------
# Shapes
# ----------------------------------------------------------------------------


def _shape_arg(shape, what=None):
    """A size given as ``2, 3`` or ``(2, 3)``; with ``what``, a constructor's, checked
    against the limit on a result's size."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    shape = tuple(int(s) for s in shape)
    if what is not None:
        limits.check(what, shape)
    return shape


def _reshape_rule(g, ans, x, *params, **kwargs):
    return reshape_op(g, _batch(g, ans) + tuple(np.shape(x)))


def _reshape(x, shape):
    try:
        return np.reshape(x, shape)
    except ValueError:
        raise ShapeError(
            f"shape '{list(shape)}' is invalid for input of size {np.size(x)}"
        ) from None


reshape_op = defop("reshape", _reshape, (_reshape_rule,), "ViewBackward0",
                   "reshape(x, shape): the same entries in another shape", "shape", saves=False)
_view_op = OPS["reshape"].variant("ViewBackward0")
_reshape_copy = OPS["reshape"].variant("UnsafeViewBackward0")  # PyTorch's reshape that copies


def _viewable(data, shape):
    """Whether ``data`` takes ``shape`` without a copy (its strides allow it), as a view needs.

    A wrong number of entries counts as viewable: that is the reshape's own error to report.
    """
    known = math.prod(s for s in shape if s != -1)
    if np.size(data) != known and (-1 not in shape or known == 0 or np.size(data) % known):
        return True
    try:
        np.reshape(data, shape, copy=False)
    except ValueError:
        return False
    except TypeError:  # NumPy < 2.1: no copy argument; a view's shape can only be set in place
        try:
            data.view().shape = shape
        except AttributeError:
            return False
    return True


def reshape(input, *shape):
    """reshape(x, shape): the same entries in another shape."""
    shape = _shape_arg(shape)
    if type(input) is Tensor and not _viewable(input._data, shape):
        return _reshape_copy.fn(input, shape)
    return reshape_op(input, shape)


def view(input, *shape):
    """view(x, shape): reshape sharing memory."""
    shape = _shape_arg(shape)
    if type(input) is Tensor and not _viewable(input._data, shape):
        raise EngineError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    return _view_op.fn(input, shape)


def flatten(input, start_dim=0, end_dim=-1):
    """flatten(x, start_dim=0, end_dim=-1): merge dimensions into one."""
    shape = np.shape(input)
    if not shape:
        return reshape(input, (1,))
    start = _dims(start_dim, len(shape))[0] + len(shape)
    end = _dims(end_dim, len(shape))[0] + len(shape)
    if start > end:
        raise EngineError("flatten() has invalid args: start_dim cannot come after end_dim")
    merged = math.prod(shape[start : end + 1])
    return reshape(input, shape[:start] + (merged,) + shape[end + 1 :])


def _squeeze(x, dim=None):
    if dim is None:
        return np.squeeze(x)
    shape = np.shape(x)
    if not shape:
        return np.asarray(x)
    if not isinstance(dim, (int, np.integer)) and len(dim) == 0:
        return np.asarray(x)  # squeeze(x, []) drops nothing, unlike a reduction over []
    dims = tuple(d for d in _dims(dim, len(shape)) if shape[d] == 1)
    return np.squeeze(x, axis=dims) if dims else np.asarray(x)


_squeeze_all = defop("squeeze", _squeeze, (_reshape_rule,), "SqueezeBackward0",
                     "squeeze(x, dim=None): drop dimensions of size 1", "shape", saves=False)
_squeeze_dim = OPS["squeeze"].variant("SqueezeBackward1")
_squeeze_dims = OPS["squeeze"].variant("SqueezeBackward2")


def squeeze(input, dim=None):
    """squeeze(x, dim=None): drop dimensions of size 1."""
    if dim is None:
        return _squeeze_all(input)
    op = _squeeze_dim if isinstance(dim, (int, np.integer)) else _squeeze_dims
    return op.fn(input, dim)


unsqueeze = defop("unsqueeze", lambda x, dim: np.expand_dims(x, dim), (_reshape_rule,),
                  "UnsqueezeBackward0", "unsqueeze(x, dim): insert a dimension of size 1", "shape",
                  saves=False)


def _sum_to(g, shape, batch_dims=0):
    """Sum ``g`` down to ``batch + shape`` where ``batch`` is g's first ``batch_dims`` dims."""
    g = np.asarray(g)
    shape = tuple(shape)
    lead = g.ndim - batch_dims - len(shape)
    if lead < 0:  # the target has extra leading 1s (a value assigned into k[0])
        g = g.reshape(g.shape[:batch_dims] + (1,) * -lead + g.shape[batch_dims:])
        lead = 0
    axes = list(range(batch_dims, batch_dims + lead))
    axes += [
        batch_dims + lead + i
        for i, n in enumerate(shape)
        if n == 1 and g.shape[batch_dims + lead + i] != 1
    ]
    out = np.sum(g, axis=tuple(axes), keepdims=True) if axes else g
    return out.reshape(g.shape[:batch_dims] + shape)


def _broadcast_to(x, shape):
    shape = tuple(shape)
    try:
        return np.broadcast_to(x, shape)
    except ValueError:
        old = np.shape(x)
        if len(shape) < len(old):
            raise ShapeError(
                f"expand: the number of sizes provided ({len(shape)}) must be "
                f"greater or equal to the number of dimensions in the tensor "
                f"({len(old)})"
            ) from None
        k = next(k for k in range(1, len(old) + 1) if old[-k] not in (1, shape[-k]))
        raise ShapeError(
            f"The expanded size of the tensor ({shape[-k]}) must match the "
            f"existing size ({old[-k]}) at non-singleton dimension "
            f"{len(shape) - k}.  Target sizes: {list(shape)}.  Tensor sizes: "
            f"{list(old)}"
        ) from None


def _sum_to_rule(g, ans, x, shape, batch_dims=0):
    # Bring back the leading dims the sum removed (as size 1), then broadcast;
    # g is (its own batch dims) + (x's batch_dims) + shape.
    shape = tuple(shape)
    x_shape = tuple(np.shape(x))
    outer = tuple(g.shape[: g.ndim - len(shape)])
    lead = len(x_shape) - batch_dims - len(shape)
    return broadcast_to(
        reshape_op(g, outer + (1,) * lead + shape), outer[: len(outer) - batch_dims] + x_shape
    )


sum_to = defop("sum_to", _sum_to, (_sum_to_rule,), "SumToSizeBackward0",
               "sum a broadcast gradient back to a shape (internal)", "shape", saves=False)
broadcast_to = defop("broadcast_to", _broadcast_to,
                     (lambda g, ans, x, shape: sum_to(g, np.shape(x), g.ndim - len(tuple(shape))),),
                     "ExpandBackward0", "broadcast_to(x, shape): repeat along new dimensions",
                     "shape", saves=False)


def expand(input, *sizes):
    """expand(x, *sizes): broadcast to a larger shape (-1 keeps a size)."""
    sizes = _shape_arg(sizes)
    shape = np.shape(input)
    lead = len(sizes) - len(shape)
    target = tuple(s if s != -1 else shape[i - lead] for i, s in enumerate(sizes))
    return broadcast_to(input, target)


def _stack(arrays, dim=0):
    try:
        return np.stack(arrays, axis=dim)
    except ValueError:
        shapes = [list(np.shape(a)) for a in arrays]
        k = next((k for k, s in enumerate(shapes) if s != shapes[0]), None)
        if k is None:
            raise
        raise ShapeError(
            f"stack expects each tensor to be equal size, but got {shapes[0]} at "
            f"entry 0 and {shapes[k]} at entry {k}"
        ) from None


def _stack_rule(g, ans, xs, dim=0):
    d = dim - np.ndim(ans) if dim >= 0 else dim
    tail = (slice(None),) * (-d - 1)
    return tuple(getitem(g, (Ellipsis, i) + tail) for i in range(len(xs)))


def _cat(arrays, dim=0):
    try:
        return np.concatenate(arrays, axis=dim)
    except ValueError:
        shapes = [np.shape(a) for a in arrays]
        d = dim % builtins.max(len(shapes[0]), 1)
        for k, s in enumerate(shapes[1:], 1):
            if len(s) != len(shapes[0]):
                raise ShapeError(
                    f"Tensors must have same number of dimensions: got "
                    f"{len(shapes[0])} and {len(s)}"
                ) from None
            bad = [i for i in range(len(s)) if i != d and s[i] != shapes[0][i]]
            if bad:
                raise ShapeError(
                    f"Sizes of tensors must match except in dimension {d}. "
                    f"Expected size {shapes[0][bad[0]]} but got size "
                    f"{s[bad[0]]} for tensor number {k} in the list."
                ) from None
        raise


def _cat_rule(g, ans, xs, dim=0):
    d = dim - np.ndim(ans) if dim >= 0 else dim
    tail = (slice(None),) * (-d - 1)
    out, start = [], 0
    for x in xs:
        stop = start + np.shape(x)[d]
        out.append(getitem(g, (Ellipsis, slice(start, stop)) + tail))
        start = stop
    return tuple(out)


stack = defop("stack", _stack, (_stack_rule,), "StackBackward0",
              "stack([a, b, ...], dim=0): join along a new dimension", "shape", saves=True,
              variadic=True)
cat = defop("cat", _cat, (_cat_rule,), "CatBackward0",
            "cat([a, b, ...], dim=0): join along an existing dimension", "shape", saves=True,
            variadic=True)
concatenate = cat


def to_dtype(input, dtype):
    """Cast to another dtype (differentiable between float dtypes)."""
    dtype = dtypes.to_numpy(dtype)
    if type(input) is Tensor and input._data.dtype == dtype:
        return input  # as PyTorch: no conversion, the tensor itself
    return _to_op(input, dtype)


_to_op = defop("to", lambda x, dtype: np.asarray(x).astype(dtype),
               (lambda g, ans, x, dtype: _to_op(g, np.asarray(x).dtype),), "ToCopyBackward0",
               "cast to another dtype", "other")
# order "K" keeps x's layout (PyTorch's clone), "C" makes it contiguous (x.contiguous()).
clone = defop("clone", lambda x, order="K": np.array(x, copy=True, order=order),
              (lambda g, ans, x, order="K": g,), "CloneBackward0", "a copy", "other", saves=False)


def detach(input):
    """The same values, cut from the graph."""
    return input.detach() if type(input) is Tensor else input


# ----------------------------------------------------------------------------
# Indexing
# ----------------------------------------------------------------------------


def _normalize_index(index):
    """A Python index with tensors replaced by arrays (bool masks stay masks)."""
    if not isinstance(index, tuple):
        index = (index,)
    out = []
    for item in index:
        if type(item) is Tensor:
            item = item._data
            if item.ndim == 0 and item.dtype.kind in "iu":
                item = int(item)  # x[torch.tensor(1)] selects, as x[1] does
        elif isinstance(item, list):
            item = np.asarray([i._data if type(i) is Tensor else i for i in item])
        elif isinstance(item, slice) and item.step is not None and item.step <= 0:
            if item.step == 0:
                raise GradcliValueError("slice step cannot be zero")
            raise GradcliValueError(
                "step must be greater than zero (a tensor has no negative strides: "
                "flip(x, dims) reverses the order)"
            )
        out.append(item)
    return tuple(out)


def _is_basic(index):
    return all(isinstance(i, (int, np.integer, slice)) or i is None or i is Ellipsis for i in index)


def _getitem(x, index):
    try:
        return np.asarray(x)[index]
    except IndexError as err:
        raise GradcliIndexError(str(err).replace(" for axis ", " for dimension ")) from None


def _index_scatter(g, index, shape):
    """The gradient of ``x[index]``: zeros of x's shape with g added at index."""
    selected = np.broadcast_to(np.empty((), dtype=bool), tuple(shape))[index]
    batch = tuple(g.shape[: g.ndim - selected.ndim])
    out = np.zeros(batch + tuple(shape), dtype=g.dtype)
    full = (slice(None),) * len(batch) + index
    if _is_basic(index):
        out[full] = g
    else:
        np.add.at(out, full, g)
    return out


def _getitem_rule(g, ans, x, index):
    return index_scatter(g, index, np.shape(x))


def _index_scatter_rule(g, ans, x, index, shape):
    batch = _batch(g, ans)
    return getitem_op(g, (slice(None),) * len(batch) + index)


getitem_op = defop("getitem", _getitem, (_getitem_rule,), "IndexBackward0", "x[index]", "shape",
                   saves=True)
_select = OPS["getitem"].variant("SelectBackward0")
_slice = OPS["getitem"].variant("SliceBackward0")
_unsqueeze_index = OPS["getitem"].variant("UnsqueezeBackward0")
_alias = OPS["getitem"].variant("AliasBackward0")
_index_select = OPS["getitem"].variant("IndexSelectBackward0")
index_scatter = defop("index_scatter", _index_scatter, (_index_scatter_rule,), "IndexPutBackward",
                      "the gradient of x[index] (internal)", "shape", saves=False)


def getitem(input, index):
    """x[index]: ints, slices, ..., None, integer arrays and boolean masks."""
    index = _normalize_index(index)
    if type(input) is not Tensor:
        return _getitem(input, index)
    last = next((i for i in reversed(index) if i is not Ellipsis), Ellipsis)
    if not _is_basic(index):
        op = getitem_op
    elif isinstance(last, (int, np.integer)):
        op = _select.fn
    elif isinstance(last, slice):
        op = _slice.fn
    elif last is None:
        op = _unsqueeze_index.fn
    else:
        op = _alias.fn
    return op(input, index)


def index_select(input, dim, index):
    """index_select(x, dim, index): the entries at the integers of ``index`` along dim."""
    index = np.asarray(_raw(index))
    if index.ndim > 1:
        raise GradcliIndexError("index_select(): Index is supposed to be a vector")
    if index.dtype.kind not in "iu":
        raise EngineError("index_select(): Expected dtype int32 or int64 for index")
    d = _dims(dim, np.ndim(input))[0] % builtins.max(np.ndim(input), 1)
    return _index_select.fn(input, (slice(None),) * d + (index.reshape(-1),))


def gather(input, dim, index):
    """gather(x, dim, index): out[i][j] = x[index[i][j]][j] for dim 0, and so on."""
    index = np.asarray(_raw(index))
    shape = np.shape(input)
    if index.ndim != len(shape):
        raise EngineError("Index tensor must have the same number of dimensions as input tensor")
    if index.dtype.kind not in "iu":
        raise EngineError("gather(): Expected dtype int64 for index")
    d = _dims(dim, len(shape))[0] % builtins.max(len(shape), 1)
    # The index may be smaller than x in the other dimensions: gather from that corner of x.
    corner = tuple(slice(None) if k == d else slice(0, n) for k, n in enumerate(index.shape))
    if builtins.any(k != d and n != shape[k] for k, n in enumerate(index.shape)):
        input = getitem(input, corner)
    return take_along_dim(input, index, d)


def _assign(out, index, value):
    """``out[index] = value``, with PyTorch's message when the shapes do not fit."""
    if not out.flags.writeable:  # an expand()ed tensor: entries share memory
        raise EngineError(OVERLAPPING_WRITE)
    try:
        out[index] = value
    except ValueError:
        selected = out[index].shape
        if _is_basic(index):
            _broadcast_to(value, selected)  # raises PyTorch's "expanded size" message
        raise ShapeError(
            f"shape mismatch: value tensor of shape {list(np.shape(value))} "
            f"cannot be broadcast to indexing result of shape "
            f"{list(selected)}"
        ) from None


def _index_put(old, value, index):
    out = np.array(old, copy=True)
    _assign(out, index, value)
    return out


def _zero_at(g, index, batch_dims):
    out = np.array(g, copy=True)
    out[(slice(None),) * batch_dims + index] = 0
    return out


zero_at = defop(
    "zero_at",
    _zero_at,
    (lambda g, ans, x, index, batch_dims: zero_at(g, index, batch_dims + len(_batch(g, ans))),),
    "ZeroAtBackward",
    "zero the entries at index (internal)",
    "shape",
    saves=False,
)


def _index_put_value_rule(g, ans, old, value, index):
    return getitem_op(g, (slice(None),) * len(_batch(g, ans)) + index)


index_put = defop(
    "index_put",
    _index_put,
    (
        lambda g, ans, old, value, index: zero_at(g, index, len(_batch(g, ans))),
        _index_put_value_rule,
    ),
    "torch::autograd::CopySlices",
    "x with x[index] replaced by a value",
    "shape",
    saves=True,
)
# fmt: on
_index_put_advanced = OPS["index_put"].variant("IndexPutBackward0")


def _picks_part(index, shape):
    """Whether a basic index names a part of the tensor (PyTorch's "a view of a leaf")."""
    if builtins.any(item is None or isinstance(item, (int, np.integer)) for item in index):
        return True
    ellipsis = next((k for k, item in enumerate(index) if item is Ellipsis), len(index))
    after = len(index) - ellipsis - 1
    dims = list(range(ellipsis)) + list(range(len(shape) - after, len(shape)))
    slices = [item for item in index if item is not Ellipsis]
    # As PyTorch: only a slice from 0 (not -n) by step 1 to the end is the whole dimension.
    return builtins.any(
        s.start not in (None, 0)
        or s.step not in (None, 1)
        or (s.stop is not None and s.stop < shape[d])
        for d, s in zip(dims, slices)
    )


def setitem(target, index, value):
    """``target[index] = value`` in place; differentiable, recorded as CopySlices."""
    index = _normalize_index(index)
    raw_value = value._data if type(value) is Tensor else value
    involved = GradMode.enabled and (
        target.requires_grad or (type(value) is Tensor and value.requires_grad)
    )
    if not involved:
        try:
            _assign(target._data, index, raw_value)
        except IndexError as err:
            raise _forward_error(OPS["index_put"], (target._data, raw_value), err) from None
        return
    if target.requires_grad and target.grad_fn is None:
        view = _is_basic(index) and _picks_part(index, target._data.shape)
        raise EngineError(("a view of " if view else "") + LEAF_INPLACE)
    before = Tensor._make(target._data, target.grad_fn, target.requires_grad)
    after = (index_put if _is_basic(index) else _index_put_advanced.fn)(before, value, index)
    # Copy on write: earlier nodes keep the values they saved.
    target._data = after._data
    target.grad_fn = after.grad_fn
    target.requires_grad = True


# ----------------------------------------------------------------------------
# Rearranging entries: cumulative sums, flips, rolls, triangles, tiles
# ----------------------------------------------------------------------------


@_contiguous
def _cumsum(x, dim, dtype=None):
    return np.cumsum(x, axis=dim, dtype=dtypes.to_numpy(dtype))


def _cumsum_rule(g, ans, x, dim, dtype=None):
    # Each entry feeds every later partial sum: the reversed cumulative sum of g.
    d = _dims(dim, np.ndim(x))[0]
    return flip_op(cumsum(flip_op(g, (d,)), d), (d,))


def _roll_rule(g, ans, x, shifts, dims):
    if dims is None:  # rolled as one flat vector
        batch = _batch(g, ans)
        flat = reshape_op(g, batch + (math.prod(np.shape(x)),))
        return reshape_op(roll_op(flat, (-shifts,), (-1,)), batch + tuple(np.shape(x)))
    return roll_op(g, tuple(-s for s in shifts), dims)


def _repeat_rule(g, ans, x, sizes):
    # x is in every tile: g split into (tiles, x's size) per dimension, summed over the tiles.
    shape = (1,) * (len(sizes) - np.ndim(x)) + tuple(np.shape(x))
    batch = _batch(g, ans)
    split = batch + tuple(v for r, n in zip(sizes, shape) for v in (r, n))
    tiles = tuple(2 * k - 2 * len(sizes) for k in range(len(sizes)))
    return reshape_op(sum(reshape_op(g, split), tiles), batch + tuple(np.shape(x)))


def _tri(x, diagonal=0, upper=False):
    if np.ndim(x) < 2:
        name = "triu" if upper else "tril"
        raise ShapeError(f"{name}: input tensor must have at least 2 dimensions")
    return np.triu(x, diagonal) if upper else np.tril(x, diagonal)


# fmt: off
cumsum_op = defop("cumsum", _cumsum, (_cumsum_rule,), "CumsumBackward0",
                  "cumsum(x, dim): running sums along dim", "other")
flip_op = defop("flip", lambda x, dims: np.array(np.flip(x, dims), order="K"),  # a copy
                (lambda g, ans, x, dims: flip_op(g, dims),), "FlipBackward0",
                "flip(x, dims): reverse the order along dims", "shape", saves=False)
roll_op = defop("roll", lambda x, shifts, dims: np.roll(x, shifts, dims), (_roll_rule,),
                "RollBackward0", "roll(x, shifts, dims): shift entries around along dims", "shape",
                saves=False)
_tril = defop("tril", _tri, (lambda g, ans, x, diagonal=0, upper=False: _tril(g, diagonal, upper),),
              "TrilBackward0", "tril(x, diagonal=0): x below the diagonal, zeros above", "linalg",
              saves=False)
_triu = OPS["tril"].variant("TriuBackward0")
repeat_op = defop("repeat", lambda x, sizes: np.tile(x, sizes), (_repeat_rule,), "RepeatBackward0",
                  "repeat(x, *sizes): x tiled sizes times along each dimension", "shape",
                  saves=False)
# fmt: on


def cumsum(input, dim, *, dtype=None):
    """cumsum(x, dim): running sums along dim."""
    return cumsum_op(input, _one_dim("cumsum", dim), dtype)


def _negative_dims(dims, ndim):
    dims = (dims,) if isinstance(dims, (int, np.integer)) else tuple(dims)
    return tuple(_dims(d, ndim)[0] for d in dims)


def flip(input, *dims):
    """flip(x, dims): reverse the order of entries along dims."""
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = dims[0]
    dims = _negative_dims(dims, np.ndim(input))
    _dims(dims, np.ndim(input))  # a dimension named twice is an error, as in PyTorch
    return flip_op(input, dims)


def roll(input, shifts, dims=None):
    """roll(x, shifts, dims=None): shift entries around along dims (the flattened x if None)."""
    if dims is None:
        return roll_op(input, int(shifts), None)
    shifts = (shifts,) if isinstance(shifts, (int, np.integer)) else tuple(shifts)
    return roll_op(input, tuple(int(s) for s in shifts), _negative_dims(dims, np.ndim(input)))


def tril(input, diagonal=0):
    """tril(x, diagonal=0): x on and below the diagonal, zeros above."""
    return _tril(input, diagonal)


def triu(input, diagonal=0):
    """triu(x, diagonal=0): x on and above the diagonal, zeros below."""
    return _triu.fn(input, diagonal, True)


def repeat(input, *sizes):
    """x.repeat(*sizes): x tiled sizes times along each dimension."""
    sizes = _shape_arg(sizes)
    if len(sizes) < np.ndim(input):
        raise EngineError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions "
            "of tensor"
        )
    limits.check("repeat", math.prod(sizes) * int(np.size(_raw(input))))
    return repeat_op(input, sizes)


def square(input):
    """square(x): x * x (recorded as x ** 2, as PyTorch does)."""
    return pow(input, 2)


def masked_fill(input, mask, value):
    """masked_fill(x, mask, value): x with value where mask is true."""
    cond = np.asarray(_raw(mask), dtype=bool)
    op = _masked_fill_tensor if type(value) is Tensor else _masked_fill
    return op.fn(value, input, cond)


_masked_fill = OPS["where"].variant("MaskedFillBackward0")
_masked_fill_tensor = OPS["where"].variant("MaskedFillBackward1")
_sort_op = OPS["take_along_dim"].variant("SortBackward0")
_topk_op = OPS["take_along_dim"].variant("TopkBackward0")


def _order(data, d, descending):
    # A stable sort; descending keeps equal entries in their order too.
    return np.argsort(-data if descending else data, axis=d, kind="stable")


def sort(input, dim=-1, descending=False, stable=False):
    """sort(x, dim=-1, descending=False): (values, indices) in order along dim."""
    data = np.asarray(_raw(input))
    d = _dims(dim, data.ndim)[0] if data.ndim else 0
    if data.ndim == 0:
        return _SortResult((clone(input), Tensor._make(np.asarray(0))))
    index = _order(data, d, descending)
    return _SortResult((_sort_op.fn(input, index, d), Tensor._make(index)))


def argsort(input, dim=-1, descending=False, stable=False):
    """argsort(x, dim=-1, descending=False): the indices that sort x along dim."""
    data = np.asarray(_raw(input))
    return Tensor._make(_order(data, _dims(dim, data.ndim)[0], descending))


def topk(input, k, dim=-1, largest=True, sorted=True):  # noqa: A002
    """topk(x, k, dim=-1, largest=True): (values, indices) of the k largest entries along dim."""
    data = np.asarray(_raw(input))
    d = _dims(dim, data.ndim)[0]
    if not 0 <= k <= data.shape[d]:
        raise EngineError("selected index k out of range")
    index = np.take(_order(data, d, largest), np.arange(k), axis=d)
    return _TopkResult((_topk_op.fn(input, index, d), Tensor._make(index)))


_SortResult = _return_type("sort")
_TopkResult = _return_type("topk")
_unbind = OPS["getitem"].variant("UnbindBackward0")
_split = OPS["getitem"].variant("SplitBackward0")
_split_with_sizes = OPS["getitem"].variant("SplitWithSizesBackward0")


def unbind(input, dim=0):
    """unbind(x, dim=0): the slices of x along dim, as a tuple."""
    n = np.ndim(input)
    d = _dims(dim, n)[0] + n
    return tuple(_unbind.fn(input, (slice(None),) * d + (i,)) for i in range(np.shape(input)[d]))


def split(tensor, split_size_or_sections, dim=0):
    """split(x, size or sizes, dim=0): x cut into pieces along dim."""
    n = np.ndim(tensor)
    d = _dims(dim, n)[0] + n
    length = np.shape(tensor)[d]
    if isinstance(split_size_or_sections, (int, np.integer)):
        size = int(split_size_or_sections)
        sizes = [builtins.min(size, length - start) for start in range(0, length, size)] or [0]
        op = _split
    else:
        sizes = [int(s) for s in split_size_or_sections]
        if builtins.sum(sizes) != length:
            raise EngineError(
                f"split_with_sizes expects split_sizes to sum exactly to {length} (input tensor's "
                f"size at dimension {d}), but got split_sizes={sizes}"
            )
        op = _split_with_sizes
    starts = np.cumsum([0] + sizes[:-1])
    head = (slice(None),) * d
    return tuple(op.fn(tensor, head + (slice(int(a), int(a) + s),)) for a, s in zip(starts, sizes))


def chunk(input, chunks, dim=0):
    """chunk(x, chunks, dim=0): x cut into (at most) chunks equal pieces along dim."""
    length = np.shape(input)[_dims(dim, np.ndim(input))[0]]
    return split(input, builtins.max(-(-length // int(chunks)), 1), dim)


def hstack(tensors):
    """hstack(tensors): joined along dim 1 (dim 0 for vectors)."""
    tensors = list(tensors)
    return cat(tensors, 0 if builtins.all(np.ndim(t) == 1 for t in tensors) else 1)


def vstack(tensors):
    """vstack(tensors): joined along dim 0, vectors as rows."""
    return cat([unsqueeze(t, 0) if np.ndim(t) == 1 else t for t in tensors], 0)


def mv(input, vec):
    """mv(A, v): matrix times vector."""
    if np.ndim(input) != 2 or np.ndim(vec) != 1:
        raise ShapeError(f"vector + matrix @ vector expected, got {np.ndim(input)}, {np.ndim(vec)}")
    return matmul(input, vec)


_bmm = OPS["matmul"].variant("BmmBackward0")


def bmm(input, mat2):
    """bmm(A, B): matrix products of two batches of matrices."""
    if np.ndim(input) != 3 or np.ndim(mat2) != 3:
        raise ShapeError("batch1 must be a 3D tensor")
    return _bmm.fn(input, mat2)


def sum_to_size(input, *size):
    """x.sum_to_size(*size): x summed down to a shape it broadcasts from."""
    size = _shape_arg(size)
    shape = np.shape(input)
    lead = len(shape) - len(size)
    ones = [lead + i for i, n in enumerate(size) if n == 1 and shape[lead + i] != 1]
    dims = list(range(lead)) + ones
    if not dims:
        return input
    out = sum(input, dims, keepdim=True)
    return reshape(out, size) if lead else out


# fmt: off
_isclose = defop_nondiff(
    "isclose",
    lambda x, y, rtol=1e-05, atol=1e-08, equal_nan=False: np.isclose(x, y, rtol, atol, equal_nan),
    2, "true where x and y are close", "binary")
nonzero = defop_nondiff("nonzero", lambda x: np.argwhere(x), 1,
                        "the indices of the nonzero entries", "other")
# fmt: on


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """isclose(x, y): true where |x - y| <= atol + rtol |y|."""
    return _isclose(input, other, rtol, atol, equal_nan)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """allclose(x, y): whether every entry of x is close to y's."""
    return bool(np.all(np.isclose(_raw(input), _raw(other), rtol, atol, equal_nan)))


def equal(input, other):
    """equal(x, y): whether x and y have the same shape and entries."""
    a, b = np.asarray(_raw(input)), np.asarray(_raw(other))
    return a.shape == b.shape and bool(np.all(a == b))


def is_tensor(obj):
    return type(obj) is Tensor


def numel(input):
    """numel(x): the number of entries of x (a constant)."""
    return int(np.size(_raw(input)))


def length(input):
    """len(x): the size of the first dimension of x (a constant), as Python's len."""
    shape = np.shape(_raw(input))
    if not shape:
        raise GradcliTypeError("len() of a 0-d tensor")
    return shape[0]


# In-place assignments, as recorded on a tensor in a graph: x.zero_(), x.fill_(v), x.copy_(src).
# x's old values get no gradient; the engine sums src's to its shape.


def _copy_forward(x, src):
    return np.array(np.broadcast_to(src, np.shape(x)), dtype=np.asarray(x).dtype)


# fmt: off
_zero = defop_piecewise_constant("zero", np.zeros_like, "ZeroBackward0",
                                "zeros of x's shape (x.zero_())", kind="other")
_fill_tensor = defop("fill", lambda x, value: np.full_like(x, value),
                     (zero_rule, lambda g, ans, x, value: g), "FillBackward3",
                     "x's shape filled with value (x.fill_(value))", "other", saves=False)
_fill_number = OPS["fill"].variant("FillBackward2")
_copy = defop("copy", _copy_forward, (zero_rule, lambda g, ans, x, src: g),
              "torch::autograd::CopyBackwards", "src in x's shape and dtype (x.copy_(src))",
              "other", saves=False)
# fmt: on


def fill(input, value):
    """x's shape filled with value (x.fill_(value))."""
    return (_fill_tensor if type(value) is Tensor else _fill_number.fn)(input, value)


# ----------------------------------------------------------------------------
# Constructors
# ----------------------------------------------------------------------------


class _Random:
    seed = 0
    _generator = None

    @classmethod
    def generator(cls):
        # Made on first use: numpy.random costs start-up time most runs never need.
        if cls._generator is None:
            cls._generator = np.random.default_rng(cls.seed)
        return cls._generator


def manual_seed(seed):
    """Seed gradcli's random number generator (rand, randn)."""
    _Random.seed = int(seed)
    _Random._generator = None


def _new(data, requires_grad):
    """A new leaf holding ``data`` (already of its dtype)."""
    t = Tensor._make(data)
    if requires_grad:
        if t._data.dtype.kind not in "fc":
            raise EngineError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        t.requires_grad = True
    return t


def _float_dtype(dtype):
    return DefaultDType.value if dtype is None else dtypes.to_numpy(dtype)


def tensor(data, dtype=None, requires_grad=False):
    """A new leaf tensor holding a copy of ``data``."""
    from .tensor import _as_array

    array = np.array(_as_array(data, dtypes.to_numpy(dtype)), copy=True)
    return _new(array, requires_grad)


def zeros(*size, dtype=None, requires_grad=False):
    """zeros(2, 3): a tensor of zeros."""
    return _new(np.zeros(_shape_arg(size, "zeros"), dtype=_float_dtype(dtype)), requires_grad)


def ones(*size, dtype=None, requires_grad=False):
    """ones(2, 3): a tensor of ones."""
    return _new(np.ones(_shape_arg(size, "ones"), dtype=_float_dtype(dtype)), requires_grad)


def full(size, fill_value, dtype=None, requires_grad=False):
    """full((2, 3), v): a tensor filled with v."""
    size = _shape_arg((size,) if isinstance(size, (int, np.integer)) else tuple(size), "full")
    if not isinstance(fill_value, (bool, int, float, np.number, np.bool_)):
        raise GradcliTypeError(
            f"full(): argument 'fill_value' (position 2) must be Number, not "
            f"{'list' if isinstance(fill_value, np.ndarray) else type(fill_value).__name__}"
        )
    if dtype is None and isinstance(fill_value, (bool, int, np.integer, np.bool_)):
        dtype = np.bool_ if isinstance(fill_value, (bool, np.bool_)) else np.int64
    return _new(np.full(size, fill_value, dtype=_float_dtype(dtype)), requires_grad)


def eye(n, m=None, dtype=None, requires_grad=False):
    """eye(n): the identity matrix."""
    limits.check("eye", (int(n), int(n) if m is None else int(m)))
    return _new(
        np.eye(int(n), None if m is None else int(m), dtype=_float_dtype(dtype)), requires_grad
    )


def arange(start, end=None, step=1, dtype=None, requires_grad=False):
    """arange(start, end, step): evenly spaced values in [start, end)."""
    if end is None:
        start, end = 0, start
    values = (start, end, step)
    if step == 0:
        raise EngineError("step must be nonzero")
    if (end - start) * step < 0:
        raise EngineError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        is_int = all(isinstance(v, (int, np.integer)) for v in values)
        dtype = np.int64 if is_int else DefaultDType.value
    if step != 0 and all(math.isfinite(v) for v in values):
        limits.check("arange", builtins.max(0, math.ceil((end - start) / step)))
    return _new(np.arange(start, end, step, dtype=dtypes.to_numpy(dtype)), requires_grad)


def linspace(start, end, steps, dtype=None, requires_grad=False):
    """linspace(0, 1, 5): steps evenly spaced values from start to end."""
    dt = _float_dtype(dtype)
    steps = int(steps)
    limits.check("linspace", steps)
    if steps < 2:
        return _new(np.full(steps, start).astype(dt), requires_grad)
    # PyTorch's values, not NumPy's: the first half counts up from start, the second
    # down from end, each one rounding from start + step * i (a fused multiply-add),
    # so the middle of linspace(-1, 1, 11) in float32 is -1.4901e-08, not 0. An
    # integer dtype truncates start and end first and each value last.
    if dt.kind != "f":
        start, end = int(start), int(end)
    step_type = dt.type if dt.kind == "f" else np.float64
    step = step_type((step_type(end) - step_type(start)) / step_type(steps - 1))
    wide = np.longdouble if step_type is np.float64 else np.float64
    i = np.arange(steps)
    up = wide(step_type(start)) + wide(step) * i
    down = wide(step_type(end)) - wide(step) * (steps - 1 - i)
    values = np.where(i < steps // 2, up, down).astype(step_type)
    return _new(values.astype(dt), requires_grad)


def rand(*size, dtype=None, requires_grad=False):
    """rand(2, 3): uniform random values in [0, 1)."""
    data = _Random.generator().random(_shape_arg(size, "rand")).astype(_float_dtype(dtype))
    return _new(data, requires_grad)


def randn(*size, dtype=None, requires_grad=False):
    """randn(2, 3): standard normal random values."""
    shape = _shape_arg(size, "randn")
    data = _Random.generator().standard_normal(shape).astype(_float_dtype(dtype))
    return _new(data, requires_grad)


def randint(low, high=None, size=None, dtype=None, requires_grad=False):
    """randint(low=0, high, size): random integers in [low, high)."""
    if size is None:  # randint(high, size)
        low, high, size = 0, low, high
    data = _Random.generator().integers(low, high, tuple(size))
    return _new(data.astype(dtypes.to_numpy(dtype) or np.int64), requires_grad)


def randperm(n, dtype=None, requires_grad=False):
    """randperm(n): the integers 0 .. n-1 in random order."""
    data = _Random.generator().permutation(int(n))
    return _new(data.astype(dtypes.to_numpy(dtype) or np.int64), requires_grad)


def normal(mean, std, size=None, dtype=None, requires_grad=False):
    """normal(mean, std, size): normal random values."""
    if size is None:
        size = np.broadcast_shapes(np.shape(_raw(mean)), np.shape(_raw(std)))
    noise = _Random.generator().standard_normal(tuple(size))
    data = (noise * np.asarray(_raw(std)) + np.asarray(_raw(mean))).astype(_float_dtype(dtype))
    return _new(data, requires_grad)


def zeros_like(input, dtype=None, requires_grad=False):
    """zeros_like(x): zeros of x's shape and dtype."""
    if type(input) is not Tensor:
        return np.zeros_like(input)
    data = np.zeros_like(input._data, dtype=dtypes.to_numpy(dtype))
    return _new(data, requires_grad)


def ones_like(input, dtype=None, requires_grad=False):
    """ones_like(x): ones of x's shape and dtype."""
    if type(input) is not Tensor:
        return np.ones_like(input)
    return _new(np.ones_like(input._data, dtype=dtypes.to_numpy(dtype)), requires_grad)


def full_like(input, fill_value, dtype=None, requires_grad=False):
    """full_like(x, v): x's shape filled with v."""
    data = np.full_like(np.asarray(input), fill_value, dtype=dtypes.to_numpy(dtype))
    return _new(data, requires_grad)


def rand_like(input, dtype=None, requires_grad=False):
    """rand_like(x): uniform random values of x's shape."""
    return rand(
        *np.shape(input), dtype=dtype or np.asarray(input).dtype, requires_grad=requires_grad
    )


def randn_like(input, dtype=None, requires_grad=False):
    """randn_like(x): normal random values of x's shape."""
    return randn(
        *np.shape(input), dtype=dtype or np.asarray(input).dtype, requires_grad=requires_grad
    )


def empty(*size, dtype=None, requires_grad=False):
    """empty(2, 3): a tensor of that size (its values are zeros in gradcli)."""
    return zeros(*size, dtype=dtype, requires_grad=requires_grad)


def empty_like(input, dtype=None, requires_grad=False):
    """empty_like(x): a tensor of x's shape and dtype (zeros in gradcli)."""
    return zeros_like(input, dtype=dtype, requires_grad=requires_grad)


def from_numpy(ndarray):
    """A tensor sharing memory with a NumPy array: changes to one show in the other."""
    if not isinstance(ndarray, np.ndarray):
        raise GradcliTypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    if ndarray.dtype.kind not in "biuf":
        raise GradcliTypeError(
            f"can't convert np.ndarray of type numpy.{ndarray.dtype}. The only supported types "
            "are: float64, float32, float16, int64, int32, int16, int8, uint8, and bool."
        )
    return Tensor._make(ndarray)


def as_tensor(data, dtype=None):
    """The data as a tensor, sharing memory with a tensor or NumPy array of that dtype."""
    want = dtypes.to_numpy(dtype)
    if type(data) is Tensor:
        return data if want is None or want == data._data.dtype else to_dtype(data, want)
    if isinstance(data, np.ndarray) and (want is None or want == data.dtype):
        return from_numpy(data)
    return tensor(data, dtype=dtype)


def _new_like(make):
    """x.new_zeros(2, 3) and the like: a new tensor with x's dtype unless one is given."""

    def method(input, *args, dtype=None, requires_grad=False, **kwargs):
        return make(
            input, *args, dtype=dtype or _raw(input).dtype, requires_grad=requires_grad, **kwargs
        )

    return method


# ----------------------------------------------------------------------------
# What the language and the Tensor methods see
# ----------------------------------------------------------------------------


class Function:
    """A function callable from the language: its name, callable, one-line doc and kind."""

    __slots__ = ("name", "call", "doc", "kind", "op", "_kink")

    def __init__(self, name, call, doc, kind, op=None, kink=None):
        self.name = name
        self.call = call
        self.doc = doc
        self.kind = kind
        self.op = op
        self._kink = kink  # a function composed of ops may state its own convention

    @property
    def signature(self):
        """An ``inspect.Signature`` of the PyTorch-style parameters."""
        import inspect

        if self.op is not None and self.call is self.op.fn:
            if not isinstance(self.op.forward, np.ufunc):
                return inspect.signature(self.op.forward)
            # A NumPy ufunc: the op's tensor inputs are its whole signature.
            names = ("input", "other")[: len(self.op.rules)]
            kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
            return inspect.Signature([inspect.Parameter(n, kind) for n in names])
        return inspect.signature(self.call)

    @property
    def kink(self):
        if self._kink is not None:
            return self._kink
        return None if self.op is None else self.op.kink

    def __repr__(self):
        return f"Function({self.name!r}, {self.kind})"


def _function(name, call=None, kind=None, op_name=None):
    op = OPS.get(op_name or name)
    call = call if call is not None else op.fn
    doc = (call.__doc__ or (op.doc if op else "")).strip().splitlines()[0]
    return Function(name, call, doc, kind or (op.kind if op else "other"), op)


_ELEMENTWISE = (
    "abs",
    "reciprocal",
    "sign",
    "sqrt",
    "exp",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "sigmoid",
    "relu",
    "softplus",
    "erf",
    "floor",
    "ceil",
    "round",
)
_BINARY = ("atan2", "maximum", "minimum")
_REDUCTIONS_OPS = ("amax", "amin", "logsumexp", "norm", "var", "std", "softmax", "log_softmax")

FUNCTIONS: dict[str, Function] = {}
for _name in _ELEMENTWISE + _BINARY + _REDUCTIONS_OPS:
    FUNCTIONS[_name] = _function(_name)
for _name, _call, _kind, _op in (
    ("pow", pow, "binary", "pow"),
    ("where", where, "other", "where"),
    ("clamp", clamp, "elementwise", "clamp"),
    ("sum", sum, "reduction", "sum"),
    ("mean", mean, "reduction", "mean"),
    ("prod", prod, "reduction", "prod"),
    ("max", max, "reduction", "amax"),
    ("min", min, "reduction", "amin"),
    ("matmul", matmul, "linalg", "matmul"),
    ("mm", mm, "linalg", "matmul"),
    ("dot", dot, "linalg", "matmul"),
    ("outer", None, "linalg", "outer"),
    ("t", t, "linalg", "transpose"),
    ("transpose", None, "shape", "transpose"),
    ("trace", None, "linalg", "trace"),
    ("det", None, "linalg", "det"),
    ("inverse", None, "linalg", "inverse"),
    ("diag", diag, "linalg", "diagonal"),
    ("reshape", reshape, "shape", "reshape"),
    ("view", view, "shape", "reshape"),
    ("flatten", flatten, "shape", "reshape"),
    ("squeeze", squeeze, "shape", "squeeze"),
    ("unsqueeze", None, "shape", "unsqueeze"),
    ("permute", permute, "shape", "permute"),
    ("flip", flip, "shape", "flip"),
    ("expand", expand, "shape", "broadcast_to"),
    ("stack", None, "shape", "stack"),
    ("cat", None, "shape", "cat"),
    ("detach", detach, "other", None),
    ("numel", numel, "other", None),
    ("len", length, "other", None),
    ("argmax", None, "reduction", "argmax"),
    ("argmin", None, "reduction", "argmin"),
    ("zeros", zeros, "constructor", None),
    ("ones", ones, "constructor", None),
    ("full", full, "constructor", None),
    ("eye", eye, "constructor", None),
    ("arange", arange, "constructor", None),
    ("linspace", linspace, "constructor", None),
    ("rand", rand, "constructor", None),
    ("randn", randn, "constructor", None),
    ("zeros_like", zeros_like, "constructor", None),
    ("ones_like", ones_like, "constructor", None),
):
    FUNCTIONS[_name] = _function(_name, _call, _kind, _op)
del _name, _call, _kind, _op

_TENSOR_TYPES = {
    "float32": "FloatTensor",
    "float64": "DoubleTensor",
    "float16": "HalfTensor",
    "int32": "IntTensor",
    "int64": "LongTensor",
    "bool": "BoolTensor",
}


def _type(x, dtype=None):
    """x.type(): PyTorch's name of the tensor type; x.type(dtype): x cast to dtype."""
    if dtype is None:
        name = dtypes.from_numpy(np.asarray(x).dtype).name
        return "torch." + _TENSOR_TYPES.get(name, name)
    return to_dtype(x, dtype)


def _to(x, *args, dtype=None, device=None, copy=False, non_blocking=False):
    """x.to(dtype), x.to(other), x.to("cpu"): the CPU is the only device."""
    for arg in args:
        if type(arg) is Tensor:
            dtype = arg._data.dtype
        elif isinstance(arg, str) or type(arg).__name__ == "device":
            device = arg
        else:
            dtype = arg
    if device is not None and str(device).partition(":")[0] != "cpu":
        raise EngineError(f"gradcli computes on the CPU only, not on device {str(device)!r}")
    out = x if dtype is None else to_dtype(x, dtype)
    return clone(out) if copy and out is x else out


# Tensor methods: x.sum(), x.exp(), x.view(4) ... (the math functions as methods).
METHODS = {name: f.call for name, f in FUNCTIONS.items() if f.kind != "constructor"}
METHODS.update(
    pow=pow,
    neg=neg,
    add=add,
    sub=sub,
    mul=mul,
    div=div,
    matmul=matmul,
    clip=clamp,
    to=_to,
    float=lambda x: to_dtype(x, dtypes.float32),
    double=lambda x: to_dtype(x, dtypes.float64),
    clone=clone,
    long=lambda x: to_dtype(x, dtypes.int64),
    int=lambda x: to_dtype(x, dtypes.int32),
    half=lambda x: to_dtype(x, dtypes.float16),
    bool=lambda x: to_dtype(x, dtypes.bool_),
    type=_type,
    is_floating_point=lambda x: np.asarray(x).dtype.kind == "f",
    contiguous=lambda x, memory_format=None: x if _raw(x).flags.c_contiguous else clone(x, "C"),
    is_contiguous=lambda x, memory_format=None: bool(_raw(x).flags.c_contiguous),
    cpu=lambda x: x,
    rsqrt=rsqrt,
    square=square,
    trunc=trunc,
    cumsum=cumsum,
    flip=flip,
    roll=roll,
    tril=tril,
    triu=triu,
    repeat=repeat,
    masked_fill=masked_fill,
    sort=sort,
    argsort=argsort,
    topk=topk,
    unbind=unbind,
    split=split,
    chunk=chunk,
    mv=mv,
    bmm=bmm,
    sum_to_size=sum_to_size,
    isclose=isclose,
    allclose=allclose,
    equal=equal,
    nonzero=nonzero,
    new_zeros=_new_like(lambda x, *size, **kw: zeros(*size, **kw)),
    new_ones=_new_like(lambda x, *size, **kw: ones(*size, **kw)),
    new_empty=_new_like(lambda x, *size, **kw: zeros(*size, **kw)),
    new_full=_new_like(lambda x, size, fill_value, **kw: full(size, fill_value, **kw)),
    new_tensor=_new_like(lambda x, data, **kw: tensor(data, **kw)),
    all=_all,
    any=_any,
    remainder=_remainder,
    floor_divide=floor_divide,
    gather=gather,
    index_select=index_select,
    take_along_dim=take_along_dim,
    expand_as=lambda x, other: expand(x, *np.shape(other)),
    view_as=lambda x, other: view(x, *np.shape(other)),
    reshape_as=lambda x, other: reshape(x, *np.shape(other)),
    lt=lt,
    le=le,
    gt=gt,
    ge=ge,
    eq=eq,
    ne=ne,
    isnan=isnan,
    isinf=isinf,
    isfinite=isfinite,
    diagonal=diagonal,
    logical_not=logical_not,
)

# The in-place methods that may change the tensor's shape.
RESHAPING_METHODS = (squeeze, unsqueeze, t, transpose)

# In-place methods: x.exp_(), x.clamp_(min=0), x.pow_(2) ... apply the method and
# write the result into x (Tensor._inplace); add_, zero_, fill_, copy_ are Tensor's own.
INPLACE_METHODS = {
    name + "_": METHODS[name]
    for name, f in FUNCTIONS.items()
    if f.kind in ("elementwise", "binary") and name not in ("maximum", "minimum", "softplus")
}
INPLACE_METHODS.update(
    pow_=pow,
    neg_=neg,
    clip_=clamp,
    remainder_=_remainder,
    floor_divide_=floor_divide,
    rsqrt_=rsqrt,
    square_=square,
    trunc_=trunc,
    cumsum_=cumsum,
    tril_=tril,
    triu_=triu,
    masked_fill_=masked_fill,
    squeeze_=squeeze,
    unsqueeze_=unsqueeze,
    t_=t,
    transpose_=transpose,
)

# The rest of the table is declared by kind in its own modules, which build on this
# one's ops; their functions and methods join the tables above.
from . import ops_linalg, ops_nn, ops_scan, ops_special  # noqa: E402

for _module in (ops_special, ops_scan, ops_linalg, ops_nn):
    FUNCTIONS.update(_module.FUNCTIONS)
    METHODS.update(getattr(_module, "METHODS", {}))
    INPLACE_METHODS.update(getattr(_module, "INPLACE_METHODS", {}))
del _module
