"""``gradcli implicit``: the derivatives of inputs that equations determine.

Equations ``F(x, y) = 0`` (one, or a list of as many as the entries of the
solved-for inputs ``y``) define ``y`` as a function of the other inputs ``x``
near a point where ``∂F/∂y`` is invertible. By the implicit function theorem
``dy/dx = -F_y⁻¹ F_x``; differentiating ``F(x, y(x)) = 0`` twice gives the
second derivatives, for each equation ``a``,
``d²y/dx_i dx_j = -F_y⁻¹ [Tᵀ H_a T]_ij`` with ``T = [I; dy/dx]`` and ``H_a`` the
Hessian of ``F_a`` over every input. The engine gives ``F``'s exact Jacobian and
Hessians: no iteration, no finite differences.

``A = B`` is written as the equation ``A - B = 0`` (one top-level ``=`` that is
not ``==``, ``<=``, ``>=`` or ``!=``), also in each entry of a list
``[A = B, C = D]``; an expression alone means ``= 0``. A program of several
statements keeps ``=`` for its assignments: its output is ``F``.

The theorem holds on the curve (the surface): a point where ``F`` is not zero
gets a warning with the residual; the derivatives there are those of the level
set ``F = F(point)`` through it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from ..core import computing
from ..core.evaluation import evaluation, no_such_input, plain_array
from ..core.result import source_title
from ..errors import GradcliError, Span
from ..language import compile_source
from .commands import Command, Flagged, Option
from .flat import Flat, singular
from .report import Report, flat, frozen

_OPENING, _CLOSING = "([{", ")]}"


@dataclass(frozen=True, eq=False)
class ImplicitReport(Report):
    command = "implicit"
    layout = "implicit derivatives"
    source: str
    title: str
    #: The inputs the equations determine, and those they are functions of.
    solve_for: tuple[str, ...]
    wrt: tuple[str, ...]
    point: Mapping[str, np.ndarray]
    #: ``F`` at the point (A - B for each equation A = B), its largest entry, and
    #: the largest it may be on the curve.
    residual: np.ndarray
    residual_norm: float
    tolerance: float
    on_curve: bool
    #: ``det ∂F/∂y``: not zero, or ``y`` is not determined there.
    determinant: float
    #: ``derivative[y][x]`` of shape ``y.shape + x.shape``;
    #: ``second_derivative[y][x][z]`` of shape ``y.shape + x.shape + z.shape``.
    derivative: Mapping[str, Mapping[str, np.ndarray]]
    second_derivative: Mapping[str, Mapping[str, Mapping[str, np.ndarray]]]
    warnings: tuple[str, ...] = ()

    def as_tree(self) -> dict:
        return {
            "derivative": {y: dict(row) for y, row in self.derivative.items()},
            "second_derivative": {
                y: {x: dict(block) for x, block in row.items()}
                for y, row in self.second_derivative.items()
            },
            "residual": self.residual,
            "residual_norm": self.residual_norm,
            "tolerance": self.tolerance,
            "on_curve": self.on_curve,
            "determinant": self.determinant,
            "solve_for": list(self.solve_for),
            "wrt": list(self.wrt),
        }

    def row(self) -> dict:
        # The names and the tolerance are the same at every point.
        found = flat(self.as_tree())
        return {n: v for n, v in found.items() if n not in ("solve_for", "wrt", "tolerance")}


def implicit(
    source: str,
    bindings: Mapping | None = None,
    *,
    solve_for: Sequence[str],
    wrt: Sequence[str] | None = None,
    tol: float = 1e-8,
    dtype: str = "float64",
    seed: int = 0,
    filename: str = "<expr>",
) -> ImplicitReport:
    """The first and second derivatives of the inputs ``solve_for`` with respect to
    ``wrt`` (by default every other input), as the equations of ``source`` determine
    them at the bound point.

    The point is on the curve when ``|F_a| <= tol * max(1, Σ_j |∂F_a/∂z_j z_j|)``
    for every equation ``a`` (the size of its terms, to first order).
    """
    text = program_text(source)
    solve_for = tuple(dict.fromkeys(solve_for or ()))
    if not solve_for:
        raise GradcliError("implicit needs the inputs the equations determine: --solve-for y")
    options = {"dtype": dtype, "seed": seed, "filename": filename}
    names = None if wrt is None else (*dict.fromkeys(n for n in wrt if n not in solve_for),)
    first = computing.jacobian(text, bindings, wrt=None if names is None else (*names, *solve_for),
                         **options)  # fmt: skip
    for name in solve_for:
        if name not in first.inputs:
            raise GradcliError(f"--solve-for {name}: {_not_varied(name, first)}")
    others = tuple(n for n in first.inputs if n not in solve_for)
    if not others:
        raise GradcliError(
            f"implicit: every input is solved for ({', '.join(solve_for)}): the derivatives "
            "are with respect to the others, and there are none"
        )
    whole = Flat((*others, *solve_for), first.shapes, first.point, first.constants)
    n = sum(whole.sizes[: len(others)])
    equations = int(np.asarray(first.value).size)
    unknowns = whole.size - n
    if equations != unknowns:
        raise GradcliError(
            f"implicit needs as many equations as solved-for entries: {equations} "
            f"equation{'s' * (equations != 1)} (entries of the value) for {unknowns} "
            f"entr{'ies' if unknowns != 1 else 'y'} of {', '.join(solve_for)}"
        )
    value = np.asarray(first.value, dtype=np.float64).reshape(-1)
    jacobian = whole.matrix(first.jacobian).reshape(equations, whole.size)
    f_x, f_y = jacobian[:, :n], jacobian[:, n:]
    z = whole.start
    scale = np.maximum(1.0, np.abs(jacobian * z).sum(axis=1))
    on_curve = bool(np.all(np.abs(value) <= tol * scale))
    if not np.all(np.isfinite(jacobian)) or singular(f_y):
        raise GradcliError(_not_determined(solve_for, whole, equations))
    dy = -np.linalg.solve(f_y, f_x) + 0.0  # + 0.0: no sign on a zero slope
    ddy = _second(text, whole, n, dy, f_y, options)
    warnings = []
    if not on_curve:
        warnings.append(
            f"warning: the point is not on the curve: the residual F = "
            f"{_numbers(value)} is not 0 (max |F| {np.max(np.abs(value)):.3g} > "
            f"{tol:g} * the size of its terms): the implicit function theorem holds where "
            "F = 0; these are the derivatives of the level set through the point"
        )
    first_blocks, second_blocks = _blocks(whole, others, solve_for, dy, ddy)
    return ImplicitReport(
        source,
        source_title(source, filename),
        solve_for,
        others,
        MappingProxyType({k: frozen(v) for k, v in first.point.items()}),
        frozen(value.reshape(np.shape(first.value))),
        float(np.max(np.abs(value), initial=0.0)),
        tol,
        on_curve,
        float(f_y[0, 0] if equations == 1 else np.linalg.det(f_y)),
        first_blocks,
        second_blocks,
        (*warnings, *first.notes, *first.warnings),
    )


def _second(text, whole: Flat, n: int, dy, f_y, options) -> np.ndarray:
    """``d²y/dx_i dx_j`` as an array (entries of y, of x, of x): each equation's Hessian
    over every input, seen along ``T = [I; dy/dx]``."""
    from gradcli.autograd import functional

    names = whole.names
    turn = np.concatenate([np.eye(n), dy], axis=0)
    bound = whole.bindings(whole.start)
    o = options
    equations = len(f_y)
    curvature = np.empty((equations, n, n))
    with evaluation(
        text, bound, names, o["dtype"], o["seed"], o["filename"], command="implicit"
    ) as s:
        f, _ = s.function(names)
        point = s.point(names)
        for a in range(equations):
            blocks = functional.hessian(lambda *t, a=a: f(*t).reshape(-1)[a], point)
            matrix = whole.matrix(
                {
                    x: {y: plain_array(b) for y, b in zip(names, row)}
                    for x, row in zip(names, blocks)
                }
            )
            curvature[a] = turn.T @ matrix @ turn
    second = -np.linalg.solve(f_y, curvature.reshape(equations, n * n)) + 0.0
    return second.reshape(equations, n, n)


def _blocks(whole: Flat, others, solve_for, dy, ddy):
    """The flat matrices as blocks by input: ``[y][x]`` and ``[y][x][z]``."""
    stops = dict(zip(whole.names, zip(whole.stops[:-1], whole.stops[1:])))
    n = whole.stops[len(others)]
    first, second = {}, {}
    for y in solve_for:
        a, b = stops[y][0] - n, stops[y][1] - n
        shape_y = whole.shapes[y]
        first[y] = MappingProxyType({
            x: frozen(dy[a:b, slice(*stops[x])].reshape(shape_y + whole.shapes[x]))
            for x in others
        })  # fmt: skip
        second[y] = MappingProxyType({
            x: MappingProxyType({
                u: frozen(
                    ddy[a:b, slice(*stops[x]), slice(*stops[u])].reshape(
                        shape_y + whole.shapes[x] + whole.shapes[u]
                    )
                )
                for u in others
            })
            for x in others
        })  # fmt: skip
    return MappingProxyType(first), MappingProxyType(second)


def _not_determined(solve_for, whole: Flat, equations: int) -> str:
    where = ", ".join(f"{label} = {v:.6g}" for label, v in zip(whole.labels, whole.start))
    what = " and ".join(solve_for)
    derivative = f"∂F/∂{solve_for[0]} is 0" if equations == 1 else "∂F/∂y is singular"
    return (
        f"{what} {'is' if len(solve_for) == 1 else 'are'} not determined by the equation"
        f"{'s' * (equations != 1)} there: {derivative} at {where} (a vertical tangent, "
        "or a singular point of the curve)"
    )


def _not_varied(name: str, result) -> str:
    if name in result.point:
        return f"{name} is not differentiated (it is a const, or used only as an index)"

    return no_such_input(name, tuple(result.point))


def _numbers(value: np.ndarray) -> str:
    return " ".join(f"{v:.6g}" for v in value)


# ----------------------------------------------------------------------------
# A = B, as A - B
# ----------------------------------------------------------------------------


def program_text(source: str) -> str:
    """``source`` with each equation ``A = B`` written ``(A) - (B)``: the whole source
    when it is one statement, or each entry of a list ``[A = B, C = D]``. A source of
    several statements (assignments) is left as it is. Errors point at the ``=``, and
    a parse error in ``A`` or ``B`` at its place in ``source``."""
    if _statements(source) > 1:
        return source
    pieces: list[tuple[str, int]] = []  # text, and the index in source it stands for
    last = 0
    for start, stop in _entries(source):
        sign = _equals(source, start, stop)
        if sign is None:
            continue
        pieces += [(c, i) for i, c in enumerate(source[last:start], last)]
        pieces += _difference(source, start, sign, stop)
        last = stop
    if not pieces:
        return source
    pieces += [(c, i) for i, c in enumerate(source[last:], last)]
    text = "".join(c for c, _ in pieces)
    _compile_in_place(text, [i for _, i in pieces], source)
    return text


def _entries(source: str) -> list[tuple[int, int]]:
    """Where each entry of a list ``[A = B, C = D]`` is in ``source``, else the whole."""
    stripped = source.strip()
    lead = len(source) - len(source.lstrip())
    if stripped.startswith("[") and _closing(source, lead) == lead + len(stripped) - 1:
        return _split(source, lead + 1, lead + len(stripped) - 1)
    return [(0, len(source))]


def _difference(source: str, start: int, sign: int, stop: int) -> list[tuple[str, int]]:
    """The equation ``A = B`` at source[start:stop] as ``(A) - (B)``, each character
    with the index in source it stands for; each side checked alone."""
    left, right = source[start:sign].strip(), source[sign + 1 : stop].strip()
    if not left or not right:
        side = "left" if not left else "right"
        raise _at(source, sign, f"the equation has no {side} side of '='")
    for a, b in ((start, sign), (sign + 1, stop)):
        _check_side(source, a, b)
    return [
        ("(", start),
        *((c, i) for i, c in enumerate(source[start:sign], start)),
        *((c, sign) for c in ") - ("),
        *((c, i) for i, c in enumerate(source[sign + 1 : stop], sign + 1)),
        (")", stop - 1),
    ]


def _compile_in_place(text: str, where: list[int], source: str) -> None:
    """Compile ``text``; an error on its line is placed back in ``source``, ``where[i]``
    the index in source of text's character i."""
    try:
        compile_source(text)
    except GradcliError as error:
        span = error.span
        if span is None or span.line != 1 or "\n" in source:
            raise

        def back(column):
            return None if column is None else where[min(column, len(where)) - 1] + 1

        error.span = Span(1, back(span.column), span.end_line, back(span.end_column))
        error.source = source
        raise error from None


