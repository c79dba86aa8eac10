"""Rows of an import file (CSV, TSV, JSONL or Parquet), read as a stream.

A :class:`RowSource` can be iterated more than once (an import checks every row in a first
pass and writes in a second) and never holds more than one line, CSV record or Parquet
record batch of the file in memory, so a 100,000-row file imports in bounded memory.

Rows are numbered from 1 for the first data row (the CSV header and blank JSONL lines are
not rows). Empty CSV cells become None. Hostile input fails as one :class:`ImportFailure`
naming the row and column: bytes that are not UTF-8, a CSV cell longer than
:data:`MAX_CSV_CELL` characters, JSON nested deeper than :data:`MAX_JSON_DEPTH`, an
integer longer than Python's 4,300 digits, a CSV that ends inside a quoted cell (a cut
file) or has text after a closing quote, NaN / Infinity inside a JSON value or a NUL
character (PostgreSQL stores neither), a Parquet column of bytes, times or decimals, and
a Parquet file that decompresses to more than :data:`MAX_PARQUET_BYTES`, by its
metadata, by its page headers (one page or all together; a malformed header is refused
too) or, counted batch by batch before any batch becomes Python objects, by what its
dictionary-encoded values expand to (one 1 MB value shared by 5,000 rows is 5 GB).
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from common.limits import MAX_NESTING, MAX_TEXT_CHARS

#: The longest CSV cell accepted, in characters (Python's csv default is 128 KiB); a kind
#: file's values share the cap.
MAX_CSV_CELL = MAX_TEXT_CHARS
#: The deepest nesting of lists / objects accepted in a JSON value.
MAX_JSON_DEPTH = MAX_NESTING
TOO_DEEP = f"JSON nested deeper than {MAX_JSON_DEPTH} levels"
#: Rows per Parquet record batch read at a time.
PARQUET_BATCH = 5_000
#: The most a Parquet file may decompress to: its row groups' uncompressed size and the
#: sizes its page headers declare, one page and all together (checked before any page is
#: decompressed), and the running size of its decoded record batches
#: (dictionary-encoded values counted once per row, checked before each batch becomes
#: Python objects).
MAX_PARQUET_BYTES = 200 * 1024 * 1024
NUL = "a NUL character (\\x00), which the database cannot store"
NOT_FINITE = "NaN or Infinity inside a JSON value"

Row = tuple[int, dict[str, Any]]
_JSONL = (".jsonl", ".ndjson", ".json")
_CSV = (".csv", ".tsv")
_SURROGATE = re.compile("[\udc80-\udcff]")


class ImportFailure(ValueError):
    """A row that cannot be imported; nothing from the file was written."""

    def __init__(self, file: str, row: int | None, column: str | None, reason: str) -> None:
        where = file
        if row is not None:
            where += f", row {row}"
        if column:
            where += f", column {column!r}"
        super().__init__(f"{where}: {reason}")
        self.file, self.row, self.column, self.reason = file, row, column, reason


def not_utf8(text: str) -> str | None:
    """The reason a decoded text holds bytes that were not UTF-8, or None."""
    found = _SURROGATE.search(text)
    if found is None:
        return None
    return f"not UTF-8 text (byte 0x{ord(found.group()) - 0xDC00:02x}); save the file as UTF-8"


def check_value(display: str, number: int, column: str, value: Any, bad_bytes: bool = True) -> None:
    """Refuse a cell holding non-UTF-8 bytes or JSON nested deeper than MAX_JSON_DEPTH.

    Walks lists and objects with a stack (no recursion, so no RecursionError)."""
    stack = [(column, 0), (value, 0)]
    while stack:
        current, depth = stack.pop()
        if isinstance(current, str):
            if bad_bytes and (reason := not_utf8(current)):
                raise ImportFailure(display, number, column, reason)
            if "\x00" in current:
                raise ImportFailure(display, number, column, NUL)
        elif isinstance(current, float) and depth > 0 and not math.isfinite(current):
            raise ImportFailure(display, number, column, NOT_FINITE)
        elif isinstance(current, dict | list):
            if depth >= MAX_JSON_DEPTH:
                raise ImportFailure(display, number, column, TOO_DEEP)
            children = (
                [*current.keys(), *current.values()] if isinstance(current, dict) else current
            )
            stack.extend((child, depth + 1) for child in children)


def check_row(display: str, number: int, row: Mapping[str, Any], bad_bytes: bool) -> None:
    """:func:`check_value` on every cell that needs it (plain numbers and, unless
    ``bad_bytes``, strings cannot fail)."""
    for column, value in row.items():
        if bad_bytes or isinstance(value, dict | list) or "\x00" in column:
            check_value(display, number, column, value, bad_bytes)
        elif isinstance(value, str) and "\x00" in value:
            raise ImportFailure(display, number, column, NUL)


def csv_reason(exc: Exception) -> str:
    """One line for a CSV a strict reader refuses: a cell over the cap, a quote still
    open at the end of the file (a cut download), text after a closing quote."""
    if "field larger than field limit" in str(exc):
        return f"a cell is longer than the limit of {MAX_CSV_CELL:,} characters"
    if "unexpected end of data" in str(exc):
        return "the file ends inside a quoted cell (cut short?)"
    return f"not valid CSV ({exc})"


def json_reason(exc: Exception) -> str:
    """One line for a JSON text Python's parser refuses beyond its syntax errors."""
    if "digits" in str(exc):
        return "an integer longer than 4,300 digits"
    return f"not valid JSON ({exc})"


