"""``gradcli.nn`` against PyTorch 2.13: the same seed gives the same initial weights to the
bit, the same programs print the same (reprs, names, state, hooks, modes), and the
layers' values and gradients agree in float64 to a relative 1e-12."""

from __future__ import annotations

import numpy as np
import pytest
from test_engine_programs import run

import gradcli

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
)


def _bits(tensor) -> bytes:
    return np.asarray(tensor.detach().numpy()).tobytes()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "make",
    [
        lambda nn, dt: nn.Linear(5, 7, dtype=dt),
        lambda nn, dt: nn.Linear(1, 300, dtype=dt),  # wide: the kernel's vector tail
        lambda nn, dt: nn.Bilinear(3, 2, 4, dtype=dt),
        lambda nn, dt: nn.Embedding(6, 3, padding_idx=2, dtype=dt),
        lambda nn, dt: nn.Sequential(nn.Linear(4, 8, dtype=dt), nn.Linear(8, 2, dtype=dt)),
    ],
    ids=["linear", "wide_linear", "bilinear", "embedding", "sequential"],
)
def test_the_same_seed_gives_pytorchs_initial_weights_bit_for_bit(make, dtype):
    torch.manual_seed(11)
    theirs = make(torch.nn, getattr(torch, dtype))
    gradcli.manual_seed(11)
    ours = make(gradcli.nn, getattr(gradcli, dtype))
    assert list(dict(ours.named_parameters())) == list(dict(theirs.named_parameters()))
    for (name, mine), (_, their) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert _bits(mine) == _bits(their), name


@pytest.mark.parametrize(
    "init",
    [
        "kaiming_uniform_(w, a=math.sqrt(5))",
        "kaiming_uniform_(w, mode='fan_out', nonlinearity='relu')",
        "kaiming_normal_(w)",
        "xavier_uniform_(w, gain=nn.init.calculate_gain('tanh'))",
        "xavier_normal_(w)",
        "uniform_(w, -0.3, 0.7)",
        "normal_(w, 0.5, 2.0)",
        "constant_(w, 0.25)",
        "eye_(w)",
    ],
)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nn_init_fills_as_pytorch_does(init, dtype):
    import math

    def fill(lib):
        lib.manual_seed(3)
        w = lib.empty(6, 20, dtype=getattr(lib, dtype))
        eval(f"nn.init.{init}", {"nn": lib.nn, "w": w, "math": math})
        return _bits(w)

    assert fill(gradcli) == fill(torch)


def test_uniform_with_bounds_rounds_as_pytorchs_vectorised_kernel():
    # One float64 element, the case that missed by one ulp before: x*(b-a)+a rounded once.
    for lib in (torch, gradcli):
        lib.manual_seed(0)
    theirs = torch.empty(1, dtype=torch.float64).uniform_(-0.4472135954999579, 0.447213595499958)
    ours = gradcli.empty(1, dtype=gradcli.float64).uniform_(-0.4472135954999579, 0.447213595499958)
    assert ours.item() == theirs.item()
    torch.manual_seed(5), gradcli.manual_seed(5)
    theirs = torch.empty(1000, dtype=torch.float64).uniform_(-3.3, 7.1)
    ours = gradcli.empty(1000, dtype=gradcli.float64).uniform_(-3.3, 7.1)
    assert _bits(ours) == _bits(theirs)


