"""The Parquet page-header walk: exact on files Arrow writes, bounded on hostile bytes."""

from __future__ import annotations

import io
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from interop import row_source
from interop.parquet_pages import MalformedHeader, page_sizes, read_header
from interop.row_source import ImportFailure, check_pages


def _write(path: Path, compression: str, dictionary: bool, version: str) -> Path:
    n = 20_000
    table = pa.table(
        {
            "item_id": [f"i{k}" for k in range(n)],
            "text": [f"text {k % 37} " * (1 + k % 5) for k in range(n)],
            "score": [k * 0.5 for k in range(n)],
            "tags": [[f"t{k % 3}", "x"] for k in range(n)],
        }
    )
    pq.write_table(
        table,
        path,
        compression=compression,
        use_dictionary=dictionary,
        data_page_version=version,
        row_group_size=6_000,
        data_page_size=16 * 1024,
    )
    return path


@pytest.mark.parametrize("compression", ["snappy", "zstd", "gzip", "none"])
@pytest.mark.parametrize("dictionary", [True, False])
@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_the_headers_add_up_to_the_footer_of_an_honest_file(
    tmp_path: Path, compression: str, dictionary: bool, version: str
) -> None:
    path = _write(tmp_path / "f.parquet", compression, dictionary, version)
    meta = pq.ParquetFile(path).metadata
    assert meta.num_row_groups == 4
    with path.open("rb") as fh:
        pages = list(page_sizes(fh, meta, path.stat().st_size))
    chunks = 0
    for g in range(meta.num_row_groups):
        for c in range(meta.num_columns):
            column = meta.row_group(g).column(c)
            start = column.dictionary_page_offset or column.data_page_offset
            mine = [p for p in pages if start <= p.offset < start + column.total_compressed_size]
            assert len(mine) >= 1 + dictionary
            assert {p.column for p in mine} == {column.path_in_schema}
            assert sum(p.header + p.compressed for p in mine) == column.total_compressed_size
            assert sum(p.header + p.uncompressed for p in mine) == (column.total_uncompressed_size)
            chunks += 1
    assert chunks == 16 and len(pages) > 16
    check_pages("f.parquet", path, pq.ParquetFile(path))  # under the cap: no error


def test_pages_over_the_cap_together_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each page is under the cap, their running sum is not."""
    path = _write(tmp_path / "f.parquet", "zstd", False, "1.0")
    with path.open("rb") as fh:
        pages = list(page_sizes(fh, pq.ParquetFile(path).metadata, path.stat().st_size))
    biggest = max(p.uncompressed for p in pages)
    monkeypatch.setattr(row_source, "MAX_PARQUET_BYTES", biggest)
    with pytest.raises(ImportFailure, match=r"^f\.parquet: its pages decompress to at least"):
        check_pages("f.parquet", path.read_bytes(), pq.ParquetFile(path))


@pytest.mark.parametrize(
    ("header", "reason"),
    [
        (b"\x0f" * 8, "unknown Thrift type 15"),
        (b"\x00", "no page sizes"),
        (b"\x15" + b"\xff" * 11, "a varint longer than 10 bytes"),
        (b"\x1c" * 40, "nested deeper than 16 levels"),
        (b"\x25\x03\x15\x02\x00", "a negative page size"),  # field 2 is -2
        (b"\x18\x7f", "the header is cut short"),  # a 127-byte binary in a 2-byte window
    ],
)
def test_a_malformed_header_is_refused(header: bytes, reason: str) -> None:
    with pytest.raises(MalformedHeader, match=reason):
        read_header(io.BytesIO(header), 0, len(header))


def test_a_long_header_is_read_past_the_first_window() -> None:
    """A header longer than the first reads (large statistics) is still read."""
    binary = b"\x18" + _varint(200_000) + b"x" * 200_000  # field 1: binary, skipped
    header = binary + b"\x15" + _zigzag(7) + b"\x15" + _zigzag(5) + b"\x00"
    assert read_header(io.BytesIO(header + b"page!"), 0, len(header) + 5) == (7, 5, len(header))


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        out.append(n & 0x7F | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def _zigzag(n: int) -> bytes:
    return _varint((n << 1) ^ (n >> 63))
