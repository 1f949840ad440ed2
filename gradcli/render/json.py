"""``--format json``: one strict JSON object on one line.

Scalars are numbers and arrays nested lists; ``nan``, ``inf`` and ``-inf``,
which JSON cannot write as numbers, are the strings ``"nan"``, ``"inf"`` and
``"-inf"``. Numbers are written with the shortest text that reads back exactly,
unless ``--precision`` asks for fewer digits.
"""

from __future__ import annotations

from .jsontext import diagnostics_json, encode


def render(result, stream, precision: int | None = None) -> None:
    """The result tree, the assembled matrix (hessian, jacobian), then ``"steps"`` (with
    --steps), ``"left_out"`` (the inputs left out, each with why), ``"warnings"`` and
    ``"notes"`` when there are any."""
    tree = result.as_tree()
    if getattr(result, "assembled", None) is not None:
        tree.update(result.assembled.as_tree())
    text = encode(tree, precision)
    extra = []
    if result.graph is not None:
        from .graph import steps_json  # only with --steps

        extra.append(f'"steps": {steps_json(result.graph, precision)}')
    if getattr(result, "left_out", None):
        extra.append(f'"left_out": {encode(dict(result.left_out))}')
    extra += diagnostics_json(result)
    if extra:
        text = text[:-1] + ", " + ", ".join(extra) + "}"
    stream.write(text + "\n")


def render_report(report, stream, precision: int | None = None) -> None:
    """An analysis report (``gradcli.analysis``): its ``as_tree()`` as one object; a
    minimize ``--trace`` first, one object per iteration on a line of its own."""
    if getattr(report, "trace", None) is not None:
        header, rows = report.trace_rows()
        for row in rows:
            stream.write(encode(dict(zip(header, row)), precision) + "\n")
    stream.write(encode(report.as_tree(), precision) + "\n")


def render_functions(functions, stream) -> None:
    """``{"functions": [{"name": ..., "signature": "(...)", "kind": ..., "doc": ...,
    "kink": ... or null, "differs": [...]}, ...]}`` on one line: ``differs`` lists the
    deliberate differences from PyTorch."""
    entries = [
        encode(
            {
                "name": f.name,
                "signature": f.signature,
                "kind": f.kind,
                "doc": f.doc,
                "kink": f.kink,
                "differs": list(f.differs),
            }
        )
        for f in functions
    ]
    stream.write(f'{{"functions": [{", ".join(entries)}]}}\n')
