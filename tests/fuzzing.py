"""Hypothesis strategies for the fuzz tests (``test_fuzz.py``).

``programs()`` draws a random well-formed program around one call of a function
of the op table: the function is drawn from ``ops.FUNCTIONS`` and its arguments
from its signature, parameter by parameter (``ARGUMENTS``), so a new function is
fuzzed without touching the tests; a parameter name with no strategy fails
``test_every_parameter_has_a_strategy``. Inputs come from the function's samples
in the op-sample matrix (``opinfo.samples_of``: their shapes and domains), and a share of them is
moved exactly onto the function's kinks (``KINKS``, from the entries' ``kink_at`` and
``special``). Around the call the
program uses every construct of the language: operators, methods, ``.T``,
indexing and slicing, masks, list literals, element assignment, ``const``,
user functions and inputs with default values.

``derivative_programs()`` differentiates such a program inside itself
(``grad(F, x)``, ``jacobian(F, x)``, ``hessian(F, x)``), for PyTorch's eager
``autograd.grad(create_graph=True)`` to check.

``near_misses()`` draws text that is almost a program, or is not one at all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

from gradcli.engine import opinfo
from gradcli.engine.opinfo import DOMAINS, kink_points
from gradcli.engine.ops import FUNCTIONS
from gradcli.engine.opsamples import Drawn
from gradcli.language import ir
from gradcli.language.check import builtin_signature
from gradcli.language.printing import to_source


#: Where a function's derivatives differ from PyTorch's by design: the transformations its
#: entry's declared differences name (``differs=``); at a kink the fuzzers expect them.
def declared_differences(name: str) -> set[str]:
    return {t for d in FUNCTIONS[name].differs for t in d.transforms}


def accepts_more(name) -> bool:
    """Whether the entry declares calls it accepts where PyTorch raises its TypeError."""
    return name in FUNCTIONS and any(d.accepts for d in FUNCTIONS[name].differs)


# Functions whose results are random: used as 0 * f(...), a value both sides agree on.
RANDOM = {"rand", "randn"}

# ----------------------------------------------------------------------------
# Inputs: the test domains of the gradcheck table, and the kinks
# ----------------------------------------------------------------------------


def real(*shape):
    """Inputs of ``shape`` drawn from the domain "real": rng -> array."""
    return lambda rng: DOMAINS["real"](rng, shape)


def _drawn(domain, shape):
    return lambda rng: DOMAINS[domain](rng, shape)


def domains(name: str):
    """The input domains of function ``name``: one draw per input, for each sample of the
    op matrix (``opinfo.samples_of``) away from special points whose one or two inputs are
    non-empty arrays drawn from a domain (its entry's, or a ``Drawn`` one)."""
    entry = FUNCTIONS.get(name)
    named = [d for d in (entry.domain or ()) if isinstance(d, str)] if entry else []
    found = []
    for sample in (built.sample for built in (opinfo.samples_of(entry) if entry else ())):
        if sample.special or not 1 <= len(sample.inputs) <= 2:
            continue
        draws = []
        for i, spec in enumerate(sample.inputs):
            if i == 0 and isinstance(spec, int) and len(sample.inputs) == 2:
                continue  # polygamma(n, x): the order is the fuzzer's own argument
            if isinstance(spec, Drawn):
                spec, domain = spec.shape, spec.domain
            else:
                domain = named[i] if i < len(named) else "real"
            if not isinstance(spec, tuple) or 0 in spec:
                break
            draws.append(_drawn(domain, spec))
        else:
            found.append(tuple(draws))
    return found or [(real(2, 3), real(2, 3))]


#: Where PyTorch computes a function less accurately than gradcli (its trigamma, 5e-10
#: by mpmath, under lgamma's and polygamma's second derivatives).
LESS_ACCURATE_ORACLE = dict.fromkeys(
    ("factorial", "lgamma", "polygamma", "multigammaln", "gamma", "digamma"), 1e-8
)


def oracle_rtol(name: str) -> float | None:
    """How closely PyTorch computes function ``name``, where it is less accurate than
    gradcli; else None."""
    return LESS_ACCURATE_ORACLE.get(name)


#: Points where each function is not differentiable, or is singular: a share of the
#: inputs is moved exactly onto them. They are the entry's own (``opinfo.kink_points``:
#: its kink_at check's points and its special ones); ``"tie"`` copies one entry onto
#: another, ``"origin"`` puts 0 in both inputs, ``"bound"`` puts an entry on clamp's bound.
#: The functions that make complex numbers of real ones: the programs drawn stay real (the
#: entries that refuse complex input would meet them), and complex programs are
#: tests/test_complex_engine.py's until the fuzzer draws them.
MAKE_COMPLEX = {"complex", "polar"}
KINKS = {name: kink_points(entry) for name, entry in FUNCTIONS.items() if kink_points(entry)}


def _inputs(draw, name):
    """Arrays for function ``name``: ``(x, y or None, on_kink)``."""
    chosen = draw(st.sampled_from(domains(name)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    x = np.array(chosen[0](rng), dtype=float)
    y = np.array(chosen[1](rng), dtype=float) if len(chosen) > 1 else None
    kinks = KINKS.get(name, ())
    on_kink = bool(kinks) and x.size > 0 and draw(st.integers(0, 9)) < 3
    # (gamma's reference is exp(lgamma) with a sign: no poles or overflow for it.)
    if name not in ("det", "inverse", "gamma", "factorial") and draw(st.integers(0, 9)) == 0:
        # Extreme scales, overflow and underflow: singular points of their own, so they
        # count as kinks. (A det that underflows to 0 is det_singular.)
        # (Tinier ones meet reciprocal_overflow, a documented difference.)
        x = x * draw(st.sampled_from([1e-100, 1e-20, 1e20, 1e150, 1e300]))
        on_kink = True
    if on_kink and kinks:
        kink = draw(st.sampled_from(kinks))
        flat, count = x.reshape(-1), draw(st.integers(1, x.size))
        where = rng.choice(x.size, count, replace=False)
        if kink == "tie":
            if y is not None and y.shape == x.shape:
                flat[where] = y.reshape(-1)[where]
            elif x.size > 1:
                flat[where] = flat[0]
        elif kink == "zeros":
            flat[:] = 0.0
        elif kink == "bound":
            flat[where] = draw(st.sampled_from([-0.5, 0.5, 0.0, 1.0]))  # ARGUMENTS' bounds
        else:
            flat[where] = 0.0 if kink == "origin" else kink
            if y is not None and kink == "origin" and x.shape[-y.ndim :] == y.shape:
                # The origin: y's entries where x's broadcast onto them are 0 too.
                y.reshape(-1)[where % y.size] = 0.0
    return x, y, on_kink


# ----------------------------------------------------------------------------
# Arguments, by parameter name
# ----------------------------------------------------------------------------


def num(value) -> ir.Expr:
    """A number literal; negative ones as the parser makes them, -(n)."""
    if isinstance(value, bool):
        return ir.Name("True" if value else "False")
    if value == math.inf:
        return ir.Name("inf")
    if value < 0 or (value == 0 and math.copysign(1, value) < 0):
        return ir.UnaryOp("neg", num(-value))
    # A float zero is written 0.0, so that -(0.0) is negative zero, as Python reads it.
    return ir.Num(float(value), float_zero=isinstance(value, float) and value == 0)


def ints(values) -> ir.ListLit:
    return ir.ListLit(tuple(num(v) for v in values))


@dataclass
class Call:
    """What the argument strategies know: the function, its inputs, their shapes."""

    name: str
    x: np.ndarray
    y: np.ndarray | None
    normalized: tuple = ()  # layer_norm's normalized_shape, once drawn


def _dim(draw, ndim):
    span = max(ndim, 1)
    return draw(st.integers(-span, span - 1))


def _dims(draw, call):
    """A dim, or for reductions over several a list of distinct dims (never empty)."""
    ndim = call.x.ndim
    several = call.name in ("sum", "mean", "amax", "amin", "norm", "var", "std", "logsumexp")
    if several and ndim >= 2 and draw(st.booleans()):
        count = draw(st.integers(1, ndim))
        dims = draw(st.permutations(range(ndim)))[:count]
        if draw(st.integers(0, 5)) == 0:
            dims = dims + dims[:1]  # repeated: PyTorch raises
        if call.name not in ("var", "std") and draw(st.integers(0, 5)) == 0:
            dims = []  # every dimension
        return ints(dims)
    return num(_dim(draw, ndim))


def _reshaped(draw, call):
    size, shape = call.x.size, call.x.shape
    options = [(-1,), (size,), (1, -1), tuple(reversed(shape)), shape + (1,)]
    target = draw(st.sampled_from(options))
    if draw(st.booleans()):
        return [ints(target)]
    return [num(v) for v in target]


def _permutation(draw, call):
    return [num(v) for v in draw(st.permutations(range(call.x.ndim)))]


def _expanded(draw, call):
    sizes = [3 if n == 1 else draw(st.sampled_from([n, -1])) for n in call.x.shape]
    lead = [2] if draw(st.booleans()) else []
    return [num(v) for v in lead + sizes]


def _correction(draw, call):
    # correction >= N is a known disagreement (kink_conventions).
    return num(draw(st.sampled_from([0, 1]))) if call.x.size > 2 else num(0)


def _bound(draw, numbers):
    """A clamp bound: a number, or now and then the tensor input y."""
    return ir.Name("y") if draw(st.integers(0, 3)) == 0 else num(draw(st.sampled_from(numbers)))


def _flatten_dims(draw, call):
    span = max(call.x.ndim, 1)
    start = draw(st.integers(0, span - 1))
    return start, draw(st.integers(start, span - 1))


#: One strategy per parameter name: ``(draw, call) -> IR`` of the argument.
ARGUMENTS = {
    "dim": _dims,
    "keepdim": lambda draw, call: num(draw(st.booleans())),
    "unbiased": lambda draw, call: num(draw(st.booleans())),
    "correction": _correction,
    "p": lambda draw, call: num(draw(st.sampled_from([1, 2, 3, 1.5, 0.5, 0, -1, math.inf]))),
    "exponent": lambda draw, call: num(draw(st.sampled_from([2, 3, 0.5, -1, 1.5, 0]))),
    "beta": lambda draw, call: num(draw(st.sampled_from([1, 2, 0.5]))),
    "threshold": lambda draw, call: num(draw(st.sampled_from([20, 3, 1]))),
    "decimals": lambda draw, call: num(draw(st.sampled_from([0, 1, 2]))),
    "min": lambda draw, call: _bound(draw, [-0.5, 0, -0.0]),
    "max": lambda draw, call: _bound(draw, [0.5, 1]),
    "dim0": lambda draw, call: num(_dim(draw, call.x.ndim)),
    "dim1": lambda draw, call: num(_dim(draw, call.x.ndim)),
    "start_dim": lambda draw, call: num(_flatten_dims(draw, call)[0]),
    "end_dim": lambda draw, call: num(_dim(draw, call.x.ndim)),
    "m": lambda draw, call: num(draw(st.integers(1, 4))),
    # movedim's: one dim each (an out-of-range one is drawn too: both raise alike).
    "source": lambda draw, call: num(_dim(draw, call.x.ndim)),
    "destination": lambda draw, call: num(_dim(draw, call.x.ndim)),
}


def _class_weights(draw, call):
    """Class weights for cross_entropy (one per class), else weights of the input's shape."""
    if call.name == "cross_entropy":
        classes = call.x.shape[0 if call.x.ndim == 1 else 1]
        return ints([draw(st.sampled_from([1, 2, 0.5])) for _ in range(classes)])
    return ir.Call("ones_like", (ir.Name("x"),))


def _text(*choices):
    return lambda draw, call: ir.Str(draw(st.sampled_from(choices)))


ARGUMENTS.update(
    base=lambda draw, call: num(draw(st.sampled_from([2, 10, 0.5]))),
    negative_slope=lambda draw, call: num(draw(st.sampled_from([0.01, 0.2]))),
    alpha=lambda draw, call: num(draw(st.sampled_from([1, 2, 0.5]))),
    approximate=_text("none", "tanh"),
    reduction=_text("mean", "sum", "none"),
    UPLO=_text("L", "U"),
    weight=_class_weights,
    pos_weight=lambda draw, call: ints([draw(st.sampled_from([1, 3])) for _ in call.x.shape[-1:]]),
    ignore_index=lambda draw, call: num(draw(st.sampled_from([-100, 0]))),
    label_smoothing=lambda draw, call: num(draw(st.sampled_from([0, 0.1]))),
    descending=lambda draw, call: num(draw(st.booleans())),
    stable=lambda draw, call: num(draw(st.booleans())),
    left=lambda draw, call: num(True),  # left=False is not implemented: an error, on purpose
    num_classes=lambda draw, call: num(draw(st.sampled_from([-1, 3, 5]))),
)


def _pair(*choices):
    """A size of a 2-d layer: one number for both dims, or a list of two."""
    return lambda draw, call: (
        num(draw(st.sampled_from(choices)))
        if draw(st.booleans())
        else ints([draw(st.sampled_from(choices)) for _ in range(2)])
    )


def _normalized_shape(draw, call):
    # Written as a list: PyTorch's layer_norm refuses one int, which gradcli takes.
    call.normalized = call.x.shape[-draw(st.integers(1, min(call.x.ndim, 2))) :]
    return ints(call.normalized)


def _affine(draw, call):
    """A layer_norm's weight or bias: numbers of the normalized shape."""
    values = [draw(st.sampled_from([1, 0.5, -2])) for _ in range(math.prod(call.normalized))]
    return ir.Call("reshape", (ints(values), ints(call.normalized)))


def _channels(draw, call):
    """A layer's bias: one number for each output channel (the weight's first size)."""
    return ints([draw(st.sampled_from([0.5, -1, 0])) for _ in range(call.y.shape[0])])


#: The layers' own parameters, where a name means something else in the other functions
#: (weight: a loss's class weights): the weight is the second input, drawn of a fitting
#: shape from the layer's samples.
LAYERS = {
    "max_pool2d": {},
    "avg_pool2d": {},
    "adaptive_avg_pool2d": {},
    "adaptive_max_pool2d": {},
    "linear": {"bias": _channels},
    "conv1d": {"bias": _channels, "stride": lambda draw, call: num(draw(st.sampled_from([1, 2])))},
    "conv2d": {"bias": _channels},
    "layer_norm": {"weight": _affine, "bias": _affine},
}


def _conv_padding(draw, call):
    """A number, a size per dim, or "same" or "valid" (with a stride above 1: both raise)."""
    if draw(st.integers(0, 3)) == 0:
        return ir.Str(draw(st.sampled_from(["same", "valid"])))
    if call.name == "conv1d":
        return num(draw(st.sampled_from([0, 1])))
    return _pair(0, 1)(draw, call)


LAYERS["conv1d"]["padding"] = LAYERS["conv2d"]["padding"] = _conv_padding
ARGUMENTS.update(
    kernel_size=_pair(1, 2, 3),
    output_size=_pair(1, 2, 3),
    stride=_pair(1, 2),
    padding=_pair(0, 1),
    dilation=lambda draw, call: num(draw(st.sampled_from([1, 2]))),
    groups=lambda draw, call: num(draw(st.sampled_from([1, 1, 2]))),
    ceil_mode=lambda draw, call: num(draw(st.booleans())),
    count_include_pad=lambda draw, call: num(draw(st.booleans())),
    divisor_override=lambda draw, call: num(draw(st.sampled_from([1, 3]))),
    return_indices=lambda draw, call: num(False),  # True: (values, indices), the values
    normalized_shape=_normalized_shape,
    eps=lambda draw, call: num(draw(st.sampled_from([1e-5, 0.1]))),
)
#: Variadic parameters: ``(draw, call) -> [IR, ...]``.
VARIADIC = {"shape": _reshaped, "dims": _permutation, "sizes": _expanded}
#: Parameters that are tensors: the second input.
TENSORS = {"other", "mat2", "vec2", "input", "target", "B", "imag", "angle"}


def _constructor(draw, name, x):
    """A constructor's call, with arguments that make a small result."""
    shape = list(draw(st.sampled_from([(2,), (2, 3), (3, 1), ()])))
    if name in ("zeros", "ones", "rand", "randn"):
        args = [ints(shape)] if draw(st.booleans()) else [num(n) for n in shape]
    elif name == "full":
        args = [ints(shape) if shape else num(2), num(draw(st.sampled_from([1.5, 2, -0.25])))]
    elif name == "eye":
        args = [num(draw(st.integers(1, 3)))]
        if draw(st.booleans()):
            args.append(num(draw(st.integers(1, 3))))
    elif name == "arange":
        start = draw(st.integers(-3, 2))
        stop = start + draw(st.integers(-2, 5))  # stop <= start: PyTorch raises
        args = [num(stop)] if start == 0 and draw(st.booleans()) else [num(start), num(stop)]
        if len(args) == 2 and draw(st.booleans()):
            args.append(num(draw(st.sampled_from([1, 2, 0.5]))))
    elif name == "linspace":
        args = [num(draw(st.sampled_from([-1, 0, 0.5]))), num(2), num(draw(st.integers(0, 5)))]
    else:  # zeros_like, ones_like: of an input
        args = [ir.Name("x")]
    call = ir.Call(name, tuple(args))
    if name in RANDOM:
        return ir.Chain(num(0), ("mul",), (call,))
    return call


@st.composite
def call_of(draw, name):
    """``(expression, inputs, on_kink)``: one call of function ``name``."""
    function = FUNCTIONS[name]
    x, y, on_kink = _inputs(draw, name)
    if function.kind == "constructor":
        expression = _constructor(draw, name, x)
        if name not in ("zeros_like", "ones_like"):
            # Combined with the input, so that the program has something to differentiate.
            total = ir.Call("sum", (ir.Name("x"),))
            expression = ir.Chain(expression, ("add",), (total,))
        return expression, {"x": x}, on_kink
    sig = builtin_signature(name)
    call = Call(name, x, y)
    inputs = {"x": x}
    first = sig.positional[0] if sig.positional else None
    if first == "condition":  # where(x > 0, x, y)
        y = y if y is not None else np.array(real(*x.shape)(np.random.default_rng(0)))
        inputs["y"] = y
        compare = ir.Compare(ir.Name("x"), ("gt",), (num(0),))
        return ir.Call(name, (compare, ir.Name("x"), ir.Name("y"))), inputs, on_kink
    if first == "n":  # polygamma(n, x)
        order = num(draw(st.integers(0, 2)))
        return ir.Call(name, (order, ir.Name("x"))), inputs, on_kink
    if first == "tensors":  # stack([x, 2 * x]), cat([x, y])
        second = ir.Chain(num(2), ("mul",), (ir.Name("x"),))
        if y is not None and y.shape[1:] == x.shape[1:] and x.ndim > 0:
            inputs["y"] = y
            second = ir.Name("y")
        args = [ir.ListLit((ir.Name("x"), second))]
        if draw(st.booleans()) and x.ndim > 0:
            args.append(num(_dim(draw, x.ndim + (1 if name == "stack" else 0))))
        return ir.Call(name, tuple(args)), inputs, on_kink
    if first == "equation":  # einsum("ij,ij->i", x, x): subscripts for x's dims
        labels = "ijkl"[: x.ndim]
        output = draw(st.sampled_from([labels[::-1], labels[1:], "", None]))
        operands = draw(st.integers(1, 2))
        equation = ",".join([labels] * operands) + ("" if output is None else "->" + output)
        return ir.Call(name, (ir.Str(equation),) + (ir.Name("x"),) * operands), inputs, on_kink
    args, keywords = [ir.Name("x")], []
    rest = list(sig.positional[1:])
    needed = sig.required - 1
    for i, param in enumerate(rest):
        if i >= needed and not draw(st.booleans()):
            break
        own = LAYERS.get(name, {})
        if param in own:
            args.append(own[param](draw, call))
            continue
        if (
            param in TENSORS
            or (param == "exponent" and y is not None)
            or (param == "weight" and name in LAYERS)
        ):
            inputs["y"] = y if y is not None else x * 0.5 + 0.25
            args.append(ir.Name("y"))
            continue
        if param not in ARGUMENTS:
            raise LookupError(f"no fuzz strategy for parameter {param!r} of {name}")
        if param == "end_dim":
            start = args[-1].value if isinstance(args[-1], ir.Num) else 0
            args.append(num(draw(st.integers(int(start), max(x.ndim, 1) - 1))))
            continue
        args.append(ARGUMENTS[param](draw, call))
    if sig.variadic is not None:
        if sig.variadic not in VARIADIC:
            raise LookupError(f"no fuzz strategy for parameter {sig.variadic!r} of {name}")
        args += VARIADIC[sig.variadic](draw, call)
    # Keyword-only parameters: max(x, dim=0, keepdim=True), var(x, correction=0).
    elementwise = name in ("max", "min") and len(args) > 1
    for param in sorted(sig.keywords - set(sig.positional)):
        if param == "keepdim" and not any(k.name == "dim" for k in keywords):
            continue
        if draw(st.booleans()) and (not elementwise or draw(st.integers(0, 5)) == 0):
            if param not in ARGUMENTS:
                raise LookupError(f"no fuzz strategy for parameter {param!r} of {name}")
            keywords.append(ir.Keyword(param, ARGUMENTS[param](draw, call)))
    if name in ("conv1d", "conv2d") and len(args) < len(sig.positional):
        channels = x.shape[-int(name[4]) - 1]
        if channels != y.shape[1]:  # the groups sample: its channels in groups
            keywords.append(ir.Keyword("groups", num(channels // y.shape[1])))
    used = {n.id for a in args for n in ir.walk(a) if isinstance(n, ir.Name)}
    if "y" in used and "y" not in inputs:  # a clamp bound
        inputs["y"] = x * 0.5 + 0.25
    # The call as a function, or as a method of its first argument.
    if draw(st.booleans()):
        expression = ir.Method(args[0], name, tuple(args[1:]), tuple(keywords))
    else:
        expression = ir.Call(name, tuple(args), tuple(keywords))
    return expression, inputs, on_kink


# ----------------------------------------------------------------------------
# Programs around the call
# ----------------------------------------------------------------------------


@dataclass
class FuzzProgram:
    function: str
    program: ir.Program
    inputs: dict
    on_kink: bool

    @property
    def source(self) -> str:
        return to_source(self.program)


def _sum(expression):
    return ir.Call("sum", (expression,))


def _flat(expression):
    return ir.Call("flatten", (expression,))


def _loops_and_conditions(draw, h: ir.Name) -> list:
    """Statements that compute ``t`` from ``h`` through a loop or a condition: a for loop
    with or without break and continue, a while loop, if/elif/else or a if c else b (the
    conditions one value each, of the data or of the loop's counter)."""
    t, i, n = ir.Name("t"), ir.Name("i"), ir.Name("n")
    positive = ir.Compare(_sum(h), ("gt",), (num(0),))
    step = ir.Chain(ir.Chain(t, ("mul",), (num(0.5),)), ("add",), (h,))
    kind = draw(st.sampled_from(["for", "jumps", "while", "if", "if_exp"]))
    start = ir.Assign("t", ir.Chain(h, ("mul",), (num(1),)))
    if kind == "for":
        count = draw(st.integers(0, 3))
        grow = ir.Chain(t, ("add",), (ir.Chain(h, ("mul",), (ir.Chain(i, ("add",), (num(1),)),)),))
        return [start, ir.For("i", (num(count),), (ir.Assign("t", grow),))]
    if kind == "jumps":
        skip = ir.If(ir.Compare(i, ("eq",), (num(1),)), (ir.Continue(),))
        leave = ir.If(positive, (ir.Break(),)) if draw(st.booleans()) else ir.Break()
        leave = ir.If(ir.Compare(i, ("eq",), (num(3),)), (leave,))
        return [start, ir.For("i", (num(0), num(5)), (skip, leave, ir.Assign("t", step)))]
    if kind == "while":
        count = ir.Assign("n", ir.Chain(n, ("add",), (num(1),)))
        loop = ir.While(ir.Compare(n, ("lt",), (num(3),)), (ir.Assign("t", step), count))
        return [start, ir.Assign("n", num(0)), loop]
    double, squared = ir.Chain(h, ("mul",), (num(2),)), ir.BinOp("pow", h, num(2))
    if kind == "if":
        below = ir.If(
            ir.Compare(_sum(h), ("lt",), (num(-1),)),
            (ir.Assign("t", ir.UnaryOp("neg", h)),),
            (ir.Assign("t", squared),),
        )
        return [ir.If(positive, (ir.Assign("t", double),), (below,))]
    return [ir.Assign("t", ir.IfExp(positive, double, squared))]


@st.composite
def programs(draw, names=None, control=False):
    """A random program around one call of a function of the op table; with ``control``,
    its value goes through a loop or a condition."""
    name = draw(st.sampled_from(sorted(set(names or FUNCTIONS) - MAKE_COMPLEX)))
    call, inputs, on_kink = draw(call_of(name))
    statements = []
    h = ir.Name("h")
    value = call
    if draw(st.integers(0, 3)) == 0:
        statements.append(ir.ConstDecl("c", num(draw(st.sampled_from([2, 0.5, -1.5, -0.0])))))
        value = ir.Chain(ir.Name("c"), ("mul",), (value,))
    if draw(st.integers(0, 3)) == 0:
        body = draw(
            st.sampled_from(
                [
                    ir.Chain(ir.Name("a"), ("mul", "add"), (ir.Name("a"), num(1))),
                    ir.Method(ir.Name("a"), "tanh"),
                    ir.BinOp("pow", ir.Name("a"), num(2)),
                    ir.UnaryOp("neg", ir.Name("a")),
                ]
            )
        )
        statements.append(ir.FuncDef("g", ("a",), body))
        value = ir.Call("g", (value,))
    statements.append(ir.Assign("h", value))
    if control:
        statements += _loops_and_conditions(draw, h)
        h = ir.Name("t")
    if draw(st.integers(0, 3)) == 0:
        # Element assignment into a flattened copy: k[0] = ..., k[1:] = ...
        statements.append(ir.Assign("k", _flat(h)))
        target = draw(st.sampled_from([(num(0),), (ir.Slice(num(1), None, None),)]))
        scalar = ir.Chain(_sum(ir.Name("x")), ("mul",), (num(2),))
        statements.append(ir.IndexAssign("k", target, scalar))
        h = ir.Name("k")
    if draw(st.integers(0, 4)) == 0:
        # An input with a value in the program.
        w = np.array(
            draw(st.lists(st.sampled_from([1.5, -0.5, 2.0, 0.25]), min_size=2, max_size=2))
        )
        statements.insert(0, ir.Assign("w", ir.ListLit(tuple(num(v) for v in w))))
        inputs["w"] = w
        h = ir.Chain(_sum(h), ("add",), (_sum(ir.Chain(ir.Name("w"), ("mul",), (ir.Name("w"),))),))
    flat = _flat(h)
    endings = [
        h,
        _sum(h),
        ir.Method(h, "sum"),
        ir.Index(flat, (num(-1),)),
        ir.Index(flat, (ir.Slice(None, None, num(2)),)),
        ir.Index(flat, (ir.Slice(None, None, num(-1)),)),  # PyTorch raises: use flip
        ir.Index(flat, (ints([0, 0]),)),
        ir.Index(flat, (ir.Compare(flat, ("gt",), (num(0),)),)),
        ir.ListLit((_sum(h), num(1.5))),
        ir.Chain(ir.Compare(h, ("gt",), (num(0),)), ("mul",), (h,)),
        ir.Chain(num(2), ("mul", "sub"), (h, num(1))),
        ir.Chain(h, ("div",), (num(4),)),
        ir.Chain(h, ("remainder",), (num(0.75),)),
        ir.Chain(ir.Chain(h, ("floor_divide",), (num(0.5),)), ("add",), (h,)),
        ir.Chain(num(2), ("remainder",), (ir.Call("abs", (h,)),)),
        ir.UnaryOp("neg", h),
        ir.BinOp("pow", h, num(2)),
        ir.Attr(ir.Call("reshape", (h, num(-1), num(1))), "T"),  # .T of a column
        ir.Chain(flat, ("matmul",), (flat,)),
        ir.UnaryOp("positive", h),
        ir.Chain(ir.Compare(num(-1), ("lt", "le"), (h, num(1))), ("mul",), (h,)),
        ir.Index(ir.Call("reshape", (h, num(1), num(-1))), (num(0), ir.Slice(num(1), None))),
    ]
    statements.append(draw(st.sampled_from(endings)))
    used = {n.id for n in ir.walk(ir.Program(tuple(statements))) if isinstance(n, ir.Name)}
    inputs = {k: v for k, v in inputs.items() if k in used}
    return FuzzProgram(name, ir.Program(tuple(statements)), inputs, on_kink)


#: The language's derivatives inside programs (``language.derivatives``).
DERIVATIVES = ("grad", "jacobian", "hessian")


@st.composite
def derivative_programs(draw, names=None):
    """A random program (``programs``) whose result is then differentiated inside the
    program with respect to its input x or its assigned name h: ``F = sum(result);
    grad(F, x)`` (or hessian), or ``F = result; jacobian(F, x)``; PyTorch's
    autograd.grad(create_graph=True) is the oracle. Not on kinks, where second
    derivatives differ by declaration."""
    case = draw(programs(names).filter(lambda c: "x" in c.inputs and not c.on_kink))
    form = draw(st.sampled_from(DERIVATIVES))
    target = draw(st.sampled_from(["x", "h"]))
    *head, last = case.program.statements
    value = last if form == "jacobian" else _sum(last)
    call = ir.Call(form, (ir.Name("F"), ir.Name(target)))
    program = ir.Program((*head, ir.Assign("F", value), call))
    return FuzzProgram(case.function, program, case.inputs, case.on_kink)


def binding_text(array: np.ndarray) -> str:
    """An input's value as the language writes it, at full precision (nan and inf are
    names of the language)."""
    return repr(array.tolist()) if array.ndim else repr(float(array))


# ----------------------------------------------------------------------------
# Near misses and garbage
# ----------------------------------------------------------------------------

_STRAY = ["(", ")", "[", "]", ",", ":", "=", "**", ".", ";", "\n", "#", "\\", "@", "'", '"']
_HUGE = ["1e999999", "9" * 400, "1e-999999", "0." + "0" * 400 + "1", "2**2**2**2**2", "1e308*10"]


@st.composite
def near_misses(draw, sources):
    """Text near a program of ``sources``, or garbage: truncated, with a stray bracket
    or operator, with a huge number, with random characters or bytes."""
    kind = draw(st.sampled_from(["truncate", "stray", "huge", "unicode", "bytes", "splice"]))
    text = draw(sources)
    if kind == "truncate":
        return text[: draw(st.integers(0, len(text)))]
    if kind == "stray":
        at = draw(st.integers(0, len(text)))
        return text[:at] + draw(st.sampled_from(_STRAY)) + text[at:]
    if kind == "huge":
        at = draw(st.integers(0, len(text)))
        return text[:at] + draw(st.sampled_from(_HUGE)) + text[at:]
    if kind == "unicode":
        return draw(st.text(min_size=0, max_size=40))
    if kind == "bytes":
        raw = draw(st.binary(min_size=0, max_size=40))
        return raw.decode("utf-8", errors="surrogateescape").replace("\x00", "")
    a, b = draw(sources), draw(sources)
    return a[: draw(st.integers(0, len(a)))] + b[draw(st.integers(0, len(b))) :]


# ----------------------------------------------------------------------------
# Transformations: integrate, root and minimizer of a drawn anonymous function
# ----------------------------------------------------------------------------

# Integrands in t with a parameter p > 0: the language's text, mpmath's function, and
# whether the integral over an infinite range converges (and is not oscillatory).
INTEGRANDS = [
    ("exp(-p*t**2)", lambda mp, t, p: mp.exp(-p * t**2), True),
    ("1/(1 + p*t**2)", lambda mp, t, p: 1 / (1 + p * t**2), True),
    ("t**2*exp(-p*t**2)", lambda mp, t, p: t**2 * mp.exp(-p * t**2), True),
    ("sin(p*t)", lambda mp, t, p: mp.sin(p * t), False),
    ("log(1 + p*t**2)", lambda mp, t, p: mp.log(1 + p * t**2), False),
    ("sqrt(p + t**2)", lambda mp, t, p: mp.sqrt(p + t**2), False),
    ("exp(p*t)/(2 + cos(t))", lambda mp, t, p: mp.exp(p * t) / (2 + mp.cos(t)), False),
]
# Functions of x with one root for p in [0.5, 3] (x0 a start Newton's method reaches it from).
ROOTS = [
    ("x**3 + p*x - 2", lambda mp, x, p: x**3 + p * x - 2, 1.0),
    ("x + sin(x)/(p + 1) - 1", lambda mp, x, p: x + mp.sin(x) / (p + 1) - 1, 0.0),
    ("atan(x) + p*x - 0.5", lambda mp, x, p: mp.atan(x) + p * x - 0.5, 0.0),
    ("exp(x) - p - 1", lambda mp, x, p: mp.exp(x) - p - 1, 1.0),
]
# Strictly convex functions of x, with their minimum's point a smooth function of p.
MINIMA = [
    ("(x - p)**2 + x**4/2", lambda mp, x, p: (x - p) ** 2 + x**4 / 2, 0.0),
    ("cosh(x - p) + x**2", lambda mp, x, p: mp.cosh(x - p) + x**2, 0.0),
    ("exp(x) - p*x", lambda mp, x, p: mp.exp(x) - p * x, 0.0),
]


@dataclass
class TransformationCase:
    """A program around one transformation, its inputs, and mpmath's value of it."""

    program: ir.Program
    inputs: dict
    #: ``oracle(mp, values)``: the program's value at ``values`` (a dict of mpf).
    oracle: object

    @property
    def source(self) -> str:
        return to_source(self.program)


def _function_of(text: str, variable: str, param: str) -> ir.Lambda:
    """``param -> text`` with the name ``variable`` of ``text`` renamed ``param``."""
    import re

    from gradcli.language.parser import parse

    [body] = parse(re.sub(rf"\b{variable}\b", param, text)).statements
    return ir.Lambda((param,), body)


@st.composite
def transformation_programs(draw):
    """``p = ...; integrate(t -> ..., a, b)``, ``root(x -> ..., x0)`` or ``minimizer(...)``,
    the function drawn from the lists above, maybe scaled by an input w."""
    kind = draw(st.sampled_from(["integrate", "root", "minimizer"]))
    p = draw(st.sampled_from([0.5, 0.75, 1.0, 1.5, 2.0, 3.0]))
    inputs = {"p": np.array(p)}
    statements = [ir.Assign("p", num(p))]
    if kind == "integrate":
        text, f, infinite = draw(st.sampled_from(INTEGRANDS))
        ends = [-1.5, -0.5, 0.0, 0.25, 1.0, 2.0]
        a, b = draw(st.sampled_from(ends)), draw(st.sampled_from(ends))
        if infinite and draw(st.booleans()):
            a, b = draw(st.sampled_from([(-math.inf, b), (a, math.inf), (-math.inf, math.inf)]))
        limits = []
        for name, value in (("a", a), ("b", b)):
            if math.isinf(value):
                limits.append(ir.UnaryOp("neg", ir.Name("inf")) if value < 0 else ir.Name("inf"))
            else:
                statements.append(ir.Assign(name, num(value)))
                inputs[name] = np.array(value)
                limits.append(ir.Name(name))
        param = draw(st.sampled_from(["t", "s"]))
        call = ir.Call("integrate", (_function_of(text, "t", param), *limits))

        def oracle(mp, v):
            lo = v.get("a", mp.mpf(a))
            hi = v.get("b", mp.mpf(b))
            return mp.quad(lambda t: f(mp, t, v["p"]), [lo, hi])

    else:
        text, f, x0 = draw(st.sampled_from(ROOTS if kind == "root" else MINIMA))
        call = ir.Call(kind, (_function_of(text, "x", "x"), num(x0)))

        def oracle(mp, v):
            if kind == "root":
                return mp.findroot(lambda x: f(mp, x, v["p"]), x0)
            return mp.findroot(lambda x: mp.diff(lambda y: f(mp, y, v["p"]), x), x0)

    if draw(st.booleans()):  # the result used in arithmetic with another input
        statements.insert(0, ir.Assign("w", num(1.5)))
        inputs["w"] = np.array(1.5)
        statements.append(ir.Chain(ir.Name("w"), ("mul",), (call,)))

        def scaled(mp, v, inner=oracle):
            return v["w"] * inner(mp, v)

        return TransformationCase(ir.Program(tuple(statements)), inputs, scaled)
    statements.append(call)
    return TransformationCase(ir.Program(tuple(statements)), inputs, oracle)


# ----------------------------------------------------------------------------
# odeint of a drawn right-hand side
# ----------------------------------------------------------------------------

# Scalar right-hand sides f(y, s) with a parameter p, smooth and bounded on [0, 2] for
# p in [0.5, 2] and y0 in [0.5, 1.5] (SymPy's text, the language's is the same).
RIGHT_HAND_SIDES = [
    "-p*y",
    "p*y*(1 - y)",
    "sin(s) - p*y**2",
    "cos(s) - p*y",
    "p*cos(y) - y",
    "s - p*y**3",
    "y/(1 + p*s**2)",
]


@dataclass
class OdeCase:
    """``p = ...; y0 = ...; T = ...; odeint((y, s) -> rhs, y0, [0, T])[1]``."""

    rhs: str
    inputs: dict
    method: str

    @property
    def source(self) -> str:
        p, y0, end = (self.inputs[k] for k in ("p", "y0", "T"))
        return (
            f"p = {p!r}; y0 = {y0!r}; T = {end!r}\n"
            f'odeint((y, s) -> {self.rhs}, y0, [0, T], method="{self.method}")[1]'
        )


@st.composite
def ode_programs(draw):
    """odeint of a right-hand side from the list, at drawn p, y0, end time and method."""
    return OdeCase(
        draw(st.sampled_from(RIGHT_HAND_SIDES)),
        {
            "p": draw(st.sampled_from([0.5, 0.75, 1.0, 1.5, 2.0])),
            "y0": draw(st.sampled_from([0.5, 0.8, 1.0, 1.5])),
            "T": draw(st.sampled_from([0.5, 1.0, 2.0])),
        },
        draw(st.sampled_from(["auto", "dopri5", "radau"])),
    )


def ode_oracle(case: OdeCase) -> dict:
    """solve_ivp (DOP853, rtol 1e-13) of the equation with its first and second forward
    sensitivities to p and y0 (their equations by SymPy), and, at the end time, f and
    df/dt along the solution: ``{"value", "grad": {...}, "second": {...}}``."""
    import sympy
    from scipy.integrate import solve_ivp

    y, s, p = sympy.symbols("y s p")
    f = sympy.sympify(case.rhs)
    parts = [f, f.diff(y), f.diff(p), f.diff(y, 2), f.diff(y, p), f.diff(p, 2), f.diff(s)]
    fn = [sympy.lambdify((y, s, p), e, "math") for e in parts]
    pv, y0, end = (case.inputs[k] for k in ("p", "y0", "T"))

    def rhs(t, v):
        yy, sp, sy, wpp, wyy = v
        f0, fy, fp, fyy, fyp, fpp = (g(yy, t, pv) for g in fn[:6])
        return [
            f0,
            fy * sp + fp,
            fy * sy,
            fyy * sp * sp + 2 * fyp * sp + fpp + fy * wpp,
            fyy * sy * sy + fy * wyy,
        ]

    solved = solve_ivp(rhs, (0, end), [y0, 0, 1, 0, 0], method="DOP853", rtol=1e-13, atol=1e-14)
    yy, sp, sy, wpp, wyy = solved.y[:, -1]
    f_end = fn[0](yy, end, pv)
    second_t = fn[1](yy, end, pv) * f_end + fn[6](yy, end, pv)
    return {
        "value": yy,
        "grad": {"p": sp, "y0": sy, "T": f_end},
        "second": {"p": wpp, "y0": wyy, "T": second_t},
    }