def _over_cap(display: str, size: int, verb: str) -> ImportFailure:
    return ImportFailure(
        display,
        None,
        None,
        f"{verb} {size / 2**20:,.0f} MiB, over the cap of {MAX_PARQUET_BYTES / 2**20:,.0f} MiB",
    )


def check_pages(display: str, source: Path | bytes, parquet: Any) -> None:
    """Refuse a Parquet file one of whose pages, or all of them together, decompress past
    the cap by their own headers (Arrow decompresses a page whole, and the footer's sizes
    are only what the writer claims), or whose page headers are not readable."""
    from interop.parquet_pages import MalformedHeader, page_sizes

    with source.open("rb") if isinstance(source, Path) else io.BytesIO(source) as fh:
        size = fh.seek(0, io.SEEK_END)
        total = 0
        try:
            for page in page_sizes(fh, parquet.metadata, size):
                if page.uncompressed > MAX_PARQUET_BYTES:
                    raise _over_cap(
                        display,
                        page.uncompressed,
                        f"a page of column {page.column!r} at byte {page.offset:,} decompresses to",
                    )
                total += page.uncompressed
                if total > MAX_PARQUET_BYTES:
                    raise _over_cap(display, total, "its pages decompress to at least")
        except MalformedHeader as exc:
            raise ImportFailure(
                display, None, None, f"not a readable Parquet file (page header: {exc})"
            ) from None


def check_parquet(display: str, parquet: Any, *, source: Path | bytes, types: bool = True) -> None:
    """Refuse a Parquet file that decompresses past the cap, by its footer and by every
    page header of ``source`` (the file, or the uploaded bytes, ``parquet`` was opened
    from), or (``types``) has columns the store cannot keep as JSON (bytes, times,
    decimals), before reading any rows."""
    import pyarrow.types as t

    meta = parquet.metadata
    size = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    if size > MAX_PARQUET_BYTES:
        raise _over_cap(display, size, "decompresses to")
    check_pages(display, source, parquet)
    if not types:
        return
    kinds = (
        (lambda x: t.is_binary(x) or t.is_large_binary(x) or t.is_fixed_size_binary(x), "bytes"),
        (lambda x: t.is_temporal(x), "dates or times"),
        (lambda x: t.is_decimal(x), "decimals"),
    )
    for field in parquet.schema_arrow:
        kind = field.type.value_type if t.is_dictionary(field.type) else field.type
        for test, noun in kinds:
            if test(kind):
                raise ImportFailure(
                    display,
                    None,
                    field.name,
                    f"holds {noun} ({kind}); store it as text or numbers",
                )


def open_parquet(source: Any) -> Any:
    """A ``ParquetFile`` whose text and byte columns are read as dictionary arrays, so a
    dictionary-encoded value shared by many rows is held once until :func:`parquet_objects`
    has counted what the rows expand to."""
    import pyarrow.parquet as pq

    paths = [c.path for c in pq.ParquetFile(source).schema if c.physical_type == "BYTE_ARRAY"]
    if hasattr(source, "seek"):
        source.seek(0)
    return pq.ParquetFile(source, read_dictionary=paths)


