"""The text formats of ``--points``: CSV (parsed by pyarrow) and JSON lines.

A text file is read in blocks of whole lines, about a chunk's worth each, so a
file of any length runs in bounded memory and every row keeps its line number:
errors and warnings name the line. A bad row (a field that is not a number, the
wrong number of fields) stops the run with ``FILE line N: why``, or is passed
over under ``skip_bad_rows`` and listed at the end (the first few, and a count);
only the columns that bind inputs must be numbers (a kept column is read as
text). A line is at most ``line_cap`` bytes long (``bounded.MAX_TEXT_BYTES``, or less
as the memory budget says: ``Budget.longest_line``): a file without line ends
(``/dev/zero``, a sparse file) is refused at that size rather than read whole.

``CsvPart`` reads the lines that start in a range of a CSV file's bytes, as a Dask
worker reads its part of the file (``dask_files``), with the same parser and errors.
"""

from __future__ import annotations

import csv
import json
import re
import sys

import numpy as np

from ...errors import GradcliError, os_reason
from ..bounded import MAX_TEXT_BYTES, capped_line, too_long
from .filling import Filling
from .source import Chunk, JsonText, Reader

#: The bad rows kept to be listed, with their line and why; the others are counted.
SHOWN_SKIPPED = 10

# A first guess at a row's length in bytes; the blocks after the first use the
# length measured.
_GUESSED_ROW_BYTES = 32

#: Rows of CSV text read and parsed at once into a chunk's columns.
PARSE_ROWS = 1 << 13


