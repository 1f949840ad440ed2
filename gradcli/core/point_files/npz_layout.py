"""Where a ``.npz``'s arrays lie in the file, to read and write them a chunk of rows
at a time.

Written: when the row count is known before the rows, each array's place in the
zip is fixed at the start, so every chunk is written once, at its place, and
``close()`` adds only the headers (with each array's CRC, summed as it came) and
the zip's directory. The file is what ``numpy.savez`` writes: stored members,
zip64 sizes, a ``.npy`` header before each array's bytes.

Read: an array stored uncompressed (as ``numpy.savez`` stores them) is read a
chunk of rows at a time from its place (``StoredArray``); a compressed one
(``numpy.savez_compressed``) is inflated a chunk of rows at a time, in order
(``CompressedArray``), so neither is ever whole in memory.
"""

from __future__ import annotations

import io
import os
import struct
import time
import zipfile
import zlib

import numpy as np

from ...errors import GradcliError
from ..bounded import npy_header


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

    def close(self) -> None:
        self.file.close()  # the file every stored array of the archive reads


class CompressedArray:
    """An array compressed in a ``.npz``, C-ordered: its rows inflated as they are asked
    for, in order (the chunks of a run are), never the whole array at once."""

    def __init__(self, archive: zipfile.ZipFile, info: zipfile.ZipInfo, dtype, shape, path):
        self.archive, self.info, self.dtype, self.shape = archive, info, dtype, shape
        self.row_items = int(np.prod(shape[1:], dtype=np.int64))
        self.path = path
        self.file = None  # the member's stream, open from the first row asked for
        self.next = 0  # the row it is at

    def __len__(self) -> int:
        return self.shape[0]

    def rows(self, start: int, stop: int) -> np.ndarray:
        rows = max(min(stop, self.shape[0]) - start, 0)
        if not rows:
            return np.empty((0, *self.shape[1:]), self.dtype)
        if self.file is None or start < self.next:  # the first rows, or again from the top
            self.close()
            self.file = self.archive.open(self.info)
            npy_header(self.file)
            self.next = 0
        row_bytes = self.row_items * self.dtype.itemsize
        if start > self.next:
            self._read((start - self.next) * row_bytes)
        data = self._read(rows * row_bytes)
        self.next = start + rows
        return np.frombuffer(data, self.dtype).reshape(rows, *self.shape[1:])

    def _read(self, count: int) -> bytes:
        data = self.file.read(count)
        if len(data) < count:
            raise GradcliError(f"{self.path}: an array ends before its {len(self)} rows")
        return data

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None


def stored_arrays(path: str, archive: zipfile.ZipFile) -> dict:
    """Every array of ``archive`` (the ``.npz`` at ``path``, kept open by the caller) read
    in place or inflated by rows; ValueError for a member that cannot be read by rows
    (not a ``.npy``, Python objects, Fortran order)."""
    file = open(path, "rb")  # noqa: SIM115  (closed by the reader)
    try:
        found = _placed(file, archive)
    except BaseException:
        file.close()
        raise
    return found


def _placed(file, archive: zipfile.ZipFile) -> dict[str, StoredArray] | None:
    found = {}
    for info in archive.infolist():
        name = info.filename.removesuffix(".npy")
        if name == info.filename:
            raise ValueError(f"its member {info.filename} is not a .npy array")
        with archive.open(info) as member:
            shape, fortran, dtype = npy_header(member)
            header_bytes = member.tell()
        if dtype.hasobject:
            raise ValueError(f"{name} holds Python objects, which gradcli never unpickles")
        if fortran and len(shape) > 1:
            raise ValueError(
                f"{name} is stored in Fortran order, which cannot be read by rows; "
                "save it in C order (numpy.ascontiguousarray)"
            )
        if info.compress_type != zipfile.ZIP_STORED:
            found[name] = CompressedArray(archive, info, dtype, shape, file.name)
            continue
        file.seek(info.header_offset)
        local = file.read(zipfile.sizeFileHeader)
        name_length, extra_length = struct.unpack("<2H", local[26:30])
        at = info.header_offset + zipfile.sizeFileHeader + name_length + extra_length
        at += header_bytes
        found[name] = StoredArray(file, dtype, shape, at)
    return found
