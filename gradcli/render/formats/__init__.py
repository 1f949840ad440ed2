"""The output formats, one registry: each format is a module of this package, named as
``--format`` names it, whose ``FORMAT`` is an ``OutputFormat``.

A format renders one point and many points through one interface:

- one point: ``render(result, stream, precision)`` a computing command's result,
  ``render_report(report, stream, precision)`` an analysis's report,
  ``render_functions(functions, stream)`` the listing of ``gradcli functions``; a format
  of many points that defines neither of the first two writes one point as the one row
  it would write of it (``--format csv``); ``save(result, path)`` one point's arrays into
  the file ``path`` (``--output FILE.npz``);
- many points: ``writer(stream, path, precision, rows)``, a
  ``gradcli.core.point_files.writers.Writer`` that takes the rows a chunk at a time,
  on ``stream`` (standard output) or into the file ``path``, which ``--output FILE``
  chooses by its ending (``endings``).

What a format does not override it refuses, in one line that says what it is for.
The package is listed, not imported, to know the formats' names (``names()``); what
each format does needs its module, which imports what it draws with (Rich, pyarrow)
inside its methods only: Rich never loads for ``json``, nor pyarrow for one point.
Adding a format is adding a module here (and its tests); the options of the
commands, their help, the calculator's ``:format`` and the writers of many points
read this registry.
"""

from __future__ import annotations

import importlib
import os
import sys
from functools import cache

import numpy as np

from ...errors import GradcliError


class OutputFormat:
    """An output format (subclass it in a module of this package and name it ``FORMAT``).

    ``name`` is the module's name, as ``--format`` gives it; ``aliases`` other names
    it answers to (``jsonl``); ``endings`` the file endings (``.csv``) of the files of
    many points it writes, as ``--output FILE`` names them; ``help`` a few words for
    the options' help.
    """

    name: str = ""
    aliases: tuple[str, ...] = ()
    endings: tuple[str, ...] = ()
    #: Whether ``writer`` writes many points to standard output (else only to files).
    standard_output: bool = True
    help: str = ""
    #: Where it stands in the lists of formats (the options' help): table, plain and
    #: json first, as a person reaches for them.
    rank: int = 100

    def render(self, result, stream, precision: int | None = None) -> None:
        """One point: a computing command's result (``gradcli.core.result.Result``); by
        default the row of its arrays a run of many points writes for it."""
        self._one_row(result.arrays, stream, precision)

    def render_report(self, report, stream, precision: int | None = None) -> None:
        """One point: an analysis's report (``gradcli.analysis.report.Report``); by
        default its ``row()`` as a run of many points writes it."""
        self._one_row(getattr(report, "row", None), stream, precision)

    def render_functions(self, functions, stream) -> None:
        """The listing of the functions a program can call (``api.functions()``)."""
        raise GradcliError(f"--format {self.name} {self._for()}")

    def writer(self, stream, path: str | None, precision: int | None, rows: int | None):
        """Many points: the writer of the rows, on ``stream`` or (``path``) into a file;
        ``rows``, when known, is how many will come."""
        raise NotImplementedError  # open_writer asks only the formats that override it

    def save(self, result, path: str) -> None:
        """One point: every array of ``result`` into the file ``path`` (one of
        ``endings``), written whole or not at all."""
        raise NotImplementedError  # saver asks only the formats that override it

    @property
    def one_point_as_row(self) -> bool:
        """Whether it writes one point as the row of many points (it renders no result
        of its own, and writes many points on standard output)."""
        return not _overrides(self, "render") and self.writes_rows

    @property
    def writes_rows(self) -> bool:
        """Whether it writes the rows of many points on standard output."""
        return _overrides(self, "writer") and self.standard_output

    def _one_row(self, row, stream, precision) -> None:
        """``row()``'s arrays by name, as the one row a run of many points writes of
        them; refused by a format that writes no rows on standard output."""
        if row is None or not self.writes_rows:
            raise GradcliError(f"--format {self.name} {self._for()}")
        with self.writer(stream, None, precision, None) as writer:
            writer.write({name: np.asarray(array)[None] for name, array in row().items()})
            writer.close()

    def _for(self) -> str:
        if self.endings or _overrides(self, "writer"):
            return "is for many points: give --points FILE or --over"
        return "is not written here"

    def __repr__(self) -> str:
        return f"<format {self.name}>"


