"""Shared fixtures: ``gradcli`` through Click's CliRunner, at a fixed width and without
colour, so that golden outputs are stable; ``float64`` as the default dtype."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import settings

# CI runs the property tests on a fixed sequence of examples, so that a red run
# can be replayed; local runs keep exploring new ones.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

ROOT = Path(__file__).resolve().parent.parent
_NO_ORACLE = "PyTorch 2.13 (the oracle of the differential tests) is not installed"
_ORACLE_HINT = "pip install -e '.[test,oracle]' (or pip install torch==2.13.0) runs them"


def _torch_missing() -> bool:
    import importlib.util

    return importlib.util.find_spec("torch") is None


def pytest_configure(config):
    """gradcli's modules compiled to bytecode once, as installing a package compiles them:
    the suite starts some 200 gradcli processes, each of which would otherwise compile the
    modules it imports again (0.3 s of CPU) wherever no cache was written, as in a fresh
    checkout under PYTHONDONTWRITEBYTECODE=1."""
    import compileall

    compileall.compile_dir(ROOT / "gradcli", quiet=2)


def pytest_report_header(config):
    if _torch_missing():
        return f"{_NO_ORACLE}: the tests that compare with it skip; {_ORACLE_HINT}"
    return None


def pytest_terminal_summary(terminalreporter):
    """One line that says how many tests skipped for want of PyTorch."""
    if not _torch_missing():
        return
    skipped = terminalreporter.stats.get("skipped", [])
    count = sum(1 for report in skipped if "torch" in str(report.longrepr).lower())
    terminalreporter.write_line(f"{_NO_ORACLE}: {count} tests skipped; {_ORACLE_HINT}")


SAMPLES = ROOT / "samples"
FIXED_TERMINAL = {"NO_COLOR": "1", "COLUMNS": "80", "TERM": "dumb"}


@pytest.fixture
def gradcli():
    """``gradcli(*args, input=None, tty=False)``: run the command line in-process.

    ``tty=True`` makes gradcli believe its standard output is a terminal (the
    table becomes the default format).
    """
    from gradcli.cli import commands as cli
    from gradcli.cli import common as cli_common

    runner = CliRunner()

    def invoke(*args, input=None, tty=False, env=None):
        saved = cli_common.stdout_is_terminal
        cli_common.stdout_is_terminal = lambda: tty
        try:
            return runner.invoke(
                cli.cli,
                [str(a) for a in args],
                input=input,
                env={**FIXED_TERMINAL, **(env or {})},
                catch_exceptions=False,
            )
        finally:
            cli_common.stdout_is_terminal = saved

    return invoke


@pytest.fixture
def gradcli_json(gradcli):
    """Run a command with ``--format json``, check that it succeeded, return the object."""

    def invoke(*args, **kwargs):
        result = gradcli(*args, "--format", "json", **kwargs)
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    return invoke


@pytest.fixture(scope="session")
def gradcli_script() -> list[str]:
    """The command of the installed console script (else the interpreter running
    the package), for tests that start real processes.

    The script beside the interpreter comes first: the one on PATH may belong to
    another environment, or be a wrapper (a pyenv shim) that runs another Python.
    """
    beside = os.path.join(os.path.dirname(sys.executable), "gradcli")
    script = beside if os.path.exists(beside) else shutil.which("gradcli")
    if script:
        return [script]
    return [sys.executable, "-m", "gradcli"]


@pytest.fixture
def float64():
    """float64 as the default dtype for the test (``pytest.mark.usefixtures("float64")``)."""
    import gradcli

    old = gradcli.get_default_dtype()
    gradcli.set_default_dtype(gradcli.float64)
    yield
    gradcli.set_default_dtype(old)
