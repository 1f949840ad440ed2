"""What each op means to a reader: its local derivative in words, and when an
evaluation lands on a point where the op has no derivative.

Two tables keyed by the op's name, to be read beside the op table (``ops/``):

- ``RULE_WORDS[op]``: one text per input (one for all inputs of a variadic op),
  the rule the reverse pass applies to that input, as ``gradcli grad --steps``
  shows it. ``a``, ``b`` are the op's inputs in order, ``g`` the gradient the
  node received. Keyed by op name, so every grad_fn variant of an op (PowBackward0,
  PowBackward1 ...) reads the same words.
- ``KINKS[function]``: ``check(args, kwargs)`` for a function of the language,
  given the arguments it was called with; it returns where the evaluation sits on
  a kink (``"at 0"``) or None, and may return ``(where, convention)`` for a case
  the op table's one-line kink text does not describe (``max(x, dim)``).
  ``KINK_CONVENTIONS`` holds the convention of a function whose op table entry
  does not state it.

A check only reads values: it never changes a result.
"""

from __future__ import annotations

import re

import numpy as np

from .tensor import Tensor

# ----------------------------------------------------------------------------
# The local rule of each op, in words
# ----------------------------------------------------------------------------


def _unary(rule: str) -> tuple[str]:
    return (rule,)


