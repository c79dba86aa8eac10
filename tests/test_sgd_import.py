"""SGD import: items per system act, stable ids, tampered negatives, both directory layouts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from annotation_store import StoreError
from commands import main as cli_main
from interop.sgd import ATTRIBUTION, import_sgd, read_sgd, shared_sgd_root

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
    # the keys that group the turn's acts into its utterance (SGSAcc per utterance)
    assert (f["dialogue_id"], f["turn_index"], f["utterance_id"]) == ("1_00000", 3, "1_00000:3")
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
    assert first["fields"]["utterance_id"] == "dev/1_00000:1"  # dialogue ids repeat per split
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


def _first_system_acts(split: Path, n: int) -> list[tuple[str, str, dict]]:
    """(item id, service, action) of the first n system acts, read straight from the JSON."""
    out = []
    for path in sorted(split.glob("dialogues_*.json")):
        for d in json.loads(path.read_text()):
            for turn_i, turn in enumerate(d["turns"]):
                if turn["speaker"] != "SYSTEM" or not turn["utterance"].strip():
                    continue
                acts = [(f["service"], a) for f in turn["frames"] for a in f["actions"]]
                for act_i, (service, action) in enumerate(acts):
                    out.append((f"{d['dialogue_id']}:{turn_i}:{act_i}", service, action))
                    if len(out) == n:
                        return out
    return out


def test_cli_import_sgd_with_negatives_is_idempotent(sqlite_url, capsys):
    from annotation_store import Store

    split = SGD / "test"
    argv = ["--db", sqlite_url, "import", "sgd", "sgd", str(split), "--negatives"]
    argv += ["--limit", "20"]
    schema = json.loads((split / "schema.json").read_text())
    slots = {(s["service_name"], sl["name"]) for s in schema for sl in s["slots"]}
    acts = _first_system_acts(split, 20)
    # a tampered copy for every act that names a schema slot and has values (not REQUEST)
    tamperable = {
        item_id
        for item_id, service, a in acts
        if a["values"] and a["act"] != "REQUEST" and (service, a["slot"]) in slots
    }
    assert len(acts) == 20 and len(tamperable) == 12  # all in dialogue 1_00000

    assert cli_main(argv) == 0
    out = capsys.readouterr().out
    assert "sgd items: 32 created, 0 updated, 0 unchanged" in out

    store = Store(sqlite_url)
    try:
        assert store.project("sgd").kind == "dialogue_faithfulness"
        items = {i.item_id: i for i in store.items("sgd")}
        real = {k: v for k, v in items.items() if not k.endswith(":neg")}
        negs = {k: v for k, v in items.items() if k.endswith(":neg")}
        assert set(real) == {item_id for item_id, _, _ in acts}
        assert {k.removesuffix(":neg") for k in negs} == tamperable
        assert all(i.generator == "sgd-ground-truth" for i in real.values())
        assert all(i.generator == "sgd-tampered" for i in negs.values())

        confirm = real["1_00000:3:1"].fields
        assert confirm["utterance"].startswith("Please confirm your reservation at P.f. Chang's")
        assert confirm["previous_turn"].startswith("Could you get me a reservation at P.f.")
        assert confirm["slot_description"] == "City where the restaurant is located"
        assert confirm["is_categorical"] == "False"
        seats = real["1_00000:3:4"].fields
        assert seats["slot_description"] == "Number of seats to reserve at the restaurant"
        assert seats["is_categorical"] == "True"
        for item_id, _, action in acts:
            f = real[item_id].fields
            assert f["utterance"] and f["previous_turn"]
            assert f["act"]["values"] == action["values"]
            if item_id in tamperable:
                assert f["slot_description"] and f["is_categorical"] in ("True", "False")

        for neg_id, neg in negs.items():
            orig = real[neg_id.removesuffix(":neg")].fields
            assert neg.fields["original_values"] == orig["act"]["values"]
            assert neg.fields["act"]["values"] != orig["act"]["values"]
            assert neg.fields["act"]["slot"] == orig["act"]["slot"]
            assert neg.fields["utterance"] == orig["utterance"]
        assert negs["1_00000:9:1:neg"].fields["act"]["values"] == ["True"]  # boolean flip

        assert cli_main(argv) == 0
        out = capsys.readouterr().out
        assert "sgd items: 0 created, 0 updated, 32 unchanged" in out
        assert store.item_count("sgd") == len(items) == 32
    finally:
        store.close()


def test_cli_import_sgd_missing_directory(sqlite_url, tmp_path, capsys):
    missing = tmp_path / "no-such-sgd"
    assert cli_main(["--db", sqlite_url, "import", "sgd", "x", str(missing)]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert err == f"error: SGD directory not found: {missing}"
    assert "\n" not in err and "Traceback" not in captured.err
    assert "sgd items" not in captured.out


def test_a_wrong_directory_creates_no_project(tmp_path) -> None:
    from annotation_store import Store
    from interop.sgd import import_sgd

    store = Store(f"sqlite:///{tmp_path / 'w.db'}")
    with pytest.raises(FileNotFoundError):
        import_sgd(store, "x", tmp_path / "missing")
    assert [p.name for p in store.projects()] == []
    store.close()
