"""The ``gradcli`` command's BLAS pools start at one thread.

OpenBLAS makes a thread per core when its library loads (NumPy's, then SciPy's own
copy), and each new thread spins before it sleeps: in a process that loads both,
0.1 s of CPU on the other core with nothing to compute. ``engine/threads.py`` gives
the engine's products and the analyses the threads their work can use from there
(raising a pool later makes its threads then). So the command, before NumPy loads,
sets the variables by which a user would choose the threads, and ``MARK`` beside
them: a process it starts (a Dask worker) inherits both, and ``engine/threads.py``
reads the pair as gradcli's choice, not the user's. A user who set any of them
keeps them, and a program that imports gradcli as a library keeps its pools:
this runs only in the command's own process, before NumPy.
"""

from __future__ import annotations

import os
import sys

#: The variables by which a user chooses the pools' threads.
USER_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
#: Set beside them when the command, not the user, set them.
MARK = "GRADCLI_BLAS_START"


def set_by_gradcli() -> bool:
    """Whether the command set ``USER_VARIABLES`` (here or in the process that started
    this one)."""
    return os.environ.get(MARK) == "1"


def for_the_command() -> None:
    """The variables at one thread, in the ``gradcli`` command's process before NumPy
    loads, unless the user set any of them."""
    if "numpy" in sys.modules or not _is_the_command():
        return
    if any(os.environ.get(name, "").strip() for name in USER_VARIABLES):
        return
    os.environ.update(dict.fromkeys(USER_VARIABLES, "1"))
    os.environ[MARK] = "1"


def _is_the_command() -> bool:
    """The ``gradcli`` script or ``python -m gradcli``."""
    if os.path.basename(sys.argv[0] if sys.argv else "") in ("gradcli", "gradcli.exe"):
        return True
    argv = getattr(sys, "orig_argv", [])
    return any(a == "-m" and b == "gradcli" for a, b in zip(argv, argv[1:]))
