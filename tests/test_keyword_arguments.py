"""Every op's every parameter given by keyword, through the library and the language, gives
what the positional call gives; the hooks that read arguments (kink checks, batching rules)
find them by the schema's names either way (``Schema.by_name``).

The sample calls: each entry's gradcheck domain (``test_op_table``) and, for the entries
without one, the table below; a test fails when an entry has neither.
"""

from __future__ import annotations

import numpy as np
import pytest
from fuzzing import MAKE_COMPLEX
from test_op_table import _inputs, _keywords

import gradcli
from gradcli.engine import ops
from gradcli.engine.schema import REQUIRED
from gradcli.language.check import builtin_signature

L = gradcli
RNG = np.random.default_rng(3)
X = L.tensor(RNG.uniform(0.5, 2.0, (2, 3)))
V = L.tensor(RNG.uniform(0.5, 2.0, (3,)))
M = L.tensor(2 * np.eye(3) + RNG.uniform(-0.5, 0.5, (3, 3)))
P = L.tensor(RNG.uniform(0.1, 0.9, (2, 3)))
RNG_LAYER = np.random.default_rng(5)
IMAGE = L.tensor(RNG_LAYER.uniform(-1, 1, (1, 2, 4, 4)))

# Positional calls of the entries that have no gradcheck domain but parameters to name.
SAMPLES = {
    "full": lambda: ((2, 3), 1.5),
    "eye": lambda: (2, 3),
    "arange": lambda: (0.5, 3.0, 0.5),
    "linspace": lambda: (0.0, 1.0, 5),
    "zeros_like": lambda: (X,),
    "ones_like": lambda: (X,),
    "full_like": lambda: (X, 2.5),
    "as_tensor": lambda: ([1.0, 2.0],),
    "lt": lambda: (X, 1.0),
    "isclose": lambda: (X, X + 1e-9, 1e-05, 1e-08, False),
    "allclose": lambda: (X, X + 1e-9, 1e-05, 1e-08, False),
    "masked_fill": lambda: (X, X > 1, 0.0),
    "rsub": lambda: (X, 2.0),
    "floor_divide": lambda: (X, 0.3),
    "flatten": lambda: (X, 0, -1),
    "squeeze": lambda: (X.reshape(2, 1, 3), 1),
    "unsqueeze": lambda: (X, 1),
    "transpose": lambda: (X, 0, 1),
    "broadcast_to": lambda: (V, (2, 3)),
    "roll": lambda: (X, 1, 1),
    "take_along_dim": lambda: (X, L.tensor([[0], [2]]), 1, True),
    "gather": lambda: (X, 1, L.tensor([[0, 0], [2, 1]])),
    "index_select": lambda: (X, 1, L.tensor([2, 0])),
    "index_add": lambda: (X, 1, L.tensor([2, 0]), X[:, :2] * 2),
    "stack": lambda: ([X, X], 1),
    "cat": lambda: ([X, X], 1),
    "unbind": lambda: (X, 1),
    "split": lambda: (X, 2, 1),
    "chunk": lambda: (X, 2, 1),
    "max": lambda: (X, 1, True),
    "min": lambda: (X, 0, False),
    "argmax": lambda: (X, 1, True),
    "argmin": lambda: (X, 0, False),
    "all": lambda: (X > 1, 1, True),
    "any": lambda: (X > 1, 0, False),
    "cumsum": lambda: (X, 1),
    "softmax": lambda: (X, 1),
    "log_softmax": lambda: (X, 0),
    "matmul": lambda: (X, M),
    "mm": lambda: (X, M),
    "dot": lambda: (V, V),
    "mv": lambda: (M, V),
    "bmm": lambda: (M.reshape(1, 3, 3), M.reshape(1, 3, 3)),
    "outer": lambda: (V, V),
    "diagonal": lambda: (M, 0, 1, 0),
    "tril": lambda: (M, -1),
    "triu": lambda: (M, 1),
    "sort": lambda: (X, 0, True),
    "argsort": lambda: (X, 1, True),
    "topk": lambda: (X, 2, 1, False, True),
    "polygamma": lambda: (1, X),
    "zeta": lambda: (X + 1, X),
    "cross": lambda: (M, M.flip(0), 0),
    "solve": lambda: (M, X.mT),
    "cumprod": lambda: (X, 1),
    "binary_cross_entropy": lambda: (P, P.flip(0), X),
    "binary_cross_entropy_with_logits": lambda: (X, P, V),
    "nll_loss": lambda: (L.log_softmax(X, 1), L.tensor([0, 2]), V),
    "cross_entropy": lambda: (X, L.tensor([0, 2]), V),
    # Random draws: each call is made from the same seed (RANDOM), so both draw alike.
    "bernoulli": lambda: (P, 0.3),
    "multinomial": lambda: (P, 2, True),
    "dropout": lambda: (X, 0.25, True),
    "randint": lambda: (2, 9, (3,)),
    "randperm": lambda: (5,),
    "normal": lambda: (V, 2.0),
    "complex": lambda: (X, X.flip(0)),
    "movedim": lambda: (X.reshape(1, 2, 3), 0, 2),
    # torch.nn.functional's layers, which the language calls too.
    "linear": lambda: (X, M[:2], V[:2]),
    "conv1d": lambda: (IMAGE[0, :, 0], L.tensor(RNG_LAYER.uniform(-1, 1, (2, 2, 2))), V[:2], 1, 1),
    "conv2d": lambda: (IMAGE, L.tensor(RNG_LAYER.uniform(-1, 1, (2, 2, 2, 2))), V[:2], 2, 1),
    "max_pool2d": lambda: (IMAGE, 2, 1, 1),
    "avg_pool2d": lambda: (IMAGE, (2, 3), 1, 1, False, False),
    "layer_norm": lambda: (X, (3,), V, V.flip(0), 1e-3),
    "adaptive_avg_pool2d": lambda: (IMAGE, (2, 3)),
    "adaptive_max_pool2d": lambda: (IMAGE, 3, False),
}
#: Entries that draw random numbers: the generator is seeded before each call.
RANDOM = {"bernoulli", "multinomial", "dropout", "randint", "randperm", "normal"}
# Entries whose parameters are only inputs, sizes or flags of the tensor they make, or that
# draw random numbers (no call to compare), or take sizes as *args: nothing to name.
UNNAMED = {
    "detach", "is_floating_point", "is_tensor", "numel", "tensor", "zeros", "ones", "empty",
    "manual_seed", "rand", "randn", "empty_like", "rand_like",
    "randn_like", "from_numpy", "logical_not", "isnan", "isinf", "isfinite", "nonzero",
    "positive", "reshape", "view", "permute", "t", "expand", "flip", "repeat", "hstack",
    "vstack", "trace", "diag", "factorial", "logdet", "softsign", "le", "gt", "ge", "eq", "ne",
    "logical_and", "logical_or", "equal",
    "imag", "view_as_real",  # of a complex tensor only, which the language writes as a literal
    "einsum",  # its equation before its operands, which are *args: Python names neither
}  # fmt: skip


