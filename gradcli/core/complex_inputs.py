"""Which commands take complex inputs yet, and the refusal of the others.

A command run from the command line names itself (``running``): the commands it calls
inside (minimize calls grad) are its own steps, so the refusal names what the user ran.
A library call names its own function's command.
"""

from __future__ import annotations

import contextlib
from contextvars import ContextVar

from ..errors import GradcliError

#: The commands that take complex inputs.
COMPLEX_COMMANDS = frozenset({"eval", "grad", "jacobian --holomorphic"})
_RUNNING: ContextVar[str | None] = ContextVar("gradcli_command", default=None)


@contextlib.contextmanager
def running(command: str):
    """While the command line runs ``command``: the command the refusals name."""
    token = _RUNNING.set(command)
    try:
        yield
    finally:
        _RUNNING.reset(token)


def refuse_complex(values, command: str | None) -> None:
    """An error where one of ``values`` (name -> array) is complex and the command
    (the one running, else ``command``) does not take complex inputs."""
    names = [
        f"--{n}"
        for n, v in values.items()
        if getattr(v, "dtype", None) is not None and v.dtype.kind == "c"
    ]
    if not names:
        return
    outer = _RUNNING.get()
    if outer is not None and (command or "").split(" ")[0] != outer:
        command = outer  # a step of another command (minimize's grad): that command's say
    if command not in COMPLEX_COMMANDS:
        raise GradcliError(
            f"complex input ({names[0]}) is not supported by gradcli's "
            f"{command or 'this command'} yet"
        )
