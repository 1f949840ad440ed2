"""README.md's commands run and print what the README shows.

Each ```console block is a terminal session: ``$ command`` lines, each followed
by its output (standard output, then standard error). A command with shell
syntax (a pipe, a redirection, ``||``) runs in bash with the installed script;
any other runs in-process as on a terminal (the table is the default) at 80
columns without colour. The language section has its own test
(test_language_readme.py); the set-up commands are checked against .ci/run.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
SHELL_SYNTAX = re.compile(r"[|<>;&]|\$\(")


def outside_language_section(text: str) -> str:
    start = text.index("<!-- language:start -->")
    end = text.index("<!-- language:end -->")
    return text[:start] + text[end:]


def sessions():
    """(command, expected output lines) for every ``$`` line of the console blocks."""
    found = []
    for block in re.findall(r"```console\n(.*?)```", outside_language_section(README), re.S):
        for chunk in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, *output = chunk.rstrip("\n").split("\n")
            found.append((command, [line.rstrip() for line in output]))
    return found


SESSIONS = sessions()


def test_the_readme_has_a_tour_of_every_command():
    commands = {shlex.split(command)[1] for command, _ in SESSIONS}
    assert {"eval", "grad", "jacobian", "hessian", "vjp", "jvp", "graph", "functions"} <= commands
    assert any("--format json" in c and "jq" in c for c, _ in SESSIONS)
    assert any("while read" in c for c, _ in SESSIONS)


def test_set_up_commands():
    assert 'pip install . && gradcli grad "(x+2)**2+3" --x 2\n' in README
    assert "pip install -e '.[test]' && python -m pytest\n" in README
    # The README's test command is the one CI runs.
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^python -m pytest$", ci, re.M)


def test_language_section_is_marked():
    assert README.index("## Language") < README.index("<!-- language:start -->")
    assert README.index("<!-- language:start -->") < README.index("<!-- language:end -->")


@pytest.mark.parametrize("command, expected", SESSIONS, ids=[c for c, _ in SESSIONS])
def test_console_session(gradcli, gradcli_script, monkeypatch, command, expected):
    monkeypatch.chdir(ROOT)
    if SHELL_SYNTAX.search(command):
        if re.search(r"\bjq\b", command) and shutil.which("jq") is None:
            pytest.skip("needs jq")
        script = f'gradcli() {{ {shlex.join(gradcli_script)} "$@"; }}\n{command}'
        env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "80"}
        done = subprocess.run(
            ["bash", "-c", script], cwd=ROOT, capture_output=True, text=True, env=env, timeout=60
        )
        output = done.stdout + done.stderr
    else:
        args = shlex.split(command)
        assert args[0] == "gradcli"
        result = gradcli(*args[1:], tty=True)
        output = result.output
        disagree = args[1] == "check" and " disagree (" in output
        assert result.exit_code == (
            2 if output.startswith("error:") else 3 if "--strict" in args else 1 if disagree else 0
        )
    assert [line.rstrip() for line in output.splitlines()] == expected


def test_library_example():
    code = re.search(r"```python\n(.*?)```", README, re.S).group(1)
    namespace: dict = {}
    lines = code.splitlines()
    for line in lines:
        statement, _, shown = line.partition("  # ")
        if not shown:
            exec(statement, namespace)  # the README's own example, not user input
            continue
        value = eval(statement.strip(), namespace)
        assert repr(value) == shown.split(" -- ")[0].strip(), line
