"""A new question type is three files and no edit elsewhere: the ranking type, its
measures and its control, installed as a plugin in a fresh process (a temporary
dist-info whose entry_points.txt names them), show up in ``kind create``, the annotation
import, ``agreement --json``, the report and the Task kinds form.

The three files are the built-in ranking's own modules with their one ``NAME = ...`` line
changed, so the plugin is a second, independent type beside the built-in one.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import friedmanchisquare

#: these tests read entry points (tests/conftest.py turns plugins off elsewhere)
pytestmark = pytest.mark.plugins

ROOT = Path(__file__).resolve().parent.parent
FILES = {
    "ranked_type": ROOT / "kinds" / "question_types" / "ranking.py",
    "ranked_measure": ROOT / "agreement" / "builtin_measures" / "ranking.py",
    "ranked_control": ROOT / "ui" / "annotation" / "ranking_control.py",
}
GROUPS = {
    "metric_audit.question_types": "ranked_type",
    "metric_audit.statistics": "ranked_measure",
    "metric_audit.question_controls": "ranked_control",
}
TYPE = "ranked_plugin"
OUTPUTS = ("a1", "a2", "a3")
#: item -> each annotator's ranking (groups best first)
RANKINGS = {
    "i1": ([["a3"], ["a1"], ["a2"]], [["a1", "a3"], ["a2"]], [["a3"], ["a1"], ["a2"]]),
    "i2": ([["a2"], ["a1"], ["a3"]], [["a2"], ["a3"], ["a1"]], [["a1"], ["a2"], ["a3"]]),
    "i3": ([["a1"], ["a2"], ["a3"]], [["a1"], ["a2"], ["a3"]], [["a2", "a3"], ["a1"]]),
}
KIND = f"""
title = "Ranked by a plugin"
[[fields]]
name = "request"
{
    "".join(
        f'''
[[fields]]
name = "{o}"
output = true
'''
        for o in OUTPUTS
    )
}
[[questions]]
name = "order"
type = "{TYPE}"
prompt = "Best first"
tie = true
"""

SCRIPT = """
import json, os, sys
sys.path.insert(0, {plugin!r})
sys.path.insert(0, {root!r})
os.chdir({root!r})
from commands import main
db = ["--db", {url!r}]
out = {{}}
out["create"] = main([*db, "kind", "create", "rk", "--from", {kind!r}])
out["project"] = main([*db, "project", "create", "rkp", "--kind", "decl:rk"])
out["items"] = main([*db, "import", "items", "rkp", {items!r}])
out["labels"] = main([*db, "import", "annotations", "rkp", {labels!r}])
sys.stdout.flush()
print("@@JSON@@")
out["agreement"] = main([*db, "agreement", "rkp", "--json", "--resamples", "0"])
print("@@END@@")
out["report"] = main([*db, "report", "rkp", "--format", "md", "--out", {report!r}])

os.environ["WORKBENCH_DB_URL"] = {url!r}
from streamlit.testing.v1 import AppTest
at = AppTest.from_file(os.path.join({root!r}, "app.py"), default_timeout=120)
at.run()
at.switch_page("pages/kinds.py").run()
out["picker"] = list(at.selectbox(key="kf_new_type").options)
at.text_area(key="kd_toml").set_value(open({kind!r}).read()).run()
out["form"] = [w.key for w in at.multiselect if (w.key or "").startswith("kf::q0::")]
out["preview"] = [w.key for w in at.selectbox if (w.key or "").startswith("rank::")]
out["errors"] = [str(e.value) for e in at.exception]
from common.registry import plugin_warnings
out["warnings"] = plugin_warnings()
print("@@OUT@@" + json.dumps(out))
"""


def _plugin(folder: Path) -> None:
    """The three modules (their NAME line changed) and a dist-info naming them."""
    for module, source in FILES.items():
        text = source.read_text()
        assert text.count('NAME = "ranking"') == 1, source
        (folder / f"{module}.py").write_text(text.replace('NAME = "ranking"', f'NAME = "{TYPE}"'))
    info = folder / "ranked_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: ranked-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "".join(f"[{group}]\n{TYPE} = {module}\n\n" for group, module in GROUPS.items())
    )


def _kendall_w_by_friedman() -> float:
    """Mean over items of W = chi2_F / (m (k - 1)), scipy's tie-corrected Friedman."""
    ws = []
    for rankings in RANKINGS.values():
        places = []
        for ranking in rankings:
            rank, taken = {}, 0
            for group in ranking:
                rank.update({o: taken + (len(group) + 1) / 2 for o in group})
                taken += len(group)
            places.append([rank[o] for o in OUTPUTS])
        chi2 = friedmanchisquare(*np.array(places).T).statistic
        ws.append(chi2 / (len(rankings) * (len(OUTPUTS) - 1)))
    return float(np.mean(ws))


def test_a_question_type_plugin_in_three_files_reaches_every_surface(
    tmp_path: Path, sqlite_url: str
) -> None:
    plugin = tmp_path / "plugin"
    plugin.mkdir()
    _plugin(plugin)
    kind = tmp_path / "kind.toml"
    kind.write_text(KIND)
    items = tmp_path / "items.jsonl"
    items.write_text(
        "".join(
            json.dumps({"item_id": i, "request": f"request {i}", **{o: o for o in OUTPUTS}}) + "\n"
            for i in RANKINGS
        )
    )
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        "".join(
            json.dumps({"item_id": i, "annotator": f"ann{n}", "field": "order", "value": r}) + "\n"
            for i, rankings in RANKINGS.items()
            for n, r in enumerate(rankings)
        )
    )
    report = tmp_path / "report.md"
    script = SCRIPT.format(
        plugin=str(plugin),
        root=str(ROOT),
        url=sqlite_url,
        kind=str(kind),
        items=str(items),
        labels=str(labels),
        report=str(report),
    )
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.split("@@OUT@@")[1])
    assert [out[k] for k in ("create", "project", "items", "labels", "agreement", "report")] == [
        0
    ] * 6, done.stdout
    assert out["warnings"] == [] and out["errors"] == []
    # the Task kinds form: the type in the picker, its own form entries, its control
    assert {f"{TYPE} (best first)", "ranking (best first)"} <= set(out["picker"])
    assert out["form"] == ["kf::q0::outputs", "kf::q0::systems"]
    assert len(out["preview"]) == len(OUTPUTS)
    # agreement --json: the plugin's measures, alpha on the ranks, nothing inapplicable
    doc = json.loads(done.stdout.split("@@JSON@@")[1].split("@@END@@")[0])
    block = doc["fields"]["order"]
    assert (block["type"], block["unit"], block["n_items"]) == (TYPE, "output", 9)
    assert block[f"{TYPE}_kendall_w"] == pytest.approx(_kendall_w_by_friedman(), abs=1e-9)
    assert block[f"{TYPE}_kendall_w_n_items"] == 3
    assert set(block["krippendorff_alpha"]) == {"ordinal", "interval"}
    assert not [k for k in block if k.startswith(("fleiss", "cohen", "gwet", "icc", "ranking_"))]
    assert block["reasons"] == {}
    # the report's summary table shows the plugin's measure
    text = report.read_text()
    assert re.search(r"\| order \| Kendall W \| [0-9.]+ \|", text), text[:2000]
