"""Output files are complete or not there: a failed run, a full disk at any step of
writing, leaves the file that was at the path before, byte for byte, and no
temporary file beside it (``gradcli.core.atomic``). Real processes (signals, a full
tmpfs) are in ``test_outputs_processes``."""

from __future__ import annotations

import errno
import os
import stat
import threading

import numpy as np
import pytest

from gradcli.core import atomic
from gradcli.core.atomic import AtomicDirectory, AtomicOutput, atomic_output

OLD = b"PRECIOUS\n"
ENDINGS = ("csv", "npz", "parquet")


def no_space(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def listing(directory):
    return sorted(p.name for p in directory.iterdir())


# ----- the helper -----


def test_the_target_changes_only_when_the_output_is_committed(tmp_path):
    path = tmp_path / "r.csv"
    path.write_bytes(OLD)
    output = AtomicOutput(str(path))
    output.open("wb").write(b"new")
    temp = os.path.basename(output.temp)
    assert temp.startswith(".r.csv.") and temp.endswith(".tmp")
    assert path.read_bytes() == OLD  # written beside it, not in place
    output.commit()
    assert path.read_bytes() == b"new"
    assert listing(tmp_path) == ["r.csv"]


@pytest.mark.skipif(not hasattr(os, "posix_fadvise"), reason="no posix_fadvise")
def test_the_target_s_cached_pages_are_dropped_before_its_replacement_is_written(
    tmp_path, monkeypatch
):
    # The new file's pages then reuse that memory; the old file is untouched until the
    # rename, and a new target has nothing to drop.
    path = tmp_path / "r.npz"
    path.write_bytes(OLD)
    advised = []

    def advise(fd, offset, length, advice):
        advised.append((os.path.samestat(os.fstat(fd), os.stat(path)), offset, length, advice))

    monkeypatch.setattr(atomic.os, "posix_fadvise", advise)
    output = AtomicOutput(str(path))
    assert advised == [(True, 0, 0, os.POSIX_FADV_DONTNEED)]
    output.open("wb").write(b"new")
    assert path.read_bytes() == OLD
    output.commit()
    assert path.read_bytes() == b"new"
    AtomicOutput(str(tmp_path / "new.npz")).discard()
    assert len(advised) == 1


def test_a_block_that_raises_leaves_the_target_and_no_temporary_file(tmp_path):
    path = tmp_path / "r.npz"
    path.write_bytes(OLD)
    with pytest.raises(KeyboardInterrupt), atomic_output(str(path)) as stream:
        stream.write(b"half")
        raise KeyboardInterrupt
    assert path.read_bytes() == OLD
    assert listing(tmp_path) == ["r.npz"]


@pytest.mark.parametrize("step", ["fsync", "replace", "chmod", "flush"])
def test_a_full_disk_at_each_step_of_the_commit(tmp_path, monkeypatch, step):
    path = tmp_path / "r.csv"
    path.write_bytes(OLD)
    output = AtomicOutput(str(path))
    stream = output.open("wb")
    stream.write(b"new")
    if step == "flush":
        monkeypatch.setattr(stream, "flush", no_space)
    else:
        monkeypatch.setattr(atomic.os, step, no_space)
    with pytest.raises(OSError, match="No space left"):
        output.commit()
    monkeypatch.undo()
    assert path.read_bytes() == OLD
    assert listing(tmp_path) == ["r.csv"]


def test_a_new_file_has_the_mode_open_gives_and_an_old_one_keeps_its_own(tmp_path):
    old_umask = os.umask(0o027)
    try:
        with atomic_output(str(tmp_path / "new.csv")) as stream:
            stream.write(b"x")
        private = tmp_path / "private.csv"
        private.write_bytes(OLD)
        private.chmod(0o600)
        with atomic_output(str(private)) as stream:
            stream.write(b"x")
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE((tmp_path / "new.csv").stat().st_mode) == 0o666 & ~0o027
    assert stat.S_IMODE(private.stat().st_mode) == 0o600


def test_a_symbolic_link_is_followed_and_kept(tmp_path):
    (tmp_path / "data").mkdir()
    real = tmp_path / "data" / "r.csv"
    real.write_bytes(OLD)
    link = tmp_path / "r.csv"
    link.symlink_to(real)
    with atomic_output(str(link)) as stream:
        stream.write(b"new")
    assert link.is_symlink() and real.read_bytes() == b"new"
    assert listing(tmp_path / "data") == ["r.csv"]


def test_a_named_pipe_is_written_in_place_not_replaced(tmp_path):
    pipe = tmp_path / "out.csv"
    os.mkfifo(pipe)
    received = []
    reader = threading.Thread(target=lambda: received.append(pipe.read_bytes()))
    reader.start()
    with atomic_output(str(pipe)) as stream:
        stream.write(b"rows")
    reader.join(10)
    assert received == [b"rows"]
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)
    assert listing(tmp_path) == ["out.csv"]


