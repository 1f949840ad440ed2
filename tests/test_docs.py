"""README.md and every page of docs/ run and print what they show.

Every fenced block of every page is of a kind this module (or the one it
names) runs or checks:

- ``console``: a terminal session: ``$ command`` lines, each followed by its
  output (standard output, then standard error). A command with shell syntax
  (a pipe, a redirection, ``||``) runs in bash with the installed script; any
  other runs in-process as on a terminal (the table is the default) at 80
  columns without colour.
- ``gradcli``: the language reference's examples (``test_docs_language.py``).
- ``python``: the library's examples, run in one namespace per page;
  ``expression  # shown`` compares the repr.
- ``text``: the calculator's session (replayed by ``test_repl.py``), or a
  verbatim excerpt of gradcli's code or of the guides' examples (``tests/guides/``,
  run by ``test_guides.py``).
- ``sh``: set-up commands (checked against .ci/run), or ``gradcli`` commands
  that write a file (run with the file sent to a temporary directory).
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from printed import assert_prints

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
PAGES = {
    path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8")
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
}
SHELL_SYNTAX = re.compile(r"[|<>;&]|\$\(")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.S | re.M)


def blocks(kind: str):
    """(page, text) of every fenced block of ``kind``, in page order."""
    return [
        (page, body)
        for page, text in PAGES.items()
        for tag, body in FENCE.findall(text)
        if tag == kind
    ]


def sessions():
    """(page, command, expected output lines) for every ``$`` line of the console blocks."""
    found = []
    for page, block in blocks("console"):
        for chunk in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, *output = chunk.rstrip("\n").split("\n")
            found.append((page, command, [line.rstrip() for line in output]))
    return found


SESSIONS = sessions()


def test_every_block_is_run_or_checked():
    kinds = {tag for text in PAGES.values() for tag, _ in FENCE.findall(text)}
    assert kinds <= {"console", "gradcli", "python", "text", "sh"}, kinds
    for page, text in PAGES.items():
        # An unclosed or mislabelled fence swallows the text after it.
        assert len(re.findall(r"^```", text, re.M)) % 2 == 0, f"{page} has an unclosed code fence"
        assert not re.search(r"^```\w*[^\n\w]", text, re.M), f"{page}: text after a fence"
    assert all(page == "docs/language.md" for page, _ in blocks("gradcli"))


def test_every_page_is_in_the_manual_index():
    index = PAGES["docs/README.md"]
    for page in PAGES:
        if page.startswith("docs/") and page != "docs/README.md":
            assert f"]({page.removeprefix('docs/')})" in index, f"docs/README.md lists {page}"
            assert f"](docs/{page.removeprefix('docs/')})" in README, f"README.md links {page}"


def test_the_readme_is_short():
    assert README.count("\n") <= 250


def test_the_readme_shows_what_new_users_looked_for():
    """An ML program's check, a relative σ, a file of points with another column, and a
    plot with poles: the README's examples of each."""
    shown = {c: out for page, c, out in SESSIONS if page == "README.md"}
    assert "gradcli check samples/mlp.grad" in shown
    assert any(c.startswith("gradcli propagate") and "%" in c for c in shown)
    rows = [out for c, out in shown.items() if "--points samples/runs.csv" in c]
    assert rows and rows[0][0].startswith("id,")
    assert 'gradcli plot "tan(x)" --over x=-3:3 --output docs/poles.png' in README
    assert "](docs/poles.png)" in README


def test_links_between_pages_resolve():
    for page, text in PAGES.items():
        here = (ROOT / page).parent
        for target in re.findall(r"\]\(([^)#\s]+\.md)(?:#([\w-]+))?\)", text):
            path, anchor = target
            assert (here / path).is_file(), f"{page} links {path}, which is missing"
            if anchor:
                headings = re.findall(r"^#+ (.*)$", (here / path).read_text(encoding="utf-8"), re.M)
                slugs = {
                    re.sub(r"[^\w\- ]", "", h).strip().lower().replace(" ", "-") for h in headings
                }
                assert anchor in slugs, f"{page} links {path}#{anchor}, which has no such heading"
        for anchor in re.findall(r"\]\(#([\w-]+)\)", text):
            headings = re.findall(r"^#+ (.*)$", text, re.M)
            slugs = {re.sub(r"[^\w\- ]", "", h).strip().lower().replace(" ", "-") for h in headings}
            assert anchor in slugs, f"{page} links #{anchor}, which has no such heading"


