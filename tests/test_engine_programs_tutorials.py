"""Tutorial-style programs on the spellings tutorials use, run on PyTorch 2.13 and on gradcli.

As ``test_engine_programs.py`` (whose runner these use): each program says
``torch``, runs once with PyTorch and once with gradcli bound to that name, and
must print the same, character for character. These cover devices (``device=``,
``.to``, ``.cpu()``), the legacy spellings (``Variable``, ``FloatTensor``,
``size=``, unbound methods), f-strings of losses, ``torch.nn.functional`` losses and
activations, ``nn.Parameter``, ``inference_mode``, post-accumulate hooks, and float32
losses printed in full, which agree to the last bit.
"""

from __future__ import annotations

import re

import pytest
from test_engine_programs import run

import gradcli

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
)
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

PROGRAMS = {}


def program(source):
    PROGRAMS[re.search(r"#\s*(\w+)", source).group(1)] = source


program("""
    # device_agnostic_regression: the device chosen as tutorials choose it
    torch.manual_seed(0)
    torch.cuda.manual_seed_all(0)
    torch.backends.cudnn.benchmark = False
    device = "cuda" if torch.cuda.is_available() else "cpu"
    print(f"Using {device} device")
    rng = np.random.default_rng(10)
    X = torch.tensor(rng.normal(size=(64, 3)).astype(np.float32), device=device)
    true_w = torch.tensor([[2.0], [-3.0], [0.5]], device=torch.device(device))
    y = X @ true_w + 0.25
    w = torch.zeros(3, 1, device=device, requires_grad=True)
    b = torch.zeros(1, device=device, requires_grad=True)
    lr = 0.1
    for epoch in range(6):
        pred = X @ w + b
        loss = ((pred - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
            w.grad.zero_()
            b.grad.zero_()
        # Five decimals: float32 matmuls of NumPy's BLAS and PyTorch's round apart in the
        # 7th digit on some CPUs (6.892813206 against 6.892813683 at epoch 1).
        print(f"epoch {epoch}: loss {loss.item():.5f} ({loss:.4f})")
    print(w.device, b.device, X.device.type, w.cpu() is w, w.to(device) is w)
    print(w.detach().cpu().numpy().round(3).tolist(), b.to("cpu", torch.float64))
""")

program("""
    # legacy_variable: Variable, the typed tensor classes and type() as old tutorials wrote them
    from_data = torch.FloatTensor([[1, 2], [3, 4]])
    x = torch.autograd.Variable(from_data, requires_grad=True)
    print(x, from_data.requires_grad, x is from_data, x.type(), from_data.type())
    labels = torch.LongTensor([1, 0])
    print(labels, labels.type(), labels.type(torch.FloatTensor), labels.type("torch.DoubleTensor"))
    y = (x * x + 2 * x).sum()
    y.backward()
    print(y, x.grad, x.grad.type())
    z = torch.autograd.Variable(torch.DoubleTensor([0.5, 1.5]), requires_grad=True)
    out = (z ** 3).mean()
    out.backward()
    print(out, z.grad, isinstance(z, torch.DoubleTensor), isinstance(z, torch.FloatTensor))
    counts = torch.IntTensor([3, 1, 2])
    mask = torch.BoolTensor([True, False, True])
    print(counts, counts.type(), mask, counts[mask], torch.FloatTensor(2, 3).shape)
    w = torch.autograd.Variable(torch.randn(2, 2) * 0 + 1)
    print(w.requires_grad, w.is_leaf, torch.Tensor.type(w))
""")

program("""
    # size_keywords_and_unbound_methods: size= keywords and methods called on the class
    torch.manual_seed(0)
    noise = torch.randn(size=(3, 4))
    print(noise.shape, torch.rand(size=(2,)).shape, torch.empty(size=(1, 2)).shape)
    base = torch.zeros(size=(2, 3), dtype=torch.float64)
    ones = torch.ones(size=[2, 3], requires_grad=True)
    filled = torch.full(size=(2, 3), fill_value=0.5)
    print(base, ones, filled, sep="\\n")
    a = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    b = torch.tensor([0.5, 0.25, -1.0])
    s = torch.Tensor.add(a, b)
    t = torch.Tensor.tanh(s)
    u = torch.Tensor.mul(t, torch.Tensor.exp(b))
    loss = torch.Tensor.sum(u ** 2)
    torch.Tensor.backward(loss)
    print(s, torch.Tensor.size(t), f"{loss:.5f}", a.grad.round(decimals=4))
    print(torch.Tensor.dim(noise), torch.Tensor.numel(noise), torch.Tensor.t(base).shape)
    attempt(lambda: torch.zeros(2, size=(3,)))
""")

