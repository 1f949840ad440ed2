"""``--points FILE`` and ``--over NAME=VALUES`` on the computing commands: from the
options to a run of ``gradcli.core.point_files`` and its summary. Computing is the batch
package's; this only checks the options and says what happened.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
import time

import click
import numpy as np

from ..core import bindings as _bindings
from ..errors import GradcliError
from ..render.formats import open_writer
from . import common as cli_common
from .common import EXIT_NONFINITE, EXIT_OK, say
from .point_columns import choose_columns

#: Skipped rows listed one by one before the rest are only counted.
SHOWN_SKIPPED = 10


def run_batch(command: str, source, options, arguments, rows: bool = False) -> int:
    """Run ``command`` at every row of ``--points`` or point of the ``--over`` grid;
    ``rows``: an analysis (a command of the registry), a report's row at each."""
    _refuse_single_point_options(options, {} if rows else arguments)
    limit = _max_memory(options["max_memory"])
    text, filename, bound = _program_and_bindings(command if rows else None, source, options)
    output = options["output"]
    if output is not None:
        output = os.path.expanduser(output)
    if options["points"] == "-" and sys.stdin.isatty():  # else it would seem to hang
        say("reading the points from standard input: a header of the columns (x,y), a line "
            "per point, then Ctrl-D")  # fmt: skip
    run = _Run(command, options, arguments, rows, output, limit)
    summary, task, tally = run(text, filename, bound)
    status = _said(summary, task, tally, options, arguments, output)
    if run.threads:  # last, after what the run itself says
        _say_if_dask_did_not_pay(options, run.started_in, run.threads, summary)
    return status


#: Rows below which Dask never pays: loading Dask alone costs the command about 1.3 s of
#: CPU, what one process takes to compute some 10**6 rows (bench/bench_dask.py).
DASK_PAYS_FROM_ROWS = 10**6


def _say_if_dask_did_not_pay(options, started_in: float, threads: int, summary) -> None:
    """A note when Dask cost more than it saved: fewer rows than ``DASK_PAYS_FROM_ROWS``,
    or a start of the cluster (or the connection to it) longer than its workers could
    save, at most (threads - 1) times the time they took, against one process computing
    alone (measured on the run itself)."""
    if summary.rows >= DASK_PAYS_FROM_ROWS and started_in <= (threads - 1) * summary.seconds:
        return
    sys.stdout.flush()  # the rows first, on a terminal
    option = "--dask" if options["dask"] else "--scheduler"
    start = "starting its cluster" if options["dask"] else "reaching the cluster"
    say(
        f"note: {option}: {start} took longer than its workers could save on these "
        f"{summary.rows} rows: a run this small is faster in one process, without Dask"
    )


def _program_and_bindings(analysis: str | None, source, options):
    """``(text, filename, bound)``: the program, where it is from, what options bind;
    ``analysis``: the command of the registry that runs (its ``program``, equations
    A = B as A - B, is the program the columns bind)."""
    text, filename = _bindings.read_source(source, options["file"])
    if analysis is not None:
        from ..analysis.commands import find

        program = find(analysis).program
        if program is not None:
            text = program(text)
    points = options["points"]
    if points == "-" and filename == "<stdin>":
        raise GradcliError("--points -: standard input holds the program; give a file of points")
    bound = _bindings.bind_assignments(options["var"], program_from_stdin=filename == "<stdin>")
    if points == "-" and any(v.strip() == "@-" for v in bound.values()):
        raise GradcliError("--points - and a binding @- both read standard input")
    return text, filename, bound


def _max_memory(text: str | None) -> int:
    """``--max-memory``'s bytes, or the default from this machine's memory."""
    from ..core.point_files.budget import default_max_memory, parse_size

    if text is None:
        return default_max_memory()
    try:
        return parse_size(text)
    except ValueError as error:
        raise GradcliError(f"--max-memory: {error}") from None


