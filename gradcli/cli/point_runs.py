"""``--points FILE`` and ``--over NAME=VALUES`` on the computing commands: from the
options to a run of ``gradcli.core.point_files`` and its summary. Computing is the batch
package's; this only checks the options and says what happened.
"""

from __future__ import annotations

import contextlib
import os
import sys

import click

from ..core import bindings as _bindings
from ..core.evaluation import no_such_input
from ..errors import GradcliError
from . import common as cli_common
from .common import EXIT_NONFINITE, EXIT_OK, say

#: Skipped rows listed one by one before the rest are only counted.
SHOWN_SKIPPED = 10


def run_batch(command: str, source, options, arguments) -> int:
    """Run ``command`` at every row of ``--points`` or point of the ``--over`` grid."""
    from ..core.point_files.progress import Progress
    from ..core.point_files.run import run
    from ..core.point_files.task import PointsTask

    _refuse_single_point_options(options, arguments)
    text, filename = _bindings.read_source(source, options["file"])
    points = options["points"]
    if points == "-" and filename == "<stdin>":
        raise GradcliError("--points -: standard input holds the program; give a file of points")
    bound = _bindings.bind_assignments(options["var"], program_from_stdin=filename == "<stdin>")
    if points == "-" and any(v.strip() == "@-" for v in bound.values()):
        raise GradcliError("--points - and a binding @- both read standard input")
    output = options["output"]
    if output is not None:
        output = os.path.expanduser(output)
    fmt = options["fmt"] or ("table" if cli_common.stdout_is_terminal() else "csv")
    with _executor(options) as executor, _reader(options, executor) as reader:
        program = _check_names(reader, bound, text, filename, _described(options))
        task = PointsTask(
            command,
            text,
            bound,
            dtype=options["dtype"],
            seed=options["seed"],
            filename=filename,
            max_elements=options["max_elements"],
            program=program,
            **{k: v for k, v in arguments.items() if k not in ("steps", "order")},
        )
        # A file is written beside its name, renamed over it when complete: the
        # writer drops it on any failure, a signal's included.
        with _writer(
            executor, output, None if output else fmt, options["precision"], reader.total
        ) as writer:
            summary = run(
                reader,
                task,
                writer,
                chunk_size=_bounded_chunk(options["chunk_size"], reader, options["max_elements"]),
                executor=_executor_of(reader, executor),
                progress=Progress(reader.extent),
                warn=say,
            )
    if summary.skipped:
        _say_skipped(summary.skipped)
    if output is not None:
        click.echo(f"{summary.rows} rows in {summary.seconds:.2f} s to {output}")
    sys.stdout.flush()
    return EXIT_NONFINITE if options["strict"] and summary.nonfinite else EXIT_OK