def decoded_bytes(array: Any) -> int:
    """What an Arrow array takes once every dictionary-encoded value is written out for
    each row that refers to it (a value shared by 5,000 rows counts 5,000 times)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = array.type
    if pa.types.is_dictionary(kind):
        values = array.dictionary
        if (
            pa.types.is_string(values.type)
            or pa.types.is_binary(values.type)
            or (pa.types.is_large_string(values.type) or pa.types.is_large_binary(values.type))
        ):
            sizes = pc.binary_length(values)
        else:  # not made by open_parquet; an even share of the dictionary per value
            sizes = pa.array([values.nbytes // max(len(values), 1)] * len(values), pa.int64())
        taken = pc.sum(pc.take(sizes, array.indices)).as_py() or 0
        return int(taken) + array.indices.nbytes
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_map(kind):
        return decoded_bytes(array.flatten()) + 8 * len(array)
    if pa.types.is_fixed_size_list(kind):
        return decoded_bytes(array.flatten())
    if pa.types.is_struct(kind):
        return sum(decoded_bytes(child) for child in array.flatten()) + len(array)
    return int(array.nbytes)


def check_arrow_files(display: str, files: list[Path]) -> None:
    """Refuse Arrow IPC files (a ``datasets`` folder) whose record batches expand past
    :data:`MAX_PARQUET_BYTES`, counted batch by batch as :func:`parquet_objects` does,
    before anything turns them into Python objects."""
    import pyarrow as pa

    total = 0
    for file in files:
        with pa.memory_map(str(file)) as source:
            try:
                reader = pa.ipc.open_stream(source)
            except pa.ArrowInvalid:
                source.seek(0)
                reader = pa.ipc.open_file(source)
                batches = (reader.get_batch(i) for i in range(reader.num_record_batches))
            else:
                batches = iter(reader)
            for batch in batches:
                total += sum(decoded_bytes(column) for column in batch.columns)
                if total > MAX_PARQUET_BYTES:
                    raise _over_cap(display, total, "expands to at least")


def parquet_objects(display: str, parquet: Any, batch_size: int = 0) -> Iterator[dict[str, Any]]:
    """The rows of a file from :func:`open_parquet` as Python objects, one record batch
    at a time; what the batches expand to is added up before each one is turned into
    Python objects, and past :data:`MAX_PARQUET_BYTES` the file is refused."""
    total = 0
    for batch in parquet.iter_batches(batch_size=batch_size or PARQUET_BATCH):
        total += sum(decoded_bytes(column) for column in batch.columns)
        if total > MAX_PARQUET_BYTES:
            raise _over_cap(display, total, "expands to at least")
        yield from batch.to_pylist()


def _flatten(obj: dict[str, Any]) -> dict[str, Any]:
    """The export's nested ``{"item_id": ..., "fields": {...}}`` form, flattened."""
    if isinstance(obj.get("fields"), dict):
        return {**{k: v for k, v in obj.items() if k != "fields"}, **obj["fields"]}
    return obj


