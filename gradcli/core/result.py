"""What the library computes, as data: the frozen results of the commands, their
warnings and notes, and the listing of the functions. ``api`` builds them and the
renderers read them; neither imports the other.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType

import numpy as np

from ..errors import GradcliError
from ..record import Record


class Diagnostic(str):
    """A warning or a note: the text printed on standard error (with the source line
    and a caret when it has a place), and its parts for JSON."""

    #: ``"warning"`` or ``"note"``.
    kind: str
    #: The message alone, without ``warning:`` and without its place.
    message: str
    #: Where it points, from 1, the end column included; None without a place.
    line: int | None
    column: int | None
    end: int | None

    def __new__(cls, kind: str, message: str, span=None, source: str | None = None):
        # GradcliError.render draws the line and the caret; it says "error:".
        text = GradcliError(message, span, source).render().removeprefix("error:")
        self = super().__new__(cls, kind + ":" + text)
        self.kind = kind
        self.message = message
        single_line = span is not None and span.end_line in (None, span.line)
        self.line = None if span is None else span.line
        self.column = None if span is None else span.column
        self.end = span.end_column if single_line and span.end_column else self.column
        return self


#: The arrays each command adds to the value, in the order they are shown.
SECTIONS = {
    "eval": (),
    "grad": ("grad",),
    "jacobian": ("jacobian",),
    "hessian": ("grad", "hessian"),
    "vjp": ("vjp",),
    "jvp": ("jvp",),
}


class Result(Record, compared=False):
    """What a command computed: the value where the program was evaluated, and the
    derivatives the command asks for (the others are None). Arrays are read-only.
    """

    #: Which command: a key of ``SECTIONS``.
    command: str
    source: str
    filename: str
    value: np.ndarray
    #: The inputs differentiated, in order.
    inputs: tuple[str, ...]
    #: Every input's value: the point of evaluation.
    point: Mapping[str, np.ndarray]
    #: One ``warning: ...`` message for each result array that is nan or infinite.
    warnings: tuple[Diagnostic, ...] = ()
    #: ``grad[x]``: the gradient, of x's shape (grad, hessian).
    grad: Mapping[str, np.ndarray] | None = None
    #: ``jacobian[x]``: of shape ``value.shape + x.shape``.
    jacobian: Mapping[str, np.ndarray] | None = None
    #: ``hessian[x][y]``: of shape ``x.shape + y.shape``.
    hessian: Mapping[str, Mapping[str, np.ndarray]] | None = None
    #: ``vjp[x]``: ``grad_output`` times the Jacobian, of x's shape.
    vjp: Mapping[str, np.ndarray] | None = None
    grad_output: np.ndarray | None = None
    #: The directional derivative along ``tangents``, of the value's shape.
    jvp: np.ndarray | None = None
    tangents: Mapping[str, np.ndarray] | None = None
    #: One ``note: ...`` for each call evaluated on a kink, where a convention decides
    #: the derivative.
    notes: tuple[Diagnostic, ...] = ()
    #: With ``steps=True`` (gradient, vjp): the graph and the steps of the reverse pass.
    graph: GraphResult | None = None
    #: The whole Hessian or Jacobian over all inputs (``gradcli.core.assembled.Assembled``),
    #: when there are several inputs or one is not a scalar (hessian, jacobian).
    assembled: object | None = None
    #: The inputs left out of the default derivatives, each with why: used only where
    #: no derivative exists (class indices, a size), as ``reach`` finds them.
    left_out: Mapping[str, str] = MappingProxyType({})
    #: The consts given a value by a binding (``--c 7``): never differentiated, but
    #: part of the point, which the analyses evaluate again and again.
    constants: Mapping[str, np.ndarray] = MappingProxyType({})

    @property
    def shapes(self) -> Mapping[str, tuple[int, ...]]:
        """The shape of every input."""
        return MappingProxyType({name: v.shape for name, v in self.point.items()})

    @property
    def title(self) -> str:
        """The expression, when it fits on a line, else the file it came from."""
        return source_title(self.source, self.filename)

    @property
    def finite(self) -> bool:
        """Whether every number of every result array is finite."""
        return all(finite(a) for _, a in leaves(self.as_tree()))

    @property
    def jacobian_matrix(self) -> np.ndarray | None:
        """For a Jacobian of an output with entries with respect to scalar inputs only,
        the Jacobian matrix: one row per output entry (row-major), one column per input
        in ``inputs`` order. None otherwise."""
        if self.jacobian is None or not self.inputs or self.value.ndim == 0:
            return None
        if any(self.point[name].ndim != 0 for name in self.inputs):
            return None
        columns = [self.jacobian[name].reshape(-1) for name in self.inputs]
        return np.stack(columns, axis=-1)

    def arrays(self) -> dict[str, np.ndarray]:
        """Every result array by the name plain output gives it: ``value``, ``grad.x``,
        ``hessian.x.y``."""
        return {".".join(path): array for path, array in leaves(self.as_tree())}

    def as_tree(self) -> dict:
        """The result arrays as nested dicts, in the order they are shown:
        ``{"value": V, "grad": {"x": G}}``."""
        tree = {"value": self.value}
        for key in SECTIONS[self.command]:
            tree[key] = _thawed(getattr(self, key))
        return tree


class PointsResult(Record, compared=False):
    """What a command computed at many points (``api.points``): each array of the
    single-point ``Result.arrays()``, with the points along a first axis."""

    #: Which command: a key of ``SECTIONS``.
    command: str
    source: str
    filename: str
    #: The inputs differentiated, in order.
    inputs: tuple[str, ...]
    #: The inputs that vary from point to point, in order.
    varying: tuple[str, ...]
    #: B, the number of points.
    size: int
    #: ``arrays[k][i]`` is ``Result.arrays()[k]`` at point i: shape ``(B,) +`` its shape.
    arrays: Mapping[str, np.ndarray]
    #: Whether each point has a nan or an infinity in any of its arrays: shape (B,).
    nonfinite: np.ndarray
    #: One warning for each array that is nan or infinite at some points.
    warnings: tuple[Diagnostic, ...] = ()
    notes: tuple[Diagnostic, ...] = ()

    @property
    def title(self) -> str:
        return source_title(self.source, self.filename)


def source_title(source: str, filename: str) -> str:
    text = source.strip()
    if filename == "<expr>":
        # An expression typed over several lines, shown on one (a newline would be
        # a control character in the title).
        return "; ".join(line.strip() for line in text.splitlines() if line.strip())
    if "\n" not in text and len(text) <= 60:
        return text
    return filename


def _thawed(section):
    if isinstance(section, Mapping):
        return {key: _thawed(value) for key, value in section.items()}
    return section


class GraphResult(Record, compared=False):
    """The autograd graph of a program's output (``gradcli.autograd.traced.Graph``),
    each node with the source text it came from, and the reverse pass over it."""

    source: str
    filename: str
    #: Output first; ``node.text`` is the source text of an op's node.
    nodes: tuple
    #: ``(input id, output id)``.
    edges: tuple[tuple[int, int], ...]
    #: The reverse pass, in the order the engine ran it (``autograd.traced.Step``).
    steps: tuple
    #: The value of the output.
    value: np.ndarray
    #: The gradient the reverse pass started from; None for none (a non-scalar output
    #: without one).
    grad_output: np.ndarray | None
    warnings: tuple[Diagnostic, ...] = ()
    notes: tuple[Diagnostic, ...] = ()

    @property
    def title(self) -> str:
        return source_title(self.source, self.filename)

    @property
    def finite(self) -> bool:
        return finite(self.value) and all(n.grad is None or finite(n.grad) for n in self.nodes)


#: The kinds of ``gradcli.ops.FUNCTIONS``, in the order they are listed.
KINDS = (
    "elementwise",
    "binary",
    "reduction",
    "complex",
    "linalg",
    "loss",
    "shape",
    "constructor",
    "other",
    "derivative",
    "transformation",
)


class FunctionInfo(Record):
    """One function of the language, as ``gradcli functions`` lists it."""

    name: str
    #: The parameters the language takes: ``"(input, dim=None, keepdim=False)"``.
    signature: str
    #: One of ``KINDS``.
    kind: str
    #: One line.
    doc: str
    #: The convention at points where the function is not differentiable, or None.
    kink: str | None
    #: Each deliberate difference from PyTorch: "where: what (why)".
    differs: tuple = ()


def leaves(tree: Mapping, prefix: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], object]]:
    """The arrays of a result tree with their key paths: ``(("grad", "x"), G)``."""
    for key, node in tree.items():
        if isinstance(node, Mapping):
            yield from leaves(node, prefix + (key,))
        else:
            yield prefix + (key,), node


def finite(array) -> bool:
    """Whether every number of ``array`` is finite (any non-float array is)."""
    array = np.asarray(array)
    return array.dtype.kind not in "fc" or bool(np.isfinite(array).all())