def _listed(words) -> str:
    return ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else "".join(words)


def _overrides(fmt: OutputFormat, method: str) -> bool:
    return getattr(type(fmt), method) is not getattr(OutputFormat, method)


#: The formats loaded so far, by name.
LOADED: dict[str, OutputFormat] = {}


def names() -> tuple[str, ...]:
    """Every format's name, from the modules of this package (none is imported)."""
    return tuple(sorted({*_modules(), *LOADED}))


@cache
def _modules() -> tuple[str, ...]:
    # The package's .py files, read from its folder (pkgutil costs a start-up import).
    return tuple(
        name[:-3]
        for folder in __path__
        for name in os.listdir(folder)
        if name.endswith(".py")
        and name.isascii()
        and name[:-3].isidentifier()
        and not name.startswith("_")
    )


def get(name: str) -> OutputFormat:
    """The format ``--format name`` (or one of its aliases) chooses."""
    if name in names():
        return _load(name)
    for fmt in every():
        if name in fmt.aliases:
            return fmt
    raise GradcliError(f"--format {name}: no such format; the formats are {', '.join(names())}")


def every() -> list[OutputFormat]:
    """Every format (each module imported), in ``rank`` order."""
    return sorted((_load(name) for name in names()), key=lambda f: (f.rank, f.name))


def _load(name: str) -> OutputFormat:
    if name not in LOADED:
        fmt = importlib.import_module(f".{name}", __name__).FORMAT
        if fmt.name != name:
            raise TypeError(f"gradcli/render/formats/{name}.py declares the format {fmt.name!r}")
        LOADED[name] = fmt
    return LOADED[name]


def one_point_names(kind: str = "render") -> list[str]:
    """The formats that write one point's ``kind``: ``render`` (a result),
    ``render_report`` or ``render_functions``."""
    return [f.name for f in every() if writes_one_point(f, kind)]


def writes_one_point(fmt: OutputFormat, kind: str = "render") -> bool:
    """Whether ``fmt`` writes one point's ``kind`` (see ``one_point_names``)."""
    return _overrides(fmt, kind)


def many_point_names() -> list[str]:
    """The formats that write many points to standard output."""
    return [f.name for f in every() if f.writes_rows]


def saver(path: str) -> OutputFormat:
    """The format that saves one point's arrays into ``path`` (``--output FILE``), by
    its ending; an error that names the endings when none does."""
    saving = [f for f in every() if _overrides(f, "save")]
    for fmt in saving:
        if path.endswith(fmt.endings):
            return fmt
    ends = _listed([e for f in saving for e in f.endings])
    raise GradcliError(f"--output {path}: the file name must end in {ends}")


def endings() -> tuple[str, ...]:
    """Every ending of a file of many points, as ``--output FILE`` may name it."""
    return tuple(sorted(e for f in every() for e in f.endings))


def open_writer(
    output: str | None, fmt: str | None, precision: int | None = None, rows: int | None = None
):
    """The writer of many points: of ``--output FILE`` (the format its ending names),
    else of ``--format fmt`` on standard output; ``rows``, when known, is how many rows
    will come."""
    if output is not None:
        ending = os.path.splitext(output)[1].lower()
        chosen = [f for f in every() if ending in f.endings]
        if not chosen:
            raise GradcliError(
                f"--output {output}: many points are written to {', '.join(endings())}"
            )
        if precision is not None:
            raise GradcliError(f"--precision: --output {output} keeps every digit")
        return chosen[0].writer(None, output, None, rows)
    if fmt not in many_point_names():
        get(fmt)  # an unknown name is said as such
        raise GradcliError(
            f"--format {fmt}: many points are written as {_listed(sorted(many_point_names()))} "
            "(or --output FILE)"
        )
    return get(fmt).writer(sys.stdout, None, precision, rows)