program("""
    # fstring_losses: losses printed with f-strings, format specs and str.format
    rng = np.random.default_rng(12)
    X = torch.tensor(rng.normal(size=(32, 2)).astype(np.float32))
    y = torch.tensor((X.numpy() @ np.array([1.5, -0.5], np.float32)).reshape(-1, 1))
    w = torch.zeros(2, 1, requires_grad=True)
    for step in range(1, 6):
        # (X * w.T).sum(1) rather than X @ w: a matrix product's last bit is its BLAS's
        # (OpenBLAS fuses multiply and add on some processors, PyTorch's kernel does not).
        loss = (((X * w.T).sum(1, keepdim=True) - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= 0.2 * w.grad
        w.grad = None
        print(f"step {step}: {loss}  {loss:.3f}  {loss:>12.6f}  {loss:e}", "{:.4f}".format(loss))
    print(f"weights: {w}")
    print(f"first weight {w[0, 0]:.4f}, sum {w.sum():+.2f}, norm {w.norm():.3g}")
    count = torch.tensor(7)
    print(f"{count} items, {count:03d}, {count.float()}, {torch.tensor(True)}")
    attempt(lambda: f"{w:.3f}")
    attempt(lambda: f"{w.detach().flatten():.2f}")
    print(f"{w.detach().flatten()}")
""")

program("""
    # mse_l1_reductions: nn.functional losses in float32 with each reduction, to the last bit
    F = torch.nn.functional
    rng = np.random.default_rng(13)
    pred = torch.tensor(rng.normal(size=(5, 3)).astype(np.float32), requires_grad=True)
    target = torch.tensor(rng.normal(size=(5, 3)).astype(np.float32))
    for reduction in ("mean", "sum", "none"):
        mse = F.mse_loss(pred, target, reduction=reduction)
        l1 = F.l1_loss(pred, target, reduction=reduction)
        total = mse.sum() + l1.sum()
        total.backward()
        print(reduction, mse.grad_fn.name(), l1.grad_fn.name())
        print(mse.sum().item(), l1.sum().item(), total.item())
        print(pred.grad)
        pred.grad = None
    hand = ((pred - target) ** 2).mean()
    print(hand.item() == F.mse_loss(pred, target).item(), hand.item())
    attempt(lambda: F.mse_loss(pred, target, reduction="average"))
""")

program("""
    # softmax_classifier: cross_entropy and nll_loss of log_softmax, trained by hand in float64
    F = torch.nn.functional
    rng = np.random.default_rng(14)
    X = torch.tensor(rng.normal(size=(12, 4)))
    labels = torch.tensor(rng.integers(0, 3, size=12))
    W = torch.zeros(4, 3, dtype=torch.float64, requires_grad=True)
    b = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    for epoch in range(4):
        logits = X @ W + b
        loss = F.cross_entropy(logits, labels)
        loss.backward()
        with torch.no_grad():
            for p in (W, b):
                p -= 0.5 * p.grad
                p.grad.zero_()
        print(f"epoch {epoch} loss {loss:.6f}", loss.grad_fn.name())
    logits = X @ W + b
    same = F.nll_loss(F.log_softmax(logits, dim=1), labels)
    print(f"{same:.6f}", f"{F.cross_entropy(logits, labels, reduction='sum'):.6f}")
    probs = F.softmax(logits, dim=1)
    print(probs.detach().sum(dim=1).round(decimals=6), probs.argmax(dim=1), labels)
    accuracy = (probs.argmax(dim=1) == labels).float().mean()
    print(f"accuracy {accuracy:.2%}")
""")

program("""
    # parameters_by_hand: nn.Parameter weights updated under no_grad, printed as PyTorch does
    nn = torch.nn
    rng = np.random.default_rng(15)
    W = nn.Parameter(torch.tensor(rng.normal(size=(2, 3)).astype(np.float32)))
    b = nn.Parameter(torch.zeros(2))
    print(W, b, sep="\\n")
    print(isinstance(W, nn.Parameter), W.requires_grad, W.is_leaf, isinstance(W * 2, nn.Parameter))
    x = torch.tensor(rng.normal(size=(8, 3)).astype(np.float32))
    y = torch.tensor(rng.normal(size=(8, 2)).astype(np.float32))
    for step in range(4):
        out = x @ W.T + b
        loss = ((out - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            for p in (W, b):
                p -= 0.1 * p.grad
                p.grad = None
        print(step, f"{loss.item():.6f}")
    print(b)
    print(nn.Parameter(torch.tensor(2.5), requires_grad=False))
    frozen = nn.Parameter(torch.ones(2), requires_grad=False)
    print(frozen.requires_grad, f"{nn.Parameter(torch.tensor(1.5))}")
""")

