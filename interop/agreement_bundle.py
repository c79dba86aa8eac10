"""The agreement results and per-item disagreements as tables a pandas user loads in one line.

``agreement_frame`` flattens the agreement document into one long table (one statistic
per row, with its CI and n); the Audit page's table for every comparable field comes
from ``workbench_api.audit.disagreements_frame``. ``write_bundle`` writes frames as
Parquet and CSV into one folder: ``pd.read_parquet("bundle/agreement.parquet")``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

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
]
CORRELATIONS = ("pearson", "spearman", "kendall")
BINARY = ("precision", "recall", "f1", "kappa", "threshold")


def _ci(ci: Any) -> tuple[float | None, float | None]:
    return (ci[0], ci[1]) if isinstance(ci, list | tuple) and len(ci) == 2 else (None, None)


def _human_rows(section: str, name: str, f: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    base = {"section": section, "subject": "people", "field": name, "n": f.get("n_items")}
    for level, value in (f.get("krippendorff_alpha") or {}).items():
        low, high = _ci((f.get("krippendorff_alpha_ci") or {}).get(level))
        rows.append(
            {
                **base,
                "statistic": "krippendorff_alpha",
                "level": level,
                "value": value,
                "ci_low": low,
                "ci_high": high,
            }
        )
    for stat in ("fleiss_kappa", "percent_agreement", "gwet_ac1", "cohen_kappa_mean"):
        if isinstance(f.get(stat), int | float):
            low, high = _ci(f.get(f"{stat}_ci"))
            rows.append(
                {**base, "statistic": stat, "value": f[stat], "ci_low": low, "ci_high": high}
            )
    return rows


def agreement_frame(doc: dict[str, Any]) -> pd.DataFrame:
    """One row per statistic of the document (``doc.to_dict()``): people and evaluators."""
    import pandas as pd

    rows: list[dict[str, Any]] = []
    for section in ("fields", "derived"):
        for name, f in doc.get(section, {}).items():
            rows += _human_rows("human" if section == "fields" else "derived", name, f)
    for evaluator, by_field in doc.get("evaluators", {}).items():
        for name, res in by_field.items():
            base = {"section": "evaluator", "subject": evaluator, "field": name}
            for stat in CORRELATIONS:
                c = res.get(stat) or {}
                if c.get("r") is not None:
                    low, high = _ci(c.get("ci"))
                    rows.append(
                        {
                            **base,
                            "statistic": stat,
                            "value": c["r"],
                            "ci_low": low,
                            "ci_high": high,
                            "n": c.get("n"),
                            "p": c.get("p"),
                        }
                    )
            binary = res.get("binary") or {}
            for stat in BINARY:
                if binary.get(stat) is not None:
                    rows.append(
                        {
                            **base,
                            "statistic": f"binary_{stat}",
                            "value": binary[stat],
                            "n": binary.get("n"),
                        }
                    )
    frame = pd.DataFrame(rows, columns=COLUMNS)
    return frame.astype(
        {"value": "float64", "ci_low": "float64", "ci_high": "float64", "p": "float64"}
    )


def write_bundle(frames: dict[str, pd.DataFrame], out: str | Path) -> list[Path]:
    """Write each frame as ``NAME.parquet`` and ``NAME.csv`` into the folder ``out``
    (through the native exports' serialiser: lists and objects as JSON text)."""
    from annotation_store.exporting import frame_bytes

    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, frame in frames.items():
        for suffix in (".parquet", ".csv"):
            path = folder / f"{name}{suffix}"
            path.write_bytes(frame_bytes(frame, suffix))
            written.append(path)
    return written
