"""The ``gradcli`` command's BLAS pools start at one thread (``blas_start.py``), read
back by threadpoolctl in a program the command runs; a user's own setting and a
program importing gradcli as a library keep their pools."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from gradcli import blas_start
from gradcli.engine import threads

PROGRAM = """\
import os
import numpy
import threadpoolctl
pools = threadpoolctl.threadpool_info()
counts = sorted({i["num_threads"] for i in pools if i["user_api"] == "blas"})
print(counts, os.environ.get("GRADCLI_BLAS_START"), os.environ.get("OPENBLAS_NUM_THREADS"))
"""


def environment(**chosen) -> dict:
    """This process's environment without the variables that choose the threads."""
    names = (*blas_start.USER_VARIABLES, blas_start.MARK)
    return {**{k: v for k, v in os.environ.items() if k not in names}, **chosen}


def run_program(tmp_path, command, env) -> str:
    program = tmp_path / "pools.py"
    program.write_text(PROGRAM)
    done = subprocess.run([*command, str(program)], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_commands_pools_start_at_one_thread_marked_as_its_choice(tmp_path):
    shown = run_program(tmp_path, [sys.executable, "-m", "gradcli", "run"], environment())
    assert shown == "[1] 1 1"


def test_a_users_own_setting_is_kept_and_not_marked(tmp_path):
    env = environment(OPENBLAS_NUM_THREADS="2")
    shown = run_program(tmp_path, [sys.executable, "-m", "gradcli", "run"], env)
    counts, mark, variable = shown.rsplit(" ", 2)
    assert (mark, variable) == ("None", "2")
    if counts != "[]":  # a BLAS threadpoolctl sees: the user's 2, not the command's 1
        assert counts == "[2]"


def test_a_program_importing_gradcli_keeps_its_environment(tmp_path):
    program = tmp_path / "library.py"
    program.write_text("import gradcli, os\nprint(os.environ.get('OPENBLAS_NUM_THREADS'))\n")
    done = subprocess.run(
        [sys.executable, str(program)], capture_output=True, text=True, env=environment()
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "None"


def test_the_commands_choice_is_not_read_as_the_users(monkeypatch):
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")
    assert threads.chosen_by_user()
    monkeypatch.setenv(blas_start.MARK, "1")
    assert not threads.chosen_by_user()


def test_with_the_pools_started_at_one_thread_a_large_product_may_take_every_core(monkeypatch):
    # The pools' default is then the cores, not the one thread they started at.
    monkeypatch.setenv(blas_start.MARK, "1")
    monkeypatch.setattr(threads._Pools, "controller", None)
    monkeypatch.setattr(threads._Pools, "widest", 1)
    if not threads._controller().lib_controllers:
        pytest.skip("no BLAS library that threadpoolctl controls is loaded")
    assert threads.pool_default() >= len(os.sched_getaffinity(0))
