"""The IR of the gradcli language: small immutable nodes (``printing`` writes them back to source).

The parser (parser.py) builds these nodes, the checker (check.py) validates them
and the evaluator (evaluate.py) runs them on the autograd engine. Every node
carries a ``span`` (where it came from) that is left out of equality, so two
parses of the same program in different layouts compare equal.

A run of same-precedence left-associative operators is one flat ``Chain``
(``a + b - c`` is ``Chain(a, ("add", "sub"), (b, c))``: an operator is named by its op
table entry, see ``operators``), so that a 10,000-term
sum is one node deep. ``**`` is a ``BinOp``; comparisons chain as in Python
(``a < b < c`` means ``a < b and b < c``) and form a ``Compare``.

This module imports neither Lark nor NumPy.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager

from ..errors import Span
from ..record import Record, uncompared

#: How deeply expressions may nest (brackets, calls, operators), documented in docs/language.md.
#: The parser rejects deeper programs, so the recursive walks below stay bounded.
NESTING_LIMIT = 500
# Recursive walks over IR use at most this many Python frames per level of nesting.
_FRAMES_PER_LEVEL = 6
_RECURSION_FLOOR = NESTING_LIMIT * _FRAMES_PER_LEVEL + 1000


@contextmanager
def deep_recursion():
    """Let a recursive walk reach ``NESTING_LIMIT`` levels: raise Python's recursion limit
    (1000 by default) to a bounded floor while it runs."""
    old = sys.getrecursionlimit()
    if old < _RECURSION_FLOOR:
        sys.setrecursionlimit(_RECURSION_FLOOR)
    try:
        yield
    finally:
        if old < _RECURSION_FLOOR:
            sys.setrecursionlimit(old)


_NO_SPAN = Span(0, 0)


def _span() -> Span:
    """A source position: defaults to none, left out of equality, hashing and repr."""
    return uncompared(_NO_SPAN)  # type: ignore[return-value]


# ----------------------------------------------------------------------------
# Expressions
# ----------------------------------------------------------------------------


class Num(Record):
    """A number literal; the parser only makes non-negative ones (``-2`` is a UnaryOp).

    ``float_zero``: a zero written as a float (``0.0``, ``0e0``), which stays a float so
    that ``-0.0`` is negative zero, as Python reads it; ``-0`` is the integer 0.
    """

    value: float
    span: Span = _span()
    float_zero: bool = False
    #: The literal as written: ``--dps`` reads it exactly (``0.1`` is one tenth there).
    text: str = uncompared("")


class Str(Record):
    """Text in quotes: only an argument of a built-in function (``reduction="sum"``)."""

    value: str
    span: Span = _span()


class Name(Record):
    """A variable, a function parameter, or a built-in constant (pi, e, inf, nan)."""

    id: str
    span: Span = _span()


class UnaryOp(Record):
    """``-x`` (op "neg") or ``+x`` (op "positive")."""

    op: str
    operand: Expr
    span: Span = _span()


class BinOp(Record):
    """``left ** right`` (op "pow"), the one right-associative operator."""

    op: str
    left: Expr
    right: Expr
    span: Span = _span()
    op_span: Span = _span()


class Chain(Record):
    """``first op[0] rest[0] op[1] rest[1] ...`` evaluated left to right.

    All ops are of one precedence level: add/sub, or mul/div/floor_divide/remainder/matmul.
    """

    first: Expr
    ops: tuple[str, ...]
    rest: tuple[Expr, ...]
    span: Span = _span()
    op_spans: tuple[Span, ...] = _span()


class Compare(Record):
    """``first < rest[0] <= rest[1] ...``: 1 where every comparison holds, else 0."""

    first: Expr
    ops: tuple[str, ...]
    rest: tuple[Expr, ...]
    span: Span = _span()
    op_spans: tuple[Span, ...] = _span()


class Keyword(Record):
    """``name=value`` in a call."""

    name: str
    value: Expr
    span: Span = _span()


class Call(Record):
    """``func(args..., keywords...)``: a built-in or a user function."""

    func: str
    args: tuple[Expr, ...] = ()
    keywords: tuple[Keyword, ...] = ()
    span: Span = _span()


class Method(Record):
    """``obj.name(args...)``: the function ``name`` with ``obj`` as first argument."""

    obj: Expr
    name: str
    args: tuple[Expr, ...] = ()
    keywords: tuple[Keyword, ...] = ()
    span: Span = _span()
    name_span: Span = _span()


class Attr(Record):
    """``obj.name`` without a call; only ``x.T`` exists."""

    obj: Expr
    name: str
    span: Span = _span()
    name_span: Span = _span()


class Slice(Record):
    """``start:stop:step`` inside brackets; absent parts are None."""

    start: Expr | None = None
    stop: Expr | None = None
    step: Expr | None = None
    span: Span = _span()


class Index(Record):
    """``obj[i, j:k, ...]``."""

    obj: Expr
    subscripts: tuple[Expr | Slice, ...]
    span: Span = _span()


class ListLit(Record):
    """``[a, b, ...]``: a vector, or a matrix when the items are lists."""

    items: tuple[Expr, ...]
    span: Span = _span()


class Numbers(Record):
    """``[1, -2.5, 3e4]``: a list of numbers alone (each may have a sign), as one node.

    A literal of 10^6 numbers is one token and one node, not 10^6 of each: the
    parser reads it with one regular expression (``parser.NUMBER_LIST``)."""

    values: tuple[float, ...]
    span: Span = _span()
    #: Each number as written, its sign included (``--dps`` reads them exactly).
    texts: tuple[str, ...] = uncompared(())


class Lambda(Record):
    """``t -> body`` or ``(y, t) -> body``: an anonymous function, a closure over the
    program's names. Only an argument of a transformation (``integrate``, ``root``,
    ``minimizer``); ``g = t -> body`` is parsed as the definition ``g(t) = body``."""

    params: tuple[str, ...]
    body: Expr
    span: Span = _span()
    param_spans: tuple[Span, ...] = _span()


class IfExp(Record):
    """``body if test else orelse``: only the branch taken is evaluated (and differentiated)."""

    test: Expr
    body: Expr
    orelse: Expr
    span: Span = _span()


Expr = (
    IfExp
    | Num
    | Str
    | Name
    | UnaryOp
    | BinOp
    | Chain
    | Compare
    | Call
    | Method
    | Attr
    | Index
    | ListLit
    | Numbers
    | Lambda
)


# ----------------------------------------------------------------------------
# Statements
# ----------------------------------------------------------------------------


class Assign(Record):
    """``name = value``."""

    name: str
    value: Expr
    span: Span = _span()


class IndexAssign(Record):
    """``name[subscripts] = value`` (differentiable: the engine's CopySlices)."""

    name: str
    subscripts: tuple[Expr | Slice, ...]
    value: Expr
    span: Span = _span()


class FuncDef(Record):
    """``name(params) = body``: a user function."""

    name: str
    params: tuple[str, ...]
    body: Expr
    span: Span = _span()
    param_spans: tuple[Span, ...] = _span()


class ConstDecl(Record):
    """``const name = value``: a constant, never differentiated."""

    name: str
    value: Expr
    span: Span = _span()


class For(Record):
    """``for var in range(*args):`` then ``body``: ``args`` are range's one to three
    arguments, whole numbers known when the loop starts. ``span`` is the header's."""

    var: str
    args: tuple[Expr, ...]
    body: tuple[Stmt, ...]
    span: Span = _span()
    var_span: Span = _span()


class While(Record):
    """``while test:`` then ``body``, while ``test`` is one true value."""

    test: Expr
    body: tuple[Stmt, ...]
    span: Span = _span()


class If(Record):
    """``if test:`` ``body``, else ``orelse`` (an ``elif`` is an If alone in ``orelse``)."""

    test: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...] = ()
    span: Span = _span()


