"""Bindings as the command line writes them: ``--x 2``, ``--x=2`` or ``--var x=2``
(the last for names that clash with one of gradcli's options). What a value
means (``pi/4``, ``randn(3)``, ``@FILE``) is the language's: ``language.values``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .errors import GradcliError


def extract(args: Sequence[str], takes_value: Iterable[str], flags: Iterable[str]) -> list[str]:
    """Rewrite every ``--name VALUE`` and ``--name=VALUE`` whose ``--name`` is not
    one of the command's own options as ``--var name=VALUE``.

    ``takes_value`` and ``flags`` are the command's option strings. The token after
    a binding is its value even when it starts with ``-`` (``--x -1``). Everything
    after ``--`` is left alone.
    """
    takes_value, flags = set(takes_value), set(flags)
    out: list[str] = []
    i = 0
    while i < len(args):
        token = args[i]
        i += 1
        if token == "--":
            out.extend(args[i - 1 :])
            break
        option, eq, inline = token.partition("=")
        if option in takes_value:
            out.append(token)
            if not eq and i < len(args):
                out.append(args[i])
                i += 1
            continue
        if option in flags or not token.startswith("--"):
            out.append(token)
            continue
        name = option[2:]
        if not name.isidentifier():
            # Not a name a program can use: let Click report the unknown option.
            out.append(token)
            continue
        if eq:
            value = inline
        elif i < len(args):
            value = args[i]
            i += 1
        else:
            raise GradcliError(f"--{name} needs a value: --{name} VALUE")
        out.extend(["--var", f"{name}={value}"])
    return out


def split_assignment(text: str, option: str = "--var") -> tuple[str, str]:
    """``"x=2"`` -> ``("x", "2")``, checking that the name is a name."""
    name, eq, value = text.partition("=")
    name = name.strip()
    if not eq or not name:
        raise GradcliError(f"{option} expects NAME=VALUE, got {text!r}")
    if not name.isidentifier():
        raise GradcliError(f"{option}: {name!r} is not a valid name")
    return name, value