def _check_side(source: str, start: int, stop: int) -> None:
    """Compile one side of an equation alone: its errors, placed in ``source``."""
    try:
        compile_source(source[start:stop])
    except GradcliError as error:
        span = error.span
        if span is None or span.line != 1 or "\n" in source:
            raise
        shift = lambda column: None if column is None else column + start  # noqa: E731
        error.span = Span(1, shift(span.column), span.end_line, shift(span.end_column))
        error.source = source
        raise error from None


def _statements(source: str) -> int:
    """1 for one statement, more for a program (a newline or ';' outside brackets)."""
    depth, count, text = 0, 1, source.strip()
    for i, c in _outside_strings(text):
        if c in _OPENING:
            depth += 1
        elif c in _CLOSING:
            depth = max(0, depth - 1)
        elif c in "\n;" and depth == 0 and text[i + 1 :].strip():
            count += 1
    return count


def _outside_strings(text: str, start: int = 0, stop: int | None = None):
    """The characters of ``text[start:stop]`` not in quotes nor a comment, with their index."""
    stop = len(text) if stop is None else stop
    quote, comment = None, False
    for i in range(start, stop):
        c = text[i]
        if comment:
            comment = c != "\n"
            if not comment:
                yield i, c
        elif quote is not None:
            quote = None if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c == "#":
            comment = True
        else:
            yield i, c