program("""
    # inference_mode_evaluation: train, then evaluate under inference_mode and no_grad
    rng = np.random.default_rng(16)
    X = torch.tensor(rng.normal(size=(20, 2)))
    y = torch.tensor((rng.random(20) > 0.5).astype(np.float64))
    w = torch.zeros(2, dtype=torch.float64, requires_grad=True)
    for _ in range(3):
        loss = torch.nn.functional.binary_cross_entropy_with_logits(X @ w, y)
        loss.backward()
        with torch.no_grad():
            w -= 1.0 * w.grad
        w.grad.zero_()

    @torch.inference_mode()
    def predict(inputs):
        return torch.sigmoid(inputs @ w)

    @torch.inference_mode
    def scores(inputs):
        return inputs @ w

    p = predict(X)
    print(p.requires_grad, scores(X).requires_grad, torch.is_inference_mode_enabled())
    with torch.inference_mode():
        inside = X @ w
        print(torch.is_inference_mode_enabled(), torch.is_grad_enabled(), inside.requires_grad)
    with torch.inference_mode(mode=False):
        print(torch.is_inference_mode_enabled(), (X @ w).requires_grad)
    print(f"{((p > 0.5).double() == y).double().mean():.3f}", torch.is_grad_enabled())
""")

program("""
    # step_in_backward: the optimizer step taken in a post-accumulate-grad hook
    rng = np.random.default_rng(17)
    X = torch.tensor(rng.normal(size=(16, 2)).astype(np.float32))
    y = torch.tensor(rng.normal(size=(16,)).astype(np.float32))
    w = torch.zeros(2, requires_grad=True)
    c = torch.zeros(1, requires_grad=True)
    steps = []

    def sgd_step(param):
        with torch.no_grad():
            param -= 0.1 * param.grad
        steps.append(tuple(param.shape))
        param.grad = None

    handles = [p.register_post_accumulate_grad_hook(sgd_step) for p in (w, c)]
    for epoch in range(5):
        loss = (((X * w).sum(1) + c - y) ** 2).mean()  # not X @ w: see fstring_losses
        loss.backward()
        print(epoch, loss.item(), w.grad, c.grad)
    print(sorted(steps), w, c)
    for h in handles:
        h.remove()
    loss = ((X @ w + c - y) ** 2).mean()
    loss.backward()
    print(loss.item(), w.grad is not None)
    attempt(lambda: (w * 2).register_post_accumulate_grad_hook(sgd_step))
""")

program("""
    # activation_tour: nn.functional activations and their gradients on a grid
    F = torch.nn.functional
    x = torch.linspace(-3, 3, 7, dtype=torch.float64, requires_grad=True)
    for name in ("relu", "gelu", "silu", "leaky_relu", "elu", "softplus", "sigmoid", "tanh"):
        y = getattr(F, name)(x)
        y.sum().backward()
        print(f"{name:>10}", y.detach().numpy().round(4).tolist())
        print(" " * 10, x.grad.numpy().round(4).tolist(), y.grad_fn.name())
        x.grad = None
    z = torch.tensor([-1.0, 0.0, 2.0])
    print(F.leaky_relu(z, 0.2), F.elu(z, alpha=0.5), F.gelu(z, approximate="tanh"))
    h = z.clone()
    F.relu(h, inplace=True)
    print(h, F.softmax(z, dim=0), F.log_softmax(z.view(1, 3), dim=1))
    print(F.softplus(z, beta=2), F.softsign(z))
""")