class Break(Record):
    """``break``: leave the innermost loop."""

    span: Span = _span()


class Continue(Record):
    """``continue``: go on with the innermost loop's next step."""

    span: Span = _span()


#: Statements that hold statements; they have no value.
COMPOUND = (For, While, If)

Stmt = Expr | Assign | IndexAssign | FuncDef | ConstDecl | For | While | If | Break | Continue


class Program(Record):
    """Statements in source order."""

    statements: tuple[Stmt, ...]
    span: Span = _span()


Node = Stmt | Keyword | Slice | Program


def children(node: Node) -> tuple[Node, ...]:
    """The direct sub-nodes of ``node``, in source order."""
    if isinstance(node, (Num, Str, Name, Numbers, Break, Continue)):
        return ()
    if isinstance(node, IfExp):
        return (node.body, node.test, node.orelse)
    if isinstance(node, For):
        return (*node.args, *node.body)
    if isinstance(node, While):
        return (node.test, *node.body)
    if isinstance(node, If):
        return (node.test, *node.body, *node.orelse)
    if isinstance(node, UnaryOp):
        return (node.operand,)
    if isinstance(node, BinOp):
        return (node.left, node.right)
    if isinstance(node, (Chain, Compare)):
        return (node.first, *node.rest)
    if isinstance(node, Call):
        return (*node.args, *node.keywords)
    if isinstance(node, Method):
        return (node.obj, *node.args, *node.keywords)
    if isinstance(node, Attr):
        return (node.obj,)
    if isinstance(node, Index):
        return (node.obj, *node.subscripts)
    if isinstance(node, Slice):
        return tuple(part for part in (node.start, node.stop, node.step) if part is not None)
    if isinstance(node, ListLit):
        return node.items
    if isinstance(node, (Keyword, Assign, ConstDecl)):
        return (node.value,)
    if isinstance(node, IndexAssign):
        return (*node.subscripts, node.value)
    if isinstance(node, (FuncDef, Lambda)):
        return (node.body,)
    if isinstance(node, Program):
        return node.statements
    raise TypeError(f"not an IR node: {node!r}")


def assigned_names(statements) -> list[str]:
    """The names the statements assign, those in loops and branches included, in order."""
    names: list[str] = []
    for statement in statements:
        for node in walk(statement):
            if isinstance(node, (Assign, IndexAssign, ConstDecl)):
                names.append(node.name)
            elif isinstance(node, For):
                names.append(node.var)
    return names


def walk(node: Node):
    """Every node under ``node`` (itself included), parents before children, iteratively."""
    stack = [node]
    while stack:
        item = stack.pop()
        yield item
        stack.extend(reversed(children(item)))
