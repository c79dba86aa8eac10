"""What a Parquet file's pages decompress to, read from their own headers before any
page is decompressed.

Arrow decompresses a data page whole into a buffer of the size its header declares, so
one small zstd page holding a 400 MB value costs 400 MB before any record batch can be
counted, and a footer's sizes (``total_byte_size``) are only what the writer claims.
:func:`page_sizes` walks every column chunk's page headers (Thrift compact protocol)
with a small bounded reader of its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, Any, NamedTuple

#: The longest page header read (Arrow's own default limit).
MAX_HEADER_BYTES = 16 * 1024 * 1024
#: The deepest nesting of Thrift structs / lists skipped inside a header.
MAX_DEPTH = 16
_FIRST_READ = 4096  # a header is tens of bytes; statistics can make it longer
# Thrift compact type codes.
_STOP, _TRUE, _FALSE, _BYTE, _I16, _I32, _I64, _DOUBLE = range(8)
_BINARY, _LIST, _SET, _MAP, _STRUCT = range(8, 13)


class Page(NamedTuple):
    """One page as its header declares it: where it starts and its sizes in bytes."""

    column: str
    offset: int
    header: int
    uncompressed: int
    compressed: int


class MalformedHeader(ValueError):
    """A page header that is not a Thrift compact PageHeader."""


class _Truncated(MalformedHeader):
    """The header runs past the bytes read so far."""


class _Reader:
    """Thrift compact-protocol values from a bytes window, refusing anything out of it."""

    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def byte(self) -> int:
        if self.pos >= len(self.data):
            raise _Truncated("the header is cut short")
        self.pos += 1
        return self.data[self.pos - 1]

    def varint(self) -> int:
        value = shift = 0
        while True:
            b = self.byte()
            value |= (b & 0x7F) << shift
            if not b & 0x80:
                return value
            shift += 7
            if shift > 63:
                raise MalformedHeader("a varint longer than 10 bytes")

    def zigzag(self) -> int:
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def skip_bytes(self, n: int) -> None:
        if n < 0:
            raise MalformedHeader("a negative length")
        if self.pos + n > len(self.data):
            raise _Truncated("the header is cut short")
        self.pos += n

    def skip(self, kind: int, depth: int) -> None:
        """Skip one value of compact type ``kind``."""
        if depth > MAX_DEPTH:
            raise MalformedHeader(f"nested deeper than {MAX_DEPTH} levels")
        if kind in (_TRUE, _FALSE):
            return
        if kind == _BYTE:
            self.skip_bytes(1)
        elif kind in (_I16, _I32, _I64):
            self.varint()
        elif kind == _DOUBLE:
            self.skip_bytes(8)
        elif kind == _BINARY:
            self.skip_bytes(self.varint())
        elif kind in (_LIST, _SET):
            head = self.byte()
            size, elem = head >> 4, head & 0x0F
            if size == 15:
                size = self.varint()
            for _ in range(size):
                self.skip(_bool_elem(elem), depth + 1)
        elif kind == _MAP:
            size = self.varint()
            if size:
                types = self.byte()
                for _ in range(size):
                    self.skip(_bool_elem(types >> 4), depth + 1)
                    self.skip(_bool_elem(types & 0x0F), depth + 1)
        elif kind == _STRUCT:
            self.struct(depth + 1)
        else:
            raise MalformedHeader(f"unknown Thrift type {kind}")

    def struct(self, depth: int, wanted: tuple[int, ...] = ()) -> dict[int, int]:
        """Read a struct, keeping the integer fields whose ids are ``wanted``."""
        found: dict[int, int] = {}
        last = 0
        while True:
            head = self.byte()
            kind = head & 0x0F
            if kind == _STOP:
                return found
            delta = head >> 4
            field = last + delta if delta else self.zigzag()
            last = field
            if field in wanted and kind in (_I32, _I64):
                found[field] = self.zigzag()
            else:
                self.skip(kind, depth)


def _bool_elem(kind: int) -> int:
    # In lists a boolean element is one byte, whose type code is 1 or 2.
    return _BYTE if kind in (_TRUE, _FALSE) else kind


def read_header(fh: IO[bytes], offset: int, limit: int) -> tuple[int, int, int]:
    """(uncompressed_page_size, compressed_page_size, header length) of the PageHeader
    at ``offset``, reading at most ``limit`` bytes (and :data:`MAX_HEADER_BYTES`)."""
    size = min(_FIRST_READ, limit, MAX_HEADER_BYTES)
    while True:
        fh.seek(offset)
        data = fh.read(size)
        reader = _Reader(data)
        try:
            fields = reader.struct(0, wanted=(2, 3))
        except _Truncated:
            if len(data) < size or size >= min(limit, MAX_HEADER_BYTES):
                raise
            size = min(size * 4, limit, MAX_HEADER_BYTES)
            continue
        if 2 not in fields or 3 not in fields:
            raise MalformedHeader("no page sizes")
        if fields[2] < 0 or fields[3] < 0:
            raise MalformedHeader("a negative page size")
        return fields[2], fields[3], reader.pos


def page_sizes(fh: IO[bytes], metadata: Any, file_size: int) -> Iterator[Page]:
    """Every page of every column chunk, dictionary pages included, as its header
    declares it (the footer's sizes can lie), in file order within each chunk."""
    for g in range(metadata.num_row_groups):
        group = metadata.row_group(g)
        for c in range(group.num_columns):
            column = group.column(c)
            start = column.data_page_offset
            if column.has_dictionary_page and column.dictionary_page_offset:
                start = min(start, column.dictionary_page_offset)
            end = min(start + column.total_compressed_size, file_size)
            if start < 0 or start >= end:
                raise MalformedHeader(f"a column chunk at byte {start} outside the file")
            offset = start
            while offset < end:
                uncompressed, compressed, length = read_header(fh, offset, end - offset)
                yield Page(column.path_in_schema, offset, length, uncompressed, compressed)
                offset += length + compressed