program("""
    # binary_classifier: binary_cross_entropy on probabilities and with logits, with reductions
    F = torch.nn.functional
    rng = np.random.default_rng(18)
    X = torch.tensor(rng.normal(size=(10, 3)))
    y = torch.tensor((rng.random(10) > 0.4).astype(np.float64))
    w = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    for epoch in range(4):
        logits = X @ w
        loss = F.binary_cross_entropy_with_logits(logits, y)
        same = F.binary_cross_entropy(torch.sigmoid(logits), y)
        loss.backward()
        with torch.no_grad():
            w -= 0.8 * w.grad
        w.grad.zero_()
        print(f"{epoch}: {loss:.6f} {same:.6f}", loss.grad_fn.name(), same.grad_fn.name())
    per_sample = F.binary_cross_entropy_with_logits(X @ w, y, reduction="none")
    total = F.binary_cross_entropy_with_logits(X @ w, y, reduction="sum")
    print(per_sample.shape, f"{total:.6f}", f"{per_sample.sum():.6f}")
    weighted = F.binary_cross_entropy_with_logits(X @ w, y, pos_weight=torch.tensor(2.0))
    print(f"{weighted:.6f}")
    attempt(lambda: F.binary_cross_entropy(torch.tensor([1.5]), torch.tensor([1.0])))
""")

program("""
    # cubic_fit_float32: a cubic fitted by hand in float32 with x**2 and x**3, losses in full
    xs = np.linspace(-np.pi, np.pi, 500, dtype=np.float32)
    x = torch.tensor(xs)
    y = torch.tensor(np.sin(xs).astype(np.float32))
    a, b, c, d = (torch.zeros((), requires_grad=True) for _ in range(4))
    lr = 5e-6
    for t in range(300):
        y_pred = a + b * x + c * x ** 2 + d * x ** 3
        loss = (y_pred - y).pow(2).sum()
        if t % 50 == 49:
            print(t, loss.item())
        loss.backward()
        with torch.no_grad():
            for p in (a, b, c, d):
                p -= lr * p.grad
                p.grad = None
    print(f"y = {a.item()} + {b.item()} x + {c.item()} x^2 + {d.item()} x^3")
    print(y_pred.grad_fn.name(), (x ** 3).grad_fn, (d * x ** 3).grad_fn.name())
""")

program("""
    # standardized_features_float32: per-feature means, a bias vector and a mean loss in float32
    rng = np.random.default_rng(19)
    raw = torch.tensor(rng.normal(loc=3.0, scale=2.0, size=(40, 6)).astype(np.float32))
    centered = raw - raw.mean(dim=0)
    scale = (centered ** 2).mean(dim=0, keepdim=True)
    X = centered / (scale + 1.0)
    target = torch.tensor(rng.normal(size=(40, 6)).astype(np.float32))
    w = torch.ones(6, requires_grad=True)
    b = torch.zeros(6, requires_grad=True)
    for step in range(5):
        pred = X * w + b
        loss = ((pred - target) ** 2).mean()
        loss.backward()
        print(step, loss.item(), b.grad.sum().item(), w.grad.abs().sum(dim=0).item())
        with torch.no_grad():
            w -= 0.5 * w.grad
            b -= 0.5 * b.grad
        w.grad = None
        b.grad = None
    print(X.mean(dim=0).abs().max().item(), X.sum(dim=1)[:4].tolist())
    print(b.tolist(), w.tolist())
""")

program("""
    # devices_and_types: device objects, .to() with devices and dtypes, and no CUDA
    cpu = torch.device("cpu")
    print(cpu, repr(cpu), cpu.type, cpu.index, repr(torch.device("cpu:0")), torch.device("cpu", 0))
    gpu = torch.device("cuda:1")
    print(gpu, gpu.type, gpu.index, torch.cuda.is_available(), torch.cuda.device_count())
    x = torch.arange(4, device=cpu).float()
    print(x, x.device, x.device == cpu, x.is_cuda, x.get_device())
    y = x.to(cpu, torch.float64)
    z = x.to(device="cpu", dtype=torch.int64)
    print(y, z, x.to(y).dtype, x.to("cpu") is x, x.cpu() is x)
    try:
        x.to(gpu)
    except AssertionError:
        print("no CUDA here: staying on", x.device)
    try:
        torch.ones(2, device="cuda")
    except AssertionError:
        print("no CUDA for factories either")
    like = torch.zeros_like(x, device=x.device)
    other = x.new_ones(2, device=x.device)
    print(like, other, torch.eye(2, device=x.device), torch.linspace(0, 1, 3, device="cpu"))
    attempt(lambda: torch.device("tpu"))
""")


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_prints_what_torch_prints(name):
    theirs = run(PROGRAMS[name], torch)
    ours = run(PROGRAMS[name], gradcli)
    assert ours == theirs
