"""``gradcli graph`` and ``--steps``: the graph of the tutorials' programs and the
samples against PyTorch's own graph (``grad_fn``, ``next_functions``, the gradient
each node receives), DOT read back by Graphviz, and the steps of the reverse pass
against hand derivations."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from gradcli import api

SAMPLES = Path(__file__).resolve().parent.parent / "samples"

# ----------------------------------------------------------------------------
# The same programs in PyTorch
# ----------------------------------------------------------------------------


def _square(torch, v):
    return (v["x"] + 2) ** 2 + 3


def _quadratic(torch, v):
    return v["x"] ** 2 + 2 * v["x"] + 1


def _vector(torch, v):
    # The language's element assignment has value semantics: a copy, then CopySlices.
    x = v["x"]
    k = torch.zeros_like(x).clone()
    k[0] = x[0] ** 2 + 3 * x[1]
    k = k.clone()
    k[1] = 2 * x[0] + x[1] ** 2
    return k


def _mean_loss(torch, v):
    return torch.mean(v["y1"] - v["x1"] @ v["W"])


def _rosenbrock(torch, v):
    a, b = torch.tensor(1.0, dtype=torch.float64), torch.tensor(100.0, dtype=torch.float64)
    return (a - v["x"]) ** 2 + b * (v["y"] - v["x"] ** 2) ** 2


def _logistic(torch, v):
    X = torch.tensor([[1, 2], [2, 0.5], [-1, -1.5], [0.5, -2]], dtype=torch.float64)
    t = torch.tensor([1.0, 1, 0, 0], dtype=torch.float64)
    p = torch.sigmoid(X @ v["w"] + v["c"])
    return -torch.mean(t * torch.log(p) + (1 - t) * torch.log(1 - p))


def _softmax_ce(torch, v):
    target = torch.tensor([0.0, 1, 0], dtype=torch.float64)
    return -torch.sum(target * torch.log_softmax(v["z"], dim=0))


def _polar(torch, v):
    r, theta = v["r"], v["θ"]
    return torch.stack([r * torch.cos(theta), r * torch.sin(theta)])


def _network(torch, v):
    x = torch.tensor(
        [[0.5, -1.0, 2.0], [1.5, 0.2, -0.3], [-0.7, 0.9, 0.4], [0.0, -1.2, 1.1], [2.0, 0.3, -1.5]],
        dtype=torch.float64,
    )
    y = torch.tensor([[1.0], [0.0], [0.5], [-0.5], [1.5]], dtype=torch.float64)
    h = torch.tanh(x @ v["W1"] + v["b1"])
    out = h @ v["W2"] + v["b2"]
    return torch.mean((out - y) ** 2)


# (source or sample, bindings, grad_output, the program in torch)
PROGRAMS = {
    "tutorial_square": ("tutorial_square.grad", {}, None, _square),
    "tutorial_quadratic": ("tutorial_quadratic.grad", {}, None, _quadratic),
    "tutorial_quadratic_vector": ("tutorial_quadratic.grad", {"x": "[2, 3]"}, "[1, 1]", _quadratic),
    "tutorial_vector": ("tutorial_vector.grad", {}, "[1, 0]", _vector),
    "tutorial_mean_loss": ("tutorial_mean_loss.grad", {}, None, _mean_loss),
    "rosenbrock": ("rosenbrock.grad", {}, None, _rosenbrock),
    "logistic_regression": ("logistic_regression.grad", {}, None, _logistic),
    "softmax_cross_entropy": ("softmax_cross_entropy.grad", {}, None, _softmax_ce),
    "polar_to_cartesian": ("polar_to_cartesian.grad", {}, "[1, 0]", _polar),
    "two_layer_network": ("two_layer_network.grad", {}, None, _network),
    # The tutorials' other graphs: z = x + y, x.view(4), retain_graph's y.
    "tutorial_add": ("x + y", {"x": "[1, 2, 3]", "y": "[4, 5, 6]"}, "[1, 1, 1]", None),
    "tutorial_view": ("x.view(4)", {"x": "[[1, 2], [3, 4]]"}, "[1, 2, 3, 4]", None),
    "tutorial_retain": ("x**2 + x*2 + 3", {"x": 3}, None, None),
}
PROGRAMS["tutorial_add"] = (*PROGRAMS["tutorial_add"][:3], lambda torch, v: v["x"] + v["y"])
PROGRAMS["tutorial_view"] = (*PROGRAMS["tutorial_view"][:3], lambda torch, v: v["x"].view(4))
PROGRAMS["tutorial_retain"] = (
    *PROGRAMS["tutorial_retain"][:3],
    lambda torch, v: v["x"] ** 2 + v["x"] * 2 + 3,
)


def _source(name):
    text, bindings, grad_output, build = PROGRAMS[name]
    path = SAMPLES / text
    if path.exists():
        return path.read_text(), str(path), bindings, grad_output, build
    return text, "<expr>", bindings, grad_output, build


def _torch_graph(torch, build, point, grad_output):
    """PyTorch's graph of ``build``, walked as gradcli walks its own (depth first along
    ``next_functions``, each node once): ``(name, value, grad, inputs)`` per node."""
    from torch.overrides import TorchFunctionMode

    class Values(TorchFunctionMode):
        """The value of each grad_fn's tensor, as the program makes it."""

        def __init__(self):
            super().__init__()
            self.values = {}

        def __torch_function__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            made = [out] if isinstance(out, torch.Tensor) else []
            if args and isinstance(args[0], torch.Tensor):  # k[0] = ... changes k
                made.append(args[0])
            for t in made:
                if t.grad_fn is not None and t.grad_fn not in self.values:
                    self.values[t.grad_fn] = t.detach().clone()
            return out

    leaves = {
        n: torch.tensor(np.array(a), dtype=torch.float64, requires_grad=True)
        for n, a in point.items()
    }
    with Values() as recorded:
        out = build(torch, leaves)
    order, index, stack = [], {}, [out.grad_fn]
    while stack:
        fn = stack.pop()
        if fn in index:
            continue
        index[fn] = len(order)
        order.append(fn)
        stack.extend(f for f, _ in reversed(fn.next_functions) if f is not None)
    received = {}
    for fn in order:
        if type(fn).__name__ != "AccumulateGrad":
            fn.register_prehook(lambda grads, fn=fn: received.__setitem__(fn, grads[0]))
    v = torch.ones_like(out) if grad_output is None else torch.tensor(grad_output, dtype=out.dtype)
    out.backward(v)
    nodes = []
    for fn in order:
        name = type(fn).__name__
        if name == "AccumulateGrad":
            value, grad = fn.variable.detach(), fn.variable.grad
        else:
            value, grad = recorded.values[fn], received.get(fn)
        inputs = [index[f] for f, _ in fn.next_functions if f is not None]
        grad = None if grad is None else grad.numpy()
        nodes.append((name, value.numpy(), grad, inputs))
    return nodes


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_graph_is_pytorchs_graph(name):
    torch = pytest.importorskip("torch")
    source, filename, bindings, grad_output, build = _source(name)
    graph = api.graph(source, bindings, grad_output=grad_output, filename=filename)
    point = {n.leaf: n.value for n in graph.nodes if n.leaf is not None}
    v = None if grad_output is None else json.loads(grad_output)
    expected = _torch_graph(torch, build, point, v)
    assert [n.name for n in graph.nodes] == [e[0] for e in expected]
    assert len(graph.nodes) == len(expected)
    for node, (_, value, grad, inputs) in zip(graph.nodes, expected):
        np.testing.assert_allclose(node.value, value, rtol=1e-12, atol=1e-14, err_msg=node.name)
        np.testing.assert_allclose(node.grad, grad, rtol=1e-12, atol=1e-14, err_msg=node.name)
        assert [i for i in node.inputs if i is not None] == inputs, node.name
    assert len(graph.edges) == sum(len(e[3]) for e in expected)


