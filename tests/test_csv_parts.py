"""A CSV file read in ranges of its bytes (``CsvPart``), as the Dask workers read it:
every line belongs to the one part it starts in, whatever the cuts, the lines read
add up to the file's, and a line longer than the cap is refused where it starts, a
part that starts within it reading nothing. The expected rows come from Python's
own ``float`` and ``splitlines``."""

from __future__ import annotations

import numpy as np
import pytest

from gradcli.core.point_files.text_readers import CsvPart
from gradcli.errors import GradcliError

LONG = "0." + "1" * 5000  # a field of 5002 bytes: its line is longer than most parts


def _file(tmp_path):
    rows = [f"{i / 7!r},{-i}" for i in range(200)]
    rows[50] = f"{LONG},50"
    rows.insert(120, "")  # a blank line, passed over as without Dask
    text = "x,y\n" + "\n".join(rows) + "\n"
    path = tmp_path / "p.csv"
    path.write_text(text)
    expected = [
        (number, [float(field) for field in line.split(",")])
        for number, line in enumerate(text.splitlines(), start=1)
        if number > 1 and line
    ]
    return path, len(b"x,y\n"), len(text.encode()), expected


def _read(path, cuts, line_cap=2**20, header=("x", "y")):
    """Every part's rows and their lines in the file, the lines of the parts before added."""
    got, lines_before = [], 1  # the header
    for start, stop in zip(cuts, cuts[1:]):
        with CsvPart(str(path), start, stop, header, ",", line_cap) as part:
            for chunk in part.chunks(7):
                for i, line in enumerate(chunk.lines):
                    row = [float(chunk.columns[name][i]) for name in header]
                    got.append((lines_before + int(line), row))
            lines_before += part.line
    return got, lines_before


@pytest.mark.parametrize("seed", range(5))
def test_every_line_is_read_once_whatever_the_cuts(tmp_path, seed):
    path, begin, end, expected = _file(tmp_path)
    rng = np.random.default_rng(seed)
    # Cuts anywhere: within the long line, at a line's start, just after a newline.
    inner = sorted(set(rng.integers(begin + 1, end, size=40).tolist()))
    got, lines = _read(path, [begin, *inner, end])
    assert got == expected
    assert lines == len(path.read_text().splitlines())


def test_parts_of_one_byte_each_read_every_line_once(tmp_path):
    path, begin, end, expected = _file(tmp_path)
    text = path.read_bytes()
    starts = [begin, *(i for i in range(begin, end) if text[i - 1 : i] == b"\n")]
    cuts = sorted({*starts, *(s + 1 for s in starts), end})  # parts of a line's first byte
    assert _read(path, cuts)[0] == expected


def test_a_line_longer_than_the_cap_is_refused_where_it_starts(tmp_path):
    path, begin, end, _ = _file(tmp_path)
    with pytest.raises(GradcliError) as refused:
        _read(path, [begin, begin + 100, end], line_cap=4096)
    # Line 52 is the long one: the second part's line (52 - 1 - the first part's lines).
    first_lines = path.read_bytes()[begin : begin + 100].count(b"\n") + 1
    assert refused.value.line == 52 - 1 - first_lines
    assert refused.value.why == "a line longer than 4 KiB (is it a file of text?)"


def test_a_bad_field_keeps_its_line_in_the_part_for_the_client_to_place(tmp_path):
    path = tmp_path / "b.csv"
    path.write_text("x\n1\n2\n3\nabc\n5\n")
    with pytest.raises(GradcliError) as refused:
        _read(path, [2, 5, 12], header=("x",))  # lines 2 and 3 | lines 4, 5 (abc) and 6
    assert refused.value.line == 2
    assert refused.value.why == "'abc' in column x is not a number"