MODULE_API = """
import math
nn = torch.nn
torch.manual_seed(0)

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 4)
        self.norm = nn.LayerNorm(4)
        self.register_buffer("steps", torch.zeros(()))
        self.register_buffer("scratch", torch.ones(2), persistent=False)
        self.scale = nn.Parameter(torch.tensor(2.0))
        self.note = "plain attribute"

    def forward(self, x):
        return self.norm(self.fc(x)) * self.scale

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)] + [nn.Tanh()])
        head = nn.Sequential(nn.ReLU(), nn.Linear(4, 2, bias=False))
        self.heads = nn.ModuleDict({"a": nn.Linear(4, 1), "b": head})
        self.act = nn.GELU()
        self.drop = nn.Dropout(0.25)
        self.bn = nn.BatchNorm1d(4)
        self.emb = nn.Embedding(10, 3, padding_idx=0)
        self.flat = nn.Flatten()

    def forward(self, x):
        h = self.block(x)
        for layer in self.layers:
            h = layer(h)
        return self.heads["a"](self.act(self.bn(h)))

net = Net()
print(net)
print([n for n, _ in net.named_parameters()])
print([n for n, _ in net.named_buffers()])
print(list(net.state_dict().keys()))
print([n for n, _ in net.named_children()])
print([n for n, _ in net.named_modules()])
print(len(list(net.parameters())), len(list(net.modules())), len(list(net.children())))
print(sum(p.numel() for p in net.parameters() if p.requires_grad))
print(net.block.note, isinstance(net.block.scale, nn.Parameter))
print(net.training, net.eval().training, net.drop.training, net.train().bn.training)
seen = []
handle = net.block.register_forward_hook(lambda m, i, o: seen.append(tuple(o.shape)))
pre = net.block.fc.register_forward_pre_hook(lambda m, i: (i[0] * 2,))
out = net(torch.ones(5, 3))
print(tuple(out.shape), seen, type(out.grad_fn).__name__ is not None)
handle.remove(); pre.remove()
net(torch.ones(5, 3)); print(seen)
out.sum().backward()
print(net.block.fc.weight.grad is not None, net.heads["b"][1].weight.grad)
net.zero_grad()
print(net.block.fc.weight.grad)
net.requires_grad_(False)
print(any(p.requires_grad for p in net.parameters()))
names = []
net.apply(lambda m: names.append(type(m).__name__))
print(names)
state = net.state_dict()
print(state["block.fc.bias"].requires_grad, state["bn.num_batches_tracked"])
other = Net()
print(other.load_state_dict(state))
print(torch.equal(other.block.fc.weight, net.block.fc.weight))
del state["block.scale"]
result = other.load_state_dict(state, strict=False)
print(result.missing_keys, result.unexpected_keys)
try:
    other.load_state_dict(state)
except RuntimeError as error:
    print("RuntimeError:", str(error).splitlines()[0])
try:
    net.block.fc.weight = torch.zeros(4, 3)
except TypeError as error:
    print(error)
seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
print(seq[0], seq[-1], len(seq), seq[1:])
seq.append(nn.Sigmoid())
print(seq)
print(nn.Sequential(nn.Linear(2, 2)).double()[0].weight.dtype)
for module in [nn.ReLU(inplace=True), nn.LeakyReLU(0.2), nn.ELU(), nn.Softplus(), nn.SiLU(),
               nn.Softmax(dim=-1), nn.LogSoftmax(dim=1), nn.Sigmoid(), nn.Identity(),
               nn.Unflatten(1, (2, 3)), nn.MSELoss(), nn.L1Loss(reduction="sum"),
               nn.CrossEntropyLoss(label_smoothing=0.1), nn.NLLLoss(), nn.BCELoss(),
               nn.BCEWithLogitsLoss(), nn.HuberLoss(delta=0.5), nn.SmoothL1Loss(),
               nn.BatchNorm1d(3, affine=False), nn.LayerNorm((2, 3), elementwise_affine=False),
               nn.Embedding(4, 2), nn.Bilinear(2, 3, 4), nn.Linear(1, 1, bias=False)]:
    print(module)
"""


def test_a_module_prints_registers_and_calls_as_pytorchs():
    assert run(MODULE_API, gradcli) == run(MODULE_API, torch)


LAYERS = """
nn = torch.nn
F = nn.functional
torch.manual_seed(1)
x = torch.randn(6, 4, dtype=torch.float64, requires_grad=True)
cases = [nn.LayerNorm(4, dtype=torch.float64), nn.BatchNorm1d(4, dtype=torch.float64),
         nn.Linear(4, 3, dtype=torch.float64), nn.Bilinear(4, 4, 2, dtype=torch.float64),
         nn.GELU(), nn.GELU(approximate="tanh"), nn.Softmax(dim=1), nn.Tanh(), nn.Sigmoid()]
out = []
for layer in cases:
    x.grad = None
    y = layer(x, x) if isinstance(layer, nn.Bilinear) else layer(x)
    (y * torch.arange(y.numel(), dtype=torch.float64).reshape(y.shape)).sum().backward()
    out.append((y.detach().numpy().copy(), x.grad.numpy().copy()))
bn = nn.BatchNorm1d(4, momentum=0.3, dtype=torch.float64)
for _ in range(3):
    bn(torch.randn(8, 4, dtype=torch.float64) * 3 + 1)
out.append((bn.running_mean.numpy().copy(), bn.running_var.numpy().copy()))
out.append((bn.eval()(x).detach().numpy().copy(), bn.num_batches_tracked.numpy().copy()))
bn3 = nn.BatchNorm1d(3, dtype=torch.float64)
z = bn3(torch.randn(4, 3, 5, dtype=torch.float64))
out.append((z.detach().numpy().copy(), bn3.running_var.numpy().copy()))
emb = nn.Embedding(5, 2, dtype=torch.float64)
e = emb(torch.tensor([[0, 3], [3, 4]]))
(e ** 2).sum().backward()
out.append((e.detach().numpy().copy(), emb.weight.grad.numpy().copy()))
logits = torch.randn(6, 3, dtype=torch.float64, requires_grad=True)
labels = torch.tensor([0, 2, 1, 1, 0, 2])
prob = torch.rand(6, 3, dtype=torch.float64)
for loss in [nn.CrossEntropyLoss()(logits, labels), nn.NLLLoss()(F.log_softmax(logits, 1), labels),
             nn.BCELoss()(torch.sigmoid(logits), prob), nn.BCEWithLogitsLoss()(logits, prob),
             nn.MSELoss()(logits, prob), nn.L1Loss()(logits, prob),
             nn.HuberLoss(delta=0.3)(logits, prob), nn.SmoothL1Loss(beta=0.5)(logits, prob),
             nn.CrossEntropyLoss(reduction="sum")(logits, labels)]:
    logits.grad = None
    loss.backward()
    out.append((loss.detach().numpy().copy(), logits.grad.numpy().copy()))
"""