def _call(entry):
    """``(positional args, keyword args)``: the same call, every parameter it gives (and
    every default) named the second time."""
    if entry.name in SAMPLES:
        args, extra = list(SAMPLES[entry.name]()), {}
    else:
        args, extra = list(_inputs(entry)), dict(_keywords(entry))
    named = {}
    for p, value in zip([p for p in entry.schema.params if not p.keyword_only], args):
        named[p.name] = value
    named.update(extra)
    for p in entry.schema.params:
        if p.name not in named and p.default is not REQUIRED and not p.variadic:
            named[p.name] = p.default
    return args, extra, named


NAMED = [e for e in ops.OPS.values() if (e.library or e.function) and not e.internal]
NAMED = [e for e in NAMED if e.name not in UNNAMED]
NAMED = [e for e in NAMED if e.domain or e.name in SAMPLES]


def test_every_entry_with_parameters_has_a_sample_call():
    public = {e.name for e in ops.OPS.values() if e.library and not e.internal}
    assert public - UNNAMED - {e.name for e in NAMED} == set()


def _numbers(out):
    if isinstance(out, (tuple, list)):
        return [_numbers(o) for o in out]
    return np.asarray(out.detach().numpy() if hasattr(out, "detach") else out).tolist()


@pytest.mark.parametrize("entry", NAMED, ids=lambda e: e.name)
def test_every_parameter_by_keyword_gives_the_positional_result(entry):
    args, extra, named = _call(entry)

    def drawn(*args, **kwargs):
        if entry.name in RANDOM:
            L.manual_seed(7)
        return _numbers(entry.call(*args, **kwargs))

    assert drawn(**named) == drawn(*args, **extra)