RULE_WORDS: dict[str, tuple[str, ...]] = {
    # arithmetic
    "add": ("d(a+b)/da = 1", "d(a+b)/db = 1"),
    "sub": ("d(a-b)/da = 1", "d(a-b)/db = -1"),
    "rsub": ("d(b-a)/da = -1", "d(b-a)/db = 1"),
    "mul": ("d(a*b)/da = b", "d(a*b)/db = a"),
    "div": ("d(a/b)/da = 1/b", "d(a/b)/db = -a/b**2"),
    "reciprocal": _unary("d(1/a)/da = -1/a**2"),
    "neg": _unary("d(-a)/da = -1"),
    "remainder": ("d(a % b)/da = 1", "d(a % b)/db = -floor(a/b)"),
    "pow": ("d(a**p)/da = p*a**(p-1)", "d(a**p)/dp = a**p*ln(a)"),
    "where": ("d where(c, a, b)/da = 1 where c, else 0", "d where(c, a, b)/db = 0 where c, else 1"),
    "maximum": (
        "d maximum(a, b)/da = 1 where a > b, 1/2 at ties, else 0",
        "d maximum(a, b)/db = 1 where b > a, 1/2 at ties, else 0",
    ),
    "minimum": (
        "d minimum(a, b)/da = 1 where a < b, 1/2 at ties, else 0",
        "d minimum(a, b)/db = 1 where b < a, 1/2 at ties, else 0",
    ),
    "atan2": ("d atan2(a, b)/da = b/(a**2+b**2)", "d atan2(a, b)/db = -a/(a**2+b**2)"),
    # elementwise functions
    "abs": _unary("d|a|/da = sign(a)"),
    "sign": _unary("d sign(a)/da = 0"),
    "sqrt": _unary("d sqrt(a)/da = 1/(2*sqrt(a))"),
    "rsqrt": _unary("d(1/sqrt(a))/da = -1/(2*a**1.5)"),
    "exp": _unary("d exp(a)/da = exp(a)"),
    "expm1": _unary("d expm1(a)/da = exp(a)"),
    "log": _unary("d log(a)/da = 1/a"),
    "log2": _unary("d log2(a)/da = 1/(a*ln 2)"),
    "log10": _unary("d log10(a)/da = 1/(a*ln 10)"),
    "log1p": _unary("d log1p(a)/da = 1/(1+a)"),
    "sin": _unary("d sin(a)/da = cos(a)"),
    "cos": _unary("d cos(a)/da = -sin(a)"),
    "tan": _unary("d tan(a)/da = 1 + tan(a)**2"),
    "asin": _unary("d asin(a)/da = 1/sqrt(1-a**2)"),
    "acos": _unary("d acos(a)/da = -1/sqrt(1-a**2)"),
    "atan": _unary("d atan(a)/da = 1/(1+a**2)"),
    "sinh": _unary("d sinh(a)/da = cosh(a)"),
    "cosh": _unary("d cosh(a)/da = sinh(a)"),
    "tanh": _unary("d tanh(a)/da = 1 - tanh(a)**2"),
    "asinh": _unary("d asinh(a)/da = 1/sqrt(a**2+1)"),
    "acosh": _unary("d acosh(a)/da = 1/sqrt(a**2-1)"),
    "atanh": _unary("d atanh(a)/da = 1/(1-a**2)"),
    "sigmoid": _unary("d sigmoid(a)/da = sigmoid(a)*(1-sigmoid(a))"),
    "relu": _unary("d relu(a)/da = 1 where a > 0, else 0"),
    "softplus": _unary("d softplus(a)/da = sigmoid(beta*a)"),
    "erf": _unary("d erf(a)/da = 2/sqrt(pi)*exp(-a**2)"),
    "floor": _unary("d floor(a)/da = 0"),
    "trunc": _unary("d trunc(a)/da = 0"),
    "ceil": _unary("d ceil(a)/da = 0"),
    "round": _unary("d round(a)/da = 0"),
    "clamp": _unary("d clamp(a, min, max)/da = 1 where min <= a <= max, else 0"),
    # reductions
    "sum": _unary("d sum(a)/da = 1 for every entry summed"),
    "mean": _unary("d mean(a)/da = 1/n for each of the n entries averaged"),
    "prod": _unary("d prod(a)/da_i = the product of the other entries"),
    "amax": _unary("d amax(a)/da = 1 at the largest entry (shared evenly at ties), else 0"),
    "amin": _unary("d amin(a)/da = 1 at the smallest entry (shared evenly at ties), else 0"),
    "take_along_dim": _unary("g goes to the entries taken (max/min along a dim: the index found)"),
    "logsumexp": _unary("d logsumexp(a)/da = softmax(a)"),
    "norm": _unary("d norm(a)/da = a/norm(a) for p = 2, sign(a)*|a|**(p-1)/norm(a)**(p-1)"),
    "var": _unary("d var(a)/da = 2*(a - mean(a))/(n - correction)"),
    "std": _unary("d std(a)/da = (a - mean(a))/((n - correction)*std(a))"),
    "softmax": _unary("g -> s*(g - sum(g*s)), s = softmax(a)"),
    "log_softmax": _unary("g -> g - softmax(a)*sum(g)"),
    "cumsum": _unary("g -> the cumulative sum of g from the end"),
    # linear algebra
    "matmul": ("d(a@b)/da: g -> g @ b.T", "d(a@b)/db: g -> a.T @ g"),
    "outer": ("d outer(a, b)/da: g -> g @ b", "d outer(a, b)/db: g -> g.T @ a"),
    "trace": _unary("d trace(a)/da = the identity"),
    "det": _unary("d det(a)/da = det(a)*inverse(a).T"),
    "inverse": _unary("g -> -inverse(a).T @ g @ inverse(a).T"),
    "diagonal": _unary("g goes to the diagonal, 0 elsewhere"),
    "diag_embed": _unary("g's diagonal"),
    "tril": _unary("g below the diagonal, 0 above"),
    "triu": _unary("g above the diagonal, 0 below"),
    # shapes: the gradient is moved back, not changed
    "transpose": _unary("g transposed back"),
    "permute": _unary("g permuted back"),
    "reshape": _unary("g reshaped to a's shape"),
    "squeeze": _unary("g reshaped to a's shape"),
    "unsqueeze": _unary("g reshaped to a's shape"),
    "broadcast_to": _unary("g summed over the broadcast dimensions"),
    "sum_to": _unary("g broadcast back to a's shape"),
    "repeat": _unary("g summed over the repeats"),
    "flip": _unary("g flipped back"),
    "roll": _unary("g rolled back"),
    "stack": _unary("each input gets its slice of g"),
    "cat": _unary("each input gets its part of g"),
    "getitem": _unary("g at the entries indexed, 0 elsewhere (added where an entry repeats)"),
    "setitem": (
        "d/d target: g, with 0 at the entries assigned",
        "d/d value: g at the entries assigned",
    ),
    "clone": _unary("d a/da = 1"),
    "to_dtype": _unary("g cast to a's dtype"),
    # special functions (ops/special.py)
    "cbrt": _unary("d cbrt(a)/da = 1/(3*cbrt(a)**2)"),
    "sec": _unary("d sec(a)/da = sec(a)*tan(a)"),
    "csc": _unary("d csc(a)/da = -csc(a)*cot(a)"),
    "cot": _unary("d cot(a)/da = -(1 + cot(a)**2)"),
    "sinc": _unary("d sinc(a)/da = (cos(pi*a) - sinc(a))/a, and 0 at a = 0"),
    "deg2rad": _unary("d deg2rad(a)/da = pi/180"),
    "rad2deg": _unary("d rad2deg(a)/da = 180/pi"),
    "hypot": ("d hypot(a, b)/da = a/hypot(a, b)", "d hypot(a, b)/db = b/hypot(a, b)"),
    "gamma": _unary("d gamma(a)/da = gamma(a)*digamma(a)"),
    "lgamma": _unary("d lgamma(a)/da = digamma(a)"),
    "digamma": _unary("d digamma(a)/da = polygamma(1, a)"),
    "polygamma_op": _unary("d polygamma(n, a)/da = polygamma(n+1, a)"),
    "erfc": _unary("d erfc(a)/da = -2/sqrt(pi)*exp(-a**2)"),
    "erfinv": _unary("d erfinv(a)/da = sqrt(pi)/2*exp(erfinv(a)**2)"),
    "xlogy": (
        "d xlogy(a, b)/da = log(b), and 0 where a = 0 and b <= 0",
        "d xlogy(a, b)/db = a/b",
    ),
    # running products (ops/linalg_extra.py)
    "cumprod": _unary("d cumprod(a)_k/da_i = the product of a_j for j <= k but i, for k >= i"),
    # linear algebra (ops/linalg_extra.py); x = solve(a, b)
    "cross_op": ("d cross(a, b)/da: g -> cross(b, g)", "d cross(a, b)/db: g -> cross(g, a)"),
    "solve_op": (
        "d solve(a, b)/da: g -> -solve(a.T, g) @ x.T",
        "d solve(a, b)/db: g -> solve(a.T, g)",
    ),
    "eigvalsh": _unary("g -> V diag(g) V.T, V the eigenvectors of a"),
    "eigenvectors": _unary("g -> V (skew(V.T g) / (L_j - L_i)) V.T, L the eigenvalues of a"),
    "logabsdet": _unary("d log|det(a)|/da = inverse(a).T"),
    # activations and losses (ops/nn.py); n is the number of entries a mean divides by
    "gelu": _unary("d gelu(a)/da = Phi(a) + a*phi(a), Phi and phi the normal CDF and density"),
    "silu": _unary("d silu(a)/da = sigmoid(a)*(1 + a*(1 - sigmoid(a)))"),
    "leaky_relu": _unary("d leaky_relu(a)/da = 1 where a > 0, else negative_slope"),
    "elu": _unary("d elu(a)/da = 1 where a > 0, else alpha*exp(a)"),
    "mse_op": ("d mse_loss(a, b)/da = 2*(a - b)/n", "d mse_loss(a, b)/db = -2*(a - b)/n"),
    "bce_op": (
        "d binary_cross_entropy(a, b)/da = (a - b)/(a*(1 - a))/n",
        "d binary_cross_entropy(a, b)/db = (log(1 - a) - log(a))/n",
    ),
    "bce_logits_op": (
        "d binary_cross_entropy_with_logits(a, b)/da = (sigmoid(a) - b)/n",
        "d binary_cross_entropy_with_logits(a, b)/db = -a/n",
    ),
    "nll_loss": _unary("g -> -(the class weight) at each target class, 0 elsewhere"),
}
# Ops recorded with another op's rule: the same words.
RULE_WORDS.update(
    {
        "masked_fill": RULE_WORDS["where"],
        "max": RULE_WORDS["take_along_dim"],
        "min": RULE_WORDS["take_along_dim"],
        "sort": RULE_WORDS["take_along_dim"],
        "topk": RULE_WORDS["take_along_dim"],
        "bmm": RULE_WORDS["matmul"],
        "t": RULE_WORDS["transpose"],
        "T": RULE_WORDS["transpose"],
        "view": RULE_WORDS["reshape"],
        "diag": RULE_WORDS["diagonal"],
        "unbind": RULE_WORDS["getitem"],
        "split": RULE_WORDS["getitem"],
        "index_select": RULE_WORDS["getitem"],
        "fill": ("d/d target: 0", "d/d value: g summed"),
        "copy": ("d/d target: 0", "d/d src: g"),
        "zero": _unary("0"),
    }
)


