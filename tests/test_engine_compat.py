"""PyTorch's spellings that tutorials use, each against PyTorch 2.13: devices (``device=``,
``.to``, ``torch.device``), the legacy tensor types and ``size=``, unbound methods,
``Variable``, ``inference_mode``, post-accumulate hooks, formatting 0-d tensors,
``torch.nn.functional``, ``nn.Parameter``, and float32 results to the last bit.

Each case is ``lambda m: ...`` run with ``m`` PyTorch and ``m`` gradcli; the results
(tensors by their repr) or the builtin type of what they raise must be the same.
"""

from __future__ import annotations

import numpy as np
import pytest

import gradcli
from gradcli.engine import ops

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
)
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def outcome(fn, m):
    """fn(m) as plain data (tensors and devices by their repr), or the builtin type raised."""
    try:
        value = fn(m)
    except Exception as err:  # noqa: BLE001  (the type a user's except clause sees)
        return ("raised", next(c for c in type(err).__mro__ if c.__module__ == "builtins"))
    return _plain(value)


def _plain(value):
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, (gradcli.Tensor, torch.Tensor, gradcli.device, torch.device)):
        return repr(value)
    if isinstance(value, (gradcli.dtype, torch.dtype)):
        return str(value)
    return value


def _leaf(m, values=(1.0, -2.0, 3.0)):
    return m.tensor(list(values), requires_grad=True)


def _grad_of(m, fn, values=(0.5, -1.5, 2.0)):
    x = _leaf(m, values)
    y = fn(m, x)
    y.backward()
    return y, x.grad


def _variable(m):
    t = m.tensor([1.0, 2.0])
    v = m.autograd.Variable(t, requires_grad=True)
    with m.no_grad():
        v += 1  # shares t's memory, as PyTorch's
    return v is t, t.requires_grad, v.is_leaf, v, t


def _variable_of_a_result(m):
    y = _leaf(m) * 2
    v = m.autograd.Variable(y, requires_grad=True)
    return v.is_leaf, v.grad_fn is None, v, y.requires_grad


def _inference(m):
    x = m.ones(2, requires_grad=True)
    with m.inference_mode():
        inside = (m.is_inference_mode_enabled(), m.is_grad_enabled())
        y = x * 2
    with m.inference_mode(False):
        z = x * 2
    with m.no_grad(), m.inference_mode(False):
        w = x * 2
    return inside, y.requires_grad, z.requires_grad, w.requires_grad, m.is_grad_enabled()


def _inference_decorators(m):
    @m.inference_mode()
    def called(t):
        return t * 2

    @m.inference_mode
    def bare(t):
        return t * 2

    x = m.ones(1, requires_grad=True)
    return called(x).requires_grad, bare(x).requires_grad, m.is_inference_mode_enabled()


def _post_accumulate(m):
    seen = []
    x = _leaf(m)
    handle = x.register_post_accumulate_grad_hook(lambda t: seen.append((t is x, repr(t.grad))))
    (x * x).sum().backward()
    (x * x).sum().backward()
    handle.remove()
    (x * x).sum().backward()
    return seen, x.grad


def _post_accumulate_updates(m):
    # The tutorials' use: an optimizer step inside the hook, and the grad cleared.
    x = _leaf(m)

    def step(t):
        with m.no_grad():
            t -= 0.1 * t.grad
        t.grad = None

    x.register_post_accumulate_grad_hook(step)
    (x * x).sum().backward()
    return x, x.grad


def _default_cuda(m):
    m.set_default_device("cuda")  # gradcli refuses here, PyTorch at the first tensor
    try:
        return m.ones(1)
    finally:
        m.set_default_device(None)


def _parameter(m):
    p = m.nn.Parameter(m.tensor([1.0, 2.0]))
    q = (p * 3).sum()
    q.backward()
    return p, p.requires_grad, p.is_leaf, isinstance(p, m.nn.Parameter), p.grad, q


