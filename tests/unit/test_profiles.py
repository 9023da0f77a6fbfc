import tomllib

import pytest

from harness.errors import ConfigError
from harness.profiles import PROFILES_DIR, load_profile, parse_profile


def test_efficient_qwen_profile_holds_the_spec():
    p = load_profile("efficient-qwen")
    lat = p.require_latency()
    assert [(b.name, b.prompt_tokens, b.max_tokens, b.baseline_ms) for b in lat.buckets] == [
        ("short", 64, 128, 2582.0),
        ("medium", 2048, 256, 5441.0),
        ("long", 8192, 256, 6576.0),
    ]
    assert (lat.warmup, lat.runs, lat.endpoint) == (5, 50, "/invocations")
    assert lat.filler_sentence == "The quick brown fox jumps over the lazy dog. "
    assert lat.filler_repeats(64) == 6 and lat.filler_repeats(5) == 1
    assert (p.readiness.poll_interval_s, p.readiness.timeout_s) == (5.0, 600.0)
    q = p.require_quality()
    assert {b.name: b.threshold for b in q.benchmarks} == {
        "mmlu_pro": 0.621,
        "ifeval": 0.814,
        "gpqa_diamond": 0.630,
    }


def test_unknown_key_lists_valid_keys():
    data = tomllib.loads((PROFILES_DIR / "efficient-qwen.toml").read_text())
    data["latency"]["warmups"] = 3
    with pytest.raises(ConfigError) as err:
        parse_profile(data, "x.toml")
    text = err.value.one_line()
    assert "latency.warmups" in text and "warmup" in text and "valid keys" in text


def test_unknown_key_in_bucket():
    data = tomllib.loads((PROFILES_DIR / "efficient-qwen.toml").read_text())
    data["latency"]["buckets"][0]["tokens"] = 5
    with pytest.raises(ConfigError, match="baseline_ms"):
        parse_profile(data, "x.toml")


def test_missing_profile_names_available_ones():
    with pytest.raises(ConfigError, match="efficient-qwen"):
        load_profile("no-such-competition")


def test_bad_value_and_bad_toml(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("name = [")
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_profile(str(bad))
    data = tomllib.loads((PROFILES_DIR / "efficient-qwen.toml").read_text())
    data["latency"]["runs"] = 0
    with pytest.raises(ConfigError, match=r"latency\.runs"):
        parse_profile(data)


def test_unknown_bucket_name():
    with pytest.raises(ConfigError, match="short, medium, long"):
        load_profile().require_latency().bucket("huge")


def test_a_newer_profile_format_is_refused():
    data = tomllib.loads((PROFILES_DIR / "efficient-qwen.toml").read_text())
    data["schema_version"] = 2
    with pytest.raises(ConfigError, match="profile schema_version 2; this harness reads"):
        parse_profile(data, "x.toml")


def test_every_profile_key_is_read_somewhere():
    """A key no code reads is a promise the harness does not keep: use it or remove it.
    (By name, outside profiles.py: ``.key`` or ``"key"``.)"""
    import re
    from pathlib import Path

    from pydantic import BaseModel

    import harness.profiles as profiles

    root = Path(profiles.__file__).parent
    text = "\n".join(
        p.read_text(encoding="utf-8") for p in root.rglob("*.py") if p.name != "profiles.py"
    )
    models = [
        m
        for m in vars(profiles).values()
        if isinstance(m, type) and issubclass(m, BaseModel) and m.__module__ == profiles.__name__
    ]
    unread = [
        f"{m.__name__}.{f}"
        for m in models
        for f in m.model_fields
        if f != "source" and not re.search(rf"\.{f}\b|[\"']{f}[\"']", text)
    ]
    assert unread == []


def test_the_portal_rehearses_a_profiles_organiser(capsys):
    from harness.cli import main

    assert main(["portal", "--profile", "gpumode-paris", "--port", "0"]) == 2
    assert "has no [submit] section: no organiser to rehearse" in capsys.readouterr().err