def test_the_docs_tour_every_command():
    commands = {shlex.split(command)[1] for _, command, _ in SESSIONS}
    assert {"eval", "grad", "jacobian", "hessian", "vjp", "jvp", "graph", "functions"} <= commands
    assert {"check", "diff", "propagate", "taylor", "plot"} <= commands
    assert any("--format json" in c and "jq" in c for _, c, _ in SESSIONS)
    assert any("while read" in c for _, c, _ in SESSIONS)


def test_set_up_commands():
    assert 'pip install . && gradcli grad "(x+2)**2+3" --x 2\n' in README
    assert "pip install -e '.[test]' && python -m pytest\n" in README
    # The README's test command is the one CI runs.
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^python -m pytest$", ci, re.M)


def test_the_function_reference_is_generated():
    """docs/language.md's function reference is what scripts/gen_docs.py writes."""
    spec = importlib.util.spec_from_file_location("gen_docs", ROOT / "scripts" / "gen_docs.py")
    gen_docs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen_docs)
    text = PAGES["docs/language.md"]
    assert gen_docs.written(text) == text, "run python scripts/gen_docs.py"


def test_text_blocks_are_the_session_or_excerpts_of_the_code():
    # The guides of docs/architecture.md quote their examples, which tests/test_guides.py
    # runs, from tests/guides/.
    paths = [*(ROOT / "gradcli").rglob("*.py"), *(ROOT / "tests" / "guides").glob("*.py")]
    sources = "\n".join(path.read_text(encoding="utf-8") for path in paths)
    for page, block in blocks("text"):
        if block.startswith("$ gradcli\n"):
            assert page == "docs/calculator.md"  # test_repl.test_the_docs_session replays it
            continue
        assert block in sources, f"{page}: a text block that is not in gradcli/'s code"


@pytest.mark.parametrize(
    "page, command, expected", SESSIONS, ids=[f"{p}: {c}" for p, c, _ in SESSIONS]
)
def test_console_session(gradcli, gradcli_script, monkeypatch, page, command, expected):
    if "--dask" in command and importlib.util.find_spec("distributed") is None:
        pytest.skip("needs Dask: pip install 'gradcli[dask]'")
    monkeypatch.chdir(ROOT)
    # --max-memory counts what the process holds: a run of its own, not this one's.
    if SHELL_SYNTAX.search(command) or "--max-memory" in command:
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
            2
            if output.startswith(("error:", '{"error": '))
            else 3
            if "--strict" in args
            else 1
            if disagree
            else 0
        )
    assert_prints([line.rstrip() for line in output.splitlines()], expected, command)


def _sh_commands():
    found = []
    for page, block in blocks("sh"):
        for line in block.splitlines():
            line = line.split("  #")[0].strip()
            if line.startswith("gradcli ") and "--output" in line and "--scheduler" not in line:
                found.append((page, line))
    return found


@pytest.mark.parametrize("page, command", _sh_commands(), ids=[c for _, c in _sh_commands()])
def test_sh_commands_that_write_a_file(gradcli, tmp_path, monkeypatch, page, command):
    """The commands that made the pictures the pages show run, and write a file."""
    args = shlex.split(command)[1:]
    at = args.index("--output") + 1
    if args[at].endswith(".png") and importlib.util.find_spec("matplotlib") is None:
        pytest.skip("needs matplotlib")
    if args[at].endswith(".svg") and shutil.which("dot") is None:
        pytest.skip("needs Graphviz's dot")
    target = tmp_path / Path(args[at]).name
    args[at] = str(target)
    monkeypatch.chdir(ROOT)
    result = gradcli(*args)
    assert result.exit_code == 0, result.output
    assert target.stat().st_size > 0


def test_shell_completion_lines(gradcli_script):
    """The completion line for bash gives bash a completion function."""
    assert any("_GRADCLI_COMPLETE=bash_source gradcli" in block for _, block in blocks("sh"))
    env = {**os.environ, "_GRADCLI_COMPLETE": "bash_source"}
    done = subprocess.run(gradcli_script, capture_output=True, text=True, env=env, timeout=60)
    assert "complete -o nosort -F" in done.stdout


@pytest.mark.parametrize("page", sorted({page for page, _ in blocks("python")}))
def test_python_examples(page):
    namespace: dict = {}
    for block in [body for p, body in blocks("python") if p == page]:
        for line in block.splitlines():
            statement, _, shown = line.partition("  # ")
            if not shown:
                exec(statement, namespace)  # the docs' own example, not user input
                continue
            value = eval(statement.strip(), namespace)
            assert repr(value) == shown.split(" -- ")[0].strip(), line
