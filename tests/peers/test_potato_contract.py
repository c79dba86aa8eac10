"""Potato 2.12.1's own code judges the workbench's Potato files, and the workbench imports
what Potato's own code writes.

- every exported ``user_state.json`` loads with ``InMemoryUserState.load`` (phase done);
  Potato's export reader finds every user-instance pair the export counted;
- Potato's own ``JSONLExporter``, run over what its reader found, writes a file the
  workbench imports back to the labels it holds, except the answers the export's notes
  count as not held by Potato;
- states written by Potato's ``InMemoryUserState`` (multiselect ticks, span objects, a
  pairwise selection, an error span answer) import into declared kinds with those
  question types; Potato ``pairwise`` and ``error_span`` schemes, as YAML that Potato's
  own checker accepts, become a declared kind; unsafe scheme names are made safe with a
  note, and a file without a usable scheme is refused naming its schemes.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import yaml
from conftest import Export, of_format, run_workbench
from potato.export.base import ExportContext
from potato.export.cli import load_annotations_from_output_dir
from potato.export.tabular_exporter import JSONLExporter
from potato.item_state_management import Label, SpanAnnotation
from potato.phase import UserPhase
from potato.server_utils.config_module import validate_single_annotation_scheme
from potato.user_state_management import InMemoryUserState

ROOT = Path(__file__).resolve().parents[2]
EMPTY = re.compile(r"(\d+) empty answers to '(\w+)' not exported")
PART = re.compile(r"(\d+) answers to '(\w+)' exported in part")


def _db(export: Export) -> str:
    """The export run's database (OUT/workbench.db beside OUT/<project>/)."""
    return f"sqlite:///{export.path.parents[2] / 'workbench.db'}"


def _potato(exports: list[Export]) -> list[Export]:
    written = [e for e in of_format(exports, "potato") if e.what == "annotations"]
    assert {e.project for e in written} >= {"demo-dialogue", "example-every-type"}
    return written


def _cli(db: str, *steps: list[str]) -> list[str]:
    """Each ``cli.py`` command's output, run in one workbench process; all must pass."""
    script = str(ROOT / "tests" / "peers" / "cli_steps.py")
    done = run_workbench(script, json.dumps([["--db", db, *argv] for argv in steps]))
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    assert [r["rc"] for r in results] == [0] * len(steps), results[-1]["err"]
    return [r["out"] for r in results]


def test_every_exported_user_state_loads_in_potato(exports: list[Export]) -> None:
    for export in _potato(exports):
        users = sorted(p for p in export.path.iterdir() if p.is_dir())
        assert users, export.project
        pairs = 0
        for folder in users:
            state = InMemoryUserState.load(str(folder))
            assert state.current_phase_and_page[0] is UserPhase.DONE
            pairs += len(state.instance_id_ordering)
        assert pairs == export.count, export.project
        loaded = load_annotations_from_output_dir(str(export.path), [])
        assert len(loaded) == export.count, export.project


def test_answers_are_potatos_own_structures(exports: list[Export]) -> None:
    export = next(e for e in _potato(exports) if e.project == "example-every-type")
    state = InMemoryUserState.load(str(export.path / "ann-1"))
    labels = state.instance_id_to_label_to_value["t2"]
    # pairwise with strengths: Potato's scale, B slightly = +1; ticks of a multiselect
    assert labels[Label("better", "scale_value")] == "1"
    assert labels[Label("issues", "wrong")] == "wrong"
    assert labels[Label("issues", "verbose")] == "verbose"
    assert labels[Label("order", "rank_order")] == "answer_a,answer_c,answer_b"
    assert labels[Label("confidence", "number")] == "0.75"
    assert labels[Label("tone", "friendly")] == "friendly"
    spans = state.instance_id_to_span_to_value["t2"]
    marked = sorted((s.get_name(), s.get_start(), s.get_end()) for s in spans)
    assert marked == [("factual", 0, 17), ("grammar", 17, 34)]
    assert all(isinstance(v, str) for v in labels.values())


