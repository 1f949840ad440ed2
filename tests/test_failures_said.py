"""Failures of the surroundings said in one line with exit 2, by real processes: a
closed standard stream, a file of bad rows under --skip-bad-rows, and the like."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import time

import pytest


def _run(script, args, *, redirect="", input=None, cwd=None, timeout=60):
    """``gradcli ARGS`` with the shell's ``redirect`` (``>&-``: standard output closed)."""
    return subprocess.run(
        ["sh", "-c", f'exec "$@" {redirect}', "sh", *script, *args],
        input=input,
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "NO_COLOR": "1"},
        timeout=timeout,
    )


@pytest.fixture
def run(gradcli_script):
    return lambda args, **kwargs: _run(gradcli_script, args, **kwargs)


# ----------------------------------------------------------------------------
# A closed standard stream
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["grad", "x**2", "--x", "3"],
        ["grad", "x**2", "--x", "3", "--get", "grad.x"],
        ["eval", "x", "--points", "POINTS"],
        ["eval", "x", "--points", "POINTS", "--format", "json"],
    ],
)
def test_closed_standard_output_is_said(run, tmp_path, args):
    points = tmp_path / "p.csv"
    points.write_text("x\n1\n2\n")
    args = [str(points) if a == "POINTS" else a for a in args]
    result = run(args, redirect=">&-")
    message = "cannot write standard output: it is closed"
    # With --format json an error is one JSON object on its line of standard error.
    said = (
        json.dumps({"error": message, "exit": 2}) + "\n"
        if "json" in args
        else f"error: {message}\n"
    )
    assert (result.returncode, result.stderr) == (2, said)


def test_closed_standard_output_with_output_file_still_writes_the_file(run, tmp_path):
    points, output = tmp_path / "p.csv", tmp_path / "o.csv"
    points.write_text("x\n1\n2\n")
    result = run(["eval", "x", "--points", str(points), "--output", str(output)], redirect=">&-")
    # The file is whole; the line that says so cannot be written, and that is said.
    assert output.read_text() == "x,value\n1,1\n2,2\n"
    assert (result.returncode, result.stderr) == (
        2,
        "error: cannot write standard output: it is closed\n",
    )


@pytest.mark.parametrize(
    "args",
    [["eval", "x", "--points", "-"], ["eval", "-"], ["repl"]],
)
def test_closed_standard_input_is_said(run, args):
    result = run(args, redirect="<&-")
    assert (result.returncode, result.stdout, result.stderr) == (
        2,
        "",
        "error: cannot read standard input: it is closed\n",
    )


def test_closed_standard_error_keeps_the_exit_status(run):
    result = run(["eval", "x", "--x", "abc"], redirect="2>&-")
    assert result.returncode == 2
    result = run(["eval", "x", "--x", "2"], redirect="2>&-")
    assert (result.returncode, result.stdout) == (0, "value 2\n")


# ----------------------------------------------------------------------------
# --skip-bad-rows when a whole block of rows is bad
# ----------------------------------------------------------------------------


def test_skip_bad_rows_of_a_file_of_bad_rows_only(run):
    result = run(["eval", "x", "--points", "-", "--skip-bad-rows"], input="x\nabc\n")
    assert (result.returncode, result.stdout) == (0, "x,value\n")
    assert result.stderr == (
        "warning: skipped 1 bad row:\n  line 2: 'abc' in column x is not a number\n"
    )


@pytest.mark.parametrize("to_file", [False, True])
def test_skip_bad_rows_of_a_whole_block_mid_file_keeps_the_rows_after(run, tmp_path, to_file):
    points, output = tmp_path / "p.csv", tmp_path / "o.csv"
    good = [str(i) for i in range(20_000)] + [str(-i) for i in range(1, 11)]
    points.write_text("\n".join(["x", *good[:20_000], *["abc"] * 30_000, *good[20_000:]]) + "\n")
    args = ["eval", "2*x", "--points", str(points), "--skip-bad-rows", "--chunk-size", "1000"]
    result = run([*args, "--output", str(output)] if to_file else args)
    assert result.returncode == 0, result.stderr
    written = output.read_text() if to_file else result.stdout
    rows = written.splitlines()
    assert rows[0] == "x,value"
    assert len(rows) == 1 + 20_010
    assert rows[-1] == "-10,-20"  # the last good row, after the bad block, doubled
    assert "skipped 30000 bad rows" in result.stderr


# ----------------------------------------------------------------------------
# Work that grows as the input does, not faster
# ----------------------------------------------------------------------------


