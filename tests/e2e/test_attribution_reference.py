"""Attribution from the CPU reference server's real /metrics: official vs strict.

Deterministic facts only: the counters are there, the repeated filler hits the prefix
cache more than unique prompts do, the fingerprint names the engine. The sentence itself
is printed (pytest -s) for the record, never compared.

The buckets' prompts are the grader's; their answers are capped at 16 tokens (a copy of
the profile): the counters are about prompts, and 256 generated tokens on 2 cores cost
~8 s a medium request.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from harness.latency.report import LatencyReport
from harness.manifest.model import load_manifest
from harness.profiles import PROFILES_DIR
from harness.risk import FlagKind
from reference_server.launch import ServerProcess

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(1500)]


OUTPUT_TOKENS = 16


def _short_answers(folder: Path) -> Path:
    """efficient-qwen with every bucket's max_tokens set to OUTPUT_TOKENS."""
    text = (PROFILES_DIR / "efficient-qwen.toml").read_text()
    for bucket, tokens in (("short", 128), ("medium", 256), ("long", 256)):
        head = f'name = "{bucket}"\n'
        start = text.index(head)
        old = f"max_tokens = {tokens}\n"
        at = text.index(old, start)
        text = text[:at] + f"max_tokens = {OUTPUT_TOKENS}\n" + text[at + len(old) :]
    path = folder / "profile.toml"
    path.write_text(text)
    return path


def test_official_vs_strict_attribution_from_real_counters(
    reference_server: ServerProcess, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    code = main(
        [
            "latency",
            "--url",
            reference_server.url,
            "--profile",
            str(_short_answers(tmp_path)),
            "--mode",
            "both",
            "--buckets",
            "short,medium",
            "--runs",
            "1",
            "--warmup",
            "1",
            "--tokenizer",
            str(reference_server.model_dir),
            "--no-calibrate",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert code == 0
    rep = LatencyReport.load(out)
    server = rep.provenance.server
    assert server is not None and server.taken
    assert server.engine == "vllm" and server.version
    assert server.max_model_len == 8704
    assert "Qwen/Qwen3.5-4B" in server.models
    manifest = load_manifest(out)  # the cpu recipe leaves vLLM's default: prefix caching on
    assert manifest is not None and manifest.settings["cache_config.enable_prefix_caching"] is True
    att = rep.attribution
    assert att is not None and att.notes == []
    for mode in ("official", "strict"):
        for bucket in ("short", "medium"):
            a = att.get(mode, bucket)
            assert a is not None, (mode, bucket)
            assert a.prefix_queried_tokens and a.prefix_queried_tokens > 0
            assert a.prefix_hit_rate is not None
    off, strict = att.get("official", "medium"), att.get("strict", "medium")
    assert off is not None and strict is not None
    assert off.prefix_hit_rate is not None and strict.prefix_hit_rate is not None
    # 2 identical ~2k-token prompts: the 2nd comes (in whole KV blocks) from the cache;
    # unique prompts share no block
    assert off.prefix_hit_tokens and off.prefix_hit_tokens > 0
    assert off.prefix_hit_rate > strict.prefix_hit_rate
    assert [s.split(":")[0] for s in att.sentences] == ["short bucket", "medium bucket"]
    # fresh strict prompts: vLLM serves none of them from its cache, so no flag says so
    assert not [f.text for f in rep.flags if f.kind is FlagKind.STRICT_CACHED]
    print("\n".join(att.sentences))
