"""Where a ``.npz``'s arrays lie in the file, to read and write them a chunk of rows
at a time.

Written: when the row count is known before the rows, each array's place in the
zip is fixed at the start, so every chunk is written once, at its place, and
``close()`` adds only the headers (with each array's CRC, summed as it came) and
the zip's directory. The file is what ``numpy.savez`` writes: stored members,
zip64 sizes, a ``.npy`` header before each array's bytes.

Read: an array stored uncompressed (as ``numpy.savez`` stores them) is read a
chunk of rows at a time from its place (``StoredArray``).
"""

from __future__ import annotations

import io
import os
import struct
import time
import zipfile
import zlib

import numpy as np

from ..errors import GradcliError


class ZipLayout:
    def __init__(self, file, path: str, first: dict[str, np.ndarray], rows: int):
        """Members laid out in ``file`` (new, open for reading and writing; ``path``
        names it in errors) for ``rows`` rows of arrays shaped as the chunk ``first``."""
        self.path = path
        self.rows = rows
        self.file = file
        self.members: dict[str, _Member] = {}
        offset = 0
        for name, array in first.items():
            member = _Member(name, array, rows, offset)
            self.members[name] = member
            os.pwrite(self.file.fileno(), member.npy_header, member.at - len(member.npy_header))
            offset = member.end
        self.file.truncate(offset)

    def write(self, arrays: dict[str, np.ndarray]) -> None:
        for name, array in arrays.items():
            member = self.members.get(name)
            if member is None or array.dtype != member.dtype or array.shape[1:] != member.shape:
                raise GradcliError(f"{self.path}: a chunk's array {name} differs from the first's")
            if member.at + array.nbytes > member.end:
                raise GradcliError(f"{self.path}: more than the {self.rows} rows expected")
            data = array.data.cast("B")
            os.pwrite(self.file.fileno(), data, member.at)
            member.at += array.nbytes
            member.info.CRC = zlib.crc32(data, member.info.CRC)

    def close(self) -> None:
        with self.file:
            for member in self.members.values():
                if member.at != member.end:
                    raise GradcliError(f"{self.path}: fewer than the {self.rows} rows expected")
                os.pwrite(self.file.fileno(), member.info.FileHeader(zip64=True), member.offset)
            self.file.seek(0, os.SEEK_END)
            # zipfile writes the directory of the members placed here, as it would its own.
            archive = zipfile.ZipFile(self.file, "w", allowZip64=True)
            for member in self.members.values():
                archive.filelist.append(member.info)
                archive.NameToInfo[member.info.filename] = member.info
            archive.close()


class _Member:
    """One array's ``.npy`` in the zip: its local header at ``offset``, then the
    ``.npy`` header, then the rows, written up to ``at``, ending at ``end``."""

    def __init__(self, name: str, array: np.ndarray, rows: int, offset: int):
        self.dtype = array.dtype
        self.shape = array.shape[1:]
        npy = io.BytesIO()
        np.lib.format.write_array_header_2_0(
            npy,
            {
                "descr": np.lib.format.dtype_to_descr(array.dtype),
                "fortran_order": False,
                "shape": (rows, *self.shape),
            },
        )
        header = npy.getvalue()
        data_bytes = rows * array.dtype.itemsize * int(np.prod(self.shape, dtype=np.int64))
        self.info = zipfile.ZipInfo(name + ".npy", date_time=time.localtime()[:6])
        self.info.compress_type = zipfile.ZIP_STORED
        self.info.file_size = self.info.compress_size = len(header) + data_bytes
        self.info.header_offset = offset
        self.info.CRC = zlib.crc32(header)
        self.offset = offset
        self.at = offset + len(self.info.FileHeader(zip64=True)) + len(header)
        self.end = self.at + data_bytes
        self.npy_header = header


class StoredArray:
    """An array stored uncompressed in a ``.npz``, C-ordered: its ``dtype``, ``shape``
    and the place of its first byte in the file, read by rows."""

    def __init__(self, file, dtype: np.dtype, shape: tuple, at: int):
        self.file, self.dtype, self.shape, self.at = file, dtype, shape, at
        self.row_items = int(np.prod(shape[1:], dtype=np.int64))

    def __len__(self) -> int:
        return self.shape[0]

    def rows(self, start: int, stop: int) -> np.ndarray:
        rows = max(min(stop, self.shape[0]) - start, 0)
        data = np.empty(0, self.dtype)
        if rows:
            self.file.seek(self.at + start * self.row_items * self.dtype.itemsize)
            data = np.fromfile(self.file, self.dtype, rows * self.row_items)
            if len(data) < rows * self.row_items:
                raise GradcliError(f"{self.file.name}: an array ends before its {len(self)} rows")
        return data.reshape(rows, *self.shape[1:])


def stored_arrays(path: str, archive: zipfile.ZipFile) -> dict[str, StoredArray] | None:
    """Every array of ``archive`` (the ``.npz`` at ``path``) read in place, or None
    when one is compressed, Fortran-ordered or not plain numbers."""
    file = open(path, "rb")  # noqa: SIM115  (closed by the reader)
    try:
        found = _placed(file, archive)
    except BaseException:
        file.close()
        raise
    if found is None:
        file.close()
    return found


def _placed(file, archive: zipfile.ZipFile) -> dict[str, StoredArray] | None:
    found = {}
    for info in archive.infolist():
        if info.compress_type != zipfile.ZIP_STORED or not info.filename.endswith(".npy"):
            return None
        with archive.open(info) as member:
            version = np.lib.format.read_magic(member)
            read = {(1, 0): np.lib.format.read_array_header_1_0}.get(
                version, np.lib.format.read_array_header_2_0
            )
            shape, fortran, dtype = read(member)
            npy_header = member.tell()
        if fortran and len(shape) > 1 or dtype.hasobject or not shape:
            return None
        file.seek(info.header_offset)
        local = file.read(zipfile.sizeFileHeader)
        name_length, extra_length = struct.unpack("<2H", local[26:30])
        at = info.header_offset + zipfile.sizeFileHeader + name_length + extra_length + npy_header
        found[info.filename[: -len(".npy")]] = StoredArray(file, dtype, shape, at)
    return found
