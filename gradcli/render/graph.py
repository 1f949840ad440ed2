"""The autograd graph (``gradcli graph``) and the steps of a reverse pass
(``--steps``), in every format: a Rich tree, plain lines, JSON, Graphviz DOT.

These lay out what ``api.graph`` and ``api.gradient(steps=True)`` computed: a
``GraphResult`` whose nodes (output first) each hold their grad_fn name, source
text, value and the gradient that reached them, and whose steps hold what each
node received and sent. Rich is imported only for the tree and the table.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np

from ..errors import GradcliError
from .jsontext import diagnostics_json, encode, json_int
from .jsontext import string as json_string
from .numbers import flat_numbers, format_array, format_number, shape_text
from .terminal import MIN_WIDTH, shown_text

DEFAULT_PRECISION = 6
_NO_STEPS = "backward: no operation lies between the output and the inputs"
GRAPHVIZ_FORMATS = ("svg", "png", "pdf")
_INSTALL_GRAPHVIZ = (
    "install Graphviz: `apt-get install graphviz` (Debian, Ubuntu), `brew install graphviz` "
    "(macOS), or see https://graphviz.org/download/; or write --output FILE.dot"
)


#: The formats of a graph (``gradcli graph --format``, the calculator's ``:graph``).
FORMATS = ("table", "plain", "json", "dot")


def render_graph(graph, fmt: str, stream, precision: int | None = None) -> None:
    """Write ``graph`` (an ``api.GraphResult``) to ``stream`` as ``fmt``: table (a tree),
    plain, json or dot."""
    {"table": _tree, "plain": _plain, "json": _json, "dot": _dot_to}[fmt](graph, stream, precision)


# ----------------------------------------------------------------------------
# Text shared by the formats
# ----------------------------------------------------------------------------


def _numbers(array, precision: int | None) -> str:
    """An array on one line, summarised when large, as tables show it."""
    text = format_array(array, DEFAULT_PRECISION if precision is None else precision)
    # On one line, the padding that aligns a grid's columns is noise.
    return re.sub(r"\s+", " ", text).replace("[ ", "[").replace(" ]", "]")


def _place(node) -> str | None:
    return None if node.span is None else f"{node.span.line}:{node.span.column}"


def _name(node) -> str:
    """``x`` for a leaf, ``PowBackward0 (x+2)**2`` for an op."""
    if node.leaf is not None:
        return node.leaf
    return node.name if node.text is None else f"{node.name} {node.text}"


def _fields(node, precision: int | None) -> list[tuple[str, str]]:
    """``(label, text)`` of what a node shows besides its name."""
    fields = []
    if node.leaf is not None:
        fields.append(("", "leaf (AccumulateGrad)"))
    elif node.text is not None:
        fields.append(("", node.text))
    if _place(node) is not None:
        fields.append(("at", _place(node)))
    fields.append(("shape", shape_text(node.value.shape)))
    fields.append(("value", _numbers(node.value, precision)))
    if node.grad is not None:
        fields.append(
            (".grad" if node.leaf is not None else "grad", _numbers(node.grad, precision))
        )
    return fields


# ----------------------------------------------------------------------------
# table: a Rich tree from the output down to the leaves
# ----------------------------------------------------------------------------


def _tree(graph, stream, precision) -> None:
    from rich.console import Console
    from rich.text import Text
    from rich.tree import Tree

    console = Console(file=stream, highlight=False)
    if console.width < MIN_WIDTH:
        console.width = 80 if console.width <= 0 else MIN_WIDTH
    encoding = console.encoding

    def label(node) -> Text:
        text = Text(f"[{node.id}] ", style="dim")
        if node.leaf is not None:
            text.append(shown_text(node.leaf, encoding), style="bold green")
        else:
            text.append(node.name, style="bold cyan")
        for name, value in _fields(node, precision):
            text.append("  ")
            if name:
                text.append(name + " ", style="dim")
            text.append(shown_text(value, encoding))
        return text

    title = Text(shown_text(graph.title, encoding), style="bold")
    if not graph.nodes:
        console.print(title)
        console.print("the output is a constant: no input it depends on requires grad")
        return
    nodes = graph.nodes
    root = Tree(label(nodes[0]), guide_style="dim")
    drawn = {0}
    # Depth first, in the order of the ids; an explicit stack, not recursion: a graph
    # may be deeper than Python's stack. A node met again is referred to by its id.
    stack = [(root, child) for child in reversed(nodes[0].inputs) if child is not None]
    while stack:
        parent, child = stack.pop()
        node = nodes[child]
        if child in drawn:
            ref = Text(f"[{child}] ", style="dim").append(shown_text(_name(node), encoding))
            parent.add(ref.append("  (drawn above)", style="dim"))
            continue
        drawn.add(child)
        branch = parent.add(label(node))
        stack.extend((branch, c) for c in reversed(node.inputs) if c is not None)
    console.print(title)
    console.print(root)


# ----------------------------------------------------------------------------
# plain: one line per node
# ----------------------------------------------------------------------------


def _plain(graph, stream, precision) -> None:
    """``[id] name  field value  ...  inputs [ids]``, fields separated by two spaces."""
    for node in graph.nodes:
        parts = [f"[{node.id}] {node.leaf if node.leaf is not None else node.name}"]
        if node.leaf is None and node.text is not None:
            parts.append(node.text)
        if _place(node) is not None:
            parts.append(f"at {_place(node)}")
        parts.append(f"shape {shape_text(node.value.shape)}")
        parts.append("value " + " ".join(flat_numbers(node.value, precision)))
        if node.grad is not None:
            label = ".grad" if node.leaf is not None else "grad"
            parts.append(f"{label} " + " ".join(flat_numbers(node.grad, precision)))
        inputs = [str(i) for i in node.inputs if i is not None]
        if inputs:
            parts.append(f"inputs {' '.join(inputs)}")
        stream.write("  ".join(parts) + "\n")


# ----------------------------------------------------------------------------
# json
# ----------------------------------------------------------------------------


def _json(graph, stream, precision) -> None:
    """``{"nodes": [...], "edges": [{"from", "to"}], "warnings": [...], "notes": [...]}``."""
    nodes = ", ".join(_node_json(node, precision) for node in graph.nodes)
    edges = ", ".join(f'{{"from": {a}, "to": {b}}}' for a, b in graph.edges)
    parts = [f'"nodes": [{nodes}]', f'"edges": [{edges}]']
    parts += diagnostics_json(graph)
    stream.write("{" + ", ".join(parts) + "}\n")


def _node_json(node, precision) -> str:
    span = node.span
    fields = {
        "id": str(node.id),
        "name": json_string(node.name),
        "leaf": _json_text(node.leaf),
        "text": _json_text(node.text),
        "line": json_int(None if span is None else span.line),
        "column": json_int(None if span is None else span.column),
        "end": json_int(None if span is None else span.end_column),
        "shape": "[" + ", ".join(str(n) for n in node.value.shape) + "]",
        "value": encode(node.value, precision),
        "grad": "null" if node.grad is None else encode(node.grad, precision),
        "inputs": "[" + ", ".join(json_int(i) for i in node.inputs) + "]",
    }
    return "{" + ", ".join(f'"{key}": {value}' for key, value in fields.items()) + "}"


def _json_text(text) -> str:
    return "null" if text is None else json_string(text)


# ----------------------------------------------------------------------------
# dot: Graphviz
# ----------------------------------------------------------------------------


def _dot_to(graph, stream, precision) -> None:
    stream.write(dot(graph, precision))


def dot(graph, precision: int | None = None) -> str:
    """The graph in Graphviz's DOT language: edges from inputs to outputs, leaves
    (inputs) as green ellipses, the output in blue, the other nodes as boxes."""
    lines = [
        "digraph autograd {",
        f"  label={_dot_string(graph.title)};",
        '  labelloc="t";',
        '  node [shape=box, style="rounded,filled", fillcolor="#f2f2f2", fontname="Helvetica"];',
        '  edge [color="#555555"];',
    ]
    for node in graph.nodes:
        rows = [node.leaf if node.leaf is not None else node.name]
        for name, value in _fields(node, precision):
            if name in ("value", "grad", ".grad"):
                array = node.value if name == "value" else node.grad
                rows.extend(_summary(name, array, precision))
            else:
                rows.append(_cut(f"{name} {value}".strip()))
        style = ""
        if node.leaf is not None:
            style = ', shape=ellipse, fillcolor="#c7e9c0"'
        elif node.id == 0:
            style = ', fillcolor="#c6dbef", penwidth=2'
        label = "\\n".join(_dot_escape(row) for row in rows)
        lines.append(f'  n{node.id} [label="{label}"{style}];')
    for a, b in graph.edges:
        lines.append(f"  n{a} -> n{b};")
    lines.append("}")
    return "\n".join(lines) + "\n"


#: In a picture, an array of more entries than this is summarised, and no line of
#: a node is longer than DOT_WIDTH characters: a graph of matrices stays readable.
DOT_ENTRIES = 4
DOT_WIDTH = 40


def _summary(name: str, array, precision: int | None) -> list[str]:
    """``value 1.5`` or, for a large array, its range and its first entries."""
    array = np.asarray(array)
    if array.ndim == 0:
        return [_cut(f"{name} {_numbers(array, precision)}")]
    digits = min(4, DEFAULT_PRECISION if precision is None else precision)
    flat = array.reshape(-1)
    if flat.size <= DOT_ENTRIES:  # the entries in order; the shape is on its own line
        return [_cut(f"{name} [{' '.join(format_number(x, digits) for x in flat)}]")]
    finite = flat[np.isfinite(flat)] if flat.dtype.kind in "fc" else flat
    first = " ".join(format_number(x, digits) for x in flat[:3])
    rows = [_cut(f"{name} [{first} …]")]
    if finite.size:
        low, high = format_number(finite.min(), digits), format_number(finite.max(), digits)
        rows.append(_cut(f"  min {low}, max {high}"))
    return rows


def _cut(text: str) -> str:
    return text if len(text) <= DOT_WIDTH else text[: DOT_WIDTH - 1] + "…"


def _dot_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def _dot_string(text: str) -> str:
    return f'"{_dot_escape(text)}"'


def write_image(graph, path: str, precision: int | None = None) -> None:
    """Render the graph into ``path`` (.svg, .png, .pdf) with Graphviz's ``dot``, or
    write its DOT text (.dot, .gv). Raises GradcliError when ``dot`` is missing or fails."""
    from ..core.atomic import atomic_output

    text = dot(graph, precision)
    kind = path.rpartition(".")[2].lower()
    if kind in ("dot", "gv"):
        try:
            with atomic_output(path, "w", encoding="utf-8") as stream:
                stream.write(text)
        except OSError as error:
            raise GradcliError(f"cannot write {path}: {error.strerror or error}") from None
        return
    if kind not in GRAPHVIZ_FORMATS:
        raise GradcliError(f"--output {path}: the file name must end in .svg, .png, .pdf or .dot")
    program = shutil.which("dot")
    if program is None:
        raise GradcliError(f"--output {path} needs Graphviz's dot program: {_INSTALL_GRAPHVIZ}")
    try:
        with atomic_output(path) as stream:
            done = subprocess.run(
                [program, f"-T{kind}"],
                input=text.encode("utf-8"),
                stdout=stream,
                stderr=subprocess.PIPE,
                check=False,
            )
            if done.returncode != 0:
                reason = done.stderr.decode("utf-8", "replace").strip().splitlines()
                raise GradcliError(
                    f"cannot write {path}: dot failed: {reason[-1] if reason else ''}"
                )
    except OSError as error:
        raise GradcliError(f"cannot write {path}: {error.strerror or error}") from None


# ----------------------------------------------------------------------------
# The steps of the reverse pass (grad --steps, vjp --steps)
# ----------------------------------------------------------------------------


def _parts(node) -> tuple[str, str | None]:
    """``(name, source text)`` of a node; ``("x.grad", None)`` for a leaf, which receives
    into its .grad."""
    if node.leaf is not None:
        return f"{node.leaf}.grad", None
    return node.name, node.text


def step_rows(graph, precision: int | None):
    """One row per send of each step: ``(number, node, received, rule, values, target,
    sent)``, the first three None on a step's second and later sends; ``node`` and
    ``target`` are ``_parts``; ``values`` the numbers the rule uses (``a = 4, p = 2``)."""
    nodes = graph.nodes
    rows = []
    for number, step in enumerate(graph.steps, 1):
        head = (str(number), _parts(nodes[step.node]), _numbers(step.received, precision))
        for i, send in enumerate(step.sends):
            sent = _numbers(send.grad, precision)
            if send.total is not None:  # where two paths meet
                sent = f"+= {sent} -> {_numbers(send.total, precision)}"
            values = ", ".join(
                f"{name} = {_numbers(value, precision)}" for name, value in send.operands
            )
            rule = send.rule or "(no rule in words)"
            target = _parts(nodes[send.to])
            rows.append((*(head if i == 0 else (None, None, None)), rule, values, target, sent))
    return rows


def _joined(parts, separator=" ") -> str:
    return separator.join(p for p in parts if p)


def render_steps_plain(graph, stream, precision: int | None = None) -> None:
    """The steps as indented lines: each node with what it received, then one line per
    input it sent to, with the rule and the gradient sent (``+=`` where paths meet)."""
    if not graph.steps:
        stream.write(f"{_NO_STEPS}\n")
        return
    stream.write("backward, in the order the engine ran it:\n")
    for number, node, received, rule, values, target, sent in step_rows(graph, precision):
        if number:
            stream.write(f"{number}. {_joined(node)}  received {received}\n")
        # x.grad = 2, then x.grad += 6 -> 8; a node: "PowBackward0 x**2: 1".
        joiner = " " if sent.startswith("+=") else " = " if target[0].endswith(".grad") else ": "
        stream.write(f"   {_joined((rule, values), ', ')}  -> {_joined(target)}{joiner}{sent}\n")


def render_steps_table(graph, console, precision: int | None = None) -> None:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    if not graph.steps:
        console.print(_NO_STEPS)
        return
    encoding = console.encoding
    unicode = encoding.lower().startswith("utf")
    table = Table(
        title="backward, in the order the engine ran it",
        box=box.ROUNDED,
        safe_box=not unicode,
        title_justify="left",
    )
    for header in ("", "node", "received", "rule", "sends to", "sends"):
        table.add_column(header)

    def cell(parts, style=None) -> Text:
        text = Text(shown_text(parts[0], encoding), style=style or "")
        if parts[1]:
            text.append("\n" + shown_text(parts[1], encoding))
        return text

    for number, node, received, rule, values, target, sent in step_rows(graph, precision):
        table.add_row(
            number,
            None if node is None else cell(node, "bold cyan"),
            received,
            cell((rule, values)),
            cell(target),
            Text(shown_text(sent.replace("->", "→") if unicode else sent, encoding)),
        )
    console.print(table)


def _operands_json(send, precision) -> str:
    """``{"b": 2}``: the numbers the rule uses."""
    items = (f"{json_string(name)}: {encode(value, precision)}" for name, value in send.operands)
    return "{" + ", ".join(items) + "}"


def steps_json(graph, precision: int | None = None) -> str:
    """``[{"node", "name", "text", "received", "sends": [{"to", "name", "rule", "operands",
    "grad", "total"}]}]``: ``total`` is the sum so far where paths meet, else null; a send's
    ``name`` is the node's ``name text``, or the input's name for a leaf."""
    nodes = graph.nodes
    steps = []
    for step in graph.steps:
        node = nodes[step.node]
        sends = ", ".join(
            f'{{"to": {send.to}, "name": {json_string(_name(nodes[send.to]))}, '
            f'"rule": {_json_text(send.rule)}, "operands": {_operands_json(send, precision)}, '
            f'"grad": {encode(send.grad, precision)}, '
            f'"total": {"null" if send.total is None else encode(send.total, precision)}}}'
            for send in step.sends
        )
        steps.append(
            f'{{"node": {node.id}, "name": {json_string(node.name)}, '
            f'"text": {_json_text(node.text)}, "received": {encode(step.received, precision)}, '
            f'"sends": [{sends}]}}'
        )
    return "[" + ", ".join(steps) + "]"