def _closing(text: str, start: int) -> int | None:
    """The index of the bracket that closes ``text[start]``."""
    depth = 0
    for i, c in _outside_strings(text, start):
        if c in _OPENING:
            depth += 1
        elif c in _CLOSING:
            depth -= 1
            if depth == 0:
                return i
    return None


def _split(text: str, start: int, stop: int) -> list[tuple[int, int]]:
    """The entries of a list's inside ``text[start:stop]``, split at its own commas."""
    entries, depth, first = [], 0, start
    for i, c in _outside_strings(text, start, stop):
        if c in _OPENING:
            depth += 1
        elif c in _CLOSING:
            depth -= 1
        elif c == "," and depth == 0:
            entries.append((first, i))
            first = i + 1
    if text[first:stop].strip():
        entries.append((first, stop))
    return entries


def _equals(text: str, start: int, stop: int) -> int | None:
    """The index of the entry's one '=' outside brackets, or None; ``==`` is an error."""
    found, depth = None, 0
    for i, c in _outside_strings(text, start, stop):
        if c in _OPENING:
            depth += 1
        elif c in _CLOSING:
            depth -= 1
        elif c == "=" and depth == 0:
            before, after = text[i - 1 : i], text[i + 1 : i + 2]
            if before and before in "<>!":
                continue
            if after == "=":
                raise _at(text, i, "'==' compares: write the equation with one '='")
            if found is not None:
                raise _at(text, i, "an equation has one '=': this is a second")
            found = i
    return found


