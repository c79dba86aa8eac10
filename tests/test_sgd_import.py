"""SGD import: items per system act, stable ids, tampered negatives, both directory layouts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from annotation_store import StoreError
from annotation_store.sgd import ATTRIBUTION, import_sgd, read_sgd, shared_sgd_root
from commands import main as cli_main

SGD = shared_sgd_root()
pytestmark = pytest.mark.skipif(
    not (SGD / "test" / "schema.json").is_file(), reason=f"SGD subset not found at {SGD}"
)


@pytest.fixture(scope="module")
def small_split(tmp_path_factory) -> Path:
    """test/schema.json plus the first 5 dialogues of one file."""
    out = tmp_path_factory.mktemp("sgd") / "test"
    out.mkdir()
    shutil.copy(SGD / "test" / "schema.json", out / "schema.json")
    dialogues = json.loads((SGD / "test" / "dialogues_001.json").read_text())[:5]
    (out / "dialogues_001.json").write_text(json.dumps(dialogues))
    return out


def test_import_creates_project_and_one_item_per_system_act(store, small_split):
    dialogues = json.loads((small_split / "dialogues_001.json").read_text())
    acts = sum(
        len(f["actions"])
        for d in dialogues
        for t in d["turns"]
        if t["speaker"] == "SYSTEM"
        for f in t["frames"]
    )
    report = import_sgd(store, "sgd", small_split)
    assert report.created == acts and ATTRIBUTION in report.notes[0]
    assert store.project("sgd").kind == "dialogue_faithfulness"
    item = store.item("sgd", "1_00000:3:1")
    assert item.split == "test" and item.generator == "sgd-ground-truth"
    f = item.fields
    assert f["act"] == {"act": "CONFIRM", "slot": "location", "values": ["Corte Madera"]}
    assert f["utterance"].startswith("Please confirm your reservation at P.f. Chang's")
    assert f["previous_turn"].startswith("Could you get me a reservation at P.f. Chang's")
    assert f["slot_description"] == "City where the restaurant is located"
    assert f["is_categorical"] == "False" and f["service"] == "Restaurants_2"
    assert f["substitute_values"] and "Corte Madera" not in f["substitute_values"]
    boolean = store.item("sgd", "1_00000:9:1").fields
    assert boolean["is_categorical"] == "True"
    assert sorted(boolean["possible_values"]) == ["False", "True"]
    again = import_sgd(store, "sgd", small_split)
    assert (again.created, again.updated, again.unchanged) == (0, 0, acts)


def test_negatives_are_marked_and_substituted(store, small_split):
    import_sgd(store, "sgd", small_split, negatives=True)
    items = {i.item_id: i for i in store.items("sgd")}
    negs = [i for i in items.values() if i.item_id.endswith(":neg")]
    assert negs and all(i.generator == "sgd-tampered" for i in negs)
    for neg in negs:
        real = items[neg.item_id.removesuffix(":neg")]
        assert neg.fields["original_values"] == real.fields["act"]["values"]
        assert neg.fields["act"]["values"] != real.fields["act"]["values"]
        assert neg.fields["utterance"] == real.fields["utterance"]
        if real.fields["is_categorical"] == "True":
            assert neg.fields["act"]["values"][0] in real.fields["possible_values"]
        else:
            assert neg.fields["act"]["values"][0].lower() not in neg.fields["utterance"].lower()
    flipped = items["1_00000:9:1:neg"].fields["act"]["values"]
    assert flipped == ["True"]  # a boolean False becomes True


def test_seeded_and_limited(small_split):
    a = list(read_sgd(small_split, negatives=True, limit=10, seed=1))
    b = list(read_sgd(small_split, negatives=True, limit=10, seed=1))
    assert a == b
    assert sum(not i["item_id"].endswith(":neg") for i in a) == 10


def test_root_with_splits_prefixes_ids():
    first = next(read_sgd(SGD, limit=1))
    assert first["item_id"] == "dev/1_00000:1:0" and first["split"] == "dev"
    ids = [i["item_id"] for i in read_sgd(SGD)]
    assert len(ids) == len(set(ids))
    assert any(i.startswith("test/") for i in ids)


def test_bad_directory_and_wrong_kind(store, tmp_path, small_split):
    with pytest.raises(FileNotFoundError):
        import_sgd(store, "x", tmp_path / "missing")
    with pytest.raises(FileNotFoundError, match="no SGD split"):
        import_sgd(store, "x", tmp_path)
    store.create_project("other", "binary")
    with pytest.raises(StoreError, match="not 'dialogue_faithfulness'"):
        import_sgd(store, "other", small_split)


def test_import_then_ser_through_cli(store, sqlite_url, small_split, capsys):
    import_sgd(store, "sgd", small_split, negatives=True)
    code = cli_main(["--db", sqlite_url, "evaluate", "sgd", "--evaluator", "ser"])
    assert code == 0
    frame = store.scores_frame("sgd")
    scores = dict(zip(frame["item_id"], frame["score"], strict=True))
    assert scores["1_00000:3:1"] == 1.0 and scores["1_00000:3:1:neg"] == 0.0
    assert "1_00000:9:1" not in scores  # categorical: counted, not scored