#: The names the rules give an op's inputs, where they are not a, b, c.
OPERAND_NAMES = {"pow": ("a", "p")}


def operands_named(op_name: str, rule: str) -> tuple[tuple[int, str], ...]:
    """``(index, name)`` of the inputs whose value the right-hand side of ``rule``
    uses (``d(a*b)/da = b``: input 1, b)."""
    names = OPERAND_NAMES.get(op_name, ("a", "b", "c"))
    used = rule.partition(" = ")[2]
    return tuple((i, name) for i, name in enumerate(names) if re.search(rf"\b{name}\b", used))


def rule_words(op_name: str, index: int) -> str | None:
    """The rule of input ``index`` of op ``op_name`` in words, or None if there is none."""
    words = RULE_WORDS.get(op_name)
    if words is None:
        return None
    return words[min(index, len(words) - 1)]


# ----------------------------------------------------------------------------
# Kinks: where an evaluation sits on a point where the op has no derivative
# ----------------------------------------------------------------------------


def _values(x) -> np.ndarray:
    return np.asarray(x._data if type(x) is Tensor else x)


def _count(hits: np.ndarray, what: str) -> str | None:
    """``what``, with how many entries when some but not all are there; None for none."""
    hits = np.asarray(hits, dtype=bool)
    n = int(np.count_nonzero(hits))
    if n == 0:
        return None
    if hits.size > 1:
        return f"{what} in {n} of {hits.size} entries"
    return what


