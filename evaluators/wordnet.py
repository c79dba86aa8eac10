"""Finding and loading WordNet for METEOR without nltk's downloader.

Search order: ``WORKBENCH_NLTK_DATA``, then ``data/nltk_data`` beside the code (the
repository, or the installed package's folder), then nltk's own data paths. A directory counts when it holds ``corpora/wordnet/lexnames``
(``scripts/install_wordnet.sh`` builds such a tree from Debian's packages).
"""

from __future__ import annotations

import os
import threading
import warnings
from pathlib import Path
from typing import Any

CODE_ROOT = Path(__file__).resolve().parents[1]
REPO_DATA = CODE_ROOT / "data" / "nltk_data"
#: Shipped in the wheel and the sdist too, so the hint names a file that is there.
INSTALL_SCRIPT = CODE_ROOT / "scripts" / "install_wordnet.sh"
INSTALL_HINT = (
    f"METEOR needs WordNet: run bash {INSTALL_SCRIPT} (Debian packages "
    f"wordnet-base + wordnet-sense-index into {REPO_DATA}) or set "
    "WORKBENCH_NLTK_DATA to an nltk_data directory holding corpora/wordnet"
)
_REQUIRED = ("lexnames", "index.noun", "data.noun", "index.sense")
_lock = threading.Lock()
_loaded: dict[str, Any] = {}


def candidate_dirs() -> list[Path]:
    """nltk_data directories to search, in order."""
    dirs: list[Path] = []
    env = os.environ.get("WORKBENCH_NLTK_DATA")
    if env:
        dirs.append(Path(env))
    dirs.append(REPO_DATA)
    try:
        import nltk

        dirs.extend(Path(p) for p in nltk.data.path)
    except ImportError:
        pass
    return dirs


def find_wordnet_dir() -> Path | None:
    """The first nltk_data directory with a complete ``corpora/wordnet``, or None."""
    for base in candidate_dirs():
        wn = base / "corpora" / "wordnet"
        if all((wn / name).is_file() for name in _REQUIRED):
            return base
    return None


def wordnet_unavailable_reason() -> str | None:
    """None when nltk and WordNet are there, else the install hint."""
    try:
        import nltk  # noqa: F401
    except ImportError:
        return "METEOR needs nltk (pip install nltk)"
    return None if find_wordnet_dir() is not None else INSTALL_HINT


def load_wordnet() -> Any:
    """The WordNet corpus reader, loaded once per process per directory."""
    base = find_wordnet_dir()
    if base is None:
        raise LookupError(INSTALL_HINT)
    key = str(base)
    with _lock:
        if key not in _loaded:
            import nltk
            from nltk.corpus.reader.wordnet import WordNetCorpusReader

            # nltk only opens corpora under its data path (a security check), so register
            # the directory there and resolve the corpus through nltk.data.find.
            if key not in nltk.data.path:
                nltk.data.path.insert(0, key)
            root = nltk.data.find("corpora/wordnet", paths=[key])
            with warnings.catch_warnings():
                # No Open Multilingual WordNet here; English METEOR does not need it.
                warnings.simplefilter("ignore", UserWarning)
                _loaded[key] = WordNetCorpusReader(root, None)
        return _loaded[key]
