"""The inputs ``minimize`` and ``solve`` vary when ``wrt`` is not given, and the notes
that say which.

By default they vary every input a derivative reaches (the inputs ``gradcli grad``
differentiates), but never one whose value is a size (``n = numel(y)``, see
``core.reach.sizes``): a size describes the data, and varying it would fit the
count of the data to the data. When more than one input is varied, or one that
holds several numbers (a data vector written as an input, ``y = [...]``, is one),
a note names each with how many numbers it holds and says how to choose with
``--wrt``.
"""

from __future__ import annotations

import math

from ..core.reach import sizes
from ..core.result import Diagnostic
from ..errors import GradcliError
from ..language import compile_source


def default_inputs(compute, command: str, source: str, bindings, wrt, options: dict):
    """``compute(source, bindings, wrt=..., **options)`` (``api.gradient`` or
    ``api.jacobian``) over the inputs varied, and the notes saying what was chosen
    (none when ``wrt`` is given)."""
    first = compute(source, bindings, wrt=wrt, **options)
    if wrt is not None:
        return first, ()

    found = sizes(compile_source(source, options["filename"]))
    kept = tuple(n for n in first.inputs if n not in found)
    notes = [
        Diagnostic(
            "note",
            f"{name} is not varied: its value, {found[name]}, is a size "
            f"(name it with --wrt to vary it)",
        )
        for name in first.inputs
        if name in found
    ]
    if len(kept) < len(first.inputs):
        if not kept:
            what = "is a size" if len(first.inputs) == 1 else "are sizes"
            raise GradcliError(
                f"{command} has no input to vary: {', '.join(first.inputs)} {what}; "
                f"name the inputs to vary with --wrt"
            )
        default, first = first, compute(source, bindings, wrt=kept, **options)
        # What the default evaluation said of the inputs it left out, said still.
        notes[:0] = [n for n in default.notes if n not in first.notes]
    if len(kept) > 1 or any(first.shapes[n] != () for n in kept):
        held = [math.prod(first.shapes[n]) for n in kept]
        listed = [f"{n} ({k} number{'s' * (k != 1)})" for n, k in zip(kept, held)]
        words = listed[0] if len(listed) == 1 else ", ".join(listed[:-1]) + " and " + listed[-1]
        notes.append(
            Diagnostic(
                "note",
                f"{command} varies {words} (choose with --wrt NAME,NAME)",
            )
        )
    return first, tuple(notes)
