"""The refusal of complex inputs by the commands that do not take them yet.

Which commands take them is said where each computes (``core/computing.py``: eval, grad,
jacobian, hessian, vjp, jvp), by the evaluation it asks for. A command run from the command
line names itself (``running``): the commands it calls inside (minimize calls grad) are
its own steps, so the refusal names what the user ran. A library call names its own
function's command.
"""

from __future__ import annotations

import contextlib
from contextvars import ContextVar

from ..errors import GradcliError

_RUNNING: ContextVar[str | None] = ContextVar("gradcli_command", default=None)


@contextlib.contextmanager
def running(command: str):
    """While the command line runs ``command``: the command the refusals name."""
    token = _RUNNING.set(command)
    try:
        yield
    finally:
        _RUNNING.reset(token)


def refuse_complex(values, command: str | None, takes_complex: bool = False) -> None:
    """An error where one of ``values`` (name -> array) is complex and the command (the
    one running, else ``command``) does not take complex inputs (``takes_complex``: the
    evaluation's own command takes them)."""
    names = [
        f"--{n}"
        for n, v in values.items()
        if getattr(v, "dtype", None) is not None and v.dtype.kind == "c"
    ]
    if not names:
        return
    outer = _RUNNING.get()
    if outer is not None and command != outer:
        command, takes_complex = outer, False  # a step of another command (minimize's grad)
    if not takes_complex:
        raise GradcliError(
            f"complex input ({names[0]}) is not supported by gradcli's "
            f"{command or 'this command'} yet"
        )
