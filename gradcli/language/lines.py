"""Indentation: the bodies of ``for``, ``while`` and ``if``, read as Python's tokenizer does.

After a line that ends with ``:`` (outside brackets a colon only ends a ``for``,
``while``, ``if``, ``elif`` or ``else`` header) the next line must be indented deeper,
which opens a body (``_INDENT``); a line indented less closes bodies (``_DEDENT``) back
to a level that was open. Outside bodies a line may be indented as it likes, as in
every program before bodies existed. A body may also be one statement on its header's
line (``if x > 0: y = x``).
"""

from __future__ import annotations

from ..errors import GradcliError, Span
from . import lalr


def _made(kind: str, place) -> lalr.Token:
    """A token the post-lexer adds (an indentation's), at the place of ``place``."""
    return lalr.Token(kind, "", *(getattr(place, a) for a in lalr.PLACE))


_ONE_LINE_BODY = (
    "a body on the line of its 'for', 'while' or 'if' holds one statement:"
    " write the statements on indented lines below it"
)


def indented(stream, brackets):
    """``stream`` with ``_INDENT`` and ``_DEDENT`` where indentation opens and closes
    bodies; a newline separator waits for the next token, whose column is the
    indentation of its line. ``brackets`` (the post-lexer) holds the open brackets,
    and learns the last tokens given to the parser (for error messages)."""
    levels: list[int] = []
    pending = None  # a separator with a newline, outside brackets
    header = False  # the token before was a header's ':'
    one_line = False  # in a body written on its header's line
    blocks = False  # the program has a header
    last = None
    for token in stream:
        kind = token.type
        if kind == "_SEP":
            if "\n" in token:
                pending = token
                continue
            if one_line:
                raise GradcliError(_ONE_LINE_BODY, Span(token.line, token.column))
            last = token
            yield _seen(brackets, token)
            continue
        if not levels:
            levels.append(token.column - 1)
        if pending is not None:
            yield _seen(brackets, pending)
            for made in _indentation(token, levels, header):
                yield _seen(brackets, made)
            pending, one_line = None, False
        elif header:
            one_line = True
        header = kind == "COLON" and not brackets.open
        blocks = blocks or header
        last = token
        yield _seen(brackets, token)
    if pending is not None:
        last = pending
        yield _seen(brackets, pending)
    if blocks and last is not None and last.type not in ("_SEP", "COLON"):
        last = _made("_SEP", last)
        yield _seen(brackets, last)
    if last is not None:
        for _ in levels[1:]:
            yield _seen(brackets, _made("_DEDENT", last))


def _seen(brackets, token):
    """``token``, as the last the parser was given (for error messages)."""
    brackets.previous, brackets.current = brackets.current, token
    return token


def _indentation(token, levels: list[int], header: bool):
    """The ``_INDENT`` or ``_DEDENT`` tokens before ``token``, first on its line."""
    width = token.column - 1
    span = Span(token.line, token.column)
    if header:
        if width <= levels[-1]:
            raise GradcliError("expected an indented body after the line ending in ':'", span)
        levels.append(width)
        yield _made("_INDENT", token)
    elif len(levels) > 1 and width > levels[-1]:
        raise GradcliError(
            "unexpected indent: only the body of a for, while or if is indented deeper", span
        )
    else:
        closed = False
        while len(levels) > 1 and width < levels[-1]:
            levels.pop()
            closed = True
            yield _made("_DEDENT", token)
        if width != levels[-1] and (len(levels) > 1 or closed and width > levels[0]):
            raise GradcliError(
                "this line's indentation matches no line before it: indent a body's lines alike",
                span,
            )
        levels[-1] = width  # outside bodies, lines may be indented freely


def statements_in(tokens) -> list[tuple[int, int]]:
    """``(start, stop)`` of each statement among the parser's ``tokens``: a loop or an if
    is one statement, its body, elif and else lines included."""
    bounds: list[tuple[int, int]] = []
    start = stop = None
    depth = 0  # how many bodies of for, while and if hold the token
    found = [*tokens, None]
    for i, token in enumerate(found[:-1]):
        depth += (token.type == "_INDENT") - (token.type == "_DEDENT")
        if token.type in ("_INDENT", "_DEDENT"):
            continue
        # A loop or an if is one statement: its body, elif and else lines included.
        after, closed = i + 1, 0
        while found[after] is not None and found[after].type == "_DEDENT":
            after, closed = after + 1, closed + 1
        goes_on = found[after] is not None and found[after].type in ("_INDENT", "ELIF", "ELSE")
        if token.type == "_SEP" and depth == closed and not goes_on:
            if start is not None:
                bounds.append((start, stop))
            start = None
        elif token.type != "_SEP":
            start = token.start_pos if start is None else start
            stop = token.end_pos
    if start is not None:
        bounds.append((start, stop))
    return bounds
