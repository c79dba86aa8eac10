"""The agreement results and per-item disagreements as tables a pandas user loads in one line.

``agreement_frame`` is the agreement document's rows (``AgreementDocument.rows()``, one
per declared measure of every variable, see ``common.rows``) as one long table with the
CI split in two columns, so no measure can be missing; the Audit page's table for every
comparable field comes from ``workbench_api.audit.disagreements_frame``. ``write_bundle``
writes frames as Parquet and CSV into one folder:
``pd.read_parquet("bundle/agreement.parquet")``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from common.rows import MeasureRow

if TYPE_CHECKING:
    import pandas as pd


COLUMNS = [
    "section",
    "subject",
    "field",
    "statistic",
    "level",
    "value",
    "ci_low",
    "ci_high",
    "n",
    "p",
    "reason",
]


def agreement_frame(rows: Iterable[MeasureRow]) -> pd.DataFrame:
    """One row per measure of the document's rows: people and evaluators."""
    import pandas as pd

    records = [
        (
            r.section,
            r.subject,
            r.field,
            r.measure,
            r.level,
            r.value,
            *(r.ci or (None, None)),
            r.n,
            r.p,
            r.reason,
        )
        for r in rows
    ]
    frame = pd.DataFrame(records, columns=COLUMNS)
    return frame.astype(
        {
            "value": "float64",
            "ci_low": "float64",
            "ci_high": "float64",
            "n": "Int64",
            "p": "float64",
        }
    )


def write_bundle(frames: dict[str, pd.DataFrame], out: str | Path) -> list[Path]:
    """Write each frame as ``NAME.parquet`` and ``NAME.csv`` into the folder ``out``
    (through the native exports' serialiser: lists and objects as JSON text)."""
    from interop.exporting import frame_bytes

    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, frame in frames.items():
        for suffix in (".parquet", ".csv"):
            path = folder / f"{name}{suffix}"
            path.write_bytes(frame_bytes(frame, suffix))
            written.append(path)
    return written