def _parameter_step(m):
    p = m.nn.Parameter(m.tensor([[1.0, -1.0]], dtype=m.float64))
    (p**2).sum().backward()
    with m.no_grad():
        p -= 0.25 * p.grad
    return repr(p), isinstance(p, m.nn.Parameter), isinstance(p.detach(), m.nn.Parameter)


CASES = {
    # ----- devices -----
    "device cpu": lambda m: (m.device("cpu"), str(m.device("cpu")), m.device("cpu").type),
    "device cpu:0": lambda m: (m.device("cpu:0"), str(m.device("cpu:0")), m.device("cpu:0").index),
    "device cpu, 0": lambda m: (m.device("cpu", 0), m.device(type="cpu").index),
    "device of a device": lambda m: m.device(m.device("cpu:0")),
    "device cuda:1 is an object": lambda m: (m.device("cuda:1"), str(m.device("cuda", 1))),
    "device equality": lambda m: (
        m.device("cpu") == m.device("cpu"),
        m.device("cpu") == m.device("cpu:0"),
        m.device("cpu") == "cpu",
        m.ones(1).device == m.device("cpu"),
    ),
    "device unknown": lambda m: m.device("tpu"),
    "device bad index": lambda m: m.device("cpu:x"),
    "tensor.device": lambda m: (m.ones(2).device, str(m.ones(2).device), m.ones(2).device.type),
    "get_device, is_cpu, is_cuda": lambda m: (
        m.ones(1).get_device(),
        m.ones(1).is_cpu,
        m.ones(1).is_cuda,
    ),
    "default device": lambda m: (
        m.get_default_device(),
        m.set_default_device("cpu"),
        m.ones(1).device,
        m.set_default_device(None),
        m.get_default_device(),
    ),
    "default device cuda": lambda m: _default_cuda(m),
    "cuda.is_available": lambda m: (m.cuda.is_available(), m.cuda.device_count()),
    "mps.is_available": lambda m: m.backends.mps.is_available(),
    "reproducibility preamble": lambda m: (
        m.manual_seed(0) is not None,
        m.cuda.manual_seed(0),
        m.cuda.manual_seed_all(0),
        m.backends.cudnn.deterministic,
        m.backends.cudnn.benchmark,
        m.backends.cudnn.is_available(),
    ),
    "cuda.current_device": lambda m: m.cuda.current_device(),
    "accelerator": lambda m: (m.accelerator.is_available(), m.accelerator.current_accelerator()),
    "zeros device=cpu": lambda m: m.zeros(2, 3, device="cpu"),
    "ones device=device": lambda m: m.ones(2, device=m.device("cpu")),
    "empty device=cpu:0": lambda m: m.empty(2, device="cpu:0").shape,
    "full device": lambda m: m.full((2,), 1.5, device="cpu"),
    "eye device": lambda m: m.eye(2, device="cpu"),
    "arange device": lambda m: m.arange(3, device="cpu"),
    "linspace device": lambda m: m.linspace(0, 1, 3, device=m.device("cpu")),
    "tensor device": lambda m: m.tensor([1.0, 2.0], device="cpu", requires_grad=True),
    "as_tensor device": lambda m: m.as_tensor([1, 2], device="cpu"),
    "rand, randn, randint device": lambda m: (
        m.rand(2, device="cpu").shape,
        m.randn(2, 2, device="cpu").dtype,
        m.randint(0, 3, (4,), device="cpu").shape,
    ),
    "_like device": lambda m: (
        m.zeros_like(m.ones(2), device="cpu"),
        m.ones_like(m.ones(2), device="cpu"),
        m.full_like(m.ones(2), 7.0, device="cpu"),
        m.empty_like(m.ones(2), device="cpu").shape,
        m.randn_like(m.ones(2), device="cpu").shape,
    ),
    "new_ device": lambda m: (
        m.ones(2).new_zeros(2, device="cpu"),
        m.ones(2).new_ones(1, device="cpu"),
        m.ones(2).new_full((2,), 3.0, device="cpu"),
        m.ones(2).new_tensor([1.0], device="cpu"),
    ),
    "to cpu is itself": lambda m: (lambda x: (x.to("cpu") is x, x.cpu() is x))(m.ones(2)),
    "to device and dtype": lambda m: (
        m.ones(2).to(m.device("cpu"), m.float64),
        m.ones(2).to("cpu", dtype=m.float64),
        m.ones(2).to(device="cpu:0", dtype=m.int64),
        m.ones(2).to(m.ones(1, dtype=m.float64)),
    ),
    "to cpu keeps the graph": lambda m: _leaf(m).to("cpu").requires_grad,
    "factory on cuda": lambda m: m.zeros(2, device="cuda"),
    "factory on cuda:0": lambda m: m.tensor([1.0], device=m.device("cuda:0")),
    "factory on mps": lambda m: m.ones(2, device="mps"),
    "to cuda": lambda m: m.ones(2).to("cuda"),
    "cuda()": lambda m: m.ones(2).cuda(),
    # ----- legacy spellings -----
    "LongTensor": lambda m: (m.LongTensor([1, 2]), m.LongTensor([1.5, -2.7])),
    "IntTensor": lambda m: m.IntTensor([[1, 2], [3, 4]]),
    "DoubleTensor": lambda m: m.DoubleTensor([1, 2.5]),
    "FloatTensor": lambda m: (m.FloatTensor([[1, 2], [3, 4]]), m.FloatTensor([])),
    "BoolTensor": lambda m: m.BoolTensor([1, 0, 1]),
    "FloatTensor of a tensor": lambda m: m.FloatTensor(m.tensor([1.0, 2.0])),
    "FloatTensor(2, 3) shape": lambda m: (m.FloatTensor(2, 3).shape, m.LongTensor(2).dtype),
    "legacy types and isinstance": lambda m: (
        isinstance(m.ones(1), m.FloatTensor),
        isinstance(m.ones(1), m.DoubleTensor),
        isinstance(m.tensor([1]), m.LongTensor),
        repr(m.FloatTensor),
        repr(m.LongTensor),
        m.DoubleTensor.dtype,
    ),
    "type()": lambda m: (
        m.ones(1).type(),
        m.tensor([1]).type(),
        m.ones(1, dtype=m.float64).type(),
        m.tensor([True]).type(),
        m.ones(1, dtype=m.int32).type(),
    ),
    "type(legacy type)": lambda m: (
        m.tensor([1, 2]).type(m.FloatTensor),
        m.ones(2).type(m.LongTensor),
        m.ones(2).type(m.DoubleTensor).dtype,
    ),
    "type(name)": lambda m: (
        m.ones(2).type("torch.IntTensor"),
        m.tensor([1]).type("torch.DoubleTensor"),
    ),
    "type(dtype)": lambda m: m.tensor([1, 2]).type(m.float64),
    "type keeps the graph": lambda m: _leaf(m).type(m.DoubleTensor),
    "randn(size=)": lambda m: (m.randn(size=(2, 3)).shape, m.rand(size=(1,)).shape),
    "zeros, ones, empty (size=)": lambda m: (
        m.zeros(size=(2,)),
        m.ones(size=[1, 2], dtype=m.float64),
        m.empty(size=(2, 2)).shape,
    ),
    "full(size=)": lambda m: m.full(size=(2,), fill_value=3.0),
    "randint(size=)": lambda m: m.randint(0, 5, size=(3,)).shape,
    "size twice": lambda m: m.zeros(2, size=(3,)),
    "unbound methods": lambda m: (
        m.Tensor.tanh(m.tensor(0.5)),
        m.Tensor.add(m.tensor(1.0), m.tensor(2.0)),
        m.Tensor.sum(m.tensor([1.0, 2.0])),
        m.Tensor.mul(_leaf(m), 2),
    ),
    "unbound backward": lambda m: (lambda x: (m.Tensor.backward(m.Tensor.sum(x * x)), x.grad))(
        _leaf(m)
    ),
    "Variable: a new leaf sharing memory": _variable,
    "Variable of a result": _variable_of_a_result,
    "Variable without grad": lambda m: (lambda t: (m.autograd.Variable(t) is t, t))(m.ones(2)),
    "Variable and isinstance": lambda m: (
        isinstance(m.ones(1), m.autograd.Variable),
        isinstance(3.0, m.autograd.Variable),
        m.autograd.Variable(m.tensor(2.0)).requires_grad,
        str(type(m.FloatTensor)),
    ),
    "inference_mode": _inference,
    "inference_mode as decorators": _inference_decorators,
    "post accumulate grad hook": _post_accumulate,
    "post accumulate grad hook updating": _post_accumulate_updates,
    "post accumulate hook on a result": lambda m: (_leaf(m) * 2).register_post_accumulate_grad_hook(
        print
    ),
    "post accumulate hook without grad": lambda m: m.ones(1).register_post_accumulate_grad_hook(
        print
    ),
    # ----- printing -----
    "f-string of a 0-d tensor": lambda m: (
        f"{m.tensor(-16.0)}",
        f"{m.tensor(0.1)}",
        f"{m.tensor(3)}",
        f"{m.tensor(True)}",
        f"{m.tensor(2.5, dtype=m.float64)}",
        f"{m.tensor(1 / 3)}",
    ),
    "f-string of a 0-d tensor in a graph": lambda m: (lambda y: (f"{y}", f"{y:.2f}", str(y)))(
        (_leaf(m) ** 2).sum()
    ),
    "format specs": lambda m: (
        f"{m.tensor(3.14159):.3f}",
        f"{m.tensor(2.0):>8}",
        f"{m.tensor(1e-5):e}",
        f"{m.tensor(42):05d}",
        f"{m.tensor(0.25):%}",
        format(m.tensor(7.0), ""),
    ),
    "f-string of a vector": lambda m: (f"{m.tensor([1.0, 2.0])}", f"{_leaf(m) * 2}"),
    "format spec of a vector": lambda m: f"{m.tensor([1.0, 2.0]):.3f}",
    "format spec of a 1-element vector": lambda m: f"{m.tensor([1.0]):.3f}",
    "f-string of a Parameter": lambda m: (
        f"{m.nn.Parameter(m.tensor(3.0))}",
        f"{m.nn.Parameter(m.ones(2))}",
    ),
    "format spec of a Parameter": lambda m: f"{m.nn.Parameter(m.tensor(3.0)):.2f}",
    # ----- nn.Parameter -----
    "Parameter": _parameter,
    "Parameter update under no_grad": _parameter_step,
    "Parameter without grad": lambda m: m.nn.Parameter(m.tensor(3.0), requires_grad=False),
    "Parameter of nothing": lambda m: m.nn.Parameter(),
    "Parameter shares memory": lambda m: (lambda t: (m.nn.Parameter(t).add_(0) is t, t))(m.ones(2)),
    "Parameter of integers": lambda m: m.nn.Parameter(m.tensor([1, 2])),
    "Parameter .data and detach": lambda m: (lambda p: (p.data, p.detach(), p * 1))(
        m.nn.Parameter(m.ones(2))
    ),
    # ----- in-place view ops: their own grad_fn names -----
    "in-place view names": lambda m: [
        (lambda y: (eval("y." + call), y.grad_fn.name(), y.shape)[1:])(
            m.ones(1, 3, requires_grad=True) * 2
        )
        for call in ("transpose_(0, 1)", "t_()", "squeeze_()", "squeeze_(0)", "unsqueeze_(1)")
    ],
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_spelling_does_what_torch_does(name):
    assert outcome(CASES[name], gradcli) == outcome(CASES[name], torch)


def test_a_device_other_than_the_cpu_says_that_gradcli_computes_on_the_cpu():
    for make in (
        lambda: gradcli.zeros(2, device="cuda"),
        lambda: gradcli.ones(2).to(gradcli.device("cuda:0")),
        lambda: gradcli.ones(2).cuda(),
        lambda: gradcli.randn(2, device="mps"),
    ):
        with pytest.raises(gradcli.GradcliError, match="computes on the CPU only"):
            make()


@pytest.mark.parametrize("name", ["Conv3d", "MaxPool3d", "Transformer"])
def test_a_module_gradcli_lacks_yet_is_an_error_that_names_it(name):
    with pytest.raises(NotImplementedError, match=f"no torch.nn.{name} yet"):
        getattr(gradcli.nn, name)
    with pytest.raises(NotImplementedError, match="torch.nn." + name):
        exec(f"from gradcli.nn import {name}", {})


def test_an_optimiser_gradcli_lacks_yet_is_an_error_that_names_the_ones_it_has():
    lacking = "no torch.optim.SparseAdam yet: .*SGD, Adadelta, Adagrad"
    with pytest.raises(NotImplementedError, match=lacking):
        gradcli.optim.SparseAdam  # noqa: B018
    with pytest.raises(NotImplementedError, match="no torch.optim.lr_scheduler.PolynomialLR"):
        exec("from gradcli.optim.lr_scheduler import PolynomialLR", {})
    with pytest.raises(AttributeError):
        gradcli.nn.no_such_function  # noqa: B018


def test_nn_functional_is_generated_from_the_op_table():
    import gradcli.nn.functional as F  # noqa: N812  (PyTorch's spelling)

    names = set(F.__all__)
    # The entries, and the in-place forms F.relu_ of those whose form there says so.
    in_place = {
        f"{n}_" for n, e in ops.NN_FUNCTIONAL.items() if e.nn_functional == "inplace, name_"
    }
    assert names == set(ops.NN_FUNCTIONAL) | in_place
    for name in names:
        function = getattr(F, name)
        entry = ops.OPS[name.removesuffix("_") if name in in_place else name]
        assert function is entry.call or function.op is entry
        assert hasattr(torch.nn.functional, name), name
    tutorial = {"relu", "gelu", "silu", "leaky_relu", "elu", "sigmoid", "tanh", "softmax"}
    tutorial |= {"log_softmax", "softplus", "mse_loss", "l1_loss", "cross_entropy", "nll_loss"}
    tutorial |= {"binary_cross_entropy", "binary_cross_entropy_with_logits"}
    assert tutorial <= names


# ----- torch.nn.functional: values and gradients, float32 and float64 -----


def _functional(call):
    """call(F, m, x, target) at fixed data; its value, and the gradient of its sum."""

    def run(m):
        rng = np.random.default_rng(7)
        x = m.tensor(rng.normal(size=(4, 3)).astype(np.float32), requires_grad=True)
        target = m.tensor(rng.normal(size=(4, 3)).astype(np.float32))
        y = call(m.nn.functional, m, x, target)
        y.sum().backward()
        return y, x.grad

    return run


def _probabilities(m, x):
    return m.sigmoid(x)


FUNCTIONAL = {
    "relu": lambda F, m, x, t: F.relu(x),
    "relu inplace": lambda F, m, x, t: F.relu(x * 1, inplace=True),
    "gelu": lambda F, m, x, t: F.gelu(x),
    "gelu tanh": lambda F, m, x, t: F.gelu(x, approximate="tanh"),
    "silu": lambda F, m, x, t: F.silu(x),
    "leaky_relu": lambda F, m, x, t: F.leaky_relu(x, 0.2),
    "leaky_relu inplace": lambda F, m, x, t: F.leaky_relu(x + 0, negative_slope=0.1, inplace=True),
    "elu": lambda F, m, x, t: F.elu(x, alpha=0.5),
    "sigmoid": lambda F, m, x, t: F.sigmoid(x),
    "tanh": lambda F, m, x, t: F.tanh(x),
    "softmax": lambda F, m, x, t: F.softmax(x, dim=1),
    "softmax dim 0": lambda F, m, x, t: F.softmax(x, 0),
    "softmax implicit dim": lambda F, m, x, t: F.softmax(x),
    "softmax implicit dim 3-d": lambda F, m, x, t: F.softmax(x.reshape(2, 2, 3)),
    "softmax dtype": lambda F, m, x, t: F.softmax(x, dim=-1, dtype=m.float64),
    "log_softmax": lambda F, m, x, t: F.log_softmax(x, dim=-1),
    "softplus": lambda F, m, x, t: F.softplus(x, beta=2),
    "softsign": lambda F, m, x, t: F.softsign(x),
    "mse_loss": lambda F, m, x, t: F.mse_loss(x, t),
    "mse_loss sum": lambda F, m, x, t: F.mse_loss(x, t, reduction="sum"),
    "mse_loss none": lambda F, m, x, t: F.mse_loss(x, t, reduction="none"),
    "l1_loss": lambda F, m, x, t: F.l1_loss(x, t),
    "l1_loss sum": lambda F, m, x, t: F.l1_loss(x, t, reduction="sum"),
    "l1_loss none": lambda F, m, x, t: F.l1_loss(x, t, reduction="none"),
    "l1_loss bad reduction": lambda F, m, x, t: F.l1_loss(x, t, reduction="average"),
    "cross_entropy": lambda F, m, x, t: F.cross_entropy(x, m.tensor([0, 2, 1, 2])),
    "cross_entropy sum": lambda F, m, x, t: F.cross_entropy(
        x, m.tensor([0, 2, 1, 2]), reduction="sum"
    ),
    "cross_entropy probabilities": lambda F, m, x, t: F.cross_entropy(x, F.softmax(t, dim=1)),
    "nll_loss": lambda F, m, x, t: F.nll_loss(F.log_softmax(x, dim=1), m.tensor([1, 0, 2, 2])),
    "nll_loss none": lambda F, m, x, t: F.nll_loss(
        F.log_softmax(x, dim=1), m.tensor([1, 0, 2, 2]), reduction="none"
    ),
    "binary_cross_entropy": lambda F, m, x, t: F.binary_cross_entropy(
        _probabilities(m, x), (t > 0).float()
    ),
    "binary_cross_entropy none": lambda F, m, x, t: F.binary_cross_entropy(
        _probabilities(m, x), (t > 0).float(), reduction="none"
    ),
    "binary_cross_entropy_with_logits": lambda F, m, x, t: F.binary_cross_entropy_with_logits(
        x, (t > 0).float()
    ),
    "binary_cross_entropy_with_logits sum": lambda F, m, x, t: F.binary_cross_entropy_with_logits(
        x, (t > 0).float(), reduction="sum"
    ),
}


@pytest.mark.parametrize("name", list(FUNCTIONAL))
def test_nn_functional_gives_torch_values_and_gradients(name):
    ours, theirs = outcome(_functional(FUNCTIONAL[name]), gradcli), None
    theirs = outcome(_functional(FUNCTIONAL[name]), torch)
    if ours[0] == "raised" or theirs[0] == "raised":
        assert ours == theirs
        return
    for a, b in zip(_functional(FUNCTIONAL[name])(gradcli), _functional(FUNCTIONAL[name])(torch)):
        ours, theirs = np.asarray(a.detach()._data), b.detach().numpy()
        np.testing.assert_allclose(ours, theirs, rtol=2e-6, atol=1e-6)
        assert str(a.dtype) == str(b.dtype)


def test_nn_functional_graph_names_match_torch():
    for name, call in FUNCTIONAL.items():
        # In place, PyTorch records leaky_relu_ as LeakyReluBackward1 (a rule on the
        # result); gradcli records the out-of-place node and writes it into x.
        if "bad" in name or name == "leaky_relu inplace":
            continue
        ours = _functional(call)(gradcli)[0]
        theirs = _functional(call)(torch)[0]
        assert ours.grad_fn.name() == theirs.grad_fn.name(), name


# ----- float32 to the last bit -----

_DATA = np.random.default_rng(11).normal(size=200).astype(np.float32)


def _bits(t):
    value = t.detach()
    return (value._data if isinstance(value, gradcli.Tensor) else value.numpy()).tobytes()


# PyTorch's kernels for these exponents are products and quotients, which NumPy rounds
# the same way; its sqrt and its other powers are SLEEF's, which may differ in the last bit.
FORWARD_POWERS = [2, 3, -1, -2, -0.5, 2.0, 3.0]
BACKWARD_POWERS = [2, 3, -1, 2.0, 3.0]  # p * x**(p - 1): again a product or a quotient


@pytest.mark.parametrize("p", FORWARD_POWERS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_small_powers_round_as_torch_does(p, dtype):
    base = np.abs(_DATA).astype(dtype) + 0.5
    weights = _DATA[::-1].astype(dtype)  # an upstream gradient other than 1
    results = []
    for m in (gradcli, torch):
        x = m.tensor(base, requires_grad=True)
        y = x**p
        (y * m.tensor(weights)).sum().backward()
        grad = _bits(x.grad) if p in BACKWARD_POWERS else None
        results.append((_bits(y), grad, y.grad_fn.name()))
    assert results[0] == results[1]


@pytest.mark.parametrize("n", [1, 3, 4, 5, 7, 8, 9, 16, 31, 32, 33, 64, 100, 127, 200])
def test_float32_sum_and_mean_add_in_torch_order(n):
    data = _DATA[:n]
    for shape in ((n,), (1, n)):
        ours = [gradcli.tensor(data.reshape(shape))]
        theirs = [torch.tensor(data.reshape(shape))]
        for f in (lambda t: t.sum(), lambda t: t.mean(), lambda t: t.T.sum()):
            assert _bits(f(ours[0])) == _bits(f(theirs[0]))


SHAPES = [(2, 3), (5, 7), (9, 4), (17, 12), (33, 40), (100, 9), (3, 64), (4, 20, 9), (2, 40, 33)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_float32_sums_and_means_along_a_dim_add_in_torch_order(shape):
    data = np.random.default_rng(len(shape) * 100 + shape[-1]).normal(size=shape)
    ours, theirs = gradcli.tensor(data.astype(np.float32)), torch.tensor(data.astype(np.float32))
    for dim in range(-len(shape), 0):
        for keepdim in (False, True):
            for f in ("sum", "mean"):
                a = getattr(ours, f)(dim=dim, keepdim=keepdim)
                b = getattr(theirs, f)(dim=dim, keepdim=keepdim)
                assert _bits(a) == _bits(b) and a.shape == b.shape, (f, dim, keepdim)


@pytest.mark.parametrize("shape", SHAPES[:7], ids=str)
def test_float32_bias_gradients_add_in_torch_order(shape):
    # x + b with b of x's last dim (or a scalar): b's gradient is g summed over the batch.
    data = np.random.default_rng(shape[0]).normal(size=shape).astype(np.float32)
    grads = []
    for m in (gradcli, torch):
        x = m.tensor(data)
        b = m.zeros(shape[-1], requires_grad=True)
        c = m.zeros((), requires_grad=True)
        ((x * x + b + c) * x).sum().backward()
        grads.append((_bits(b.grad), _bits(c.grad)))
    assert grads[0] == grads[1]


def test_sum_in_torch_order_up_to_its_thread_split():
    data = np.random.default_rng(5).normal(size=32768).astype(np.float32)
    for n in (1000, 4000, 8192, 8193, 32768):
        assert _bits(gradcli.tensor(data[:n]).sum()) == _bits(torch.tensor(data[:n]).sum())


def test_a_float32_training_loss_matches_torch_to_the_last_bit():
    # Squares, differences, a mean and an update: the steps of a tutorial's loop.
    rng = np.random.default_rng(2)
    xs, ys = (rng.normal(size=(50, 3)).astype(np.float32) for _ in range(2))
    losses = []
    for m in (gradcli, torch):
        x, y = m.tensor(xs), m.tensor(ys)
        w = m.tensor(np.full((3, 3), 0.1, np.float32), requires_grad=True)
        seen = []
        for _ in range(5):
            loss = ((x * w.sum(0) - y) ** 2).mean() + m.nn.functional.mse_loss(x * 2, y)
            loss.backward()
            with m.no_grad():
                w -= 0.05 * w.grad
            w.grad = None
            seen.append(loss.item())
        losses.append(seen)
    assert losses[0] == losses[1]
