"""Where a statement of an interactive session was typed: its errors, warnings and
results, whose places count lines in the session's program, moved to count in
the text as typed (``session.py``)."""

from __future__ import annotations

import contextlib
import dataclasses
import functools

from .. import api, record
from ..analysis.report import Report
from ..engine.ops import FUNCTIONS
from ..errors import GradcliError, Span
from ..language import compile_source, ir


@dataclasses.dataclass(frozen=True)
class Statement:
    """One statement as typed, and its IR."""

    text: str
    node: ir.Stmt

    @property
    def lines(self) -> int:
        return self.text.count("\n") + 1

    @functools.cached_property
    def called(self) -> frozenset[str]:
        """The functions it calls (computed once: a session asks at every line)."""
        return frozenset(n.func for n in ir.walk(self.node) if isinstance(n, ir.Call))

    @functools.cached_property
    def reads(self) -> frozenset[str]:
        """The names it reads or calls (``k[0] = v`` reads k: it keeps the rest of k)."""
        found = {n.id for n in ir.walk(self.node) if isinstance(n, ir.Name)} | self.called
        # k[0] = v anywhere in it, a loop's body included.
        found |= {n.name for n in ir.walk(self.node) if isinstance(n, ir.IndexAssign)}
        return frozenset(found)

    @functools.cached_property
    def defines(self) -> frozenset[str]:
        """The names it gives a value: its own, and those its loops' and branches'
        bodies assign (``for i in range(3): s = s + i`` defines i and s)."""
        if self.node is None:
            return frozenset()
        found = set(ir.assigned_names([self.node]))
        if isinstance(self.node, ir.FuncDef):
            found.add(self.node.name)
        return frozenset(found)


@dataclasses.dataclass(frozen=True)
class Typed:
    """Where one statement sits in the text it was typed in, so that the places of its
    errors, notes and nodes count in that text."""

    text: str
    start: int
    stop: int

    @property
    def statement(self) -> str:
        return self.text[self.start : self.stop]

    def position(self, line: int, column: int) -> tuple[int, int]:
        """Line ``line``, column ``column`` of the statement, in the typed text."""
        first = self.text.count("\n", 0, self.start) + 1
        if line > 1:
            return first + line - 1, column
        return first, column + self.start - (self.text.rfind("\n", 0, self.start) + 1)


class Place:
    """Where statement ``index`` of the session's program was typed: places in it, which
    count lines in the session's program, are moved to count in the text as typed, as
    the one-shot commands count them in their SOURCE. A place in another statement
    (a definition an expression uses) stays in the session's program, which ``:save``
    writes."""

    def __init__(self, statements, index: int, typed):
        self.first = 1 + sum(s.lines for s in statements[:index])
        self.count = statements[index].lines
        self.typed = typed

    def span(self, span: Span | None) -> Span | None:
        """``span`` in the text as typed; None when it is not in the statement."""
        if span is None or not self.first <= span.line < self.first + self.count:
            return None
        line, column = self.typed.position(span.line - self.first + 1, span.column)
        end_line = end_column = None
        if span.end_column is not None:
            end_line, end_column = self.typed.position(
                (span.end_line or span.line) - self.first + 1, span.end_column
            )
        return Span(line, column, end_line, end_column)

    def error(self, error: GradcliError) -> GradcliError:
        span = self.span(error.span) if error.source is not None else None
        if span is None:
            return error
        return GradcliError(error.message, span, self.typed.text)

    def diagnostic(self, diagnostic: api.Diagnostic) -> api.Diagnostic:
        if diagnostic.line is None:
            return diagnostic
        given = Span(diagnostic.line, diagnostic.column, diagnostic.line, diagnostic.end)
        span = self.span(given)
        if span is None:
            return diagnostic
        return api.Diagnostic(diagnostic.kind, diagnostic.message, span, self.typed.text)

    def result(self, result, title: str):
        """``result`` with ``title`` as its source, and its places moved."""
        if isinstance(result, Report):  # an analysis's report: no places in it
            return dataclasses.replace(result, source=title, title=title)
        moved = {
            "notes": tuple(map(self.diagnostic, result.notes)),
            "warnings": tuple(map(self.diagnostic, result.warnings)),
        }
        if isinstance(result, api.GraphResult):
            moved["nodes"] = tuple(
                dataclasses.replace(node, span=self.span(node.span) or node.span)
                for node in result.nodes
            )
        return record.replace(result, source=title, filename="<expr>", **moved)


@contextlib.contextmanager
def located(statements, index: int, typed):
    """Errors in statement ``index`` of the session's program point into the text as typed."""
    try:
        yield
    except GradcliError as error:
        raise Place(statements, index, typed).error(error) from None


def needed(statements, index: int) -> list[Statement]:
    """The statements up to ``index`` that statement ``index`` needs, the others blank
    lines: what it reads, through the statements that define the names it reads and
    the bodies of the functions it calls, and every statement that draws random
    numbers (the draws after it depend on it). A line of the session costs what it
    reads, not the whole session; its places count lines as the whole program's do."""
    random = {
        n for n, f in FUNCTIONS.items() if any(p.name == "generator" for p in f.schema.params)
    }
    draws = []
    for s in statements[: index + 1]:
        draws.append(not random.isdisjoint(s.called))
        if draws[-1] and isinstance(s.node, ir.FuncDef):
            random.add(s.node.name)  # a function that draws: so does each call of it
    last = statements[index]
    wanted = {*last.reads, *last.defines}  # and what else names what it names
    kept = [statements[index]]
    for s, draw in zip(reversed(statements[:index]), reversed(draws[:index])):
        if draw or not s.defines.isdisjoint(wanted):
            wanted |= s.reads
            kept.append(s)
        else:
            kept.append(Statement("\n" * (s.lines - 1), None))
    return kept[::-1]


def fewest(whole, index: int, typed, compute, fewer: bool = True) -> tuple:
    """``(statements, compute(statements))``: with the statements statement ``index`` of
    ``whole`` needs (``needed``, when ``fewer``); on an error, with ``whole``, so that the
    error reads as it does in the whole session (the names it may have meant)."""
    if fewer:
        run = needed(whole, index)
        with contextlib.suppress(GradcliError), located(run, index, typed):
            return run, compute(run)
    with located(whole, index, typed):
        return whole, compute(whole)


def program_text(statements) -> str:
    return "\n".join(s.text for s in statements)


def compiled(statements):
    """The statements as one program; functions alone get an expression to compute."""
    text = program_text(statements)
    last = next((s.node for s in reversed(statements) if s.node is not None), None)
    if all(isinstance(s.node, (ir.FuncDef, type(None))) for s in statements) or isinstance(
        last, ir.COMPOUND
    ):
        text += "\n0"
    return compile_source(text, "<session>")


def definition(statements, node) -> int | None:
    """The index of the statement that gives the input or const ``node.name`` its value."""
    program = compiled(statements)
    if isinstance(node, ir.Assign):
        return program.analysis.input_statements.get(node.name)
    for i, s in enumerate(statements):
        if isinstance(s.node, ir.ConstDecl) and s.node.name == node.name:
            return i
    return None


def assigned(statements) -> list[str]:
    return ir.assigned_names(s.node for s in statements if s.node is not None)