def test_potatos_own_export_imports_back_to_the_workbenchs_labels(
    exports: list[Export], tmp_path: Path
) -> None:
    written = _potato(exports)
    pairs = []
    for export in written:
        annotations = load_annotations_from_output_dir(str(export.path), [])
        context = ExportContext(
            config={}, annotations=annotations, items={}, schemas=[], output_dir=str(export.path)
        )
        out = tmp_path / export.project
        assert JSONLExporter().export(context, str(out)).success
        pairs.append(f"{export.project}={out / 'annotations.jsonl'}")
    done = run_workbench(
        str(ROOT / "tests" / "peers" / "potato_readback.py"), _db(written[0]), *pairs
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    for export in written:
        notes = " ".join(export.notes)
        missing = Counter({f: int(n) for n, f in EMPTY.findall(notes)})
        differ = Counter({f: int(n) for n, f in PART.findall(notes)})
        got = found[export.project]
        assert got["same"] > 0, export.project
        assert (Counter(got["missing"]), Counter(got["differ"]), got["extra"]) == (
            missing,
            differ,
            0,
        ), export.project


PAIRWISE = {
    "annotation_type": "pairwise",
    "name": "which answer",
    "description": "Which answer is better?",
    "mode": "binary",
    "items_key": "answers",
    "allow_tie": True,
}
ERRORS = {
    "annotation_type": "error_span",
    "name": "mqm",
    "description": "Mark the errors.",
    "error_types": [{"name": "accuracy", "subtypes": ["mistranslation"]}, {"name": "fluency"}],
    "severities": [{"name": "Minor", "weight": -1}, {"name": "Major", "weight": -5}],
}
TOPICS = {
    "annotation_type": "multiselect",
    "name": "topic-tags",
    "description": "Topics",
    "labels": ["food", "travel", "money"],
}
EVIDENCE = {
    "annotation_type": "span",
    "name": "evidence",
    "description": "Mark the evidence.",
    "labels": ["claim", "source"],
}


def _config(tmp_path: Path, schemes: list[dict]) -> Path:
    for n, scheme in enumerate(schemes):
        validate_single_annotation_scheme(scheme, f"annotation_schemes[{n}]")
    config = {
        "annotation_task_name": "Answers",
        "item_properties": {"id_key": "id", "text_key": "text"},
        "annotation_schemes": schemes,
    }
    path = tmp_path / "potato.yaml"
    # as Potato's own config writer dumps YAML (potato.migrate_cli)
    path.write_text(
        yaml.dump(config, default_flow_style=False, allow_unicode=True, sort_keys=False)
    )
    return path


def test_pairwise_and_error_span_schemes_become_a_declared_kind(
    exports: list[Export], tmp_path: Path
) -> None:
    db = _db(_potato(exports)[0])
    path = _config(tmp_path, [PAIRWISE, ERRORS, TOPICS, EVIDENCE])
    items = tmp_path / "items.jsonl"
    rows = [
        {"item_id": "a1", "text": "Le chat dort.", "answers_a": "The cat", "answers_b": "A cat"},
        {"item_id": "a2", "text": "Il pleut.", "answers_a": "It rains", "answers_b": "Rain"},
    ]
    items.write_text("".join(json.dumps(r) + "\n" for r in rows))
    # annotations as Potato's own user state writes them
    states = tmp_path / "annotation_output"
    for user, side in (("alice", "A"), ("bob", "tie")):
        state = InMemoryUserState(user)
        state.current_phase_and_page = (UserPhase.ANNOTATION, "annotation")
        for iid in ("a1", "a2"):
            state.add_label_annotation(iid, Label("which answer", "selection"), side)
            state.add_label_annotation(iid, Label("topic-tags", "food"), "food")
            state.add_label_annotation(iid, Label("topic-tags", "money"), "money")
            errors = {"errors": [{"start": 0, "end": 2, "text": "Le", "type": "fluency"}]}
            state.add_label_annotation(iid, Label("mqm", "mqm"), json.dumps(errors))
            span = SpanAnnotation("evidence", "claim", "claim", 3, 7)
            state.add_span_annotation(iid, span, 1)
        state.save(str(states / user))
    back = tmp_path / "back.jsonl"
    created, shown, *_ = _cli(
        db,
        ["kind", "create", "potato-answers", "--from", str(path)],
        ["kind", "show", "potato-answers", "--json"],
        ["project", "create", "potato-own", "--kind", "decl:potato-answers"],
        ["import", "items", "potato-own", str(items)],
        ["import", "annotations", "potato-own", str(states), "--format", "potato"],
        ["export", "annotations", "potato-own", "--out", str(back)],
    )
    assert "not carried over: scheme 'which answer': named 'which_answer'" in created
    assert "not carried over: scheme 'topic-tags': named 'topic_tags'" in created
    assert "scheme 'mqm': error subtypes not carried over" in created
    assert "scheme 'mqm': severities and the quality score not carried over" in created
    questions = {q["name"]: q for q in json.loads(shown)["definition"]["questions"]}
    assert questions["which_answer"]["type"] == "pairwise"
    assert questions["which_answer"]["outputs"] == ["answers_a", "answers_b"]
    assert questions["mqm"] | {"prompt": ""} == {
        "name": "mqm",
        "prompt": "",
        "type": "spans",
        "field": "text",
        "labels": ["accuracy", "fluency"],
    }
    assert questions["topic_tags"]["type"] == "multi"
    got = {
        (r["item_id"], r["annotator"], r["field"]): r["value"]
        for r in map(json.loads, back.read_text().splitlines())
    }
    assert len(got) == 2 * 2 * 4
    assert got["a1", "alice", "which_answer"] == {
        "choice": "answers_a",
        "shown": ["answers_a", "answers_b"],
        "strength": None,
    }
    assert got["a2", "bob", "which_answer"]["choice"] == "tie"
    assert got["a1", "bob", "topic_tags"] == ["food", "money"]
    assert got["a2", "alice", "mqm"] == [{"start": 0, "end": 2, "label": "fluency"}]
    assert got["a2", "bob", "evidence"] == [{"start": 3, "end": 7, "label": "claim"}]


def test_a_config_without_a_usable_scheme_is_refused_naming_them(
    exports: list[Export], tmp_path: Path
) -> None:
    db = _db(_potato(exports)[0])
    bws = {"annotation_type": "bws", "name": "best worst", "description": "Pick", "labels": []}
    path = tmp_path / "bws.yaml"
    path.write_text(yaml.dump({"annotation_schemes": [bws]}, sort_keys=False))
    done = run_workbench("cli.py", "--db", db, "kind", "create", "nothing", "--from", str(path))
    assert done.returncode == 2
    assert done.stderr == (
        "error: bws.yaml: annotation_schemes: no scheme has a workbench question type: "
        "'best worst' (bws)\n"
    )


def test_unsafe_scheme_names_import_under_their_safe_name(
    exports: list[Export], tmp_path: Path
) -> None:
    db = _db(_potato(exports)[0])
    items = tmp_path / "items.jsonl"
    items.write_text('{"item_id": "x1", "text": "Tax cuts now."}\n')
    steps, backs = [], []
    for n, name in enumerate(["my scheme", "my-scheme"]):
        folder = tmp_path / str(n)
        folder.mkdir()
        radio = {"annotation_type": "radio", "name": name, "description": "Stance"}
        path = _config(folder, [radio | {"labels": ["favor", "against"]}])
        state = InMemoryUserState("carol")
        state.current_phase_and_page = (UserPhase.ANNOTATION, "annotation")
        state.add_label_annotation("x1", Label(name, "against"), "against")
        state.save(str(folder / "out" / "carol"))
        backs.append(folder / "back.jsonl")
        steps += [
            ["kind", "create", f"unsafe-{n}", "--from", str(path)],
            ["project", "create", f"unsafe-{n}", "--kind", f"decl:unsafe-{n}"],
            ["import", "items", f"unsafe-{n}", str(items)],
            ["import", "annotations", f"unsafe-{n}", str(folder / "out"), "--format", "potato"],
            ["export", "annotations", f"unsafe-{n}", "--out", str(backs[-1])],
        ]
    outs = _cli(db, *steps)
    assert "scheme 'my-scheme': named 'my_scheme'" in outs[5]
    for back in backs:
        (row,) = map(json.loads, back.read_text().splitlines())
        assert (row["field"], row["value"]) == ("my_scheme", "against")
