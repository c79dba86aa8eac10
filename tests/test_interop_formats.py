"""The format registry: built-ins by module path, checked when loaded; plugins by entry point."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from importlib.metadata import EntryPoint
from pathlib import Path
from types import ModuleType

import pytest

import common.registry as registry
from interop import FORMATS, TOOL_NAMES, Format, FormatReader, FormatWriter, format_module
from interop.base import Converted
from interop.formats import REGISTRY, register_format
from tests.support.fresh_python import fresh_python

BUILTINS = ["label-studio", "potato", "argilla", "langfuse", "langsmith", "mturk", "prolific"]


def _read(path: str | Path) -> Converted:
    return Converted(display=Path(path).name)


def _write(store: object, project: str, what: str, out: object, notes: object = None) -> int:
    return 0


#: A plugin's format, named by an entry point directly (``tests.test_interop_formats:TOY``).
TOY_MODULE = ModuleType("toy_format_module")
TOY_MODULE.WRITES = ("annotations",)  # type: ignore[attr-defined]
TOY_MODULE.read = _read  # type: ignore[attr-defined]
TOY_MODULE.write = _write  # type: ignore[attr-defined]
TOY = Format("toy-tool", "Toy Tool", TOY_MODULE)


@pytest.fixture
def plugins(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The format registry with ``tests.test_interop_formats:TOY`` installed as a plugin
    (and a broken one); whatever the test registers is forgotten afterwards."""
    eps = [
        EntryPoint("toy-tool", "tests.test_interop_formats:TOY", "metric_audit.formats"),
        EntryPoint("broken", "no_such_format_module_here", "metric_audit.formats"),
    ]
    monkeypatch.setattr(registry, "entry_points", lambda group: eps if "formats" in group else [])
    monkeypatch.setattr(REGISTRY, "_entries", dict(REGISTRY._entries))
    monkeypatch.setattr(REGISTRY, "_discovered", False)
    monkeypatch.setattr(REGISTRY, "_loads", None)
    monkeypatch.setattr(REGISTRY, "plugin_errors", {})
    yield


def test_the_builtins_in_their_order_with_their_tools_names() -> None:
    assert list(FORMATS)[: len(BUILTINS)] == BUILTINS
    assert [TOOL_NAMES[f] for f in BUILTINS[:5]] == [
        "Label Studio",
        "Potato",
        "Argilla",
        "Langfuse",
        "LangSmith",
    ]
    assert TOOL_NAMES.get("mturk") == "MTurk" and TOOL_NAMES.get("nope", "nope") == "nope"
    assert "prolific" in FORMATS and "nope" not in FORMATS


def test_every_builtin_module_is_a_reader_and_its_writes_have_a_writer() -> None:
    writes = {}
    for name in BUILTINS:
        module = format_module(name)
        assert isinstance(module, FormatReader)
        assert isinstance(module, FormatWriter) == bool(module.WRITES)
        writes[name] = module.WRITES
    assert writes["langsmith"] == ("annotations", "scores")
    assert writes["mturk"] == writes["prolific"] == ()


def test_an_unknown_format_is_one_line_naming_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"^unknown format 'doccano': use one of label-studio, "):
        format_module("doccano")


def test_naming_a_format_imports_nothing_but_its_module() -> None:
    loaded = fresh_python(
        """
        import json, sys
        from interop import FORMATS, TOOL_NAMES, format_module
        assert "argilla" in FORMATS and TOOL_NAMES["argilla"] == "Argilla"
        before = sorted(m for m in sys.modules if m.startswith("interop."))
        format_module("langsmith")
        after = sorted(m for m in sys.modules if m.startswith("interop."))
        print(json.dumps([before, after]))
        """
    )
    before, after = loaded
    assert before == ["interop.formats"]
    assert "interop.langsmith" in after and "interop.label_studio" not in after


def _module(name: str, **parts: object) -> ModuleType:
    module = ModuleType(name)
    for key, value in parts.items():
        setattr(module, key, value)
    return module


@pytest.mark.parametrize(
    ("parts", "message"),
    [
        ({"read": _read}, r"^format 'bad': bad_fmt needs WRITES, a tuple of items, annotations"),
        ({"WRITES": ["items"], "read": _read}, r"needs WRITES.*not \['items'\]$"),
        ({"WRITES": ("labels",), "read": _read}, r"not \('labels',\)$"),
        ({"WRITES": ()}, r"^format 'bad': bad_fmt defines no read\(\) function$"),
        ({"WRITES": ("scores",), "read": _read}, r"^format 'bad': bad_fmt defines no write\(\)"),
        ({"WRITES": (), "read": "not callable"}, r"defines no read\(\) function$"),
    ],
)
def test_a_module_missing_a_part_is_refused_at_registration(
    parts: dict[str, object], message: str
) -> None:
    with pytest.raises(TypeError, match=message):
        register_format("bad", "Bad", _module("bad_fmt", **parts))
    assert "bad" not in FORMATS


def test_a_module_given_by_path_is_checked_when_first_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "half_format.py").write_text("WRITES = ('items',)\ndef read(path):\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(REGISTRY, "_entries", dict(REGISTRY._entries))
    register_format("half", "Half", "half_format")
    assert "half_format" not in sys.modules  # registering by path imports nothing
    with pytest.raises(TypeError, match=r"^format 'half': half_format defines no write\(\)"):
        format_module("half")
    with pytest.raises(TypeError, match=r"^format 'other': it is declared as 'half'$"):
        REGISTRY.add("other", REGISTRY.get("half"))
    with pytest.raises(TypeError, match=r"^format 'x': 'interop.potato' is not a Format$"):
        REGISTRY.add("x", "interop.potato")  # type: ignore[arg-type]


@pytest.mark.plugins  # entry points are read (WORKBENCH_PLUGINS=0 turns them off elsewhere)
@pytest.mark.usefixtures("plugins")
def test_a_plugin_format_comes_after_the_builtins_and_a_broken_one_is_a_warning() -> None:
    with pytest.warns(RuntimeWarning, match=r"format plugin 'broken'.*ModuleNotFoundError"):
        names = list(FORMATS)
    assert names == [*BUILTINS, "toy-tool"]
    assert TOOL_NAMES["toy-tool"] == "Toy Tool"
    assert format_module("toy-tool") is TOY_MODULE
    assert format_module("toy-tool").read("x/y.json").display == "y.json"