def _at(text: str, index: int, message: str) -> GradcliError:
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return GradcliError(message, Span(line, column), text)


def _solved_for(texts) -> tuple[str, ...]:
    names = tuple(n.strip() for text in texts for n in text.split(",") if n.strip())
    if not names:
        raise GradcliError("--solve-for needs the names of inputs: --solve-for y or y,z")
    return names


COMMANDS = (
    Command(
        "implicit",
        implicit,
        """The derivatives of the inputs --solve-for Y that the equations SOURCE
        determine, with respect to the others, at the bound point: by the implicit
        function theorem, dy/dx = -F_y^-1 F_x, and the second derivatives by
        differentiating F(x, y(x)) = 0 twice, from the exact Jacobian and Hessians.
        Write an equation "A = B" (one '='), several as "[A = B, C = D]"; an
        expression F alone means F = 0. A point off the curve gets a warning with
        the residual (the derivatives are then those of the level set through it);
        where F_y is singular (a vertical tangent) Y is not determined: exit 2.

        \b
        Example:
          $ gradcli implicit "x**2 + x*y + y**2 = 7" --x 1 --y 2 --solve-for y --format plain
          derivative.y.x -0.8
          second_derivative.y.x.x -0.336
          residual 0
          residual_norm 0
          tolerance 1e-08
          on_curve true
          determinant 5
          solve_for y
          wrt x

        Many points (--over, --points FILE): a row each, on points of the curve:

        \b
          $ gradcli implicit "x**2 + y**2 = 25" --points samples/circle.csv --solve-for y \
          --format csv
          x,y,derivative.y.x,second_derivative.y.x.x,residual,residual_norm,on_curve,determinant
          3,4,-0.75,-0.390625,0,0,true,8
          0,5,0,-0.2,0,0,true,10
          -4,-3,-1.3333333333333333,0.9259259259259259,0,0,true,-6
        """,
        (
            Option(
                "solve-for",
                "The inputs the equations determine (as many entries as equations).",
                kind="texts",
                metavar="Y,Z",
                required=True,
                parse=_solved_for,
            ),
            Option("wrt", "The inputs they are functions of [default: every other].", kind="names"),
            Option(
                "tol",
                "On the curve when |F| <= TOL * max(1, the size of F's terms).",
                kind="float",
                default=1e-8,
            ),
        ),
        points=True,
        flagged=Flagged(
            lambda rows: ~np.asarray(rows["on_curve"], dtype=bool),
            # Their derivatives are those of the level set through the point.
            "warning: {count} of {rows} points are not on the curve (on_curve false): {listed}",
            status=0,
        ),
        program=program_text,
    ),
)