def _bounded_chunk(size: int, reader, max_elements: int) -> int:
    """``--chunk-size``, made smaller where a chunk's inputs would hold more numbers than
    ``--max-elements``: the results do not depend on it, so the run goes on, with a note."""
    per_row = max(1, reader.numbers_per_row)
    fits = max(1, max_elements // per_row)
    if size <= fits:
        return size
    say(
        f"note: chunks of {fits:,} rows: {size:,} rows of {per_row:,} numbers would hold more "
        f"than --max-elements {max_elements:,}"
    )
    return fits


def _refuse_single_point_options(options, arguments) -> None:
    if options["points"] is not None and options["over"]:
        raise GradcliError("give --points FILE or --over NAME=VALUES, not both")
    if options["get"] is not None:
        raise GradcliError("--get prints one point's numbers: with many points, use --format csv")
    if arguments.get("steps"):
        raise GradcliError("--steps shows one point's reverse pass: leave out --points/--over")
    if arguments.get("order", 1) != 1:
        raise GradcliError("jvp --order above 1 takes one point: leave out --points/--over")
    if options["fmt"] == "plain":
        raise GradcliError("--format plain is for one point: many points are csv, json or table")
    if options["output"] is not None and options["fmt"] is not None:
        raise GradcliError(
            f"--output writes the rows to a file: leave out --format {options['fmt']}"
        )


def _executor(options):
    """Where the chunks are computed: here, or on Dask (``--dask``, ``--scheduler``)."""
    if options["dask"] and options["scheduler"] is not None:
        raise GradcliError(
            "give --dask (a cluster of this machine) or --scheduler ADDRESS, not both"
        )
    if options["dashboard"] and not options["dask"]:
        raise GradcliError(
            "--dashboard opens the dashboard of --dask's cluster"
            + ("; a running cluster's scheduler serves its own" if options["scheduler"] else "")
        )
    if not options["dask"] and options["scheduler"] is None:  # --scheduler "" is an error
        from ..core.point_files.run import InProcess

        return contextlib.nullcontext(InProcess())
    from ..core.point_files.distributed import dask_executor

    if not options["dashboard"]:
        return dask_executor(options["scheduler"])
    return _saying_the_dashboard(dask_executor(dashboard=True))


@contextlib.contextmanager
def _saying_the_dashboard(executor):
    """The executor, once it has said where its dashboard is, on standard error."""
    import importlib.util

    with executor as running:
        link = running.client.dashboard_link
        if importlib.util.find_spec("bokeh") is None:  # Dask draws its plots with Bokeh
            pages = link.rsplit("/", 1)[0] + "/info/main/workers.html"
            link = f"{pages} (pip install bokeh for the plots)"
        say(f"dashboard: {link}")
        yield running


def _executor_of(reader, executor):
    """Files the Dask workers read are computed as they are read: that reader is the executor.
    (Only a Dask run loads the Dask modules, so an executor without a client is not one.)"""
    if getattr(executor, "client", None) is None:
        return executor
    from ..core.point_files.dask_files import DaskFiles

    return reader if isinstance(reader, DaskFiles) else executor


def _writer(executor, output: str | None, fmt: str | None, precision: int | None, rows: int | None):
    """The writer of the rows; under Dask, Parquet output is a directory of part files."""
    from ..core.point_files.writers import open_writer

    if (
        getattr(executor, "client", None) is not None
        and output
        and output.lower().endswith(".parquet")
    ):
        from ..core.point_files.dask_files import PartFiles
        from ..core.point_files.distributed import DaskExecutor

        if isinstance(executor, DaskExecutor):
            return PartFiles(output)
    return open_writer(output, fmt, precision, rows)


def _reader(options, executor):
    from ..core.point_files.grid import GridReader
    from ..core.point_files.readers import open_points

    points = options["points"]
    if points is not None and points != "-" and getattr(executor, "client", None) is not None:
        from ..core.point_files.dask_files import DaskFiles, dask_format

        if dask_format(points) is not None:
            if options["skip_bad_rows"]:
                raise GradcliError(
                    f"--skip-bad-rows: the Dask workers read {points}, and stop at a bad row"
                )
            return DaskFiles(points, executor)
    if options["over"]:
        if options["columns"] is not None or options["skip_bad_rows"]:
            raise GradcliError("--columns and --skip-bad-rows are for --points FILE")
        return GridReader([_bindings.parse_over(text) for text in options["over"]])
    return open_points(options["points"], options["columns"], options["skip_bad_rows"])


def _described(options) -> str:
    """How the errors name where the varying inputs come from."""
    return f"--points {options['points']}" if options["points"] is not None else "--over"


def _check_names(reader, bound, text: str, filename: str, where: str):
    """Every column binds an input of the program, and none bound by an option too; the
    program compiled, for the run."""
    from ..core.point_files.columns import parse_column
    from ..language import compile_source
    from ..language.check import BUILTIN_CONSTANTS

    varying = list(dict.fromkeys(parse_column(name)[0] for name in reader.names))
    for name in varying:
        if name in bound:
            via = "--over" if where == "--over" else f"a column of {reader.path}"
            raise GradcliError(f"{name} is both {via} and bound by --{name}: give one or the other")
    constants = [n for n in (*bound, *varying) if n in BUILTIN_CONSTANTS]
    program = compile_source(text, filename=filename, inputs=constants)
    inputs = tuple(program.inputs)
    for name in varying:
        if name not in inputs:
            column = f"--over {name}" if where == "--over" else f"column {name} of {reader.path}"
            raise GradcliError(f"{column}: {no_such_input(name, inputs)}")
    return program


def _say_skipped(skipped) -> None:
    count = len(skipped)
    say(f"warning: skipped {count} bad row{'s' if count != 1 else ''}:")
    for line, why in skipped[:SHOWN_SKIPPED]:
        say(f"  line {line}: {why}")
    if count > SHOWN_SKIPPED:
        say(f"  and {count - SHOWN_SKIPPED} more")