def _argument(args, kwargs, position: int, name: str, default=None):
    if name in kwargs:
        return kwargs[name]
    return args[position] if len(args) > position else default


def _zero(args, kwargs):
    return _count(_values(args[0]) == 0, "at 0")


def _integer(args, kwargs):
    x = _values(args[0])
    return _count(np.isfinite(x) & (x == np.floor(x)), "at an integer")


def _nonzero_integer(args, kwargs):
    x = _values(args[0])
    return _count(np.isfinite(x) & (x == np.floor(x)) & (x != 0), "at an integer")


def _half_integer(args, kwargs):
    x = _values(args[0])
    return _count(x - np.floor(x) == 0.5, "halfway between two integers")


def _on_bound(args, kwargs):
    x = _values(args[0])
    found = []
    for position, name in ((1, "min"), (2, "max")):
        bound = _argument(args, kwargs, position, name)
        if bound is not None:
            hit = _count(x == _values(bound), f"on its bound {name}")
            found += [hit] if hit else []
    return " and ".join(found) or None


def _tie(args, kwargs):
    return _count(_values(args[0]) == _values(args[1]), "at a tie of its two operands")


def _reduction_ties(x, dim, largest: bool) -> str | None:
    x = _values(x)
    if x.size == 0:
        return None
    axis = None if dim is None else tuple(np.atleast_1d(dim).tolist())
    extreme = np.amax(x, axis=axis, keepdims=True) if largest else np.amin(x, axis, keepdims=True)
    shared = np.sum(x == extreme, axis=axis) > 1
    word = "largest" if largest else "smallest"
    return _count(shared, f"at a tie for the {word} entry")


