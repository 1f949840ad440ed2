"""The installed ``gradcli`` script and ``python -m gradcli`` as real processes:
run from another directory, through pipes, on a pseudo-terminal, in shell scripts."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ["grad", "(x+2)**2+3", "--x", "2"]


@pytest.fixture
def run(gradcli_script):
    return lambda args, **kwargs: _run(gradcli_script, args, **kwargs)


def _run(script, args, *, cwd, input=None, command=None, env=None):
    return subprocess.run(
        [*(command or script), *args],
        cwd=cwd,
        input=input,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1", **(env or {})},
        timeout=60,
    )


def test_script_from_another_directory(run, tmp_path):
    result = run(EXAMPLE, cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, "value 19\ngrad.x 8\n", "")


def test_python_dash_m(run, tmp_path):
    result = run(
        [*EXAMPLE, "--format", "json"], cwd=tmp_path, command=[sys.executable, "-m", "gradcli"]
    )
    assert result.returncode == 0
    assert json.loads(result.stdout) == {"value": 19, "grad": {"x": 8}}


def test_version(run, tmp_path):
    from gradcli import __version__

    result = run(["--version"], cwd=tmp_path)
    assert result.stdout == f"gradcli {__version__}\n"


def test_a_sample_by_path(run, tmp_path):
    result = run(
        ["jacobian", str(ROOT / "samples" / "tutorial_vector.grad"), "--format", "json"],
        cwd=tmp_path,
    )
    assert json.loads(result.stdout)["jacobian"] == {"x": [[4, 3], [2, 6]]}


def test_exit_2_with_one_message_and_no_traceback(run, tmp_path):
    result = run(["eval", "sin(x", "--x", "1"], cwd=tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith("error: ")
    assert result.stderr.splitlines()[1:] == ["  sin(x", "     ^"]


def test_exit_3_under_strict(run, tmp_path):
    result = run(["eval", "log(x)", "--x", "-1", "--strict"], cwd=tmp_path)
    assert result.returncode == 3
    assert result.stdout == "value nan\n"
    assert result.stderr.startswith("warning: the value contains nan")


def test_standard_input(run, tmp_path):
    result = run(["grad", "-", "--format", "json"], cwd=tmp_path, input="x = 3\nx**3\n")
    assert json.loads(result.stdout) == {"value": 27, "grad": {"x": 27}}


def test_closed_pipe_is_quiet(gradcli_script, tmp_path):
    gradcli = " ".join(gradcli_script)
    result = subprocess.run(
        ["bash", "-c", f"{gradcli} eval 'arange(200000)' --format plain | head -c 10"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.stdout == "value 0 1 "
    assert "Traceback" not in result.stderr and "Error" not in result.stderr


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_plain_output_in_a_while_read_loop(gradcli_script, tmp_path):
    gradcli = " ".join(gradcli_script)
    script = (
        f"{gradcli} grad 'x*y' --x 2 --y 5 --format plain |"
        ' while read -r name value; do echo "$name=$value"; done'
    )
    result = subprocess.run(
        ["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert result.stdout == "value=10\ngrad.x=5\ngrad.y=2\n"


@pytest.mark.skipif(shutil.which("jq") is None, reason="needs jq")
def test_json_output_through_jq(gradcli_script, tmp_path):
    gradcli = " ".join(gradcli_script)
    script = f"{gradcli} grad '(x+2)**2+3' --x 2 --format json | jq '.grad.x'"
    result = subprocess.run(
        ["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert result.stdout == "8\n"


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_on_a_terminal_the_default_is_a_table_and_no_color_holds(gradcli_script, tmp_path):
    leader, follower = os.openpty()
    try:
        env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "80", "TERM": "xterm-256color"}
        process = subprocess.Popen(
            [*gradcli_script, *EXAMPLE],
            cwd=tmp_path,
            stdout=follower,
            stderr=follower,
            env=env,
        )
        os.close(follower)
        follower = None
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closes when the process ends
                break
            if not chunk:
                break
            chunks.append(chunk)
        assert process.wait(timeout=60) == 0
    finally:
        os.close(leader)
        if follower is not None:
            os.close(follower)
    text = b"".join(chunks).decode()
    colours = re.findall(r"\x1b\[([0-9;]*)m", text)
    assert colours, "a terminal gets styles (bold)"
    assert not any(re.search(r"(^|;)(3[0-9]|9[0-7])(;|$)", c) for c in colours), colours
    assert "│ ∂f/∂x │ ()    │ 8     │" in re.sub(r"\x1b\[[0-9;]*m", "", text)


PROBE = """
import sys
already = set(sys.modules)  # what Python's own start-up (site, .pth files) loaded
from gradcli.cli import main
sys.argv = ["gradcli", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
heavy = {"rich", "sympy", "scipy", "matplotlib", "torch", "lark", "prompt_toolkit"}
heavy |= {"pyarrow", "pandas", "dask", "distributed", "gradcli.core.point_files"}
heavy.add("gradcli.autograd.functional")
heavy.add("threadpoolctl")  # 10 ms: loaded by a product large enough to need threads
heavy.add("pathlib")  # costs milliseconds at start-up; parsing and printing need no paths
heavy |= {"gradcli.engine.opinfo", "gradcli.engine.opsamples"}  # the ops' samples: the tests'
# --format NAME loads that format alone, not the others to check the name against them
heavy |= {f"gradcli.render.formats.{name}" for name in ("csv", "latex", "npz", "parquet")}
from gradcli.engine.ops import LATER  # the op modules loaded on first use
heavy |= {f"gradcli.engine.ops.{name}" for name in LATER}
loaded = set(sys.modules) - already
print(sorted(m for m in loaded if m in heavy or m.split(".")[0] in heavy), file=sys.stderr)
"""


@pytest.mark.parametrize(
    "args, expected",
    [
        ([*EXAMPLE, "--format", "json"], "[]"),
        ([*EXAMPLE, "--format", "plain"], "[]"),
        (["jacobian", "x*2", "--x", "1", "--format", "json"], "['gradcli.autograd.functional']"),
        (["grad", "sum(A @ x)", "--A", "ones(3, 4)", "--x", "ones(4)"], "[]"),
    ],
)
def test_start_up_imports_only_what_the_command_needs(tmp_path, args, expected):
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.stderr.strip() == expected


def test_a_many_point_run_in_this_process_loads_none_of_the_dask_modules(tmp_path):
    probe = PROBE.replace(
        "loaded = set(sys.modules) - already",
        "heavy = {'gradcli.core.point_files.dask_files', 'gradcli.core.point_files.distributed'}"
        "\nloaded = set(sys.modules) - already",
    )
    result = subprocess.run(
        [sys.executable, "-c", probe, "grad", "x**2", "--over", "x=0:1:3", "--format", "csv"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.stderr.strip() == "[]"
    assert result.stdout.splitlines()[1:] == ["0,0,0", "0.5,0.25,1", "1,1,2"]


GC_PROBE = """
import gc
import {module}
young = len(gc.get_objects(generation=0)) + len(gc.get_objects(generation=1))
print(young, len(gc.get_objects(generation=2)))
"""


@pytest.mark.parametrize("module", ["gradcli", "gradcli.cli.commands"])
def test_the_import_leaves_its_objects_in_the_oldest_generation(tmp_path, module):
    # Moved there without a pass of the cycle collector: a young pass over the tens of
    # thousands of objects an import makes (modules, classes, functions: they live as
    # long as the process) was a tenth of the start-up.
    result = subprocess.run(
        [sys.executable, "-c", GC_PROBE.format(module=module)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    young, old = map(int, result.stdout.split())
    assert old > 10_000 and young < 1_000, (young, old)


def test_scipy_loads_when_a_program_calls_a_function_that_needs_it(tmp_path):
    # The example above loads no SciPy; lgamma does, so the guard is not vacuous.
    result = subprocess.run(
        [sys.executable, "-c", PROBE, "grad", "lgamma(x)", "--x", "3", "--format", "json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "'scipy'" in result.stderr
    assert json.loads(result.stdout)["grad"]["x"] == pytest.approx(1.5 - 0.5772156649015329)


@pytest.mark.parametrize(
    "args, rich",
    [
        ([*EXAMPLE, "--format", "table"], False),  # drawn as Rich would (render.boxes)
        ([*EXAMPLE, "--format", "table", "--steps"], True),
        (["hessian", "x*y", "--x", "1", "--y", "2", "--format", "table"], True),
    ],
)
def test_only_the_tables_that_need_rich_import_it(tmp_path, args, rich):
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "COLUMNS": "80"},
    )
    assert ("'rich'" in result.stderr) == rich, result.stderr
    assert "│ ∂f/∂x" in result.stdout


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("fmt", ["plain", "json", "table"])
def test_a_full_disk_is_an_error_not_a_traceback(gradcli_script, tmp_path, fmt):
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [*gradcli_script, *EXAMPLE, "--format", fmt],
            cwd=tmp_path,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    assert result.returncode == 2  # the user's disk, not a bug of gradcli
    message = "cannot write standard output: No space left on device"
    if fmt == "json":
        assert result.stderr == f'{{"error": "{message}", "exit": 2}}\n'
    else:
        assert result.stderr == f"error: {message}\n"


def _cpu_seconds(pid: int) -> float:
    """The processor time a process has used so far, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
def test_ctrl_c_ends_a_computation_with_one_line_and_exit_130(gradcli_script, tmp_path):
    import signal
    import time

    # A Hessian of 4000 x 4000: about a minute of work, interrupted once well into it.
    args = ["hessian", "sum(sin(x) * cos(x) ** 3)", "--x", "randn(4000)", "--format", "json"]
    process = subprocess.Popen(
        [*gradcli_script, *args],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        # As from a terminal: a test run in the background has SIGINT ignored, and
        # its children would inherit that.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        # Start-up takes a fraction of a second of processor time: after 2 s it computes.
        deadline = time.monotonic() + 60
        while _cpu_seconds(process.pid) < 2 and time.monotonic() < deadline:
            assert process.poll() is None, process.stderr.read()
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=30)
    finally:
        process.kill()
    # --format json: the error too is one JSON object.
    assert (process.returncode, stderr) == (130, '{"error": "interrupted", "exit": 130}\n')


#: The console script's function as the script calls it, with an exit handler and what
#: Python's way of ending would run after it (the except clause).
ENDING = """
import atexit, sys
from gradcli.cli import script
atexit.register(lambda: print("exit handler ran", file=sys.stderr))
sys.argv = ["gradcli", *sys.argv[1:]]
try:
    script()
except SystemExit as done:
    print("ended Python's way", done.code, file=sys.stderr)
"""


@pytest.mark.parametrize(
    ("args", "code", "out"),
    [
        (EXAMPLE, 0, "value 19\ngrad.x 8\n"),
        (["grad", "x**", "--x", "1"], 2, ""),  # an error leaves at once too
        (["eval", "log(x)", "--x", "-1", "--strict"], 3, "value nan\n"),
    ],
)
def test_a_command_of_gradcli_alone_ends_at_once_after_the_exit_handlers(args, code, out, tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", ENDING, *args],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (code, out)
    assert done.stderr.endswith("exit handler ran\n")
    assert "ended Python's way" not in done.stderr


def test_a_python_program_ends_python_s_way_its_unclosed_file_written(tmp_path):
    # gradcli run: the program's objects are finalised, its unclosed file flushed.
    program = tmp_path / "p.py"
    program.write_text("f = open('out.txt', 'w')\nf.write('kept')\n")
    done = subprocess.run(
        [sys.executable, "-c", ENDING, "run", str(program)],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 0
    assert "ended Python's way 0" in done.stderr
    assert done.stderr.endswith("exit handler ran\n")  # once, at Python's end
    assert done.stderr.count("exit handler ran") == 1
    assert (tmp_path / "out.txt").read_text() == "kept"
