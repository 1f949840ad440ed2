"""The peak resident memory of one ``gradcli`` process, measured by a parent of its own
(``RUSAGE_CHILDREN`` of a process that starts only it), so earlier processes of the
test run do not count."""

from __future__ import annotations

import os
import subprocess
import sys

_PARENT = """
import resource, subprocess, sys
with open(sys.argv[1], "rb") as stdin:
    done = subprocess.run(sys.argv[2:], stdin=stdin, capture_output=True)
sys.stdout.buffer.write(done.stdout)
sys.stderr.buffer.write(done.stderr)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)
sys.exit(done.returncode)
"""


def run(args, stdin: str = os.devnull, cwd=None) -> tuple[int, str, str, int]:
    """``gradcli *args`` (``stdin``: a file to read standard input from): its exit
    status, standard output and error, and its peak resident memory in bytes."""
    command = [sys.executable, "-c", _PARENT, stdin, sys.executable, "-m", "gradcli", *args]
    env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": _root()}
    done = subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=env, timeout=120)
    err, _, peak = done.stderr.rstrip("\n").rpartition("\n")
    return done.returncode, done.stdout, err, int(peak) * 1024  # ru_maxrss is in KiB on Linux


def _root() -> str:
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