def _extreme_ties(largest: bool):
    def check(args, kwargs):
        dim = _argument(args, kwargs, 1, "dim")
        return _reduction_ties(args[0], dim, largest)

    return check


def _max_min_ties(largest: bool):
    """max/min: ties of the two operands of ``max(x, y)``, else ties in the reduction;
    ``max(x, dim)`` gives the gradient to the index it returns."""
    function = "max" if largest else "min"

    def check(args, kwargs):
        other = _argument(args, kwargs, 1, "dim")
        other = kwargs.get("other", other)
        if type(other) is Tensor:
            return _tie((args[0], other), {})
        where = _reduction_ties(args[0], other, largest)
        if where is None or other is None:
            return where
        return where, f"{function}(x, dim) gives the gradient to the index it returns"

    return check


def _norm_origin(args, kwargs):
    x = _values(args[0])
    dim = _argument(args, kwargs, 2, "dim")
    if x.size == 0:
        return None
    axis = None if dim is None else tuple(np.atleast_1d(dim).tolist())
    return _count(np.all(x == 0, axis=axis), "at the origin")


def _pow_zero_base(args, kwargs):
    # A number as the base (0**p) is smooth in p: only a tensor base has the kink.
    if type(args[0]) is not Tensor:
        return None
    base, exponent = _values(args[0]), _values(args[1])
    fractional = np.isfinite(exponent) & (exponent != np.floor(exponent))
    return _count((base == 0) & fractional, "at base 0 with a non-integer exponent")


def _origin(args, kwargs):
    return _count((_values(args[0]) == 0) & (_values(args[1]) == 0), "at the origin")


def _pole(shift: int):
    """The gamma family: poles where x + shift is 0 or a negative integer."""

    def check(args, kwargs):
        x = _values(args[-1] if len(args) > 1 else args[0]) + shift
        return _count(np.isfinite(x) & (x <= 0) & (x == np.floor(x)), "at a pole")

    return check


KINKS = {
    "abs": _zero,
    "cbrt": _zero,
    "leaky_relu": _zero,
    "elu": _zero,
    "softsign": _zero,
    "hypot": _origin,
    "gamma": _pole(0),
    "lgamma": _pole(0),
    "digamma": _pole(0),
    "polygamma": _pole(0),
    "factorial": _pole(1),
    "relu": _zero,
    "sign": _zero,
    "sqrt": _zero,
    "floor": _integer,
    "ceil": _integer,
    "trunc": _nonzero_integer,
    "round": _half_integer,
    "clamp": _on_bound,
    "maximum": _tie,
    "minimum": _tie,
    "max": _max_min_ties(largest=True),
    "min": _max_min_ties(largest=False),
    "amax": _extreme_ties(largest=True),
    "amin": _extreme_ties(largest=False),
    "norm": _norm_origin,
    "pow": _pow_zero_base,
}

#: Conventions the op table's kink text does not state.
KINK_CONVENTIONS = {
    "pow": "the derivative p*x**(p-1) is taken as it is: inf at 0 for p < 1, 0 for p > 1",
}


def kink(function: str, args, kwargs) -> tuple[str, str | None] | None:
    """``(where, convention)`` when calling ``function`` with ``args`` sits on a kink,
    else None; the convention is None where the op table's kink text states it."""
    check = KINKS.get(function)
    found = None if check is None else check(args, kwargs)
    if found is None or isinstance(found, tuple):
        return found
    return found, KINK_CONVENTIONS.get(function)