def test_every_op_node_knows_its_source_text():
    source = (SAMPLES / "tutorial_vector.grad").read_text()
    graph = api.graph(source, grad_output="[1, 0]")
    texts = {n.name + " " + (n.text or "") for n in graph.nodes if n.leaf is None}
    assert "CopySlices k[0] = x[0]**2 + 3*x[1]" in texts
    assert "CopySlices k[1] = 2*x[0] + x[1]**2" in texts
    assert "PowBackward0 x[1]**2" in texts
    # Brackets the parser leaves out of a span are put back.
    graph = api.graph("(x+2)**2+3", {"x": 2})
    assert [n.text for n in graph.nodes] == ["(x+2)**2+3", "(x+2)**2", "x+2", None]
    spans = [(n.span.line, n.span.column, n.span.end_column) for n in graph.nodes[:3]]
    assert spans == [(1, 1, 10), (1, 1, 8), (1, 2, 4)]


# ----------------------------------------------------------------------------
# The command: tree, plain, json, dot
# ----------------------------------------------------------------------------


def test_tree_draws_a_node_reached_twice_once(gradcli):
    result = gradcli("graph", "x*y + x", "--x", "2", "--y", "3", "--format", "table")
    assert result.exit_code == 0, result.output
    lines = [line.rstrip() for line in result.stdout.splitlines()]
    assert lines == [
        "x*y + x",
        "[0] AddBackward0  x*y + x  at 1:1  shape ()  value 8  grad 1",
        "├── [1] MulBackward0  x*y  at 1:1  shape ()  value 6  grad 1",
        "│   ├── [2] x  leaf (AccumulateGrad)  shape ()  value 2  .grad 4",
        "│   └── [3] y  leaf (AccumulateGrad)  shape ()  value 3  .grad 2",
        "└── [2] x  (drawn above)",
    ]


