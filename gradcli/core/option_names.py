"""The command line's option names, declared once.

``options.option`` builds every Click option from a name here (and refuses any
other), and the library words its hints with them: an input named like an
option cannot be bound with ``--NAME VALUE``, so its hint says
``--var NAME=VALUE``. Nothing here imports Click, so the library may read it.
"""

from __future__ import annotations

#: Every long option of every command (without the leading ``--``).
OPTION_NAMES = frozenset(
    {
        # every computing command (options.SHARED_OPTIONS), and Click's own
        "file", "var", "seed", "dtype", "format", "precision", "get", "output",
        "strict", "max-elements", "max-operations", "debug", "help", "version",
        # some commands
        "wrt", "steps", "grad-output", "tangent", "holomorphic", "dps",
        # many points
        "points", "over", "columns", "keep", "delimiter", "chunk-size", "max-memory",
        "skip-bad-rows", "dask", "dashboard", "scheduler",
        # the analyses
        "order", "grad", "eps", "atol", "rtol", "sigma", "cov", "monte-carlo", "exact",
        # using the derivative (minimize, solve, critical, fit; jvp --unit)
        "method", "bounds", "maximize", "trace", "tol", "max-iter", "params", "response",
        "weights", "unit", "gtol", "covariance", "solve-for", "sensitivity", "subject-to",
    }
)  # fmt: skip

#: Tuning options of one command that, given to any other, bind an input of that name:
#: a physicist's eps or sigma, an order, a unit. (``jvp --order`` and ``--unit`` are
#: options of a computing command, yet ``grad "x * order" --order 3`` binds order.)
BIND_ELSEWHERE = frozenset(
    {"order", "grad", "eps", "atol", "rtol", "sigma", "cov", "unit", "gtol", "covariance"}
)