def _literal(value):
    if isinstance(value, (bool, int, float)):
        return repr(value)
    if isinstance(value, str):
        return f"'{value}'"
    if isinstance(value, tuple) and all(isinstance(v, int) for v in value):
        return "[" + ", ".join(map(str, value)) + "]"
    return None


LANGUAGE = [e for e in NAMED if e.function]


@pytest.mark.parametrize("entry", LANGUAGE, ids=lambda e: e.name)
def test_every_parameter_by_keyword_in_the_language(gradcli_json, entry):
    """The language's call with each parameter it takes named (tensors as inputs a0, a1...)
    gives the positional call's value and gradient (for the first input); kink checks
    read the keywords too."""
    args, extra, named = _call(entry)
    sig = builtin_signature(entry.name)
    options, texts = [], {}
    for i, (name, value) in enumerate(named.items()):
        if isinstance(value, gradcli.Tensor) and value.dtype == gradcli.float64:
            texts[name] = f"a{i}"
            options += [f"--a{i}", str(value.tolist())]
        elif isinstance(value, list) and all(isinstance(v, gradcli.Tensor) for v in value):
            texts[name] = "[" + ", ".join(str(v.tolist()) for v in value) + "]"
        elif isinstance(value, gradcli.Tensor):
            if value.dtype == gradcli.bool:
                pytest.skip("a mask has no literal to write in the language")
            texts[name] = str(value.tolist())
        elif _literal(value) is not None:
            texts[name] = _literal(value)  # else a default the language cannot write: left out
    by_keyword = [f"{name}={text}" for name, text in texts.items() if name in sig.keywords]
    by_position, rest = [], dict(texts)
    for name in sig.positional:
        if name not in rest:
            break
        by_position.append(rest.pop(name))
    by_position += [f"{name}={text}" for name, text in rest.items() if name in sig.keywords]
    wrt = ["--wrt", options[0][2:]] if options else []
    results = []
    for call in (by_keyword, by_position):
        source = f"sum({entry.name}({', '.join(call)}))"
        if entry.name in MAKE_COMPLEX:  # a complex value: its real part has a gradient
            source = f"sum(real({entry.name}({', '.join(call)})))"
        results.append((source, gradcli_json("grad", source, *options, *wrt)))
    (keyword_source, keyword), (position_source, position) = results
    assert keyword == position, (keyword_source, position_source)


def test_a_kink_check_finds_an_argument_given_by_keyword(gradcli_json):
    # d(x**2)/dx = 2x = 6 at 3; the check once read the exponent as args[1].
    assert gradcli_json("grad", "pow(x, exponent=2)", "--x", "3")["grad"]["x"] == 6
    notes = gradcli_json("grad", "pow(input=x, exponent=0.5)", "--x", "0")["notes"]
    assert any("at base 0 with a non-integer exponent" in n["message"] for n in notes)
    notes = gradcli_json("grad", "clamp(x, max=1)", "--x", "1")["notes"]
    assert any("on its bound max" in n["message"] for n in notes)


@pytest.mark.parametrize("entry", [e for e in NAMED if e.kink_at], ids=lambda e: e.name)
def test_every_kink_check_reads_keywords_as_positions(entry):
    from gradcli.engine.explain import kink

    args, extra, named = _call(entry)
    assert kink(entry, (), named) == kink(entry, args, extra)
