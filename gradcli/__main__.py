"""``python -m gradcli``: the same as the ``gradcli`` command."""

from .cli.commands import script

script()
