"""The peak resident memory of one ``gradcli`` process, measured by a parent of its own
(``RUSAGE_CHILDREN`` of a process that starts only it), so earlier processes of the
test run do not count."""

from __future__ import annotations

import os
import subprocess
import sys

_PARENT = """
import resource, subprocess, sys
space = int(sys.argv[2])
def limited():
    if space:
        resource.setrlimit(resource.RLIMIT_AS, (space, space))
with open(sys.argv[1], "rb") as stdin:
    done = subprocess.run(sys.argv[3:], stdin=stdin, capture_output=True, preexec_fn=limited)
sys.stdout.buffer.write(done.stdout)
sys.stderr.buffer.write(done.stderr)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)
sys.exit(done.returncode)
"""


def run(
    args, stdin: str = os.devnull, cwd=None, address_space: int = 0
) -> tuple[int, str, str, int]:
    """``gradcli *args`` (``stdin``: a file to read standard input from; ``address_space``:
    its limit in bytes, as ``ulimit -v`` sets it, 0 for none): its exit status, standard
    output and error, and its peak resident memory in bytes (of it or of the largest of
    the processes it started, Dask's workers)."""
    command = [sys.executable, "-c", _PARENT, stdin, str(address_space), sys.executable]
    command += ["-m", "gradcli", *args]
    env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": _root()}
    # One BLAS thread: each other reserves a stack of address space, which ulimit -v counts.
    env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    done = subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=env, timeout=120)
    err, _, peak = done.stderr.rstrip("\n").rpartition("\n")
    return done.returncode, done.stdout, err, int(peak) * 1024  # ru_maxrss is in KiB on Linux


def _root() -> str:
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
