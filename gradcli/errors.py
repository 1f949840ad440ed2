"""The one exception family of gradcli.

Every error a user can cause is a ``GradcliError``. Errors that point into
source text carry a ``Span`` and render as the offending line with a caret
under the column. Engine errors also subclass the exception type PyTorch
raises for the same mistake, so code written against ``torch`` keeps working.
"""

from __future__ import annotations

import errno
import unicodedata

from .record import Record

#: The exit status when the reader of standard output left (| head): 128 + SIGPIPE, as
#: shells report it; every command and ``gradcli run`` end with it, quietly.
EXIT_BROKEN_PIPE = 141


class Span(Record):
    """A region of source text; lines and columns count from 1, ends inclusive."""

    line: int
    column: int
    end_line: int | None = None
    end_column: int | None = None


class GradcliError(Exception):
    """Base of every gradcli error: a message, and where in the source it happened."""

    #: The file the source was read from, named with the place (``at prog.grad:2:8``).
    filename: str | None = None

    def __init__(self, message: str, span: Span | None = None, source: str | None = None):
        super().__init__(message)
        self.message = message
        self.span = span
        self.source = source

    def with_source(self, source: str) -> GradcliError:
        """Attach the source text (when the raiser did not have it) and return self."""
        if self.source is None:
            self.source = source
        return self

    def render(self) -> str:
        """``error: message at L:C`` plus the source line and a caret under the column."""
        message = escape_controls(self.message)
        if self.span is None:
            return f"error: {message}"
        place = f"{self.span.line}:{self.span.column}"
        if self.filename is not None:
            place = f"{escape_controls(self.filename)}:{place}"
        head = f"error: {message} at {place}"
        if self.source is None:
            return head
        # Lines as the lexer counts them: str.splitlines would also break at \x85, U+2028...
        lines = self.source.split("\n")
        if not 1 <= self.span.line <= len(lines):
            return head
        text = lines[self.span.line - 1].removesuffix("\r").expandtabs(1)
        start = min(self.span.column - 1, len(text))
        stop = start + 1
        if self.span.end_column is not None and self.span.end_line in (None, self.span.line):
            stop = max(stop, min(self.span.end_column, len(text)))
        shown, caret = _excerpt(text, start, stop)
        return f"{head}\n  {shown}\n  {caret}"


_EXCERPT_WIDTH = 76  # characters of a long source line shown around the caret


def _is_control(char: str) -> bool:
    """A character a terminal acts on instead of showing: C0/C1 controls, and format
    characters (the bidirectional overrides U+202A-U+202E and isolates U+2066-U+2069,
    the marks U+200E/U+200F, zero-width spaces) that would reorder or hide the text."""
    return unicodedata.category(char) in ("Cc", "Cf")


def escape_controls(text: str, keep: str = "\n") -> str:
    """``text`` with every control character but those in ``keep`` shown as ``\\u202e``."""
    if text.isascii() and text.isprintable():
        return text
    return "".join(_escaped(c) if c not in keep and _is_control(c) else c for c in text)


def _escaped(char: str) -> str:
    return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"


def _excerpt(text: str, start: int, stop: int) -> tuple[str, str]:
    """The part of ``text`` around ``text[start:stop]`` and a caret line under it.

    A long line is cut to a window with ``…`` at the cuts; wide (CJK) characters
    count two columns, so the caret stays under its character; control characters
    (a right-to-left override) are shown escaped, never sent to the terminal.
    """

    def shown(chars):
        return "".join(_escaped(c) if _is_control(c) else c for c in chars)

    def width(chars):
        return sum(
            len(_escaped(c))
            if _is_control(c)
            else 0
            if unicodedata.combining(c)
            else 2
            if unicodedata.east_asian_width(c) in "WF"
            else 1
            for c in chars
        )

    first, last = 0, len(text)
    if len(text) > _EXCERPT_WIDTH:
        first = max(0, start - _EXCERPT_WIDTH // 3)
        last = min(len(text), first + _EXCERPT_WIDTH)
        first = max(0, last - _EXCERPT_WIDTH)
    stop = min(stop, last)
    lead = "…" if first > 0 else ""
    shown_text = lead + shown(text[first:last]) + ("…" if last < len(text) else "")
    caret = " " * (width(lead) + width(text[first:start])) + "^"
    # An escaped character under the caret is underlined over its whole escape.
    escape = width(text[start]) - 1 if start < len(text) and _is_control(text[start]) else 0
    caret += "~" * (escape + width(text[start + 1 : stop]))
    return shown_text, caret


def named_as(builtin):
    """A class printed under PyTorch's name for the same mistake (``RuntimeError``), so a
    program that prints ``type(e).__name__`` or its traceback prints what PyTorch's does;
    Python code still catches it as ``EngineError`` or as the builtin."""

    def name(cls):
        cls.__name__ = cls.__qualname__ = builtin.__name__
        return cls

    return name


@named_as(RuntimeError)
class EngineError(GradcliError, RuntimeError):
    """An autograd error; a RuntimeError, as PyTorch raises."""


@named_as(RuntimeError)
class ShapeError(EngineError):
    """Operands whose shapes do not fit together."""


@named_as(IndexError)
class GradcliIndexError(GradcliError, IndexError):
    """An index or axis out of range."""


@named_as(ValueError)
class GradcliValueError(GradcliError, ValueError):
    """A value of the wrong form: float() of a tensor of many entries, ragged nested lists.

    PyTorch raises ValueError for these (not RuntimeError)."""


@named_as(TypeError)
class GradcliTypeError(GradcliError, TypeError):
    """A wrong kind of argument (wrong count, unknown keyword, wrong type)."""


@named_as(NotImplementedError)
class NotImplementedByGradcli(GradcliError, NotImplementedError):
    """A feature that gradcli does not implement; the message says which."""


def out_of_memory(error: MemoryError) -> str:
    """``out of memory (why)``: NumPy says how much it wanted; a bare MemoryError says nothing."""
    why = str(error) or "the input asks for more memory than is free"
    return f"out of memory ({why})"


def os_reason(error: OSError) -> str:
    """Why a file could not be opened, in a few words."""
    reasons = {
        errno.ENOENT: "no such file",
        errno.EISDIR: "it is a directory",
        errno.ELOOP: "a loop of symbolic links",
        errno.EACCES: "permission denied",
        errno.ENAMETOOLONG: "the file name is too long",
        errno.ENOTDIR: "a part of the path is not a directory",
    }
    return reasons.get(error.errno) or error.strerror or str(error)


def read_error(what: str, error: OSError) -> GradcliError:
    """``cannot read WHAT: why``, for a file (a binding's, a program's) that could not be read."""
    return GradcliError(f"cannot read {what}: {os_reason(error)}")