def test_plain_is_one_line_per_node(gradcli):
    result = gradcli("graph", "samples/tutorial_square.grad")
    assert result.stdout.splitlines() == [
        "[0] AddBackward0  (x + 2)**2 + 3  at 7:1  shape ()  value 19  grad 1  inputs 1",
        "[1] PowBackward0  (x + 2)**2  at 7:1  shape ()  value 16  grad 1  inputs 2",
        "[2] AddBackward0  x + 2  at 7:2  shape ()  value 4  grad 8  inputs 3",
        "[3] x  shape ()  value 2  .grad 8",
    ]


def test_large_values_are_summarised_in_the_tree(gradcli):
    result = gradcli("graph", "sum(x * 2)", "--x", "linspace(0, 1, 2000)", "--format", "table")
    lines = result.stdout.splitlines()
    assert lines[2].startswith("└── [1] MulBackward0  x * 2  at 1:5  shape (2000,)  value [0 ")
    assert "0.0010005 ... 0.998999" in result.stdout and ".grad [2 2 2 ... 2 2 2]" in result.stdout


def test_json_has_nodes_and_edges(gradcli_json):
    out = gradcli_json("graph", "sin(x) * x", "--x", "0.5")
    assert [n["name"] for n in out["nodes"]] == ["MulBackward0", "SinBackward0", "AccumulateGrad"]
    x = out["nodes"][2]
    assert x["leaf"] == "x" and x["value"] == 0.5 and x["shape"] == []
    assert x["grad"] == pytest.approx(np.sin(0.5) + 0.5 * np.cos(0.5), rel=1e-15)
    assert out["nodes"][1] | {"value": 0} == {
        "id": 1, "name": "SinBackward0", "leaf": None, "text": "sin(x)", "line": 1,
        "column": 1, "end": 6, "shape": [], "value": 0, "grad": 0.5, "inputs": [2],
    }  # fmt: skip
    assert out["edges"] == [{"from": 1, "to": 0}, {"from": 2, "to": 0}, {"from": 2, "to": 1}]


def test_a_vector_output_without_grad_output_has_no_gradients(gradcli_json):
    out = gradcli_json("graph", "x * 2", "--x", "[1, 2]")
    assert [n["grad"] for n in out["nodes"]] == [None, None]


def test_a_constant_output_has_no_graph(gradcli):
    result = gradcli("graph", "2 + 3", "--format", "table")
    assert result.exit_code == 0
    assert "the output is a constant" in result.stdout


def _dot_counts(text: str) -> tuple[int, int]:
    """Nodes and edges of DOT text, as Graphviz itself reads it (``dot -Tplain``)."""
    done = subprocess.run(
        ["dot", "-Tplain"], input=text, capture_output=True, text=True, check=True
    )
    lines = done.stdout.splitlines()
    return sum(x.startswith("node ") for x in lines), sum(x.startswith("edge ") for x in lines)


needs_dot = pytest.mark.skipif(
    shutil.which("dot") is None, reason="Graphviz's dot is not installed (apt-get install graphviz)"
)


@needs_dot
@pytest.mark.parametrize("name", ["tutorial_vector", "two_layer_network", "logistic_regression"])
def test_dot_is_read_back_by_graphviz(gradcli, name):
    source, filename, bindings, grad_output, _ = _source(name)
    args = [filename if filename != "<expr>" else source, "--format", "dot"]
    args += [f"--{k}={v}" for k, v in bindings.items()]
    if grad_output is not None:
        args += ["--grad-output", grad_output]
    result = gradcli("graph", *args)
    assert result.exit_code == 0, result.output
    graph = api.graph(source, bindings, grad_output=grad_output, filename=filename)
    assert _dot_counts(result.stdout) == (len(graph.nodes), len(graph.edges))
    assert result.stdout.count(" -> ") == len(graph.edges)


