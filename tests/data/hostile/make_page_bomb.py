"""Remake ``page_bomb.parquet``: one zstd data page holding one plain-encoded (not
dictionary) 400 MiB text of the letter a, about 13 KB on disk, whose footer lies about
its size (the column's ``total_uncompressed_size`` and the row group's
``total_byte_size`` rewritten to small values), so only the page header tells the truth.

Run from the repository root: ``python tests/data/hostile/make_page_bomb.py`` (about a
minute and 1 GB of memory).
"""

from __future__ import annotations

import struct
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

SIZE = 400 * 1024 * 1024
OUT = Path(__file__).resolve().parent / "page_bomb.parquet"


def varint(n: int, width: int = 0) -> bytes:
    """Thrift compact zigzag varint of ``n``, padded to ``width`` bytes (a longer than
    needed varint is still valid, so a value can be replaced in place)."""
    z = (n << 1) ^ (n >> 63)
    out = bytearray()
    while True:
        out.append(z & 0x7F)
        z >>= 7
        if not z and len(out) >= width:
            break
    for i in range(len(out) - 1):
        out[i] |= 0x80
    return bytes(out)


def main() -> None:
    data = pa.py_buffer(b"a" * SIZE)
    offsets = pa.py_buffer(struct.pack("<ii", 0, SIZE))
    text = pa.StringArray.from_buffers(1, offsets, data)
    table = pa.table({"item_id": ["a"], "text": text})
    pq.write_table(
        table,
        OUT,
        compression="zstd",
        compression_level=22,
        use_dictionary=False,
        write_statistics=False,
    )
    meta = pq.ParquetFile(OUT).metadata
    lies = {
        meta.row_group(0).total_byte_size: 100,
        meta.row_group(0).column(1).total_uncompressed_size: 100,
    }
    raw = bytearray(OUT.read_bytes())
    footer_len = struct.unpack("<i", raw[-8:-4])[0]
    start = len(raw) - 8 - footer_len
    footer = bytes(raw[start:-8])
    for true, lie in lies.items():
        old = varint(true)
        assert footer.count(old) == 1, true
        footer = footer.replace(old, varint(lie, len(old)))
    raw[start:-8] = footer
    OUT.write_bytes(bytes(raw))
    check = pq.ParquetFile(OUT).metadata
    assert check.row_group(0).total_byte_size == 100
    print(OUT.name, OUT.stat().st_size, "bytes")


if __name__ == "__main__":
    main()
