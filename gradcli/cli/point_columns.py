"""Which columns of ``--points FILE`` (or of an ``--over`` grid) bind the program's
inputs and which are copied to the output rows, checked against the program and the
options before a row is read."""

from __future__ import annotations

import sys

from ..core.evaluation import no_such_input
from ..core.option_names import OPTION_NAMES
from ..core.point_files.columns import parse_column
from ..core.point_files.grid import GridReader
from ..core.point_files.readers import NpyReader
from ..errors import GradcliError
from ..language import compile_source
from ..language.characters import lookalike_problem
from ..language.check import BUILTIN_CONSTANTS
from .common import say


def _read_by_workers(reader) -> bool:
    """Whether Dask's workers read ``reader``'s file: only a Dask run loads their module."""
    module = sys.modules.get("gradcli.core.point_files.dask_files")
    return module is not None and isinstance(reader, module.DaskFiles)


def choose_columns(reader, bound, text: str, filename: str, options, output):
    """Which columns bind inputs (those named like an input of the program, or those
    of ``--columns``) and which are copied to the output (the others, or those of
    ``--keep``); none binds an input an option binds too. Returns the program
    compiled, for the run."""
    header = list(reader.header)
    bases = {name: _base(name, parse_column) for name in header}
    program = _compiled_for(reader, bound, text, filename, bases)
    inputs = tuple(program.inputs)
    chosen = _input_columns(reader, options, header, bases, inputs, bound)
    varying = _varying(reader, chosen, bound, inputs)
    if not chosen:
        raise GradcliError(_no_input_column(reader.path, header, inputs))
    others = [name for name in header if name not in chosen]
    _refuse_a_close_miss(program, bound, varying, others, reader.path, options["columns"])
    # A column named like an input that --columns leaves out is not copied: it would
    # read as the value used, which an option gives.
    others = [name for name in others if bases[name] not in inputs]
    kept = _kept_columns(reader, options, header, chosen, others, bases)
    if _read_by_workers(reader):
        _refuse_choices_of_the_workers(reader, chosen, options)
        return program
    _say_what_npz_leaves_out(reader, kept, options, output)
    reader.select(chosen, kept)
    return program


def _compiled_for(reader, bound, text: str, filename: str, bases):
    """The program compiled with the built-in constants a column or an option binds as
    inputs; a column named with a confusable letter (Cyrillic х for x) is refused."""
    candidates = [b for b in bases.values() if b is not None]
    constants = [n for n in (*bound, *candidates) if n in BUILTIN_CONSTANTS]
    program = compile_source(text, filename=filename, inputs=constants)
    inputs = tuple(program.inputs)
    for base in bases.values():
        why = base is not None and lookalike_problem(base, inputs)
        if why:  # х for x: the column would bind nothing, silently
            raise GradcliError(f"{reader.path} line 1: the column {why}")
    return program


def _input_columns(reader, options, header, bases, inputs, bound) -> list[str]:
    """The columns that bind inputs: a grid's every one, ``--columns``, or those named
    like an input of the program or an option's binding."""
    if isinstance(reader, GridReader):
        return header
    if options["columns"] is not None and not isinstance(reader, NpyReader):
        chosen = _listed(options["columns"], "--columns", header, reader.path)
        for name in chosen:
            parse_column(name)
        return chosen
    return [name for name in header if bases[name] in inputs or bases[name] in bound]


def _varying(reader, chosen, bound, inputs) -> list[str]:
    """The inputs the chosen columns bind, each an input of the program that no option
    binds too."""
    grid = isinstance(reader, GridReader)
    varying = list(dict.fromkeys(parse_column(name)[0] for name in chosen))
    for name in varying:
        if name in bound:
            where = "--over" if grid else f"a column of {reader.path}"
            hint = "" if grid else " (--columns picks those that do)"
            raise GradcliError(
                f"{name} is both {where} and bound by --{name}: give one or the other{hint}"
            )
        if name not in inputs:
            column = f"--over {name}" if grid else f"column {name} of {reader.path}"
            raise GradcliError(f"{column}: {no_such_input(name, inputs)}")
    return varying


