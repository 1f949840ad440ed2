"""Outputs of real ``gradcli`` processes stopped part way: SIGTERM and SIGKILL in the
middle of a long run, and a disk that fills (a 1 MB tmpfs, where this machine
lets the tests mount one; ``/dev/full`` for standard output). The file at the
output path before the run is still there, byte for byte."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import uuid
from pathlib import Path

import pytest

OLD = b"PRECIOUS\n"
# Enough rows to be stopped part way (200 million: a run takes minutes), from two
# small axes; each test stops it as soon as its first rows are written.
LONG_RUN = ["eval", "sin(x)*y", "--over", "x=0:1:20000", "--over", "y=0:1:10000"]
LONG_RUN += ["--chunk-size", "20000"]


def _environment():
    return {**os.environ, "NO_COLOR": "1"}


def _temporary_files(directory: Path, name: str) -> list[Path]:
    return [p for p in directory.iterdir() if p.name.startswith(f".{name}.")]


def _wait_for_rows(process, directory: Path, name: str, timeout: float = 60) -> None:
    """Until the run's temporary file holds some rows (mid-run)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()
        written = [p for p in _temporary_files(directory, name) if p.stat().st_size > 0]
        if written:
            time.sleep(0.3)  # a few chunks more
            return
        time.sleep(0.05)
    process.kill()
    pytest.fail("the run wrote nothing in time")


@pytest.mark.parametrize("ending", ["csv", "npz", "parquet"])
@pytest.mark.parametrize("sent", ["SIGTERM", "SIGKILL"])
def test_a_run_stopped_by_a_signal_leaves_the_file_that_was_there(
    gradcli_script, tmp_path, ending, sent
):
    name = f"res.{ending}"
    out = tmp_path / name
    out.write_bytes(OLD)
    process = subprocess.Popen(
        [*gradcli_script, *LONG_RUN, "--output", name],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_environment(),
    )
    try:
        _wait_for_rows(process, tmp_path, name)
        process.send_signal(getattr(signal, sent))
        stdout, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert out.read_bytes() == OLD
    if sent == "SIGTERM":
        assert (process.returncode, stdout, stderr) == (143, b"", b"error: terminated\n")
        assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # no temporary file
    else:
        # A kill cannot be handled: the partial rows are in the temporary file only.
        assert process.returncode == -signal.SIGKILL
        (left,) = _temporary_files(tmp_path, name)
        left.unlink()  # an npz's is gigabytes (sparse)


def test_a_killed_run_with_no_file_before_leaves_none_under_the_name(gradcli_script, tmp_path):
    process = subprocess.Popen(
        [*gradcli_script, *LONG_RUN, "--output", "res.csv"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=_environment(),
    )
    try:
        _wait_for_rows(process, tmp_path, "res.csv")
    finally:
        process.kill()
        process.wait()
    assert not (tmp_path / "res.csv").exists()
    assert len(_temporary_files(tmp_path, "res.csv")) == 1


def test_sigint_still_exits_130(gradcli_script, tmp_path):
    (tmp_path / "res.csv").write_bytes(OLD)
    process = subprocess.Popen(
        [*gradcli_script, *LONG_RUN, "--output", "res.csv"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_environment(),
        # As from a terminal: a test run in the background has SIGINT ignored, and its
        # children would inherit that.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        _wait_for_rows(process, tmp_path, "res.csv")
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert (process.returncode, stderr) == (130, b"error: interrupted\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["res.csv"]
    assert (tmp_path / "res.csv").read_bytes() == OLD


# ----- a full disk -----


@pytest.fixture(scope="module")
def small_disk(tmp_path_factory):
    """A 1 MB tmpfs, where this machine lets the tests mount one."""
    directory = tmp_path_factory.mktemp("disk")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(directory)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr.strip()}")
    yield directory
    subprocess.run(["umount", str(directory)], check=False)


# Each more than the 1 MB of the disk: the rows as csv, npz (the row count known,
# from a grid, and unknown, from a file of points) and parquet; one point's npz.
FULL_DISK_RUNS = {
    "csv": ["eval", "x", "--over", "x=0:1:200000"],
    "npz-known-rows": ["eval", "x", "--over", "x=0:1:200000"],
    "npz-unknown-rows": ["eval", "x", "--points", "POINTS"],
    "parquet": ["eval", "x", "--over", "x=0:1:200000"],
    "one-point": ["eval", "ones(300000)"],
}


@pytest.mark.parametrize("run", FULL_DISK_RUNS)
def test_a_full_disk_is_an_error_naming_the_file_and_the_old_one_stays(
    gradcli_script, small_disk, tmp_path, run
):
    directory = small_disk / uuid.uuid4().hex[:8]
    directory.mkdir()
    ending = "csv" if run == "csv" else "parquet" if run == "parquet" else "npz"
    out = directory / f"res.{ending}"
    out.write_bytes(OLD)
    points = tmp_path / "p.csv"
    points.write_text("x\n" + "".join(f"{i}\n" for i in range(200_000)))
    args = [str(points) if a == "POINTS" else a for a in FULL_DISK_RUNS[run]]
    done = subprocess.run(
        [*gradcli_script, *args, "--output", str(out)],
        capture_output=True,
        text=True,
        env=_environment(),
        timeout=120,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"error: cannot write {out}: No space left on device\n"
    assert out.read_bytes() == OLD
    assert sorted(p.name for p in directory.iterdir()) == [out.name]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize(
    "args",
    [
        ["grad", "x", "--x", "1"],
        ["eval", "x", "--over", "x=0:1:5"],
        ["eval", "x", "--over", "x=0:1:5", "--format", "json"],
    ],
)
def test_a_full_standard_output_is_exit_2_in_one_line(gradcli_script, tmp_path, args):
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [*gradcli_script, *args],
            cwd=tmp_path,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=_environment(),
            timeout=60,
        )
    message = "cannot write standard output: No space left on device"
    # With --format json an error is one JSON object on its line of standard error.
    said = (
        json.dumps({"error": message, "exit": 2}) + "\n"
        if "json" in args
        else f"error: {message}\n"
    )
    assert (done.returncode, done.stderr) == (2, said)
