"""The interactive calculator on a terminal: ``gradcli`` alone, or ``gradcli repl``.

A loop over ``gradcli.cli.session.Session`` on prompt_toolkit: history kept across
sessions in the user's data directory (``$XDG_DATA_HOME/gradcli/history``, the
file 0600 in a directory 0700),
Emacs or Vi keys, completion of function names, names and commands, and
highlighting of the language's tokens with matching brackets. prompt_toolkit
is imported only here, when a session starts.

When standard input is not a terminal, the lines it holds run one after another
with no prompt and no line editing, as a script.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

from ..analysis.report import Report
from ..api import GraphResult
from ..engine.ops import FUNCTIONS
from ..errors import GradcliError
from ..language.check import BUILTIN_CONSTANTS
from ..language.parser import tokens
from ..render import render, render_report
from .session import Message, Session, Shown

PROMPT = ">>> "
CONTINUATION = "... "
INSTALL = "pip install 'gradcli[repl]'"


def history_path() -> Path:
    """Where the history is kept: ``$XDG_DATA_HOME/gradcli/history``, by default
    under ``~/.local/share``."""
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
    return Path(data) / "gradcli" / "history"


def private_history(path: Path) -> None:
    """Make the history's directory (mode 0700) and file (0600), as shells keep theirs:
    the lines typed may hold what no one else should read. One made wider before
    (0644 in 0755) is narrowed to its owner."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    _owner_only(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        _owner_only(fd)
    finally:
        os.close(fd)


def _owner_only(place) -> None:
    mode = stat.S_IMODE(os.stat(place).st_mode)
    if mode & 0o077:
        os.chmod(place, mode & 0o700)


def run(session: Session, say, debug: bool = False) -> int:
    """Run a session on the terminal, or standard input's lines when it is not one.

    ``say`` writes an error or warning to standard error; ``debug`` adds the
    traceback of an internal error. Returns the exit code: 0, or 2 when a line
    of a script failed.
    """
    if not sys.stdin.isatty():
        return _script(session, sys.stdin, say, debug)
    try:
        import prompt_toolkit  # noqa: F401
    except ImportError:
        raise GradcliError(f"the interactive session needs prompt_toolkit: {INSTALL}") from None
    _terminal(session, say, debug)
    return 0


def _script(session: Session, stream, say, debug: bool) -> int:
    failed = False
    pending = ""
    for line in stream:
        pending += line
        if session.needs_more(pending):
            continue
        failed |= _show(session, pending.rstrip("\n"), say, debug)
        pending = ""
        if session.finished:
            break
    if pending.strip() and not session.finished:
        failed |= _show(session, pending, say, debug)
    return 2 if failed else 0


def _show(session: Session, text: str, say, debug: bool, discard=None) -> bool:
    """Run one line and draw what it shows; whether it failed. ``discard``: called when
    Ctrl-C interrupts the line, to drop what was typed meanwhile."""
    failed = False
    try:
        for output in session.run(text):
            if isinstance(output, Shown) and isinstance(output.result, GraphResult):
                from ..render.graph import FORMATS, render_graph

                # The graph has formats of its own; for the others, its plain lines.
                shown = session.format if session.format in FORMATS else "plain"
                render_graph(output.result, shown, sys.stdout, session.precision)
            elif isinstance(output, Shown) and isinstance(output.result, Report):
                render_report(output.result, session.format, sys.stdout, session.precision)
            elif isinstance(output, Shown):
                render(output.result, session.format, sys.stdout, session.precision)
            elif isinstance(output, Message):
                print(output.text)
            else:
                failed |= output.text.startswith("error:")
                say(output.text)
            sys.stdout.flush()
    except KeyboardInterrupt:
        # Python stops at the first operation after the ^C (the one running is NumPy's,
        # which nothing interrupts). What was typed since was meant for the prompt after a
        # line that never finished: dropped, not run.
        if discard is not None:
            discard()
        # On a terminal, the line after the ^C it shows.
        say(("\n" if sys.stdin.isatty() else "") + "error: interrupted")
        failed = True
    except BrokenPipeError:
        raise  # its reader has gone (| head): the session ends, as a command does
    except Exception as error:  # a bug: said, and the session goes on
        if debug:
            import traceback

            traceback.print_exc(file=sys.stderr)
        say(
            f"error: internal error ({type(error).__name__}: {error}); "
            "'gradcli repl --debug' shows its traceback"
        )
        failed = True
    return failed