class _Run:
    """A run of a command at many points: the reader, the task, the executor, the
    writer, and the memory budget that sizes the chunks."""

    def __init__(self, command: str, options, arguments, rows: bool, output, limit: int):
        self.command, self.options, self.arguments, self.rows = command, options, arguments, rows
        self.output, self.limit = output, limit
        # On Dask: the seconds its cluster took to start (or be reached), its worker threads.
        self.started_in, self.threads = 0.0, 0

    def __call__(self, text: str, filename: str, bound):
        from ..core.point_files.budget import keep_freed_pages
        from ..core.point_files.progress import Progress
        from ..core.point_files.run import run

        options, output = self.options, self.output
        fmt = options["fmt"] or ("table" if cli_common.stdout_is_terminal() else "csv")
        workers_read = _read_by_dask(options)
        keep_freed_pages()
        with contextlib.ExitStack() as stack:
            # The columns are checked before a cluster starts (seconds): the files the Dask
            # workers read have their header read here, and the reader its executor after.
            start_executor = _executor(options)
            reader = stack.enter_context(_reader(options, None, workers_read))
            program = choose_columns(reader, bound, text, filename, options, output)
            task = _task(self.command, text, bound, filename, options, self.arguments, self.rows,
                         program)  # fmt: skip
            started = time.perf_counter()
            executor = stack.enter_context(start_executor)
            client = getattr(executor, "client", None)
            if client is not None:
                self.started_in = time.perf_counter() - started
                self.threads = sum(client.nthreads().values())
            budget = _budget(self.limit, executor)
            if workers_read:
                reader.executor = executor
                reader.budget = budget
            elif hasattr(reader, "line_cap"):  # a text file's: no line longer than it allows
                reader.line_cap = budget.longest_line
            # A file is written beside its name, renamed over it when complete: the
            # writer drops it on any failure, a signal's included.
            precision = options["precision"]
            with _writer(executor, output, None if output else fmt, precision, reader.total) as w:
                tally = _Tally(w, self.command if self.rows else "")
                summary = run(
                    reader,
                    task,
                    tally,
                    chunk_size=self._chunk_size(reader, budget),
                    executor=_executor_of(reader, executor),
                    progress=Progress(reader.extent),
                    warn=say,
                    budget=None if workers_read else budget,
                )
        return summary, task, tally

    def _chunk_size(self, reader, budget) -> int:
        """The rows read at a time: ``--chunk-size``, fewer where their inputs would hold
        more than ``--max-elements`` numbers (said) or more than the budget allows."""
        size = _bounded_chunk(self.options["chunk_size"], reader, self.options["max_elements"])
        return budget.rows_read(reader.numbers_per_row, size)


def _budget(limit: int, executor):
    """The memory budget of a run: this process alone, or shared by it and a Dask
    cluster's workers (a few chunks in flight per worker thread), less what each holds
    before its first chunk."""
    from ..core.point_files.budget import Budget

    client = getattr(executor, "client", None)
    if client is None:
        budget = Budget(limit)
    else:
        from ..core.point_files.budget import resident
        from ..core.point_files.distributed import IN_FLIGHT_PER_THREAD

        threads = client.nthreads()
        slots = IN_FLIGHT_PER_THREAD * max(1, sum(threads.values()))
        held = resident() + sum(client.run(resident).values())  # the workers' own, measured
        budget = Budget(limit, slots=slots, processes=1 + len(threads), held=held)
    budget.require_room()
    return budget


def _said(summary, task, tally, options, arguments, output) -> int:
    """What a run says when it is done (the rows skipped, written, noted, warned of),
    and its exit status."""
    if summary.skipped_count:
        _say_skipped(summary.skipped, summary.skipped_count)
    if output is not None:
        line = f"{summary.rows} rows in {summary.seconds:.2f} s to {output}"
        cli_common.write_output(lambda fmt: click.echo(line), "plain")
    sys.stdout.flush()
    for message in getattr(task, "notes", None) or ():
        say(f"note: {message}")
    if getattr(task, "variables", None):
        say_variables(task.variables)
    status = tally.said(summary.rows, arguments)
    if status is not None:
        return status
    return EXIT_NONFINITE if options["strict"] and summary.nonfinite else EXIT_OK


def say_variables(variables) -> None:
    """What taylor's coefficients in a row are of."""
    say(
        f"note: coefficients[0] to [{len(variables) - 1}] are those of "
        f"{', '.join(variables)} (powers of the distance from each point)"
    )


def _task(command, text, bound, filename, options, arguments, rows: bool, program=None):
    """What computes a chunk: the command's arrays at every point, or an analysis's rows;
    ``program``: the source compiled already, for the command's arrays."""
    settings = {
        "dtype": options["dtype"],
        "seed": options["seed"],
        "filename": filename,
        "max_elements": options["max_elements"],
    }
    if rows:
        from ..analysis.rows import ReportRows

        return ReportRows(command, text, bound, **{**settings, **arguments})
    from ..core.point_files.task import PointsTask

    others = {k: v for k, v in arguments.items() if k not in ("steps", "order")}
    return PointsTask(command, text, bound, **settings, **others, program=program)