@dataclass(frozen=True)
class RowSource:
    """An import file (a path or uploaded bytes) whose rows can be streamed repeatedly."""

    display: str
    suffix: str
    path: Path | None = None
    data: bytes | None = None

    @classmethod
    def open(cls, source: str | Path | bytes, name: str | None = None) -> RowSource:
        """The source's rows, by the suffix of ``name`` or of the path."""
        if isinstance(source, bytes):
            display = name or "upload"
            found = cls(display, Path(display).suffix.lower(), data=source)
        else:
            path = Path(source)
            display = name or path.name
            if not path.is_file():
                raise ImportFailure(display, None, None, "file not found")
            found = cls(display, Path(display).suffix.lower(), path=path)
        if found.suffix not in (*_JSONL, *_CSV, ".parquet"):
            raise ImportFailure(
                display, None, None, "unknown format: use .csv, .tsv, .jsonl or .parquet"
            )
        return found

    def estimate(self) -> int:
        """About how many rows the file holds, without parsing it: exact for Parquet and
        JSONL without blank lines, more for CSV cells spanning lines."""
        if self.suffix == ".parquet":
            try:
                return self._parquet().metadata.num_rows
            except Exception:  # unreadable: the row pass says why
                return 0
        lines, last = 0, b"\n"
        with self._binary() as fh:
            while chunk := fh.read(1 << 20):
                lines += chunk.count(b"\n")
                last = chunk[-1:]
        lines += last != b"\n"
        return max(0, lines - (self.suffix in _CSV))

    def _parquet(self) -> Any:
        import pyarrow as pa

        return open_parquet(
            self.path if self.path is not None else pa.BufferReader(self.data or b"")
        )

    def _binary(self) -> IO[bytes]:
        return self.path.open("rb") if self.path is not None else io.BytesIO(self.data or b"")

    def __iter__(self) -> Iterator[Row]:
        if self.suffix == ".parquet":
            return self._parquet_rows()
        if self.suffix in _JSONL:
            return self._jsonl_rows()
        return self._csv_rows("\t" if self.suffix == ".tsv" else ",")

    def _jsonl_rows(self) -> Iterator[Row]:
        display, number = self.display, 0
        with self._binary() as fh:
            for raw in fh:
                if not raw.strip():
                    continue
                number += 1
                encoding = "utf-8-sig" if number == 1 else "utf-8"
                try:
                    line, bad = raw.decode(encoding), False
                except UnicodeDecodeError:
                    # Undecodable bytes become lone surrogates, so the column holding the
                    # first one can be named once the line is parsed.
                    line, bad = raw.decode(encoding, errors="surrogateescape"), True
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ImportFailure(
                        display, number, None, f"not valid JSON ({exc.msg})"
                    ) from None
                except RecursionError:
                    raise ImportFailure(display, number, None, TOO_DEEP) from None
                except ValueError as exc:  # Python's cap on integer digits
                    raise ImportFailure(display, number, None, json_reason(exc)) from None
                if not isinstance(obj, dict):
                    raise ImportFailure(display, number, None, "each line must be a JSON object")
                row = _flatten(obj)
                check_row(display, number, row, bad)
                if bad:  # the bad bytes were outside any value
                    raise ImportFailure(display, number, None, not_utf8(line) or "not UTF-8")
                yield number, row

    def _parquet_rows(self) -> Iterator[Row]:
        """Rows read one record batch at a time (nested columns stay lists / objects)."""
        import pyarrow as pa

        display, number = self.display, 0
        try:
            parquet = self._parquet()
            check_parquet(display, parquet, source=self.path or self.data or b"")
            for obj in parquet_objects(display, parquet):
                number += 1
                row = {str(k): v for k, v in _flatten(obj).items()}
                check_row(display, number, row, bad_bytes=False)
                yield number, row
        except (pa.ArrowException, OSError) as exc:
            raise ImportFailure(
                display, None, None, f"not a readable Parquet file ({exc})"
            ) from None

    def _csv_rows(self, delimiter: str) -> Iterator[Row]:
        if csv.field_size_limit() < MAX_CSV_CELL:
            csv.field_size_limit(MAX_CSV_CELL)
        display, number = self.display, 0
        with io.TextIOWrapper(
            self._binary(), encoding="utf-8-sig", errors="surrogateescape", newline=""
        ) as text:
            reader = csv.DictReader(text, delimiter=delimiter, strict=True)
            try:
                if reader.fieldnames is None:
                    raise ImportFailure(display, None, None, "the file is empty")
                for column in reader.fieldnames:
                    if reason := not_utf8(column):  # bad bytes in the header
                        raise ImportFailure(display, None, None, reason)
                for number, record in enumerate(reader, start=1):
                    if None in record:
                        raise ImportFailure(display, number, None, "more cells than header columns")
                    row = {
                        k.strip(): (v if v not in ("", None) else None) for k, v in record.items()
                    }
                    if _SURROGATE.search("".join(v for v in row.values() if v)):
                        check_row(display, number, row, bad_bytes=True)
                    yield number, row
            except csv.Error as exc:
                row_number = number + 1 if reader.fieldnames is not None else None
                raise ImportFailure(display, row_number, None, csv_reason(exc)) from None