class _TextReader(Reader):
    """Whole lines, a block at a time, from a file or standard input."""

    #: The longest line read, in bytes, and the most read at once.
    line_cap = MAX_TEXT_BYTES
    #: Where reading stops: the end of the file, or (``CsvPart``) the end of a part.
    stop: int | None = None
    #: What a bad row's error adds: how to pass over it.
    skip_hint = " (--skip-bad-rows passes over it)"

    def __init__(self, path: str, skip_bad_rows: bool):
        self.path = "standard input" if path == "-" else path
        self.skip_bad_rows = skip_bad_rows
        self._skipped: list[tuple[int, str]] = []  # the first SHOWN_SKIPPED
        self._skipped_count = 0
        if path == "-":
            self.stream, self.size = sys.stdin.buffer, None
        else:
            try:
                self.stream = open(path, "rb")  # noqa: SIM115 (closed by close())
            except OSError as error:
                raise GradcliError(f"cannot read {path}: {os_reason(error)}") from None
            self.size = self.stream.seek(0, 2)
            self.stream.seek(0)
        self.line = 0  # lines read so far
        self.row_bytes = _GUESSED_ROW_BYTES
        try:
            self._read_header()
        except BaseException:
            self.close()
            raise

    @property
    def skipped(self) -> list[tuple[int, str]]:
        return self._skipped

    @property
    def skipped_count(self) -> int:
        return self._skipped_count

    @property
    def extent(self) -> int | None:
        return self.size  # bytes: the rows are not counted before they are read

    def done(self, rows: int) -> int | None:
        return self.stream.tell() if self.size is not None else None

    def where(self, chunk: Chunk, i: int) -> str:
        return f"row {chunk.start + i + 1}, line {chunk.lines[i]} of {self.path}"

    def close(self) -> None:
        if self.stream is not sys.stdin.buffer:
            self.stream.close()

    def _header_line(self, what: str) -> str:
        first = capped_line(self.stream, f"{self.path} line 1")
        self.line = 1
        if not first:
            raise GradcliError(f"{self.path} is empty: its first line must be {what}")
        if not first.strip():
            raise GradcliError(f"{self.path} line 1 is blank: the first line must be {what}")
        try:
            return first.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise GradcliError(f"cannot read {self.path}: not UTF-8 text") from None

    def _blocks(self, size: int):
        """Bytes of whole lines, about ``size`` rows each by the row length measured
        (``row_bytes``, which the caller updates), and at most ``line_cap``: a long
        line measured does not make the next block the rest of the file. The caller
        counts the lines (``line``): a parser counts them for free."""
        while True:
            wanted = max(min(size * self.row_bytes, self.line_cap), 1)
            if self.stop is not None:
                wanted = min(wanted, self.stop - self.stream.tell())
                if wanted <= 0:
                    return
            block = self.stream.read(wanted)
            if not block:
                return
            # Fewer bytes than asked for: read() met the end, which a terminal says once
            # (Ctrl-D), and reading again would wait for another.
            ended = len(block) < wanted
            if not ended and not block.endswith(b"\n"):
                block += self._rest_of_line(block)
            yield block
            if ended:
                return

    def _rest_of_line(self, block: bytes) -> bytes:
        """The rest of the line ``block`` ends within, refused (naming the line where it
        starts) when the whole is longer than ``line_cap``, and no more of it read."""
        begun = len(block) - block.rfind(b"\n") - 1
        try:
            return capped_line(self.stream, self.path, self.line_cap, begun)
        except GradcliError:
            # Counted only here: every block ends within a line, and most are never refused.
            line = self.line + block.count(b"\n") + 1
            raise self._refused(line, too_long(self.line_cap)) from None

    def _refused(self, line: int, why: str) -> GradcliError:
        """The error of a line, ``FILE line N: why``; ``line`` and ``why`` are kept on it for
        a reader of part of the file (``CsvPart``), whose lines the caller places."""
        error = GradcliError(f"{self.path} line {line}: {why}")
        error.line, error.why = line, why
        return error

    def _counted(self, block: bytes, rows: int) -> np.ndarray:
        """The lines of a block whose every line is a row, counted."""
        lines = np.arange(self.line + 1, self.line + 1 + rows, dtype=np.int64)
        self.line += rows
        self.row_bytes = max(1, len(block) // max(rows, 1))
        return lines

    def _fail(self, line: int, why: str) -> None:
        """A bad row: an error, or under ``skip_bad_rows`` one more skipped row."""
        if not self.skip_bad_rows:
            raise self._refused(line, why + self.skip_hint)
        # Counted, and the first few kept: millions of bad rows cost no memory.
        self._skipped_count += 1
        if len(self._skipped) < SHOWN_SKIPPED:
            self._skipped.append((line, why))


class CsvReader(_TextReader):
    """A header of column names (``x``, ``v[0]``, ``"W[0,1]"``), then one row per point;
    the fields are separated by ``delimiter``, or by what the header is separated by
    (a comma, a semicolon, a tab or a bar). The columns ``kept`` are read as text."""

    def __init__(self, path: str, skip_bad_rows: bool, delimiter: str | None = None):
        self.delimiter = delimiter
        #: The columns a complex cell has been met in: complex from there on.
        self.complex_columns: set[str] = set()
        super().__init__(path, skip_bad_rows)

    def _read_header(self) -> None:
        header = self._header_line("a header naming the columns (x,y)")
        if self.delimiter is None:
            self.delimiter = _delimiter_of(header)
        try:
            fields = next(csv.reader([header], delimiter=self.delimiter, skipinitialspace=True))
        except csv.Error as error:
            raise GradcliError(f"{self.path} line 1: {_csv_problem(error)}") from None
        self.names = [n.strip() for n in fields]
        seen: set[str] = set()  # a set: a header of a million columns is checked in linear time
        for name in self.names:
            if name in seen:
                raise GradcliError(f"{self.path} line 1: column {name} is named twice")
            seen.add(name)
        self.total = None

    def chunks(self, size: int):
        import pyarrow
        from pyarrow import csv as arrow_csv

        from .arrow import texts, to_numpy

        header, wanted = self.header, self._read  # a set made once: columns by the million
        # A piece is one block of pyarrow's, parsed on this thread: parsed by pyarrow's
        # pool of threads, the pieces kept more memory (6 MiB more at 10^6 rows).
        read = arrow_csv.ReadOptions(column_names=header, use_threads=False)
        parse = arrow_csv.ParseOptions(delimiter=self.delimiter, ignore_empty_lines=False)
        convert = arrow_csv.ConvertOptions(
            column_types={
                **dict.fromkeys(self.names, pyarrow.float64()),
                **dict.fromkeys(self.kept, pyarrow.string()),
            },
            include_columns=[n for n in header if n in wanted],
            null_values=[],  # an empty field is a bad row, not a missing value
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
        )

        def parsed(block: bytes):
            # pyarrow's threads may drop their last reference to the input after
            # read_csv has returned; were it Python's bytes, that would take the GIL,
            # which a thread cannot while the interpreter exits: the process would
            # abort ("terminate called without an active exception"). So they read
            # a copy that pyarrow's allocator owns.
            owned = pyarrow.allocate_buffer(len(block))
            pyarrow.FixedSizeBufferWriter(owned).write(block)
            # One pyarrow block per block of lines: a row longer than pyarrow's block
            # (1 MiB) would otherwise "straddle two block boundaries" and be refused.
            read.block_size = max(len(block) + 1, 1 << 20)
            return arrow_csv.read_csv(
                pyarrow.BufferReader(owned),
                read_options=read,
                parse_options=parse,
                convert_options=convert,
            )

        def numbers(table):
            return {
                n: _complex_cells(table.column(n))
                if n in complex_columns
                else to_numpy(table.column(n))
                for n in self.names
            }

        start = 0
        complex_columns = self.complex_columns
        filling = Filling(size)
        pool = pyarrow.default_memory_pool()
        # Parsed PARSE_ROWS at a time into the chunk's columns: the text, its copy and
        # pyarrow's parse are held for a piece of the chunk, not for the whole of it.
        for block in self._blocks(min(size, PARSE_ROWS)):
            while True:
                try:
                    # Blank lines are errors here, so that a block read whole has a row on
                    # every line and its line numbers need no counting.
                    table = parsed(block)
                    columns = numbers(table)
                    lines = self._counted(block, table.num_rows)
                except (pyarrow.ArrowInvalid, ValueError) as error:
                    found = set()
                    if b"j" in block or b"J" in block:  # a complex cell, as 1+2j: else none
                        found = self._complex_columns_in(block) - complex_columns
                    if found:  # read as text from here on, and as complex numbers
                        complex_columns.update(found)
                        types = dict(convert.column_types)
                        types.update(dict.fromkeys(found, pyarrow.string()))
                        convert.column_types = types
                        continue
                    block, lines = self._without_bad_rows(block, error)
                    if len(lines):
                        table = parsed(block)
                        columns = numbers(table)
                break
            del block
            if not len(lines):
                continue  # every row of the block was bad: pyarrow reads no rows from none
            kept = {n: texts(table.column(n)) for n in self.kept}
            del table
            # A block is at most a chunk; the first, whose row length was guessed, may be more.
            at = 0
            while at < len(lines):
                taken = filling.add(columns, lines, kept, at, self._rows_left())
                at += taken
                if filling.full:
                    first, start = start, start + filling.rows
                    # pyarrow's allocator keeps the pages of the chunk's parses unless
                    # told (0.5 ms a call: once a chunk, not a piece).
                    pool.release_unused()
                    yield filling.chunk(first)  # held by no name here (run.run)
            del columns, kept, lines
        if filling.rows:
            yield filling.chunk(start)

    def _rows_left(self) -> int:
        """The rows of the file not read yet, guessed by the row length measured (0 when
        its length is not known: standard input)."""
        if self.size is None:
            return 0
        end = self.size if self.stop is None else min(self.size, self.stop)
        return max(0, end - self.stream.tell()) // self.row_bytes

    def _complex_columns_in(self, block: bytes) -> set[str]:
        """The columns of inputs in which a field of ``block`` is complex (``1+2j``)."""
        at = [(i, n) for i, n in enumerate(self.header) if n in set(self.names)]
        found = set()
        try:
            text = block.decode("utf-8")
            for fields in csv.reader(text.splitlines(), delimiter=self.delimiter):
                for i, name in at:
                    if i < len(fields) and name not in found:
                        field = fields[i].strip()
                        if field.lower().endswith("j") and _is_complex(field):
                            found.add(name)
        except (UnicodeDecodeError, csv.Error):
            return found
        return found

    @property
    def _read(self) -> set[str]:
        return {*self.names, *self.kept}

    def _without_bad_rows(self, block: bytes, error: Exception):
        """The block without its blank lines and bad rows (each reported), and the
        lines of the rest."""
        kept, lines, bad = [], [], 0
        first = self.line + 1
        for number, line in enumerate(block.splitlines(keepends=True), first):
            self.line = number
            if not line.strip():
                continue
            why = self._bad_row(line)
            if why is None:
                kept.append(line)
                lines.append(number)
            else:
                bad += 1
                self._fail(number, why)
        if not bad and len(lines) == self.line - first + 1:
            # pyarrow refused a block in which every row reads as numbers here.
            raise self._refused(first, f"{error} (in the {self.line - first + 1} lines from it)")
        self.row_bytes = max(1, len(block) // max(self.line - first + 1, 1))
        return b"".join(kept), np.array(lines, dtype=np.int64)

    def _bad_row(self, line: bytes) -> str | None:
        try:
            fields = next(csv.reader([line.decode("utf-8")], delimiter=self.delimiter))
        except UnicodeDecodeError:
            return "not UTF-8 text"
        except csv.Error as error:
            return _csv_problem(error)
        header = self.header
        if len(fields) != len(header):
            return f"{len(fields)} fields, but the header names {len(header)} columns"
        numbers = set(self.names)
        for name, field in zip(header, fields):
            if name in self.complex_columns and _is_complex(field):
                continue
            if name in numbers and not _is_number(field):
                why = f"{field.strip()!r} in column {name} is not a number"
                if _DECIMAL_COMMA.fullmatch(field.strip()):
                    why += (
                        f" (decimals are written with a point: {field.strip().replace(',', '.')})"
                    )
                return why
        return None


class CsvPart(CsvReader):
    """The rows of the CSV file ``path`` whose lines start at byte ``start`` or after it
    and before ``stop``: a Dask worker's part of the file (its ``header`` and
    ``delimiter`` read by the client). Its lines are counted from its first (1), and an
    error keeps its line and why (``_refused``) for the client, which knows the lines of
    the parts before, to place."""

    skip_hint = ""  # a Dask run stops at a bad row

    def __init__(self, path: str, start: int, stop: int, header, delimiter: str, line_cap: int):
        self.start, self.stop, self.line_cap = start, stop, line_cap
        self._names = list(header)
        super().__init__(path, False, delimiter)

    def _read_header(self) -> None:
        self.names, self.total = list(self._names), None
        self._to_first_line()

    def _to_first_line(self) -> None:
        """To the first line that starts in the part: past the rest of one begun before
        ``start``, found a MiB at a time (none kept); at ``stop`` when none starts there."""
        at = self.start - 1  # the first part starts after the header's newline
        self.stream.seek(at)
        while at < self.stop - 1:
            piece = self.stream.read(min(2**20, self.stop - 1 - at))
            if not piece:
                break
            newline = piece.find(b"\n")
            if newline >= 0:
                self.stream.seek(at + newline + 1)
                return
            at += len(piece)
        self.stream.seek(self.stop)


#: What may separate the fields, in the order a header's are looked for.
DELIMITERS = (",", ";", "\t", "|")
_DECIMAL_COMMA = re.compile(r"[+-]?\d+,\d+")


def _delimiter_of(header: str) -> str:
    """The delimiter a header's names are separated by: a comma when it has one, else
    the first of the others it has (a header of one name: a comma)."""
    outside = re.sub(r'"[^"]*"', "", header)  # a quoted name may hold any of them
    return next((d for d in DELIMITERS if d in outside), ",")


def _csv_problem(error: csv.Error) -> str:
    """What the csv module refused, in words (its field limit is a length, not an encoding)."""
    if "field limit" in str(error):
        return f"a field longer than {csv.field_size_limit():,} characters"
    return f"not CSV text ({error})"


def _is_complex(field: str) -> bool:
    """Whether a field is a number as Python writes a complex one (``1+2j``, ``2j``, ``3``),
    as a CSV file of one input reads it (``core.values``)."""
    text = field.strip()
    if not text or "_" in text or "(" in text:  # Python's complex() takes 1_0 and (1+2j)
        return False
    try:
        complex(text)
    except ValueError:
        return False
    return True


def _complex_cells(column) -> np.ndarray:
    """A column of text whose every cell is a number as Python writes a complex one, as
    complex128 (ValueError at the first that is not)."""
    cells = column.to_pylist()
    if not all(_is_complex(cell) for cell in cells):
        raise ValueError("a cell that is not a number")
    return np.array([complex(cell) for cell in cells], dtype=np.complex128)


def _is_number(field: str) -> bool:
    text = field.strip()
    if not text or "_" in text:  # Python's float() takes 1_000; CSV readers do not
        return False
    try:
        float(text)
    except ValueError:
        return False
    return True


class JsonLinesReader(_TextReader):
    """One JSON object per line, the same keys on every line: an input's name and its
    value (a number, or nested lists for a vector or matrix), or one element's
    column name (``"v[0]"``)."""

    def _read_header(self) -> None:
        # The first object names the columns; it is read again as the first row.
        first = self._row(self._header_line("a JSON object of the first point's inputs"))
        if first is None:
            raise GradcliError(f"{self.path} line 1: {self._why}")
        self.names = list(first)
        self.shapes = {name: np.shape(value) for name, value in first.items()}
        self.stream.seek(0)  # standard input is CSV: a JSON lines file can go back
        self.line = 0

    @property
    def numbers_per_row(self) -> int:
        numbers = sum(int(np.prod(self.shapes[n], dtype=np.int64)) for n in self.names)
        return numbers + len(self.kept)

    def _row(self, text: str) -> dict | None:
        try:
            row = json.loads(text)
        except ValueError as error:
            self._why = f"not JSON ({error})"
            return None
        if not isinstance(row, dict) or not row:
            self._why = "not a JSON object of inputs and their values"
            return None
        return row

    def chunks(self, size: int):
        start = 0
        for block in self._blocks(size):
            values: dict[str, list] = {name: [] for name in (*self.names, *self.kept)}
            lines = []
            first = self.line + 1
            for number, text in enumerate(block.splitlines(), first):
                self.line = number
                if not text.strip():
                    continue
                row = self._checked(text, number)
                if row is None:
                    continue
                for name in values:
                    values[name].append(row[name])
                lines.append(number)
            self.row_bytes = max(1, len(block) // max(self.line - first + 1, 1))
            if not lines:
                continue
            columns = {n: _json_numbers(values[n]) for n in self.names}
            kept = {n: _texts(values[n]) for n in self.kept}
            yield Chunk(columns, start, np.array(lines, dtype=np.int64), kept)
            start += len(lines)

    def _checked(self, text: bytes, number: int) -> dict | None:
        try:
            decoded = text.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError:
            self._fail(number, "not UTF-8 text")
            return None
        row = self._row(decoded)
        if row is None:
            self._fail(number, self._why)
            return None
        if list(row) != self.header:
            self._fail(
                number,
                f"its keys {', '.join(row)} are not those of line 1: {', '.join(self.header)}",
            )
            return None
        for name in self.names:
            why = _json_number_problem(row[name], self.shapes[name])
            if why is not None:
                self._fail(number, f"{name}: {why}")
                return None
        return row


def _texts(values: list) -> np.ndarray:
    """A kept column of JSON values as text: a string as it is, anything else (a number,
    true, null, a list) as its JSON text, which JSON lines write back as it was."""
    texts = np.empty(len(values), dtype=object)
    texts[:] = [v if isinstance(v, str) else JsonText(json.dumps(v)) for v in values]
    return texts


def _json_numbers(values: list) -> np.ndarray:
    """A column's JSON values (checked by ``_json_number_problem``) as numbers: float64,
    or complex128 where one holds a complex number (``{"real": 1, "imag": 2}``, as JSON
    lines write them)."""
    try:
        return np.array(values, dtype=np.float64)
    except (ValueError, TypeError):
        return np.array([_complex_of(value) for value in values], dtype=np.complex128)


def _complex_of(value):
    """A JSON value with its ``{"real": re, "imag": im}`` objects as Python's complex."""
    if isinstance(value, list):
        return [_complex_of(v) for v in value]
    if isinstance(value, dict):
        return complex(value["real"], value["imag"])
    return value


def _is_json_complex(value) -> bool:
    return (
        isinstance(value, dict)
        and sorted(value) == ["imag", "real"]
        and all(isinstance(p, (int, float)) and not isinstance(p, bool) for p in value.values())
    )


def _json_number_problem(value, shape: tuple[int, ...]) -> str | None:
    """Why ``value`` is not numbers of ``shape`` (complex ones as JSON lines write them),
    or None."""
    refused = f"{json.dumps(value)} is not a number or an array of numbers"
    try:
        array = np.array(value, dtype=np.float64)
    except (ValueError, TypeError):
        array = None
    if array is None:  # complex numbers, or no numbers
        if not any(_is_json_complex(v) for v in _flat(value)):
            return refused
        if any(
            isinstance(v, (bool, str)) or type(v) is dict and not _is_json_complex(v)
            for v in _flat(value)
        ):
            return refused
        try:
            array = np.array(_complex_of(value), dtype=np.complex128)
        except (ValueError, TypeError):
            return refused
    elif isinstance(value, bool) or any(isinstance(v, (bool, str)) for v in _flat(value)):
        return refused
    if array.shape != shape:
        return f"shape {array.shape}, but line 1 gave shape {shape}"
    return None


def _flat(value):
    if isinstance(value, list):
        for item in value:
            yield from _flat(item)
    else:
        yield value
