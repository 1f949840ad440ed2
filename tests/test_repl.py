"""The interactive session on a real pseudo-terminal (pexpect): what a person typing
sees. Expected numbers are derived by hand in the comments."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect", reason="the terminal tests drive pexpect")
pytest.importorskip("prompt_toolkit", reason="the session runs on prompt_toolkit")

ROOT = Path(__file__).resolve().parent.parent
PROMPT = ">>>"
# Terminal control sequences (cursor moves, styles, bracketed paste) and carriage returns.
_CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()=>][0-9A-Za-z]?|[\x07\r]")
UP = "\x1b[A"


def clean(text: str) -> list[str]:
    """Terminal output as the lines a person reads."""
    lines = [line.rstrip() for line in _CONTROL.sub("", text).split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


class Terminal:
    """gradcli on a pseudo-terminal of 80 columns, its history under ``data``."""

    def __init__(self, script: list[str], data: Path, *args: str, cwd: Path = ROOT):
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": str(data),
            "XDG_DATA_HOME": str(data),
            "TERM": "xterm",
            "NO_COLOR": "1",
            "COLUMNS": "80",
            "LANG": "C.UTF-8",
            # pexpect answers no cursor-position request: do not wait for one.
            "PROMPT_TOOLKIT_NO_CPR": "1",
            # The checkout under test, when it is not the one installed.
            **({"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}),
        }
        if "PYTHONPATH" in os.environ:  # the package under test, not an installed one
            env["PYTHONPATH"] = os.environ["PYTHONPATH"]
        self.child = pexpect.spawn(
            script[0],
            [*script[1:], *args],
            env=env,
            cwd=str(cwd),
            encoding="utf-8",
            dimensions=(40, 80),
            timeout=60,
            # As from a terminal: a test run in the background has SIGINT ignored, and
            # its children would inherit that (Ctrl-C would then interrupt nothing).
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        self.child.expect_exact(PROMPT)
        self.greeting = clean(self.child.before)

    def line(self, text: str) -> list[str]:
        """Type ``text`` and Enter; the lines shown before the next prompt."""
        self.child.send(text + "\r")
        return self.shown()

    def shown(self) -> list[str]:
        self.child.expect_exact("\n")  # the line is taken
        self.child.expect_exact(PROMPT)
        return clean(self.child.before)

    def leave(self) -> None:
        """Ctrl-D, at the prompt (before it, the terminal would take it as end of file)."""
        self.child.sendcontrol("d")
        self.child.expect(pexpect.EOF)
        self.child.close()
        assert self.child.exitstatus == 0


@pytest.fixture
def terminal(gradcli_script, tmp_path):
    opened = []

    def start(*args: str, cwd: Path = ROOT) -> Terminal:
        opened.append(Terminal(gradcli_script, tmp_path / "data", *args, cwd=cwd))
        return opened[-1]

    yield start
    for t in opened:
        t.child.terminate(force=True)


def test_gradcli_alone_on_a_terminal_opens_the_session(terminal):
    t = terminal()
    assert t.greeting == ["gradcli: type an expression, or :help. Ctrl-D leaves."]
    assert t.line("x = 2") == []
    # (x+2)**2 + 3 at 2 is 19; its derivative 2(x+2) is 8
    assert t.line("(x+2)**2 + 3") == [
        "(x+2)**2 + 3",
        "╭───────┬───────┬───────╮",
        "│       │ shape │ value │",
        "├───────┼───────┼───────┤",
        "│ f     │ ()    │ 19    │",
        "├───────┼───────┼───────┤",
        "│ ∂f/∂x │ ()    │ 8     │",
        "╰───────┴───────┴───────╯",
    ]
    t.leave()


def test_definitions_are_carried_between_lines(terminal):
    t = terminal("repl", "--format", "plain")
    assert t.line("f(a) = a**3 - a") == []
    assert t.line("x = [1, 2]") == []
    assert t.line("const c = 10") == []
    # sum(c*f(x)) = 10*((1 - 1) + (8 - 2)) = 60; d/dx_i = 10*(3x_i**2 - 1) = [20, 110]
    assert t.line("sum(c * f(x))") == ["value 60", "grad.x 20 110"]
    t.leave()


def test_an_error_shows_its_caret_and_the_session_goes_on(terminal):
    t = terminal("repl", "--format", "plain")
    t.line("x = 2")
    assert t.line("(x+2))**2") == ["error: unexpected ')' at 1:6", "  (x+2))**2", "       ^"]
    assert t.line("xx + 1") == [
        "error: unknown name 'xx' (did you mean 'x'?) at 1:1",
        "  xx + 1",
        "  ^~",
    ]
    assert t.line("x * 5") == ["value 10", "grad.x 5"]
    t.leave()


def test_an_open_bracket_continues_on_the_next_line(terminal):
    t = terminal("repl", "--format", "plain")
    t.child.send("W = [[1, 2],\r")
    t.child.expect_exact("\n")
    t.child.expect_exact("...")  # the continuation prompt
    t.child.send("     [3, 4]]\r")
    t.child.send("sum(W * W)\r")
    # sum of squares 1 + 4 + 9 + 16 = 30; d/dW = 2W
    t.child.expect_exact("value 30")
    t.child.expect_exact("grad.W 2 4 6 8")
    assert "error" not in t.child.before
    t.child.expect_exact(PROMPT)
    t.leave()


def test_a_pasted_program_runs_as_typed_lines(terminal):
    t = terminal("repl", "--format", "plain")
    # A terminal wraps what is pasted in these brackets (bracketed paste).
    t.child.send("\x1b[200~x = [2, 3]\nk = zeros_like(x)\nk[0] = x[0]**2 + 3*x[1]\nk\n\x1b[201~")
    t.child.send("\r")
    # k = [2**2 + 3*3, 0] = [13, 0]; J = [[2*x0, 3], [0, 0]]
    t.child.expect_exact("value 13 0")
    t.child.expect_exact("jacobian.x 4 3 0 0")
    t.child.expect_exact(PROMPT)
    assert "error" not in t.child.before
    t.leave()


def test_what_is_typed_while_an_interrupted_line_runs_is_dropped(terminal):
    t = terminal("repl", "--format", "plain")
    t.line("const m = eye(2000)")
    t.line("f(a) = a @ m @ m @ m @ m")
    t.line("g(a) = f(f(f(f(a))))")
    # 4**4 = 256 products of 2000 x 2000 matrices: far more than a second.
    t.child.send("sum(g(g(g(g(m)))))\r")
    time.sleep(1)
    # Ctrl-C, then a line typed before the product running ends: in one write, so that it
    # is in the terminal's queue before gradcli sees the interrupt.
    start = time.monotonic()
    t.child.send("\x03" + "1 + 40\r")
    t.child.expect_exact("error: interrupted")
    assert time.monotonic() - start < 10  # one product of 2000 x 2000 matrices, not 256
    t.child.expect_exact(PROMPT)
    # 1 + 40 is not run (its value 41 would show first): the line typed now runs next.
    assert t.line("7 * 6") == ["value 42"]
    t.leave()


def test_ctrl_c_interrupts_a_long_computation(terminal):
    t = terminal("repl", "--format", "plain")
    t.line("const m = eye(2000)")
    t.line("f(a) = a @ m @ m @ m @ m")
    t.line("g(a) = f(f(f(f(a))))")
    t.line("h(a) = g(g(g(g(a))))")
    # 4**4 = 256 products of 2000 x 2000 matrices, 4 TFLOP: far more than a second.
    t.child.send("sum(h(h(h(h(m)))))\r")
    time.sleep(1)
    t.child.sendcontrol("c")
    assert t.shown()[-1] == "error: interrupted"
    assert t.line("1 + 1") == ["value 2"]
    t.child.send("1 +")
    t.child.sendcontrol("c")  # at the prompt: the line is dropped, not run
    t.child.send("2 * 3\r")
    t.child.expect_exact("value 6")
    assert "error" not in t.child.before
    t.child.expect_exact(PROMPT)
    t.leave()


def test_history_is_recalled_after_a_restart(terminal, tmp_path):
    t = terminal("repl", "--format", "plain")
    assert t.line("2**10") == ["value 1024"]
    t.leave()
    history = tmp_path / "data" / "gradcli" / "history"
    assert "2**10" in history.read_text()
    assert (mode(history), mode(history.parent)) == (0o600, 0o700)
    t = terminal("repl", "--format", "plain")
    assert t.line(UP) == ["value 1024"]  # the line before the restart, run again
    t.leave()


def mode(path: Path) -> int:
    import stat

    return stat.S_IMODE(path.stat().st_mode)


def test_the_history_is_made_private_to_its_owner(tmp_path, monkeypatch):
    from gradcli.cli import repl

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "new"))
    old_umask = os.umask(0o022)  # which would make 0644 in 0755
    try:
        new = repl.history_path()
        repl.private_history(new)
        assert (mode(new), mode(new.parent)) == (0o600, 0o700)
        assert mode(tmp_path / "new") == 0o755  # the user's data directory is left alone
        monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "old"))
        old = repl.history_path()
        old.parent.mkdir(parents=True)
        old.write_text("\n# 2024-01-01\n+x = 1\n")
        old.chmod(0o644)
        repl.private_history(old)  # one left open by an earlier version
    finally:
        os.umask(old_umask)
    assert (mode(old), mode(old.parent)) == (0o600, 0o700)
    assert old.read_text() == "\n# 2024-01-01\n+x = 1\n"


def test_a_history_that_cannot_be_written_is_kept_in_memory(gradcli_script, tmp_path):
    data = tmp_path / "data"
    data.write_text("a file where the data directory should be")
    t = Terminal(gradcli_script, data, "repl", "--format", "plain")
    assert t.greeting[0].startswith(
        f"warning: the history is not kept: cannot write {data / 'gradcli' / 'history'} ("
    )
    assert t.line("3 * 3") == ["value 9"]
    assert t.line(UP) == ["value 9"]  # within the session it is still there
    t.leave()


def test_tab_completes_a_function_name(terminal):
    t = terminal("repl", "--format", "plain")
    t.child.send("sigm\t")
    t.child.expect_exact("sigmoid")
    # sigmoid(0) = 1/2
    assert t.line("(0)") == ["value 0.5"]
    t.leave()


def test_save_then_the_one_shot_command_gives_the_same_result(terminal, gradcli_script, tmp_path):
    t = terminal("repl", "--format", "json", cwd=tmp_path)
    t.line("x = [1, 2]")
    t.line("w = 3")
    t.line("loss(a) = sum(a**2)")
    # w*sum(x**2) = 3*5 = 15; d/dx = 2wx = [6, 12]; d/dw = sum(x**2) = 5
    shown = t.line("w * loss(x)")
    assert json.loads(shown[0]) == {"value": 15, "grad": {"x": [6, 12], "w": 5}}
    assert t.line(":save saved.grad") == ["saved 4 lines to saved.grad"]
    t.leave()
    path = tmp_path / "saved.grad"
    done = subprocess.run(
        [*gradcli_script, "grad", str(path), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == json.loads(shown[0])


def test_vi_keys(terminal):
    t = terminal("repl", "--format", "plain")
    assert t.line(":keys vi") == ["vi keys"]
    t.child.send("2 + 3")
    t.child.send("\x1b")  # Escape: normal mode
    time.sleep(1)  # past the wait for a longer escape sequence
    t.child.send("0x")  # to the start of the line, delete the 2
    assert t.line("") == ["value 3"]
    t.leave()


def test_ctrl_d_and_quit_leave(terminal):
    t = terminal()
    t.child.send(":quit\r")
    t.child.expect(pexpect.EOF)
    t.child.close()
    assert t.child.exitstatus == 0


def test_without_prompt_toolkit_the_session_says_how_to_install_it(gradcli_script, tmp_path):
    # A directory earlier on the path whose prompt_toolkit cannot be imported.
    blocker = tmp_path / "blocker" / "prompt_toolkit"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('no prompt_toolkit here')\n")
    child = pexpect.spawn(
        gradcli_script[0],
        [*gradcli_script[1:], "repl"],
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(blocker.parent), "TERM": "xterm"},
        encoding="utf-8",
        timeout=60,
    )
    child.expect(pexpect.EOF)
    child.close()
    assert clean(child.before) == [
        "error: the interactive session needs prompt_toolkit: pip install 'gradcli[repl]'"
    ]
    assert child.exitstatus == 2


# ----------------------------------------------------------------------------
# Not on a terminal: nothing interactive starts
# ----------------------------------------------------------------------------


def test_gradcli_alone_under_a_pipe_still_shows_the_help(gradcli, gradcli_script):
    env = {"PATH": "/usr/bin:/bin", "COLUMNS": "80"}
    alone = subprocess.run(
        gradcli_script, capture_output=True, text=True, timeout=60, stdin=subprocess.PIPE, env=env
    )
    helped = subprocess.run(
        [*gradcli_script, "--help"], capture_output=True, text=True, timeout=60, env=env
    )
    # As before the session existed: Click's help (on standard error and with exit
    # status 2 since Click 8.2), as in-process, where standard input is no terminal.
    assert alone.stdout + alone.stderr == helped.stdout
    assert alone.returncode == gradcli().exit_code


def test_gradcli_alone_with_input_from_a_file_shows_the_help(gradcli, gradcli_script, tmp_path):
    # Standard output a terminal, standard input not: still no session.
    child = pexpect.spawn(
        "bash",
        ["-c", f"{' '.join(gradcli_script)} < /dev/null"],
        env={"PATH": "/usr/bin:/bin", "TERM": "xterm", "COLUMNS": "80"},
        encoding="utf-8",
        timeout=60,
    )
    child.expect(pexpect.EOF)
    assert "Usage: gradcli [OPTIONS] COMMAND [ARGS]..." in child.before
    assert PROMPT not in child.before


def test_one_shot_commands_are_unchanged_on_a_terminal(gradcli_script):
    child = pexpect.spawn(
        gradcli_script[0],
        [*gradcli_script[1:], "grad", "x**2", "--x", "3", "--format", "plain"],
        env={"PATH": "/usr/bin:/bin", "TERM": "xterm"},
        encoding="utf-8",
        timeout=60,
    )
    child.expect(pexpect.EOF)
    assert clean(child.before) == ["value 9", "grad.x 6"]


def test_repl_under_a_pipe_runs_the_lines_as_a_script(gradcli_script):
    done = subprocess.run(
        [*gradcli_script, "repl"],
        input="x = 2\nW = [[1, 2],\n     [3, 4]]\nsum(W * x)\nxx\nx**2\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    # sum(W * x) = 20, d/dW = x, d/dx = sum(W) = 10; x**2 = 4, d/dx = 4
    assert done.stdout == "value 20\ngrad.x 10\ngrad.W 2 2 2 2\nvalue 4\ngrad.x 4\n"
    assert done.stderr.startswith("error: unknown name 'xx' (did you mean 'x'?) at 1:1")
    assert done.returncode == 2


def test_graph_in_the_session_is_the_graph_command(gradcli_script):
    done = subprocess.run(
        [*gradcli_script, "repl", "--format", "plain"],
        input="x = 2; y = 3\n:graph x*y + x\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    one_shot = subprocess.run(
        [*gradcli_script, "graph", "x*y + x", "--x", "2", "--y", "3", "--format", "plain"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == one_shot.returncode == 0, done.stderr
    assert done.stdout == one_shot.stdout
    # d(xy + x)/dx = y + 1 = 4
    assert "[2] x  shape ()  value 2  .grad 4" in done.stdout


# ----------------------------------------------------------------------------
# The sessions the documentation shows
# ----------------------------------------------------------------------------


def documented_session(text: str) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """A session as the documentation writes it: the greeting, then each line typed
    after the prompt with the lines it shows."""
    greeting: list[str] = []
    typed: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith(PROMPT + " "):
            typed.append((line[len(PROMPT) + 1 :], []))
        elif typed:
            typed[-1][1].append(line.rstrip())
        else:
            greeting.append(line.rstrip())
    return greeting, typed


def replay(terminal, args: list[str], text: str) -> None:
    greeting, typed = documented_session(text)
    t = terminal(*args)
    if greeting:
        assert t.greeting == greeting
    for line, expected in typed:
        assert t.line(line) == expected, line
    t.leave()


def test_the_docs_session(terminal):
    page = (ROOT / "docs" / "calculator.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- session:start -->\n```text\n\$ gradcli\n(.*?)```", page, re.S)
    assert block, "docs/calculator.md shows a session between <!-- session:start --> and ```"
    replay(terminal, [], block.group(1))


def test_the_help_example_of_repl(terminal):
    from gradcli.cli import cli

    lines = [line.strip() for line in cli.commands["repl"].help.splitlines()]
    start = lines.index("$ gradcli repl --format plain")
    example = "\n".join(lines[start + 1 :]).strip()
    replay(terminal, ["repl", "--format", "plain"], example)


# ----------------------------------------------------------------------------
# Highlighting and completion, as prompt_toolkit asks for them
# ----------------------------------------------------------------------------


def test_highlighting_follows_the_language_tokens():
    from prompt_toolkit.document import Document

    from gradcli.cli.repl import _highlighter
    from gradcli.cli.session import Session

    session = Session()
    list(session.run("sq(t) = t**2"))
    lexer = _highlighter(session)
    line = lexer.lex_document(Document("const c = sq(pi) + sin(2.5) # note\nx²"))
    first = [(style, text.strip()) for style, text in line(0) if text.strip()]
    assert first == [
        ("class:keyword", "const"),
        ("class:name", "c"),
        ("class:operator", "="),
        ("class:function", "sq"),
        ("", "("),
        ("class:constant", "pi"),
        ("", ")"),
        ("class:operator", "+"),
        ("class:function", "sin"),
        ("", "("),
        ("class:number", "2.5"),
        ("", ")"),
        ("class:comment", "# note"),
    ]
    assert lexer.lex_document(Document("1 $ 2"))(0)[-1] == ("class:error", "$ 2")
    assert lexer.lex_document(Document(":format json"))(0)[0] == ("class:command", ":format")


def test_completion_through_prompt_toolkit():
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    from gradcli.cli.repl import _completer
    from gradcli.cli.session import Session

    completer = _completer(Session())
    found = completer.get_completions(
        Document("1 + logsu"), CompleteEvent(completion_requested=True)
    )
    assert [(c.text, c.start_position) for c in found] == [("logsumexp", -5)]


def test_enter_takes_a_completion_chosen_in_the_menu(terminal):
    t = terminal("repl", "--format", "plain")
    t.child.send("x = 4\r")
    t.child.send("sq\t")  # sqrt, squeeze, ...: the menu opens
    t.child.expect_exact("sqrt")
    t.child.send("\t")  # the first choice, into the line
    t.child.send("\r")  # Enter takes it; the line is not run yet
    t.child.send("(x)\r")
    # sqrt(4) = 2, d/dx = 1/(2 sqrt(x)) = 0.25
    t.child.expect_exact("value 2")
    t.child.expect_exact("grad.x 0.25")
    t.child.expect_exact(PROMPT)
    t.leave()


def test_errors_name_the_session_s_commands(terminal):
    t = terminal()
    assert t.line("x = 2") == []
    shown = " ".join(t.line(":grad [x, x**2]"))
    assert "use `:jacobian` for the full Jacobian" in shown
    assert "gradcli jacobian" not in shown and "gradcli vjp" not in shown
    t.leave()