def _layers(lib):
    namespace = {"torch": lib}
    exec(LAYERS, namespace)
    return namespace["out"]


def test_layers_and_losses_give_pytorchs_values_and_gradients_in_float64():
    for (y, g), (ty, tg) in zip(_layers(gradcli), _layers(torch), strict=True):
        np.testing.assert_allclose(y, ty, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(g, tg, rtol=1e-12, atol=1e-14)


def test_dropout_draws_pytorchs_mask_and_is_the_identity_in_eval_mode():
    def draws(lib):
        lib.manual_seed(4)
        drop = lib.nn.Dropout(0.3)
        x = lib.ones(4, 5)
        return drop(x).numpy().copy(), drop.eval()(x).numpy().copy()

    for mine, theirs in zip(draws(gradcli), draws(torch)):
        np.testing.assert_array_equal(mine, theirs)


def test_embedding_records_pytorchs_node_and_leaves_the_padding_row_without_gradient():
    torch = pytest.importorskip("torch", reason="PyTorch 2.13 is the reference")
    found = []
    for m in (gradcli, torch):
        m.manual_seed(0)
        e = m.nn.Embedding(3, 2, padding_idx=0)
        y = e(m.tensor([[0, 1], [0, 2]]))
        (y * m.arange(8.0).reshape(2, 2, 2)).sum().backward()
        found.append((y.grad_fn.name(), e.weight.grad.tolist()))
    assert found[0] == found[1]
    assert found[0][1][0] == [0.0, 0.0]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss_gradient_is_pytorchs_bit_for_bit_in_float32(reduction):
    # PyTorch's backward is (2/n * (x - y)) * grad; grad/n * 2 * (x - y) rounds otherwise
    # when the incoming gradient is not a power of two.
    def gradients(lib):
        lib.manual_seed(0)
        found = []
        for n in range(1, 40):
            x = (lib.randn(n) * 7).requires_grad_()
            y = (lib.randn(n) * 7).requires_grad_()
            loss = lib.nn.functional.mse_loss(x, y, reduction=reduction)
            loss.backward(lib.full_like(loss, 0.37))
            found.append(_bits(x.grad) + _bits(y.grad))
        return found

    assert gradients(gradcli) == gradients(torch)


CHANNEL_DROPOUT = """
torch.manual_seed(0)
for dt in (torch.float32, torch.float64):
    m = torch.nn.Dropout2d(0.3)
    x = torch.ones(3, 5, 2, 2, dtype=dt, requires_grad=True)
    y = m(x)
    print(m, y[:, :, 0, 0], type(y.grad_fn).__name__)
    y.sum().backward()
    print(x.grad[:, :, 1, 1])
    print(torch.nn.Dropout1d(p=0.5)(torch.ones(2, 6, 3, dtype=dt)))
    print(torch.nn.Dropout2d(0.5)(torch.ones(2, 4, 3, dtype=dt)))  # 3-d: (N, C, L)
    print(torch.nn.Dropout2d(0.5)(torch.ones(2, 4, dtype=dt)))  # 2-d: each entry
    print(torch.nn.Dropout1d(0.5)(torch.ones(4, 3, dtype=dt)))  # 2-d: (C, L)
    m.eval()
    print(m(x) is x, torch.nn.Dropout2d(1.0)(x).sum().item())
print(torch.rand(2))
"""


@pytest.mark.filterwarnings("ignore:dropout2d. Received a 2-D input")
def test_channel_dropout_draws_pytorchs_masks():
    assert run(CHANNEL_DROPOUT, gradcli) == run(CHANNEL_DROPOUT, torch)
