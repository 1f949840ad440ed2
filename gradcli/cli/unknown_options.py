"""How a command refuses an option it lacks: a short option it does not have (``-q``),
and the one-line error with the option nearest the one given (``--formt``: did you
mean ``--format``?); the commands that take no bindings (``functions``, ``repl``)
refuse an unknown option the same way."""

from __future__ import annotations

import re

import click

from ..render import formats

_SHORT = re.compile(r"-[^\W\d]\w*")  # -q, -v: a short option (not -1, nor -x**2)


def unknown_short_options(args, takes_value, known) -> list[int]:
    """Where the tokens before ``--`` read as a short option the command lacks (``-q``);
    the values of its options are no such tokens."""
    found, i = [], 0
    while i < len(args) and args[i] != "--":
        token = args[i]
        if token in takes_value:
            i += 2
            continue
        if _SHORT.fullmatch(token) and token[:2] not in known:
            found.append(i)
        i += 1
    return found


def closest_option(name: str, options) -> str:
    """`` (did you mean --format?)``: the command's option nearest ``name`` (difflib),
    ``--format json`` for a format's name, or the empty string."""
    import difflib

    if name in formats.names() and "format" in options:
        return f" (did you mean --format {name}?)"
    near = difflib.get_close_matches(name, options, n=3, cutoff=0.6)
    # A close spelling starts as the name does (--wtr, --formt); --quiet is not --unit.
    near = [n for n in near if n[:1] == name[:1]] or difflib.get_close_matches(
        name, options, n=1, cutoff=0.8
    )
    return f" (did you mean --{near[0]}?)" if near else ""


class BindingFreeCommand(click.Command):
    """A command that computes nothing (``functions``, ``repl``): it takes no bindings,
    and refuses an unknown option as the computing commands do."""

    def parse_args(self, ctx, args):
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as error:
            raise no_such_option(ctx, error.option_name) from None


def no_such_option(ctx, option: str) -> click.UsageError:
    """``NAME has no option --formt (did you mean --format?)``."""
    command = ctx.command
    options = sorted(
        opt[2:]
        for param in command.get_params(ctx)
        if isinstance(param, click.Option)
        for opt in param.opts
        if opt.startswith("--")
    )
    name = option.partition("=")[0]
    return click.UsageError(
        f"{command.name} has no option {name}{closest_option(name.lstrip('-'), options)}", ctx
    )