def test_a_csv_of_many_columns_reads_in_linear_time(run, tmp_path):
    # 100,000 columns copied to the output: over 100 s (a set of the column names made
    # once per column, then pyarrow's calls once per column to write them); now seconds.
    count = 100_000
    points, output = tmp_path / "wide.csv", tmp_path / "o.csv"
    names = [f"c{i}" for i in range(count)]
    points.write_text(",".join(names) + "\n" + ",".join(["1"] * count) + "\n")
    result = run(
        ["eval", f"c0 + 2*c{count - 1}", "--points", str(points), "--output", str(output)],
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    header, row = output.read_text().splitlines()
    assert header.split(",") == [*names, "value"]
    assert row.split(",")[-1] == "3"


def _doubling(levels: int) -> str:
    """f0(t) = t*t, then f1 .. f{levels}, each calling the one before twice: the
    value at x is 2**levels * x**2, and the work 2**levels calls."""
    lines = ["f0(t) = t*t"]
    lines += [f"f{i}(t) = f{i - 1}(t) + f{i - 1}(t)" for i in range(1, levels + 1)]
    return "\n".join([*lines, f"f{levels}(x)"]) + "\n"


@pytest.mark.parametrize("command", ["eval", "grad"])
def test_a_program_that_doubles_its_work_forty_times_is_refused_at_once(run, tmp_path, command):
    program = tmp_path / "doubling.grad"
    program.write_text(_doubling(40))
    started = time.monotonic()
    result = run([command, str(program), "--x", "1"], timeout=30)
    assert time.monotonic() - started < 5
    assert result.returncode == 2
    first, line, caret = result.stderr.splitlines()
    assert first.startswith("error: the program does more than 200,000 operations")
    assert "raise the limit with --max-operations N" in first
    assert re.search(rf"at {re.escape(str(program))}:[12]:\d+$", first)  # the place
    assert line.strip().startswith(("f1(t) =", "f0(t) ="))


def test_max_operations_lets_a_large_program_finish(run, tmp_path):
    # 2**12 * x**2 at x = 3, and its derivative 2**13 * x: by hand.
    program = tmp_path / "doubling.grad"
    program.write_text(_doubling(12))
    result = run(["grad", str(program), "--x", "3", "--max-operations", "100000"])
    assert (result.returncode, result.stdout) == (0, f"value {2**12 * 9}\ngrad.x {2**13 * 3}\n")
    result = run(["grad", str(program), "--x", "3", "--max-operations", "1000"])
    assert result.returncode == 2
    assert "more than 1,000 operations" in result.stderr


def test_max_operations_holds_at_many_points(run, tmp_path):
    program, points = tmp_path / "doubling.grad", tmp_path / "p.csv"
    program.write_text(_doubling(12))
    points.write_text("x\n1\n2\n")
    result = run(["eval", str(program), "--points", str(points), "--max-operations", "1000"])
    assert result.returncode == 2
    assert "more than 1,000 operations" in result.stderr
    result = run(["eval", str(program), "--points", str(points)])
    assert (result.returncode, result.stdout) == (0, f"x,value\n1,{2**12}\n2,{2**14}\n")


def test_a_long_repl_session_costs_each_line_what_it_reads(run):
    # 1,000 lines: each pair defines a new name and shows twice it. Every line compiled
    # and ran the whole session so far: 500 lines took 21 s, 1,000 over a minute.
    lines = []
    for i in range(500):
        lines += [f"a{i} = {i} * 0.5 + 1", f"a{i} * 2"]
    result = run(["repl"], input="\n".join(lines) + "\n", timeout=30)
    assert (result.returncode, result.stderr) == (0, "")
    shown = result.stdout.splitlines()
    assert len(shown) == 2 * 500
    assert shown[-2:] == [f"value {(499 * 0.5 + 1) * 2:g}", "grad.a499 2"]


def test_a_long_repl_paste_with_one_error_keeps_the_other_lines(run):
    lines = [f"a{i} = {i} + 1" for i in range(2000)]
    lines[1000] = "a1000 = nothing + 1"
    result = run(["repl"], input="\n".join([*lines, "a1999 + a999"]) + "\n", timeout=30)
    assert result.returncode == 2
    assert result.stderr.startswith("error: unknown name 'nothing'")
    assert result.stdout.splitlines() == ["value 3000", "grad.a999 1", "grad.a1999 1"]


# ----------------------------------------------------------------------------
# Under Dask: the same messages as in one process
# ----------------------------------------------------------------------------


def test_a_field_not_a_number_under_dask_is_said_as_without_it(run, tmp_path):
    pytest.importorskip("distributed")
    pytest.importorskip("dask.dataframe")
    points = tmp_path / "b.csv"
    points.write_text("x\n1\nabc\n")
    result = run(["eval", "x", "--points", str(points), "--dask"], timeout=120)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == f"error: {points} line 3: 'abc' in column x is not a number\n"


def _listener(greeting: bytes):
    """A port of this machine that accepts connections, sends each ``greeting``, and
    says nothing more."""
    import socket
    import threading

    server = socket.create_server(("127.0.0.1", 0))
    held = []

    def accept():
        with contextlib.suppress(OSError):
            while True:
                peer = server.accept()[0]
                peer.sendall(greeting)
                held.append(peer)

    threading.Thread(target=accept, daemon=True).start()
    return server, held


@pytest.fixture
def listener():
    opened = []

    def open_one(greeting: bytes) -> int:
        server, held = _listener(greeting)
        opened.append((server, held))
        return server.getsockname()[1]

    yield open_one
    for server, held in opened:
        server.close()
        for peer in held:
            peer.close()


@pytest.fixture
def http_server():
    import http.server
    import threading

    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


_SILENT = "accepted the connection but did not say who it is within 3 s"


@pytest.mark.parametrize(
    "greeting, why",
    [
        (b"", _SILENT),  # it waited until the peer closed (121 s)
        (b"\x10" + bytes(7), _SILENT),  # a length, and nothing after it: the same
        (b"HTTP/1.0 400 Bad Request\r\n\r\n", "answered as an HTTP server"),  # 3.07 EiB
        (b"\xff" * 8, "answered in another protocol than Dask's"),
        (None, _SILENT),  # an HTTP server, waiting for a request
    ],
)
def test_a_scheduler_address_where_no_scheduler_answers(
    run, tmp_path, listener, http_server, greeting, why
):
    pytest.importorskip("distributed")
    port = http_server if greeting is None else listener(greeting)
    points = tmp_path / "p.csv"
    points.write_text("x\n1\n")
    address = f"tcp://127.0.0.1:{port}"
    started = time.monotonic()
    result = run(["eval", "x", "--points", str(points), "--scheduler", address], timeout=30)
    assert time.monotonic() - started < 15
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"error: cannot reach the Dask scheduler at {address}: 127.0.0.1:{port} {why}: "
        "it is not a Dask scheduler\n"
    )