def test_a_directory_or_a_missing_one_is_refused_before_anything_is_written(tmp_path):
    (tmp_path / "d.csv").mkdir()
    with pytest.raises(IsADirectoryError):
        AtomicOutput(str(tmp_path / "d.csv"))
    with pytest.raises(FileNotFoundError):
        AtomicOutput(str(tmp_path / "no" / "r.csv"))
    assert listing(tmp_path) == ["d.csv"]


def test_a_directory_of_parts_appears_whole_or_not_at_all(tmp_path):
    target = tmp_path / "out.parquet"
    parts = AtomicDirectory(str(target))
    with open(parts.add("part.0"), "wb") as stream:
        stream.write(b"a")
    assert not target.exists()
    parts.discard()
    assert listing(tmp_path) == []
    target.mkdir()  # an empty directory is replaced
    parts = AtomicDirectory(str(target))
    with open(parts.add("part.0"), "wb") as stream:
        stream.write(b"a")
    parts.commit()
    assert listing(target) == ["part.0"] and listing(tmp_path) == ["out.parquet"]
    with pytest.raises(FileExistsError):
        AtomicDirectory(str(target))  # one with files is kept
    assert listing(target) == ["part.0"]


def test_pyarrows_errors_are_said_in_the_systems_words():
    error = OSError("Error writing bytes to file. Detail: [errno 28] No space left on device")
    assert atomic.reason(error) == "No space left on device"
    error = OSError(28, "Error writing bytes to file. Detail: [errno 28] No space left on device")
    assert atomic.reason(error) == "No space left on device"
    assert atomic.reason(OSError(errno.EACCES, "Permission denied")) == "Permission denied"


# ----- the command line -----


@pytest.mark.parametrize("ending", ENDINGS)
def test_a_failed_run_leaves_the_file_at_the_output_path(gradcli, tmp_path, ending):
    points = tmp_path / "p.csv"
    points.write_text("x\n" + "1\n" * 50 + "bad\n")
    out = tmp_path / f"res.{ending}"
    out.write_bytes(OLD)
    result = gradcli("eval", "x**2", "--points", points, "--chunk-size", 10, "--output", out)
    assert result.exit_code == 2
    assert "'bad' in column x is not a number" in result.stderr
    assert out.read_bytes() == OLD
    assert listing(tmp_path) == ["p.csv", f"res.{ending}"]


@pytest.mark.parametrize("ending", ENDINGS)
def test_a_new_run_replaces_the_file_whole(gradcli, tmp_path, ending):
    out = tmp_path / f"res.{ending}"
    out.write_bytes(OLD)
    out.chmod(0o640)
    result = gradcli("eval", "x*2", "--over", "x=0:1:5", "--output", out)
    assert result.exit_code == 0, result.output
    from gradcli.core.point_files.readers import open_points

    with open_points(str(out)) as reader:
        rows = np.concatenate([c.columns["value"] for c in reader.chunks(100)])
    assert rows.tolist() == [0, 0.5, 1, 1.5, 2]
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert listing(tmp_path) == [f"res.{ending}"]


class _FullStream:
    """A stream on a disk that fills after ``room`` bytes: each step can fail."""

    def __init__(self, stream, room, fail_at):
        self.stream, self.room, self.fail_at = stream, room, fail_at

    def write(self, data):
        if self.fail_at == "write" and self.room < len(data):
            no_space()
        self.room -= len(data)
        return self.stream.write(data)

    def flush(self):
        if self.fail_at == "flush":
            no_space()
        return self.stream.flush()

    def close(self):
        if self.fail_at == "close":
            no_space()
        return self.stream.close()

    def __enter__(self):
        return self

    def __exit__(self, *error):
        self.close()

    def __getattr__(self, name):
        return getattr(self.stream, name)


# The writers: a CSV stream, the npz of a known row count (placed with pwrite), the
# npz of an unknown count (a zip written at the end), Parquet (by pyarrow, by path),
# the one point's npz.
RUNS = {
    "csv": ["--over", "x=0:1:50", "--output", "res.csv"],
    "npz-known-rows": ["--over", "x=0:1:50", "--output", "res.npz"],
    "npz-unknown-rows": ["--points", "p.csv", "--output", "res.npz"],
    "parquet": ["--over", "x=0:1:50", "--output", "res.parquet"],
    "one-point": ["--x", "[1, 2, 3]", "--output", "res.npz"],
}


def _fail(monkeypatch, step, run):
    """Make the disk full at ``step``: the streams, pwrite, pyarrow, fsync, the rename."""
    if step in ("fsync", "replace"):
        monkeypatch.setattr(atomic.os, step, no_space)
        return
    opened = AtomicOutput.open

    def full_open(self, mode="wb", **options):
        self.stream = _FullStream(opened(self, mode, **options), 100, step)
        return self.stream

    monkeypatch.setattr(AtomicOutput, "open", full_open)
    if step == "write" and run == "npz-known-rows":
        monkeypatch.setattr(os, "pwrite", no_space)
    if run == "parquet":
        import pyarrow.parquet

        arrow_error = OSError("Error writing bytes to file. Detail: [errno 28] No space left")
        method = "write_table" if step == "write" else "close"
        real = getattr(pyarrow.parquet.ParquetWriter, method)
        failed = []

        def fails(writer, *args, **kwargs):
            if failed:  # once, as a disk full: pyarrow's __del__ closes it again
                return real(writer, *args, **kwargs)
            failed.append(True)
            raise arrow_error

        monkeypatch.setattr(pyarrow.parquet.ParquetWriter, method, fails)