@needs_dot
def test_output_renders_an_svg(gradcli, tmp_path):
    target = tmp_path / "graph.svg"
    result = gradcli("graph", "samples/tutorial_square.grad", "--output", target)
    assert result.exit_code == 0, result.output
    svg = target.read_text()
    assert "<svg" in svg and svg.count('class="node"') == 4 and svg.count('class="edge"') == 3


def test_output_without_graphviz_says_how_to_install_it(gradcli, tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    result = gradcli("graph", "x**2", "--x", "1", "--output", tmp_path / "g.svg")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: --output ")
    assert "apt-get install graphviz" in result.stderr
    assert not (tmp_path / "g.svg").exists()


def test_output_dot_file_needs_no_graphviz(gradcli, tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    result = gradcli("graph", "x**2", "--x", "1", "--output", tmp_path / "g.dot")
    assert result.exit_code == 0
    assert (tmp_path / "g.dot").read_text().startswith("digraph autograd {")


def test_output_of_another_kind_is_refused(gradcli, tmp_path):
    result = gradcli("graph", "x**2", "--x", "1", "--output", tmp_path / "g.npz")
    assert result.exit_code == 2
    assert "must end in .svg, .png, .pdf or .dot" in result.stderr


# ----------------------------------------------------------------------------
# --steps: the reverse pass, against hand derivations
# ----------------------------------------------------------------------------


def test_steps_of_the_first_tutorial_example(gradcli):
    # y = (x+2)**2 + 3 at 2: dy/dy = 1; the add passes 1 on; the power sends
    # 2*(x+2)*1 = 8; the inner add passes 8 to x.
    result = gradcli("grad", "(x+2)**2+3", "--x", "2", "--steps", "--format", "plain")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "backward, in the order the engine ran it:",
        "1. AddBackward0 (x+2)**2+3  received 1",
        "   d(a+b)/da = 1  -> PowBackward0 (x+2)**2: 1",
        "2. PowBackward0 (x+2)**2  received 1",
        "   d(a**p)/da = p*a**(p-1), a = 4, p = 2  -> AddBackward0 x+2: 8",
        "3. AddBackward0 x+2  received 8",
        "   d(a+b)/da = 1  -> x.grad = 8",
        "value 19",
        "grad.x 8",
    ]


def test_steps_accumulate_where_paths_meet(gradcli_json):
    # y = x**2 + x*2 + 3 at 3: the power sends 2x = 6 to x, the product 2; x.grad
    # is their sum 8, whichever the engine runs first.
    out = gradcli_json("grad", "x**2 + x*2 + 3", "--x", "3", "--steps")
    to_x = [s for step in out["steps"] for s in step["sends"] if s["name"] == "x"]
    assert sorted(s["grad"] for s in to_x) == [2, 6]
    assert [s["total"] for s in to_x] == [None, 8]
    assert [step["received"] for step in out["steps"]] == [1, 1, 1, 1]
    rules = {s["rule"]: s["operands"] for step in out["steps"] for s in step["sends"]}
    assert rules["d(a**p)/da = p*a**(p-1)"] == {"a": 3, "p": 2}
    assert rules["d(a*b)/da = b"] == {"b": 2}
    assert rules["d(a+b)/da = 1"] == {}


def test_steps_of_vjp_follow_the_tutorials_backward(gradcli_json):
    # k.backward([1, 0]): only k[0] = x0**2 + 3*x1 gets 1, so x.grad = [2*x0, 3] = [4, 3];
    # the second row's nodes receive 0.
    out = gradcli_json("vjp", "samples/tutorial_vector.grad", "--grad-output", "[1, 0]", "--steps")
    assert out["vjp"]["x"] == [4, 3]
    first = out["steps"][0]
    assert first["name"] == "CopySlices" and first["received"] == [1, 0]
    sends_to_x = [s for step in out["steps"] for s in step["sends"] if s["name"] == "x"]
    assert sends_to_x[-1]["total"] == [4, 3]
    received = {(step["name"], step["text"]): step["received"] for step in out["steps"]}
    assert received[("PowBackward0", "x[0]**2")] == 1
    assert received[("PowBackward0", "x[1]**2")] == 0
    assert received[("MulBackward0", "3*x[1]")] == 1


def test_steps_plain_shows_the_accumulation(gradcli):
    result = gradcli("grad", "x*x", "--x", "3", "--steps", "--format", "plain")
    assert result.stdout.splitlines()[2:4] == [
        "   d(a*b)/da = b, b = 3  -> x.grad = 3",
        "   d(a*b)/db = a, a = 3  -> x.grad += 3 -> 6",
    ]


def test_steps_without_an_operation(gradcli):
    result = gradcli("grad", "x", "--x", "2", "--steps", "--format", "plain")
    assert result.stdout.splitlines() == [
        "backward: no operation lies between the output and the inputs",
        "value 2",
        "grad.x 1",
    ]


def test_steps_table(gradcli):
    result = gradcli("grad", "x*x", "--x", "3", "--steps", "--format", "table")
    assert result.exit_code == 0
    text = result.stdout
    assert "backward, in the order the engine ran it" in text
    assert "d(a*b)/da = b" in text and "d(a*b)/db = a" in text
    assert "+= 3 → 6" in text


def test_steps_do_not_change_results():
    plain = api.gradient("x * sin(x)", {"x": 0.7})
    stepped = api.gradient("x * sin(x)", {"x": 0.7}, steps=True)
    assert plain.grad["x"] == stepped.grad["x"] and plain.value == stepped.value
    assert plain.graph is None and len(stepped.graph.steps) == 2


def test_trace_a_tensor_built_with_the_library():
    import gradcli as torch
    from gradcli.autograd.traced import trace

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    graph = trace(y, torch.tensor(1.0), {"x": x})
    assert [n.name for n in graph.nodes] == ["SumBackward0", "MulBackward0", "AccumulateGrad"]
    assert graph.nodes[2].leaf == "x" and graph.nodes[2].grad.tolist() == [2.0, 4.0]
    # d(x*x)/dx through both operands: 2x = [2, 4], the second send adding to the first.
    sends = graph.steps[1].sends
    assert [s.grad.tolist() for s in sends] == [[1.0, 2.0], [1.0, 2.0]]
    assert sends[1].total.tolist() == [2.0, 4.0]
    assert x.grad is None


def test_graph_arrays_are_read_only():
    graph = api.graph("x * sin(x)", {"x": 0.5})
    arrays = [a for n in graph.nodes for a in (n.value, n.grad)]
    arrays += [a for step in graph.steps for s in step.sends for a in (s.grad, s.total)]
    assert all(not a.flags.writeable for a in arrays if a is not None)


def test_wrt_chooses_the_leaves(gradcli_json):
    # y is not differentiated: PyTorch's graph has None where y would be.
    out = gradcli_json("graph", "x*y", "--x", "1", "--y", "2", "--wrt", "x")
    assert [n["name"] for n in out["nodes"]] == ["MulBackward0", "AccumulateGrad"]
    assert out["nodes"][0]["inputs"] == [1, None] and out["nodes"][1]["grad"] == 2


def test_strict_graph_exits_3_on_a_nonfinite_gradient(gradcli):
    result = gradcli("graph", "sqrt(x)", "--x", "0", "--strict")
    assert result.exit_code == 3
    assert "note: sqrt is evaluated at 0" in result.stderr


def test_the_picture_of_a_graph_of_matrices_summarises_them(gradcli, tmp_path):
    """Large values are their first entries, min and max, and no line of a node is
    wider than 40 characters: the network's picture keeps a readable width."""
    import re

    dot_text = gradcli("graph", "samples/two_layer_network.grad", "--format", "dot").stdout
    nodes = json.loads(
        gradcli("graph", "samples/two_layer_network.grad", "--format", "json").stdout
    )["nodes"]
    labels = {
        int(n): label.split("\\n") for n, label in re.findall(r'n(\d+) \[label="([^"]*)"', dot_text)
    }
    assert all(len(line) <= 40 for lines in labels.values() for line in lines)
    w1 = next(node for node in nodes if node["leaf"] == "W1")
    lines = labels[w1["id"]]
    value = np.array(w1["value"])
    assert "shape (3, 4)" in lines
    assert lines[lines.index("shape (3, 4)") + 1].startswith(f"value [{value[0, 0]:.4g} ")
    assert f"  min {value.min():.4g}, max {value.max():.4g}" in lines
    b1 = next(node for node in nodes if node["leaf"] == "b1")
    assert "value [0 0 0 0]" in labels[b1["id"]]
    if shutil.which("dot") is None:
        return
    path = tmp_path / "g.png"
    assert gradcli("graph", "samples/two_layer_network.grad", "--output", path).exit_code == 0
    width = int.from_bytes(path.read_bytes()[16:20], "big")
    assert width < 1600  # 3799 with every matrix on one line
