"""What a reader may take before it has read anything: the size an array file declares
(a ``.npy``'s header, a ``.npz`` member's), checked against the limit on a result's
size before its numbers are read, and text read up to a cap of bytes, a whole value
or one line, so that ``/dev/zero``, a FIFO or a wrong file costs a bounded amount.
"""

from __future__ import annotations

import numpy as np

from ..engine import limits
from ..errors import GradcliError

#: The most text a value read whole (``@x.csv``, ``@-``) or one line of points may hold.
MAX_TEXT_BYTES = 64 * 2**20


def npy_header(stream) -> tuple[tuple, bool, np.dtype]:
    """``(shape, fortran_order, dtype)`` from the ``.npy`` header at ``stream``'s place,
    leaving it at the first number; ValueError where it is no ``.npy`` header."""
    version = np.lib.format.read_magic(stream)
    read = {(1, 0): np.lib.format.read_array_header_1_0}.get(
        version, np.lib.format.read_array_header_2_0
    )
    return read(stream)


def check_npy(stream) -> None:
    """Refuse (ValueError) the ``.npy`` at the start of ``stream`` when the shape its
    header declares is over the limit; a header that does not read is the loader's."""
    stream.seek(0)
    try:
        shape = npy_header(stream)[0]
    except ValueError:
        return
    finally:
        stream.seek(0)
    why = limits.input_refusal(shape)
    if why is not None:
        raise ValueError(why)


def check_npz_member(archive, key: str) -> None:
    """``check_npy`` for the array ``key`` of the zip ``archive`` (a ``.npz``), from its
    member's header alone: a compressed member is not inflated to learn its size."""
    names = archive.namelist()
    member = key + ".npy" if key + ".npy" in names else key
    with archive.open(member) as stream:
        try:
            shape = npy_header(stream)[0]
        except ValueError:
            return
    why = limits.input_refusal(shape)
    if why is not None:
        raise ValueError(why)


def read_capped(stream, what: str, cap: int = MAX_TEXT_BYTES):
    """Everything ``stream`` holds, refused past ``cap`` bytes (or characters, for text)."""
    data = stream.read(cap + 1)
    if len(data) > cap:
        raise GradcliError(f"cannot read {what}: larger than {cap >> 20} MiB")
    return data


def capped_line(stream, what: str, cap: int = MAX_TEXT_BYTES, begun: int = 0) -> bytes:
    """One line of ``stream`` (with its newline), refused past ``cap`` bytes; or the rest
    of one whose first ``begun`` bytes were read already, refused past ``cap`` in all."""
    if begun > cap:
        raise GradcliError(f"{what}: {too_long(cap)}")
    line = stream.readline(cap - begun + 1)
    if begun + len(line) > cap:
        raise GradcliError(f"{what}: {too_long(cap)}")
    return line


def too_long(cap: int) -> str:
    """Why a line is refused: longer than ``cap`` bytes, which no row of numbers is."""
    size = f"{cap >> 20} MiB" if cap >= 2**20 else f"{cap >> 10} KiB"
    return f"a line longer than {size} (is it a file of text?)"