def _terminal(session: Session, say, debug: bool) -> None:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import FileHistory, InMemoryHistory
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.layout.processors import HighlightMatchingBracketProcessor
    from prompt_toolkit.styles import Style

    path = history_path()
    try:
        private_history(path)
        history = FileHistory(str(path))
    except OSError as error:
        say(f"warning: the history is not kept: cannot write {path} ({error.strerror or error})")
        history = InMemoryHistory()
    keys = KeyBindings()

    @keys.add("enter")
    def _enter(event):
        # A statement with an open bracket (or a final backslash) goes on on the next
        # line; an empty line ends it anyway, to show what is wrong with it.
        buffer = event.current_buffer
        if buffer.complete_state and buffer.complete_state.current_completion:
            buffer.complete_state = None  # Enter takes the completion chosen in the menu
            return
        text = buffer.text
        at_end = buffer.document.is_cursor_at_the_end
        if at_end and not text.endswith("\n") and session.needs_more(text):
            buffer.insert_text("\n")
        else:
            buffer.validate_and_handle()

    prompt = PromptSession(
        history=history,
        lexer=_highlighter(session),
        completer=_completer(session),
        complete_while_typing=False,
        key_bindings=keys,
        multiline=True,
        prompt_continuation=CONTINUATION,
        input_processors=[HighlightMatchingBracketProcessor()],
        style=Style.from_dict(STYLE),
        include_default_pygments_style=False,
    )
    print("gradcli: type an expression, or :help. Ctrl-D leaves.")
    while not session.finished:
        try:
            text = prompt.prompt(PROMPT, vi_mode=session.keys == "vi")
        except KeyboardInterrupt:  # Ctrl-C at the prompt: a new line, as in a shell
            continue
        except EOFError:  # Ctrl-D
            break
        if text.strip():
            _show(session, text, say, debug, lambda: _discard_typed_ahead(prompt.input))


def _discard_typed_ahead(keys) -> None:
    """Drop the input not read yet: the terminal's queue (POSIX) and the keys
    prompt_toolkit read ahead of its next prompt."""
    from prompt_toolkit.input.typeahead import clear_typeahead

    clear_typeahead(keys)
    try:
        import termios
    except ImportError:  # Windows: its console has no such queue to flush
        return
    try:
        termios.tcflush(sys.stdin.fileno(), termios.TCIFLUSH)
    except (OSError, termios.error):
        pass  # not a terminal after all: nothing typed ahead


# The style of each kind of token (prompt_toolkit's class names).
STYLE = {
    "number": "ansicyan",
    "function": "ansiblue",
    "name": "",
    "constant": "ansimagenta",
    "keyword": "ansigreen bold",
    "operator": "ansiyellow",
    "comment": "ansibrightblack italic",
    "command": "ansigreen bold",
    "error": "ansired underline",
}
_KINDS = {
    "NUMBER": "number",
    **dict.fromkeys(
        ["CONST", "FOR", "IN", "WHILE", "IF", "ELIF", "ELSE", "BREAK", "CONTINUE"], "keyword"
    ),
    "COMMENT": "comment",
    "ERROR": "error",
    **dict.fromkeys(["POW", "MUL_OP", "ADD_OP", "COMPARE", "EQUAL", "COLON"], "operator"),
}


def _highlighter(session: Session):
    from prompt_toolkit.lexers import Lexer

    def styles(text: str) -> list[str]:
        """The style class of each character of ``text``."""
        shown = [""] * len(text)
        if text.lstrip().startswith(":"):
            start = len(text) - len(text.lstrip())
            stop = text.find(" ", start)
            stop = len(text) if stop < 0 else stop
            shown[start:stop] = ["class:command"] * (stop - start)
            return shown
        for kind, start, stop in tokens(text):
            word = text[start:stop]
            if kind == "NAME":
                style = (
                    "function"
                    if word in FUNCTIONS or word in session.functions()
                    else "constant"
                    if word in BUILTIN_CONSTANTS
                    else "name"
                )
            elif kind == "_SEP" and "#" in word:  # a separator holds the comments after it
                comment = text.index("#", start)
                shown[comment:stop] = ["class:comment"] * (stop - comment)
                continue
            else:
                style = _KINDS.get(kind, "")
            shown[start:stop] = [f"class:{style}" if style else ""] * (stop - start)
        return shown

    class Highlighter(Lexer):
        def lex_document(self, document):
            text = document.text
            shown = styles(text)
            lines, start = [], 0
            for line in document.lines:
                fragments: list[tuple[str, str]] = []
                for i, char in enumerate(line, start):
                    if fragments and fragments[-1][0] == shown[i]:
                        fragments[-1] = (shown[i], fragments[-1][1] + char)
                    else:
                        fragments.append((shown[i], char))
                lines.append(fragments)
                start += len(line) + 1
            return lambda number: lines[number] if number < len(lines) else []

    return Highlighter()


def _completer(session: Session):
    from prompt_toolkit.completion import Completer, Completion, PathCompleter
    from prompt_toolkit.document import Document

    paths = PathCompleter(expanduser=True)

    class Completions(Completer):
        def get_completions(self, document, complete_event):
            before = document.text_before_cursor
            command, _, argument = before.lstrip().partition(" ")
            if command in (":load", ":save") and _:
                yield from paths.get_completions(Document(argument), complete_event)
                return
            words, length = session.completions(before)
            for word in words:
                yield Completion(word, start_position=-length)

    return Completions()
