"""The ``gradcli`` command-line application, over the library (``gradcli.api``).

``commands`` holds the computing commands, ``main`` (the command line in a
process) and ``script`` (the console script ``gradcli.cli:script``); ``common``
the group, errors to exit codes and writing; ``options`` every option, each
from a name of ``core.option_names``;
``analysis`` and ``using`` the analyses, loaded when one is asked for;
``point_runs`` ``--points`` and ``--over``; ``repl``, ``session`` and
``typed_statements`` the interactive calculator.
"""

from .commands import cli, main, script

__all__ = ["cli", "main", "script"]