@pytest.mark.parametrize("step", ["write", "flush", "close", "fsync", "replace"])
@pytest.mark.parametrize("run", RUNS)
def test_a_full_disk_at_any_step_is_an_error_naming_the_file(
    gradcli, tmp_path, monkeypatch, run, step
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.csv").write_text("x\n" + "".join(f"{i}\n" for i in range(50)))
    out = tmp_path / RUNS[run][-1]
    out.write_bytes(OLD)
    _fail(monkeypatch, step, run)
    result = gradcli("grad", "sum(x**2)", *RUNS[run])
    monkeypatch.undo()
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: cannot write {out.name}: No space left on device\n",
    )
    assert out.read_bytes() == OLD
    assert listing(tmp_path) == sorted(["p.csv", out.name])


@pytest.mark.parametrize("fmt", ["csv", "json", "table"])
def test_many_points_to_a_full_standard_output_is_an_error(gradcli, monkeypatch, fmt):
    from gradcli.core.point_files.writers import CsvWriter
    from gradcli.render.point_writers import JsonLinesWriter, TableWriter

    for writer in (CsvWriter, JsonLinesWriter, TableWriter):
        monkeypatch.setattr(writer, "_write" if fmt != "table" else "_finish", no_space)
    result = gradcli("eval", "x", "--over", "x=0:1:5", "--format", fmt)
    message = "cannot write standard output: No space left on device"
    # With --format json the error too is JSON.
    said = f'{{"error": "{message}", "exit": 2}}\n' if fmt == "json" else f"error: {message}\n"
    assert (result.exit_code, result.stderr) == (2, said)


# ----- the other files: a graph, a plot, the session's :save -----


def _fake_dot(directory, fails: bool):
    """A ``dot`` on PATH that writes part of an image, then fails or succeeds."""
    script = directory / "bin" / "dot"
    script.parent.mkdir()
    end = "echo 'Error: out of memory' >&2; exit 1" if fails else "printf '</svg>'"
    script.write_text(f"#!/bin/sh\ncat > /dev/null\nprintf '<svg>'\n{end}\n")
    script.chmod(0o755)
    return f"{script.parent}{os.pathsep}{os.environ['PATH']}"


@pytest.mark.parametrize("fails", [True, False])
def test_a_graph_drawn_by_dot_replaces_the_image_only_when_dot_succeeds(
    gradcli, tmp_path, monkeypatch, fails
):
    monkeypatch.setenv("PATH", _fake_dot(tmp_path, fails))
    out = tmp_path / "g.svg"
    out.write_bytes(OLD)
    result = gradcli("graph", "x*y", "--x", "2", "--y", "3", "--output", out)
    if fails:
        assert result.exit_code == 2
        assert result.stderr == f"error: cannot write {out}: dot failed: Error: out of memory\n"
        assert out.read_bytes() == OLD
    else:
        assert result.exit_code == 0, result.output
        assert out.read_bytes() == b"<svg></svg>"
    assert listing(tmp_path) == ["bin", "g.svg"]


@pytest.mark.parametrize("ending", ["dot", "png"])
def test_a_graph_or_a_plot_that_fills_the_disk_leaves_the_old_file(
    gradcli, tmp_path, monkeypatch, ending
):
    if ending == "png":
        pytest.importorskip("matplotlib", reason="--output draws with matplotlib")
    out = tmp_path / f"f.{ending}"
    out.write_bytes(OLD)
    monkeypatch.setattr(atomic.os, "fsync", no_space)
    if ending == "dot":
        result = gradcli("graph", "x*y", "--x", "2", "--y", "3", "--output", out)
    else:
        result = gradcli("plot", "x**2", "--over", "x=0:1", "--output", out)
    monkeypatch.undo()
    assert result.exit_code == 2
    assert result.stderr == f"error: cannot write {out}: No space left on device\n"
    assert out.read_bytes() == OLD
    assert listing(tmp_path) == [out.name]


def test_the_sessions_save_that_fills_the_disk_leaves_the_old_file(tmp_path, monkeypatch):
    from gradcli.cli.session import Problem, Session

    out = tmp_path / "s.grad"
    out.write_bytes(OLD)
    session = Session()
    list(session.run("x = 2"))
    monkeypatch.setattr(atomic.os, "replace", no_space)
    (said,) = session.run(f":save {out}")
    monkeypatch.undo()
    assert isinstance(said, Problem)
    assert said.text == f"error: cannot write {out}: No space left on device"
    assert out.read_bytes() == OLD
    assert listing(tmp_path) == ["s.grad"]
