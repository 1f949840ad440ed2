"""Parameters and their containers against PyTorch 2.13, in a program as ``gradcli run``
runs it: ``type(p)`` prints ``<class 'torch.nn.parameter.Parameter'>``, a plain tensor's
``<class 'torch.Tensor'>``, ops on a parameter give plain tensors, and ``ParameterList``
and ``ParameterDict`` register, iterate and print as PyTorch's."""

from __future__ import annotations

import builtins
import contextlib
import io
import re
import textwrap

import pytest

from gradcli.torch import program_builtins

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
)

PROGRAM = """
import torch
nn = torch.nn
p = nn.Parameter(torch.tensor([1., 2.]))
print(type(p), isinstance(p, nn.Parameter), isinstance(p, torch.Tensor), type(p).__name__)
print(p, type(p) is nn.Parameter, type(p) is torch.Tensor)
print(repr(p * 2), type(p * 2), type(p.detach()), type(p.data), type(p + 1), type(p[0]))
print(nn.Parameter, torch.Tensor, type(torch.tensor(1.)) is torch.Tensor)
q = nn.Parameter(torch.zeros(2, 3, dtype=torch.float64), requires_grad=False)
print(q, type(q), q.requires_grad)
lin = nn.Linear(2, 1)
print([type(x).__name__ for x in lin.parameters()], type(lin.weight))
for param in nn.Conv2d(1, 2, 3).parameters():
    print(type(param), param.size())
print(type(3), type("s"), type(type), isinstance(int, type), type("A", (), {"x": 1})().x)
class Meta(type):
    pass
class WithMeta(metaclass=Meta):
    pass
print(type(WithMeta).__name__, isinstance(WithMeta, type))
pl = nn.ParameterList([nn.Parameter(torch.ones(2)), torch.zeros(3, 2)])
print(pl, type(pl[1]))
pd = nn.ParameterDict({"a": nn.Parameter(torch.ones(2)), "b": torch.zeros(3)})
print(pd, type(pd["b"]))
class M(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.ps = nn.ParameterList([nn.Parameter(torch.randn(2)) for _ in range(3)])
        self.pd = nn.ParameterDict({"w": nn.Parameter(torch.ones(1))})
    def forward(self, x):
        return sum(p.sum() for p in self.ps) * x + self.pd["w"]
m = M()
print(m)
print([n for n, _ in m.named_parameters()], list(m.state_dict()))
print(len(m.ps), m.ps[1].shape, list(m.pd.keys()), "w" in m.pd, len(m.ps[:2]))
m.ps.append(nn.Parameter(torch.ones(4)))
m.pd["v"] = nn.Parameter(torch.ones(2, 2, dtype=torch.float64))
print(m.ps, m.pd, len(list(m.parameters())))
y = m(torch.tensor(2.))
y.sum().backward()
print(y, m.ps[0].grad, m.pd["w"].grad)
print(p.clone(), type(p.clone()))
"""


def _run(lib_builtins):
    out = io.StringIO()
    namespace = {"__name__": "__main__", "__builtins__": lib_builtins}
    with contextlib.redirect_stdout(out):
        exec(compile(textwrap.dedent(PROGRAM), "<program>", "exec"), namespace)
    return re.sub(r" at 0x[0-9a-f]+>", " at 0x...>", out.getvalue())


def test_parameters_and_their_containers_print_as_pytorchs():
    assert _run(program_builtins()) == _run(dict(vars(builtins)))
