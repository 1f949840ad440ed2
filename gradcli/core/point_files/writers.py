"""Where the rows of a many-point run go, a chunk at a time, in order.

A writer (``gradcli.render.formats.open_writer(output, fmt)`` gives the one a
format declares) has ``write(arrays)`` (batch axis
first: flat 1-D columns named as plain output names the numbers, or whole
arrays, which only CSV, Parquet, JSON lines and tables split into columns) and
``close()``; ``abort()``
after a failure. A file is complete or not there: it is written beside its
name and renamed over it by ``close()`` (``gradcli.core.atomic``), so a failed or
interrupted run leaves the file that was there before.

- ``--format csv``: a header row, then one row per point (pyarrow writes the
  numbers, the shortest text that reads back as the same number);
- ``--format json``: JSON lines, one object per point (``render.point_writers``);
- ``--format table``: the first and last rows and the count (``render.point_writers``);
- ``--output FILE.npz``: arrays with the batch axis first (``value``, ``grad.x``,
  ``grad.v`` of shape ``(B, 3)``), streamed to disk, so memory stays bounded;
- ``--output FILE.csv``, ``FILE.parquet`` or ``FILE.jsonl``.

Columns of text (an input file's ``id``, kept as it is) are written by CSV,
Parquet, JSON lines and tables; an ``.npz`` holds arrays of numbers only.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import shutil
import sys
import tempfile
import zipfile

import numpy as np

from ...errors import GradcliError
from .columns import columns_from_arrays, inputs_from_columns
from .npz_layout import ZipLayout


class Writer:
    """A writer's life: ``write`` each chunk, then ``close()``, or ``abort()`` after a
    failure. A file is written to a temporary file beside it (``gradcli.core.atomic``),
    renamed over ``path`` by ``close()`` only when it is complete: a failed,
    interrupted or killed run leaves what was there before."""

    #: The file written, or None for standard output.
    path: str | None = None

    def __init__(self, path: str | None = None):
        self.rows = 0
        self.path = path
        self.output = None
        if path is not None:
            from ..atomic import AtomicOutput

            try:  # fail before computing when it cannot be written
                self.output = AtomicOutput(path)
            except OSError as error:
                raise cannot_write(path, error) from None

    #: Whether ``_write`` takes whole arrays (else flat columns).
    arrays = False
    #: Whether it writes the columns of text an input file's rows keep (``id``).
    keeps_columns = True

    #: Whether a column keeps the type of its first chunk's numbers (a file of arrays).
    one_type = False
    #: The columns of complex numbers so far, by name (``one_type``).
    complex_columns: dict[str, bool] | None = None

    def write(self, columns: dict[str, np.ndarray]) -> None:
        if self.one_type:
            self._same_types(columns)
        self.rows += len(next(iter(columns.values()))) if columns else 0
        try:
            self._write(columns if self.arrays else columns_from_arrays(columns))
        except BrokenPipeError:
            raise
        except OSError as error:  # a full disk
            raise cannot_write(self.path, error) from None

    def _write(self, columns: dict[str, np.ndarray]) -> None:
        raise NotImplementedError

    def _same_types(self, columns) -> None:
        """Refuse a column complex in this chunk and real in the ones written (a CSV
        column turns complex in the chunk of its first complex cell)."""
        found = {n: np.asarray(c).dtype.kind == "c" for n, c in columns.items()}
        if self.complex_columns is None:
            self.complex_columns = found
            return
        turned = [n for n, c in found.items() if c and not self.complex_columns.get(n, True)]
        if turned:
            raise GradcliError(
                f"column {turned[0]} is complex from row {self.rows + 1} or after, and real "
                f"in the {self.rows:,} rows before: {self.path} keeps the type of a column's "
                "first rows; write a first row's number as complex (3+0j), or write CSV or "
                "JSON lines"
            )

    def close(self) -> None:
        """Complete the output (a file: flushed, fsynced, renamed over ``path``); on
        any failure, as ``abort()``."""
        try:
            self._finish()
            if self.output is not None:
                self.output.commit()
        except BrokenPipeError:
            self.abort()
            raise
        except OSError as error:
            self.abort()
            raise cannot_write(self.path, error) from None
        except BaseException:
            self.abort()
            raise

    def _finish(self) -> None:
        """Write what ends the output (a footer, a zip's directory), or flush it."""

    def _release(self) -> None:
        """After a failure: let go of what ``_write`` holds open."""

    def __enter__(self):
        return self

    def __exit__(self, kind, error, traceback) -> None:
        if kind is not None:
            self.abort()

    def abort(self) -> None:
        """After a failure: drop the temporary file; the file at ``path`` is untouched."""
        with contextlib.suppress(Exception):
            self._release()
        if self.output is not None:
            self.output.discard()


def cannot_write(path: str | None, error: OSError) -> GradcliError:
    from ..atomic import reason

    return GradcliError(f"cannot write {path or 'standard output'}: {reason(error)}")


class CsvWriter(Writer):
    """A header row (a name with a comma, ``jacobian.x[1,0]``, in quotes), then the rows."""

    def __init__(self, path: str | None):
        super().__init__(path)
        self.sink = self.output.open("wb") if path is not None else sys.stdout.buffer

    def _write(self, columns):
        from pyarrow import csv as arrow_csv

        from .arrow import table

        if self.rows == len(next(iter(columns.values()))):  # the first chunk
            header = io.StringIO()
            csv.writer(header, lineterminator="\n").writerow(list(columns))
            self.sink.write(header.getvalue().encode("utf-8"))
        if any(np.asarray(c).dtype.kind in "OUc" for c in columns.values()):
            self.sink.write(_csv_rows(columns))
            return
        # Straight to the file, a batch of rows at a time: a chunk's text is never whole.
        arrow_csv.write_csv(table(columns), self.sink, arrow_csv.WriteOptions(include_header=False))

    def _finish(self):
        if self.path is None:
            self.sink.flush()


def _csv_rows(columns) -> bytes:
    """Rows with columns of text, as ``write_csv`` writes numbers (the same text, which
    pyarrow's cast gives) but a text in quotes only when it needs them (``a,b``, a
    quote, a line end, a space at either end); pyarrow quotes every text."""
    import pyarrow
    import pyarrow.compute as pc

    from .arrow import from_numpy

    fields: list = []
    texts = []  # the columns of text, quoted together: ten thousand columns are one array
    for column in columns.values():
        column = np.asarray(column)
        if column.dtype.kind == "c":
            fields.append(complex_texts(column))
        elif column.dtype.kind in "OU":
            texts.append(len(fields))
            fields.append(column)
        else:
            fields.append(pc.cast(from_numpy(column), pyarrow.string()))
    if texts:
        rows = len(fields[texts[0]])
        array = from_numpy(np.concatenate([fields[i] for i in texts]).astype(object))
        needs = pc.match_substring_regex(array, r'[,"\r\n]|^\s|\s$')
        quoted = pc.binary_join_element_wise('"', pc.replace_substring(array, '"', '""'), '"', "")
        array = pc.fill_null(pc.if_else(needs, quoted, array), "")
        for k, i in enumerate(texts):
            fields[i] = array.slice(k * rows, rows)
    rows = pc.binary_join_element_wise(*fields, ",") if len(fields) > 1 else fields[0]
    return "".join(f"{row}\n" for row in rows.to_pylist()).encode("utf-8")


def complex_texts(column: np.ndarray):
    """Complex numbers as Python writes them (``1+2j``, ``-0.07-2j``, ``nan+infj``): each
    part as CSV writes a real number, the shortest text that reads back the same, as a
    pyarrow array of text."""
    import pyarrow
    import pyarrow.compute as pc

    from .arrow import from_numpy

    real, imag = (
        pc.cast(from_numpy(np.ascontiguousarray(part, np.float64)), pyarrow.string())
        for part in (column.real, column.imag)
    )
    sign = pc.if_else(pc.starts_with(imag, "-"), "", "+")
    return pc.binary_join_element_wise(real, sign, imag, "j", "")


def real_and_imaginary(columns: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Each complex column ``c`` as two real ones, ``c.real`` and ``c.imag`` (Parquet, as
    Arrow, has no complex numbers); the others as they are."""
    if not any(np.asarray(c).dtype.kind == "c" for c in columns.values()):
        return columns
    found = {}
    for name, column in columns.items():
        column = np.asarray(column)
        if column.dtype.kind == "c":
            found[f"{name}.real"], found[f"{name}.imag"] = column.real, column.imag
        else:
            found[name] = column
    return found


class ParquetWriter(Writer):
    """A Parquet table, a column per number; a complex column ``c`` as ``c.real`` and
    ``c.imag`` (``real_and_imaginary``), which ``--points`` reads back as ``c``."""

    one_type = True

    def __init__(self, path: str):
        super().__init__(path)
        self.writer = None

    def _write(self, columns):
        import pyarrow.parquet

        from .arrow import table

        rows = table(real_and_imaginary(columns))
        if self.writer is None:
            self.writer = pyarrow.parquet.ParquetWriter(self.output.temp, rows.schema)
        self.writer.write_table(rows)

    def _finish(self):
        if self.writer is not None:
            self.writer.close()

    def _release(self):
        self._finish()


class NpzWriter(Writer):
    """The arrays of a ``.npz`` (a zip of ``.npy`` files, as ``numpy.savez`` writes it),
    streamed. With ``rows`` known, each chunk is written once, at its place in the zip
    (``npz_layout``); else each array's rows go to a file of their own, and
    ``close()`` copies each into the zip behind its ``.npy`` header."""

    arrays = True
    keeps_columns = False
    one_type = True

    def __init__(self, path: str, rows: int | None = None):
        super().__init__(path)
        self.layout = None
        self.directory = None
        if rows is None:
            try:
                self.directory = tempfile.mkdtemp(
                    prefix=".points-", dir=os.path.dirname(path) or "."
                )
            except OSError as error:
                self.abort()
                raise cannot_write(path, error) from None
        self.expected = rows
        self.parts: dict[str, tuple] = {}

    def _write(self, columns):
        # Whole arrays pass through as they are; flat columns are put together.
        arrays = {n: np.ascontiguousarray(a) for n, a in inputs_from_columns(columns).items()}
        if self.directory is None:
            if self.layout is None:
                self.layout = ZipLayout(self.output.open("w+b"), self.path, arrays, self.expected)
            self.layout.write(arrays)
            return
        for name, array in arrays.items():
            if name not in self.parts:
                stream = open(os.path.join(self.directory, f"{len(self.parts)}.raw"), "wb")  # noqa: SIM115
                self.parts[name] = (stream, array.dtype, array.shape[1:])
            self.parts[name][0].write(array.data)

    def _finish(self):
        if self.layout is not None:
            self.layout.close()
            return
        try:
            with zipfile.ZipFile(
                self.output.open("wb"), "w", zipfile.ZIP_STORED, allowZip64=True
            ) as archive:
                for name, (stream, dtype, shape) in self.parts.items():
                    stream.close()
                    header = {
                        "descr": np.lib.format.dtype_to_descr(dtype),
                        "fortran_order": False,
                        "shape": (self.rows, *shape),
                    }
                    with archive.open(name + ".npy", "w", force_zip64=True) as member:
                        np.lib.format.write_array_header_2_0(member, header)
                        with open(stream.name, "rb") as raw:
                            shutil.copyfileobj(raw, member, 2**24)
        finally:
            shutil.rmtree(self.directory, ignore_errors=True)

    def _release(self):
        if self.layout is not None:
            self.layout.file.close()
        for stream, _, _ in self.parts.values():
            stream.close()
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)