# ----------------------------------------------------------------------------
# Smaller ones
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["١٢", "[1 ٢]", "١٢%"])
def test_a_value_of_other_than_ascii_digits_is_refused_as_in_programs(run, value):
    # float("١٢") is 12.0: the value was read as twelve, where the language refuses it.
    result = run(["eval", "x*2", "--x", value])
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith("error: in the value of --x: '")
    assert "is not an ASCII digit: write 0-9" in result.stderr.splitlines()[0]


@pytest.mark.parametrize("dask", [False, True])
def test_a_blank_first_line_is_not_called_empty(run, tmp_path, dask):
    if dask:
        pytest.importorskip("distributed")
        pytest.importorskip("dask.dataframe")
    points = tmp_path / "p.csv"
    points.write_text("\nx\n1\n")
    result = run(["eval", "x", "--points", str(points), *(["--dask"] if dask else [])], timeout=120)
    assert (result.returncode, result.stderr) == (
        2,
        f"error: {points} line 1 is blank: the first line must be a header naming the columns"
        " (x,y)\n",
    )


def test_a_link_to_a_device_under_dask_is_said_to_be_one(run, tmp_path):
    pytest.importorskip("distributed")
    pytest.importorskip("dask.dataframe")
    link = tmp_path / "zero.csv"
    link.symlink_to("/dev/zero")
    for dask in ([], ["--dask"]):  # as without Dask
        result = run(["eval", "x", "--points", str(link), *dask], timeout=120)
        assert (result.returncode, result.stderr) == (
            2,
            f"error: cannot read {link}: it is a device, not a regular file\n",
        )


