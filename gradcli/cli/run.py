"""``gradcli run PROGRAM.py``: a PyTorch program run unchanged on gradcli (``gradcli.torch``)."""

from __future__ import annotations

import sys

import click

from .common import cli
from .unknown_options import no_such_option


@cli.command(
    "run",
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
@click.argument("program", type=click.Path(dir_okay=False))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def run_command(program, args):
    """Run a PyTorch program with gradcli standing in for torch and every
    torch.* module gradcli has. An import of one it lacks is an error that
    names it; the program's own exceptions print as Python prints them.

    \b
    Example:
      $ gradcli run samples/autograd_tutorial.py
      tensor([True, True])
      tensor([True, True])
      SubBackward0 MulBackward0
      True 0
      1
      one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [3]], which is output 0 of Exp, is at version 1; expected version 0 instead.
    """  # noqa: E501  (the program's line, as it prints it)
    from ..torch import main

    if program.startswith("-") and program != "-":
        # Before PROGRAM, an option is run's (it has none but --help); after it, the
        # program's own.
        raise no_such_option(click.get_current_context(), program)
    sys.exit(main([program, *args]))
