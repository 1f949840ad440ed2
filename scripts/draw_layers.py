"""Draw gradcli's layers from its code: docs/layers.svg.

Reads the static import graph of ``gradcli/`` (every import, at any depth of the code: the
graph ``tests/test_structure.py`` checks), puts each module in its layer (``LAYERS``, top to
bottom) and draws a box per layer, with the packages it holds and their module counts, and an
arrow per pair of layers that import one another, labelled with the number of imports (module
imports module): downward arrows on the left, upward ones (against the layers) on the right,
in red. The output depends on the code alone, so tests/test_map.py can check that the file is
current. Pure Python, no Graphviz.

    python scripts/draw_layers.py          # rewrites docs/layers.svg
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "docs" / "layers.svg"

#: The layers, top to bottom: a title, and the modules it holds (a name and those under it).
LAYERS = [
    ("command line", ("gradcli.cli", "gradcli.__main__", "gradcli.torch")),
    ("library API", ("gradcli.api",)),
    ("analyses", ("gradcli.analysis",)),
    ("renderers", ("gradcli.render",)),
    ("core", ("gradcli.core",)),
    ("language", ("gradcli.language",)),
    ("PyTorch's API", ("gradcli", "gradcli.autograd", "gradcli.func", "gradcli.linalg",
                       "gradcli.nn", "gradcli.optim", "gradcli.special", "gradcli.utils")),
    ("engine", ("gradcli.engine",)),
    ("errors, records, BLAS start", ("gradcli.errors", "gradcli.record", "gradcli.blas_start")),
]  # fmt: skip


def import_graph() -> dict[str, set[str]]:
    """Each module of gradcli and the gradcli modules it imports (``imports_of``)."""
    for path in (ROOT, ROOT / "tests"):
        if str(path) not in sys.path:
            sys.path.insert(0, str(path))
    from test_structure import imports_of, module_names

    return {name: imports_of(name) for name in module_names()}


def package_of(module: str) -> str:
    """The package (or root module) a module is drawn under: ``gradcli.engine.ops.x`` is in
    ``gradcli.engine``; the namespace ``gradcli`` is itself."""
    return ".".join(module.split(".")[:2])


def layer_of(module: str) -> int:
    """The index in ``LAYERS`` of the layer that holds ``module``: its longest prefix."""
    best = None
    for index, (_, members) in enumerate(LAYERS):
        for member in members:
            if module == member or module.startswith(member + ".") and member != "gradcli":
                if best is None or len(member) > len(best[1]):
                    best = index, member
    if best is None:
        raise ValueError(f"{module} is in no layer of scripts/draw_layers.py's LAYERS")
    return best[0]


def layer_edges(graph: dict[str, set[str]]) -> Counter:
    """``{(from layer, to layer): imports}`` between different layers."""
    return Counter(
        (layer_of(module), layer_of(imported))
        for module, imports in graph.items()
        for imported in imports
        if layer_of(module) != layer_of(imported)
    )


def package_edges_within(graph: dict[str, set[str]]) -> Counter:
    """``{(package, package): imports}`` between packages of one layer."""
    return Counter(
        (package_of(module), package_of(imported))
        for module, imports in graph.items()
        for imported in imports
        if layer_of(module) == layer_of(imported) and package_of(module) != package_of(imported)
    )


# ----- drawing -----

WIDTH, LEFT, RIGHT = 980, 250, 730  # the boxes stand between LEFT and RIGHT
TOP, ROW, BOX = 70, 76, 58  # first box's top, one layer's height, a box's height
SPAN_WIDTH = 24  # how much further out an arc bulges per layer it spans


def _name(package: str) -> str:
    if package == "gradcli":
        return "__init__.py"
    short = package.split(".", 1)[1]
    return short + "/" if short not in ("api", "errors", "torch", "__main__") else short + ".py"


def _text(x, y, text, size=13, anchor="start", weight="normal", fill="#222"):
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
        f'font-weight="{weight}" fill="{fill}">{text}</text>'
    )


def _anchors(edges: Counter, side_up: bool) -> dict[tuple[int, int, int], float]:
    """The height at which each arc meets each box's side: ``{(from, to, box): y}``. On a box,
    the arcs that arrive come first, shortest first, then the arcs that leave, longest first,
    so that nested arcs do not cross."""
    at: dict[int, list[tuple[tuple, tuple[int, int]]]] = {}
    for source, target in sorted(edges):
        span = abs(target - source)
        at.setdefault(target, []).append(((0, span), (source, target)))
        at.setdefault(source, []).append(((1, -span), (source, target)))
    anchors = {}
    for box, arcs in at.items():
        arcs.sort()
        if side_up:  # upward arcs travel the other way: mirror the order
            arcs.reverse()
        top = TOP + box * ROW
        for k, (_, (source, target)) in enumerate(arcs):
            anchors[source, target, box] = top + BOX * (k + 1) / (len(arcs) + 1)
    return anchors


def _arcs(edges: Counter, up: bool) -> list[str]:
    parts = []
    x = RIGHT if up else LEFT
    sign = 1 if up else -1
    colour = "#c0392b" if up else "#444"
    anchors = _anchors(edges, up)
    for (source, target), count in sorted(edges.items()):
        span = abs(target - source)
        bulge = sign * (28 + SPAN_WIDTH * (span - 1))
        y0, y1 = anchors[source, target, source], anchors[source, target, target]
        dash = ' stroke-dasharray="6 3"' if up else ""
        parts.append(
            f'<path d="M {x:.1f} {y0:.1f} C {x + bulge:.1f} {y0:.1f} {x + bulge:.1f} {y1:.1f} '
            f'{x:.1f} {y1:.1f}" fill="none" stroke="{colour}" stroke-width="1.3"{dash} '
            f'marker-end="url(#{"up" if up else "down"})"/>'
        )
        apex_x, apex_y = x + 0.75 * bulge, (y0 + y1) / 2
        parts.append(
            f'<rect x="{apex_x - 11:.1f}" y="{apex_y - 8:.1f}" width="22" height="15" rx="3" '
            f'fill="white" stroke="{colour}" stroke-width="0.6"/>'
        )
        parts.append(_text(apex_x, apex_y + 4, str(count), size=10, anchor="middle", fill=colour))
    return parts


def draw(graph: dict[str, set[str]]) -> str:
    """The SVG text of the layers of ``graph``."""
    edges = layer_edges(graph)
    # The last layer (errors) is imported from every layer: its box says how often, an arc
    # from each would hide the others.
    last = len(LAYERS) - 1
    down = Counter({k: v for k, v in edges.items() if k[0] < k[1] != last})
    into_last = {k[0]: v for k, v in edges.items() if k[0] < k[1] == last}
    up = Counter({k: v for k, v in edges.items() if k[0] > k[1]})
    within = package_edges_within(graph)
    counts = Counter(package_of(module) for module in graph)
    height = TOP + len(LAYERS) * ROW + 40
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">',
        "<defs>",
        '<marker id="down" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto"><path d="M 0 0 L 10 5 L 0 10 z" fill="#444"/></marker>',
        '<marker id="up" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto"><path d="M 0 0 L 10 5 L 0 10 z" fill="#c0392b"/></marker>',
        "</defs>",
        f'<rect width="{WIDTH}" height="{height}" fill="white"/>',
        _text(WIDTH / 2, 24, "gradcli's layers and the imports between them", 16, "middle", "bold"),
        _text(
            WIDTH / 2,
            44,
            f"{len(graph)} modules; an arrow's number counts the imports (module imports module)"
            " from one layer into the other",
            11,
            "middle",
            fill="#555",
        ),
        _text(LEFT - 8, TOP - 8, "imports down", 11, "end", fill="#444"),
        _text(RIGHT + 8, TOP - 8, "imports up, against the layers", 11, "start", fill="#c0392b"),
    ]
    for index, (title, members) in enumerate(LAYERS):
        top = TOP + index * ROW
        modules = sum(counts[m] for m in members)
        parts.append(
            f'<rect x="{LEFT}" y="{top}" width="{RIGHT - LEFT}" height="{BOX}" rx="6" '
            'fill="#eef3fb" stroke="#4a6fa5" stroke-width="1.2"/>'
        )
        parts.append(_text(LEFT + 12, top + 20, title, 14, weight="bold"))
        parts.append(
            _text(RIGHT - 12, top + 20, f"{modules} module{'s' * (modules != 1)}", 11, "end")
        )
        packages = "  ".join(
            f"{_name(m)} {counts[m]}" if counts[m] > 1 else _name(m) for m in members
        )
        inside = [
            f"{_name(a)} → {_name(b)} {n}"
            for (a, b), n in sorted(within.items())
            if layer_of(a) == index
        ]
        parts.append(_text(LEFT + 12, top + 37, packages, 11, fill="#333"))
        if inside:
            parts.append(_text(LEFT + 12, top + 51, "inside: " + "  ".join(inside), 9, fill="#555"))
        if index == last and into_last:
            layers, imports = len(into_last), sum(into_last.values())
            said = f"imported by {layers} layer{'s' * (layers != 1)} above: {imports} import"
            said += "s" * (imports != 1)
            parts.append(_text(LEFT + 12, top + 51, said, 9, fill="#555"))
    parts += _arcs(down, up=False)
    parts += _arcs(up, up=True)
    parts.append(
        _text(
            WIDTH / 2,
            height - 14,
            "drawn from the code by scripts/draw_layers.py; a package's number: its modules",
            10,
            "middle",
            fill="#777",
        )
    )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main() -> None:
    OUTPUT.write_text(draw(import_graph()), encoding="utf-8")
    print(f"wrote {OUTPUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