def test_points_from_a_terminal_say_so_and_one_ctrl_d_ends_them(gradcli_script):
    import pty

    master, slave = pty.openpty()
    process = subprocess.Popen(
        [*gradcli_script, "eval", "2*x", "--points", "-"],
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "NO_COLOR": "1"},
    )
    os.close(slave)
    try:
        os.write(master, b"x\n1\n2\n")
        time.sleep(0.5)
        os.write(master, b"\x04")  # one Ctrl-D: the end (it took two)
        out, err = process.communicate(timeout=30)
    finally:
        process.kill()
        os.close(master)
    assert (process.returncode, out) == (0, b"x,value\n1,2\n2,4\n")
    assert err == (
        b"reading the points from standard input: a header of the columns (x,y), a line per "
        b"point, then Ctrl-D\n"
    )


def test_a_header_letter_that_only_looks_like_an_input_is_flagged(run, tmp_path):
    points = tmp_path / "p.csv"
    points.write_text("х\n1\n")  # Cyrillic х (U+0445), not x
    result = run(["eval", "x*2", "--points", str(points)])
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"error: {points} line 1: the column name 'х' holds 'х' (U+0445 CYRILLIC SMALL LETTER"
        " HA), which looks like 'x': write 'x'\n"
    )
    # A column of another script that names no input is copied, as before.
    points.write_text("цена,x\nа,1\n")
    result = run(["eval", "x*2", "--points", str(points)])
    assert (result.returncode, result.stdout) == (0, "цена,x,value\nа,1,2\n")


@pytest.mark.parametrize("limit", [12, 20])
def test_dask_under_a_low_limit_of_open_files_is_refused_at_once(gradcli_script, tmp_path, limit):
    # ulimit -n 20: "internal error (RuntimeError: Nanny failed to start.)" and Dask's
    # tracebacks; ulimit -n 12: a hang, with megabytes of tracebacks.
    pytest.importorskip("distributed")
    pytest.importorskip("dask.dataframe")
    points = tmp_path / "p.csv"
    points.write_text("x\n1\n2\n")
    result = _run(
        ["sh", "-c", f'ulimit -n {limit} && exec "$@"', "sh", *gradcli_script],
        ["eval", "x", "--points", str(points), "--dask"],
        timeout=60,
    )
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith(f"error: --dask: the limit on open files is {limit} (ulimit")
    assert result.stderr.endswith("raise it (ulimit -n 1024), or run without --dask\n")
    assert len(result.stderr.splitlines()) == 1


def test_a_scheduler_lost_mid_run_is_said_in_one_line(gradcli_script, tmp_path):
    pytest.importorskip("distributed")
    import signal
    import sys

    started, command = [], None

    def start(*args):
        process = subprocess.Popen(
            [sys.executable, "-m", *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        started.append(process)
        return process

    try:
        scheduler = start(
            "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0",
            "--no-dashboard",
        )  # fmt: skip
        address = None
        deadline = time.monotonic() + 60
        while address is None and time.monotonic() < deadline:
            found = re.search(r"tcp://127\.0\.0\.1:\d+", scheduler.stderr.readline())
            address = found and found.group()
        assert address, "the scheduler did not start"
        start(
            "distributed.cli.dask_worker", address, "--nthreads", "1", "--nworkers", "1",
            "--no-dashboard", "--host", "127.0.0.1",
        )  # fmt: skip
        points, output = tmp_path / "p.csv", tmp_path / "o.csv"
        points.write_text("x\n" + "".join(f"{i}\n" for i in range(200_000)))
        command = subprocess.Popen(
            [*gradcli_script, "eval", "sum(sin(x*ones(20000)))", "--points", str(points),
             "--chunk-size", "1000", "--scheduler", address, "--output", str(output)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        # Mid-run: once the scheduler has taken the run's client (a fixed wait was not
        # enough on a loaded machine), and its first tasks are out.
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if "Receive client connection" in scheduler.stderr.readline():
                break
        time.sleep(3)
        os.killpg(scheduler.pid, signal.SIGKILL)
        out, err = command.communicate(timeout=120)
    finally:
        for process in started:  # the scheduler, the worker and its nanny: each its group
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        if command is not None and command.poll() is None:
            command.kill()
            command.wait()
    assert (command.returncode, out) == (2, "")
    assert err == "error: the Dask scheduler was lost mid-run (scheduler-connection-lost)\n"
    assert not output.exists()


def test_a_repl_script_whose_reader_leaves_ends_quietly(gradcli_script):
    # | head: each later line said "internal error (BrokenPipeError ...)", 249 of them.
    script = "".join(f"a{i} = {i}\na{i} * 2\n" for i in range(500))
    result = subprocess.run(
        ["sh", "-c", '"$@" | head -2', "sh", *gradcli_script, "repl"],
        input=script,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (result.stdout, result.stderr) == ("value 0\ngrad.a0 2\n", "")