def _kept_columns(reader, options, header, chosen, others, bases) -> list[str]:
    """The columns copied to the output: the others, or those of ``--keep`` (never one
    named like an input an option binds: it would read as the value used)."""
    if options["keep"] is None:
        return others
    wanted = _listed(options["keep"], "--keep", header, reader.path)
    for name in wanted:
        if name not in chosen and name not in others:
            raise GradcliError(
                f"--keep {name}: {name} names an input of the program, which --{bases[name]} "
                "binds: its column would read as the value used"
            )
    return [name for name in others if name in wanted]


def _refuse_choices_of_the_workers(reader, chosen, options) -> None:
    """The Dask workers read every column of their files as an input's numbers."""
    tuned = [options[o] is not None for o in ("columns", "keep", "delimiter")]
    if len(chosen) < len(reader.header) or any(tuned):
        raise GradcliError(
            f"--dask: the workers read every column of {reader.path} as an input's numbers;"
            " without --dask, its other columns are copied, and --columns, --keep and"
            " --delimiter apply"
        )


def _say_what_npz_leaves_out(reader, kept, options, output) -> None:
    """An ``.npz`` holds arrays of numbers: the columns it cannot copy are named (and
    ``--keep`` of them refused)."""
    if not (kept and output is not None and output.lower().endswith(".npz")):
        return
    if options["keep"] is not None:
        raise GradcliError(
            f"--keep: {output} holds arrays of numbers; write .csv, .parquet or .jsonl "
            "to keep columns"
        )
    say(
        f"note: {output} holds arrays of numbers: column{'s' if len(kept) > 1 else ''} "
        f"{', '.join(kept)} of {reader.path} not copied (.csv, .parquet and .jsonl keep them)"
    )


def _base(name: str, parse_column) -> str | None:
    """The input a column would bind (``v`` of ``v[0]``), or None for a name no input has."""
    try:
        return parse_column(name)[0]
    except GradcliError:
        return None


def _listed(text: str, option: str, header, path: str) -> list[str]:
    """The column names of ``--columns`` or ``--keep`` (``''``: none), each in ``header``."""
    names = [n.strip() for n in text.split(",")] if text.strip() else []
    for name in names:
        if name not in header:
            raise GradcliError(
                f"{option} {text}: {path} has no column {name!r}; its columns are "
                + ", ".join(header)
            )
    return names


def _no_input_column(path: str, header, inputs) -> str:
    message = (
        f"no column of {path} names an input of the program: its columns are "
        f"{', '.join(header)}; its inputs {', '.join(inputs) or 'none'}"
    )
    if len(header) == 1 and any(d in header[0] for d in ";\t|"):
        message += " (are the fields separated by something else? --delimiter says by what)"
    return message


def _refuse_a_close_miss(program, bound, varying, others, path: str, columns=None) -> None:
    """An input with no value and a column named close to it: a typo on one side, or
    its own column, which ``--columns`` left out."""
    import difflib

    missing = [n for n in program.free if n not in bound and n not in varying]
    for name in missing:
        if name in others and columns is not None:
            listed = ",".join([*(c.strip() for c in columns.split(",") if c.strip()), name])
            bind = f"--var {name}=VALUE" if name in OPTION_NAMES else f"--{name} VALUE"
            raise GradcliError(
                f"no value for {name}: --columns {columns} leaves out column {name} of {path}: "
                f"add it (--columns {listed}), or bind {name} with {bind}"
            )
        close = difflib.get_close_matches(name, others, n=1)
        if close:
            raise GradcliError(
                f"no value for {name}: column {close[0]} of {path} binds no input "
                f"(did you mean {name}?); --columns names the columns that bind inputs"
            )