class _Tally:
    """The writer, counting the rows an analysis warns of: those its declaration flags
    (``analysis.commands.Flagged``: ``check``'s that disagree, a solver's that did not
    converge, ...)."""

    def __init__(self, writer, command: str):
        from ..analysis.commands import find

        self.writer = writer
        self.command = command
        declared = find(command) if command else None
        #: What the command's declaration flags (``Flagged``), if anything.
        self.flags = None if declared is None else declared.flagged
        #: How many rows are flagged, and the first few of them (from 1) with where.
        self.flagged = 0
        self.first_flagged: list[tuple[int, str]] = []
        self.rows = 0

    def write(self, arrays) -> None:
        rows = len(next(iter(arrays.values()))) if arrays else 0
        if self.flags is not None:
            flagged = np.flatnonzero(np.asarray(self.flags.rows(arrays), dtype=bool))
            self.flagged += len(flagged)
            room = SHOWN_SKIPPED - len(self.first_flagged)
            self.first_flagged += [(self.rows + i + 1, _where(arrays, i)) for i in flagged[:room]]
        self.rows += rows
        self.writer.write(arrays)

    def said(self, rows: int, arguments) -> int | None:
        """Say what the declaration says of the rows it flags; the exit status it asks
        for (None: as without)."""
        if not self.flagged:
            return None
        listed = _listed(self.first_flagged, self.flagged)
        say(self.flags.said(count=self.flagged, rows=rows, listed=listed, arguments=arguments))
        return self.flags.status

    def __getattr__(self, name):
        return getattr(self.writer, name)


def _listed(first, count: int) -> str:
    """``row 3 (x = -1); row 5 (x = 1)``, and how many more there are."""
    listed = "; ".join(f"row {row} ({where})" if where else f"row {row}" for row, where in first)
    more = f"; and {count - len(first)} more" if count > len(first) else ""
    return listed + more


def _where(arrays, i: int) -> str:
    """A row's inputs, ``a = -1, b = 2``: the columns that are not the report's."""
    shown = []
    for name, column in arrays.items():
        if name.startswith(("point.", "derivative.")):
            break  # the report's numbers follow the row's own columns
        value = np.asarray(column[i])
        if value.ndim == 0 and value.dtype.kind in "fiu":
            shown.append(f"{name} = {float(value):.6g}")
    return ", ".join(shown)


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
    from ..core.point_files.distributed import check_scheduler, dask_executor

    if options["scheduler"] is not None:
        check_scheduler(options["scheduler"])  # before the points are read, as the options
    logs = bool(options.get("debug"))  # Dask's own logging, with --debug alone
    if not options["dashboard"]:
        return dask_executor(options["scheduler"], logs=logs, checked=True)
    return _saying_the_dashboard(dask_executor(dashboard=True, logs=logs))


@contextlib.contextmanager
def _saying_the_dashboard(executor):
    """The executor, once it has said where its dashboard is, on standard error."""
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


def _read_by_dask(options) -> bool:
    """Whether Dask's workers read the file of points (CSV or Parquet, on --dask or
    --scheduler), not this process."""
    points = options["points"]
    if points is None or points == "-" or not (options["dask"] or options["scheduler"] is not None):
        return False
    from ..core.point_files.dask_files import dask_format

    return dask_format(points) is not None


def _reader(options, executor, workers_read: bool = False):
    from ..core.point_files.grid import GridReader
    from ..core.point_files.readers import open_points

    points = options["points"]
    if workers_read:
        from ..core.point_files.dask_files import DaskFiles

        if options["skip_bad_rows"]:
            raise GradcliError(
                f"--skip-bad-rows: the Dask workers read {points}, and stop at a bad row"
            )
        return DaskFiles(points, executor)
    if options["over"]:
        given = [f"--{o}" for o in ("columns", "keep", "delimiter") if options[o] is not None]
        given += ["--skip-bad-rows"] if options["skip_bad_rows"] else []
        if given:
            verb = "is" if len(given) == 1 else "are"
            raise GradcliError(f"{' and '.join(given)} {verb} for --points FILE")
        return GridReader(
            [_bindings.parse_over(text, complex_values=True) for text in options["over"]]
        )
    delimiter = _delimiter(options["delimiter"])
    return open_points(options["points"], options["columns"], options["skip_bad_rows"], delimiter)


def _delimiter(text: str | None) -> str | None:
    """``--delimiter``: one character; ``tab`` or ``\\t`` for a tab."""
    if text is None:
        return None
    if text.lower() in ("tab", "\\t"):
        return "\t"
    if len(text) != 1 or text in '"\r\n':
        raise GradcliError(f"--delimiter is one character (, ; | or tab), not {text!r}")
    return text


def _say_skipped(skipped, count: int) -> None:
    """The bad rows passed over: the first few (those the reader kept), and a count."""
    say(f"warning: skipped {count} bad row{'s' if count != 1 else ''}:")
    shown = skipped[:SHOWN_SKIPPED]
    for line, why in shown:
        say(f"  line {line}: {why}")
    if count > len(shown):
        say(f"  and {count - len(shown)} more")
