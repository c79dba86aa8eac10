"""Declared task kinds: create, edit (a new version each time), list, show.

The CLI's ``kind`` commands and the Kinds page call these. A definition is checked
(``kinds.declared``) before anything is stored; the TOML text is kept as written, so
``kind show --toml`` gives the file back unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from kinds.declared import DeclarationError, check_kind_name, parse_definition, parse_toml

if TYPE_CHECKING:
    from annotation_store import Store
    from annotation_store.store_kinds import KindRecord


def read_kind_file(name: str, data: str | bytes) -> tuple[str | dict[str, Any], list[str]]:
    """A kind file's definition and what could not be carried over: TOML as it is, a
    Label Studio labeling config (``.xml``) or a Potato config (``.yaml`` / ``.yml``)
    converted. The file is read within the kind file caps (``kinds.kind_file``: UTF-8,
    BOM dropped, size; no YAML aliases, no XML entities, nesting). DeclarationError when
    the file cannot be read."""
    from kinds.kind_file import KindFileError, kind_text

    try:
        text = kind_text(data)
    except KindFileError as exc:
        raise DeclarationError(exc.where, str(exc)) from None
    lower = name.lower()
    if not lower.endswith((".xml", ".yaml", ".yml")):
        return text, []
    try:
        if lower.endswith(".xml"):
            from interop.label_studio_config import convert

            return convert(text)
        from interop.potato_config import convert as convert_potato

        return convert_potato(text)
    except DeclarationError:
        raise
    except RecursionError:
        from kinds.kind_file import TOO_DEEP

        raise DeclarationError("file", TOO_DEEP) from None
    except Exception as exc:  # a foreign file's every fault is one line, never a trace
        what = "Label Studio config" if lower.endswith(".xml") else "Potato YAML"
        raise DeclarationError("file", f"not a readable {what} ({exc})") from None


def to_toml(data: Mapping[str, Any]) -> str:
    """A definition (plain data) written as TOML."""
    import tomlkit

    return tomlkit.dumps(dict(data))


def save_kind(
    store: Store,
    name: str,
    definition: str | Mapping[str, Any],
    *,
    new: bool | None = None,
    created_by: str | None = None,
) -> KindRecord:
    """Check ``definition`` (TOML text or plain data) and store it as the kind's next
    version; ``new`` True: create only, False: edit only. DeclarationError when invalid
    or unchanged."""
    check_kind_name(name)
    if isinstance(definition, str):
        checked, source = parse_toml(definition), definition
    else:
        checked = parse_definition(definition)
        source = to_toml(definition)
    if new is not True:
        _refuse_unchanged(store, name, checked.data)
    return store.save_kind_version(name, checked.data, source, created_by=created_by, new=new)


def _refuse_unchanged(store: Store, name: str, data: dict[str, Any]) -> None:
    """An edit that repeats the latest version is refused: twins would muddle versions."""
    from annotation_store.store_base import StoreError

    try:
        latest = store.kind_record(name)
    except StoreError:
        return
    if latest.definition == data:
        raise DeclarationError("file", f"nothing changed since {name} version {latest.version}")
