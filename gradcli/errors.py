"""The one exception family of gradcli.

Every error a user can cause is a ``GradcliError``. Errors that point into
source text carry a ``Span`` and render as the offending line with a caret
under the column. Engine errors also subclass the exception type PyTorch
raises for the same mistake, so code written against ``torch`` keeps working.
"""

from __future__ import annotations

from .record import Record


class Span(Record):
    """A region of source text; lines and columns count from 1, ends inclusive."""

    line: int
    column: int
    end_line: int | None = None
    end_column: int | None = None


class GradcliError(Exception):
    """Base of every gradcli error: a message, and where in the source it happened."""

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
        if self.span is None:
            return f"error: {self.message}"
        head = f"error: {self.message} at {self.span.line}:{self.span.column}"
        if self.source is None:
            return head
        lines = self.source.splitlines() or [""]
        if not 1 <= self.span.line <= len(lines):
            return head
        text = lines[self.span.line - 1].expandtabs(1)
        start = min(self.span.column - 1, len(text))
        stop = start + 1
        if self.span.end_column is not None and self.span.end_line in (None, self.span.line):
            stop = max(stop, min(self.span.end_column, len(text)))
        shown, caret = _excerpt(text, start, stop)
        return f"{head}\n  {shown}\n  {caret}"


_EXCERPT_WIDTH = 76  # characters of a long source line shown around the caret


def _excerpt(text: str, start: int, stop: int) -> tuple[str, str]:
    """The part of ``text`` around ``text[start:stop]`` and a caret line under it.

    A long line is cut to a window with ``…`` at the cuts; wide (CJK) characters
    count two columns, so the caret stays under its character.
    """
    import unicodedata

    def width(chars):
        return sum(
            0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
            for c in chars
        )

    first, last = 0, len(text)
    if len(text) > _EXCERPT_WIDTH:
        first = max(0, start - _EXCERPT_WIDTH // 3)
        last = min(len(text), first + _EXCERPT_WIDTH)
        first = max(0, last - _EXCERPT_WIDTH)
    stop = min(stop, last)
    lead = "…" if first > 0 else ""
    shown = lead + text[first:last] + ("…" if last < len(text) else "")
    caret = " " * (width(lead) + width(text[first:start])) + "^"
    caret += "~" * width(text[start + 1 : stop])
    return shown, caret


class EngineError(GradcliError, RuntimeError):
    """An autograd error; a RuntimeError, as PyTorch raises."""


class ShapeError(EngineError):
    """Operands whose shapes do not fit together."""


class GradcliIndexError(GradcliError, IndexError):
    """An index or axis out of range."""


class GradcliValueError(GradcliError, ValueError):
    """A value of the wrong form: float() of a tensor of many entries, ragged nested lists.

    PyTorch raises ValueError for these (not RuntimeError)."""


class GradcliTypeError(GradcliError, TypeError):
    """A wrong kind of argument (wrong count, unknown keyword, wrong type)."""


class NotImplementedByGradcli(GradcliError, NotImplementedError):
    """A feature that gradcli does not implement; the message says which."""


def out_of_memory(error: MemoryError) -> str:
    """``out of memory (why)``: NumPy says how much it wanted; a bare MemoryError says nothing."""
    why = str(error) or "the input asks for more memory than is free"
    return f"out of memory ({why})"


def os_reason(error: OSError) -> str:
    """Why a file could not be opened, in a few words."""
    import errno

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
