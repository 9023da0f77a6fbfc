"""The manifest's pure parts: parsing vLLM's *_info metrics, canonical values, config_id, diff."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.errors import ConfigError
from harness.manifest.canonical import canonical, config_id, normalise, redact_args
from harness.manifest.diff import diff_settings
from harness.manifest.model import Launched, Manifest, load_manifest
from harness.manifest.record import keep_launch
from harness.manifest.sources import from_launch, from_metrics_text, from_models, section_of
from harness.manifest.take import build

# The labels vLLM 0.32 writes into vllm:cache_config_info: str() of every CacheConfig
# field (CacheConfig.metrics_info) plus the engine index; one sample per engine.
_CACHE_LABELS = (
    '_block_size_resolved="True",block_size="16",cache_dtype="auto",'
    'cache_hit_alignment_tokens="None",effective_attention_block_size="None",'
    'enable_mamba_shared_prefix_checkpoint="False",enable_prefix_caching="{pc}",engine="{engine}",'
    'gpu_memory_utilization="0.92",hash_block_size="None",is_attention_free="False",'
    'kv_cache_dtype_skip_layers="[]",kv_cache_layout="None",kv_cache_max_concurrency="{conc}",'
    'kv_cache_memory_bytes="None",kv_cache_size_tokens="None",kv_offloading_backend="native",'
    'kv_offloading_size="None",kv_sharing_fast_prefill="False",mamba_block_size="None",'
    'mamba_cache_dtype="auto",mamba_cache_mode="none",mamba_page_size_padded="None",'
    'mamba_ssm_cache_dtype="auto",num_cpu_blocks="None",num_gpu_blocks="{blocks}",'
    'num_gpu_blocks_override="None",prefix_cache_retention_interval="0",'
    'prefix_caching_hash_algo="sha256",prefix_match_unit="None",replayssm_buffer_len="16",'
    'skip_page_size_padded="None",sliding_window="None",swa_bounded_replay="True",'
    'use_kda_recoverssm="False",use_replayssm="False",user_specified_block_size="True"'
)


def vllm_metrics(pc: str = "True", blocks: str = "23831", conc: str = "43.7") -> str:
    labels = _CACHE_LABELS.format(pc=pc, blocks=blocks, conc=conc, engine="{engine}")
    return "\n".join(
        [
            "# HELP vllm:num_requests_running Number of requests in model execution batches.",
            "# TYPE vllm:num_requests_running gauge",
            'vllm:num_requests_running{engine="0",model_name="reference"} 0.0',
            "# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig",
            "# TYPE vllm:cache_config_info gauge",
            "vllm:cache_config_info{" + labels.format(engine="0") + "} 1.0",
            "vllm:cache_config_info{" + labels.format(engine="1") + "} 1.0",
            "# HELP vllm:lora_requests_info Running stats on lora requests.",
            "# TYPE vllm:lora_requests_info gauge",
            'vllm:lora_requests_info{max_lora="0",running_lora_adapters="",'
            'waiting_lora_adapters=""} 1.7e+09',
            "# HELP python_info Python platform information",
            "# TYPE python_info gauge",
            'python_info{implementation="CPython",major="3",minor="12",patchlevel="3",'
            'version="3.12.3"} 1.0',
            "",
        ]
    )


def test_cache_config_info_is_read_from_vllms_metrics_text() -> None:
    got = from_metrics_text(vllm_metrics())
    assert got["cache_config.enable_prefix_caching"] is True
    assert got["cache_config.block_size"] == 16
    assert got["cache_config.cache_dtype"] == "auto"
    assert got["cache_config.gpu_memory_utilization"] == 0.92
    assert got["cache_config.sliding_window"] is None
    assert got["python.version"] == "3.12.3"
    # the engine index is not a setting; lora_requests_info is state, not configuration
    assert "cache_config.engine" not in got
    assert not any(k.startswith("lora_requests") for k in got)
    assert from_metrics_text("") == {}


def test_unreadable_metrics_text_raises_value_error() -> None:
    with pytest.raises(ValueError):
        from_metrics_text("vllm:x{a=1 2\n")


def test_section_names() -> None:
    assert section_of("vllm:cache_config_info") == "cache_config"
    assert section_of("harness_sim:config_info") == "harness_sim_config"
    assert section_of("python_info") == "python"


@pytest.mark.parametrize(
    ("raw", "want"),
    [
        ("True", True),
        ("false", False),
        ("None", None),
        ("", None),
        ("16", 16),
        ("16.0", 16),
        (16.0, 16),
        ("0.90", 0.9),
        (0.9000000000000001, 0.9),
        ("1e-3", 0.001),
        ("0.32.0", "0.32.0"),
        (" auto ", "auto"),
        ("inf", "inf"),
        ([1, 2], "[1,2]"),
    ],
)
def test_normalise(raw: object, want: object) -> None:
    got = normalise(raw)
    assert got == want and type(got) is type(want)


def test_config_id_stable_across_key_order_and_number_spelling() -> None:
    a = {"cache_config.block_size": "16", "cache_config.gpu_memory_utilization": "0.90"}
    b = {"cache_config.gpu_memory_utilization": 0.9, "cache_config.block_size": 16.0}
    assert config_id(a) == config_id(b)
    assert len(config_id(a)) == 16 and int(config_id(a), 16) >= 0
    assert config_id(a) != config_id({**a, "cache_config.block_size": 32})
    # True is not 1
    assert config_id({"x.y": True}) != config_id({"x.y": 1})


def test_canonical_drops_unset_defaults_derived_and_the_launch_address() -> None:
    got = canonical(
        {
            "cache_config.enable_prefix_caching": "True",  # vLLM's default
            "cache_config.sliding_window": "None",
            "cache_config.num_gpu_blocks": "23831",  # derived from free memory
            "cache_config.block_size": "16",
            "launch.argv": "vllm serve m --port 51331 --host=127.0.0.1 --max-num-seqs 8",
        }
    )
    assert got == {
        "cache_config.block_size": 16,
        "launch.argv": "vllm serve m --max-num-seqs 8",
    }


def test_two_takes_of_one_server_share_an_id_despite_derived_values() -> None:
    a = from_metrics_text(vllm_metrics(blocks="23831", conc="43.7"))
    b = from_metrics_text(vllm_metrics(blocks="23790", conc="43.6"))
    c = from_metrics_text(vllm_metrics(pc="False"))
    assert config_id(a) == config_id(b)
    assert config_id(a) != config_id(c)


def test_diff_names_the_changed_setting_in_one_line() -> None:
    a = from_metrics_text(vllm_metrics(pc="False"))
    b = from_metrics_text(vllm_metrics(pc="True"))
    changes = diff_settings(a, b)
    assert [c.text for c in changes] == ["enable_prefix_caching false → true"]
    assert (changes[0].key, changes[0].a, changes[0].b) == (
        "cache_config.enable_prefix_caching",
        False,
        True,
    )
    assert diff_settings(a, a) == []
    assert diff_settings({}, {}) == []


def test_diff_added_removed_defaults_and_clashing_names() -> None:
    a = {"server.version": "0.31.0", "cache_config.block_size": 16, "launch.env.X": "1"}
    b = {
        "server.version": "0.32.0",
        "cache_config.block_size": 16,
        "cache_config.enable_prefix_caching": False,  # A did not say: vLLM's default
        "python.version": "3.12.3",
    }
    texts = [c.text for c in diff_settings(a, b)]
    assert texts == [
        "enable_prefix_caching true → false",
        "env.X 1 → —",
        "python.version — → 3.12.3",
        "server.version 0.31.0 → 0.32.0",
    ]


def test_diff_of_command_lines_lists_the_arguments_one_side_has() -> None:
    a = {"launch.argv": "vllm serve m --port 1 --no-enable-prefix-caching"}
    b = {"launch.argv": "vllm serve m --port 2 --enable-prefix-caching"}
    (change,) = diff_settings(a, b)
    assert change.text == "argv: removed --no-enable-prefix-caching; added --enable-prefix-caching"
    assert diff_settings(a, {"launch.argv": a["launch.argv"].replace("1", "9")}) == []


def test_secrets_are_redacted_in_env_and_argv() -> None:
    launched = Launched(
        by="harness demo",
        argv=("vllm", "serve", "--api-key", "sk-1", "--hf-token=abc", "--port", "8"),
        env={"VLLM_CPU_KVCACHE_SPACE": "4", "HF_TOKEN": "hf_x", "MY_PASSWORD": "p"},
        image={"id": "sha256:ab", "entrypoint": '["python"]'},
    )
    got = from_launch(launched)
    assert got["launch.env.VLLM_CPU_KVCACHE_SPACE"] == "4"
    assert got["launch.env.HF_TOKEN"] == got["launch.env.MY_PASSWORD"] == "***"
    assert got["launch.argv"] == "vllm serve --api-key '***' '--hf-token=***' --port 8"
    assert got["image.id"] == "sha256:ab" and got["launch.by"] == "harness demo"
    assert "sk-1" not in str(got) and "hf_x" not in str(got)
    assert redact_args(["--token"]) == ["--token"]


def test_models_answer() -> None:
    doc = {
        "data": [
            {"id": "reference", "owned_by": "vllm", "max_model_len": 8704},
            {"id": "Qwen/Qwen3.5-4B", "owned_by": "vllm", "max_model_len": 8704},
        ]
    }
    assert from_models(doc) == {
        "server.models": "Qwen/Qwen3.5-4B,reference",
        "server.max_model_len": 8704,
        "server.owned_by": "vllm",
    }
    assert from_models("nonsense") == {}


def test_build_from_answers_notes_what_is_missing() -> None:
    m = build(
        {
            "/version": '{"version": "0.32.0"}',
            "/v1/models": "<html>",
            "/metrics": vllm_metrics(),
            "/server_info": None,
        },
        {
            "/version": "answered",
            "/v1/models": "answered",
            "/metrics": "answered",
            "/server_info": "HTTP 404",
        },
        None,
        taken="after",
        url="http://h:1",
    )
    assert m.settings["server.version"] == "0.32.0"
    assert m.sources["/v1/models"] == "not JSON"
    assert m.sources["/server_info"] == "HTTP 404"
    assert m.sources["/metrics"] == "2 *_info metric(s)"
    assert m.config_id == config_id(m.settings) and m.taken == "after"


def test_manifest_file_round_trip_and_contract(tmp_path: Path) -> None:
    m = build({"/version": '{"version": "0.32.0"}'}, {}, None, taken="before", url=None)
    m.save(tmp_path)
    raw = (tmp_path / "manifest.json").read_text()
    assert '"schema_version": 1' in raw and '"config_id"' in raw and '"settings"' in raw
    loaded = load_manifest(tmp_path)
    assert loaded == m
    assert load_manifest(tmp_path / "nowhere") is None
    (tmp_path / "manifest.json").write_text('{"schema_version": 9}')
    with pytest.raises(ConfigError, match="schema_version 9"):
        load_manifest(tmp_path)


def test_a_later_take_keeps_the_launch_recorded_earlier() -> None:
    launched = Launched(by="harness demo", argv=("vllm", "serve"), env={"A": "1"})
    first = build({}, {}, launched, taken="after", url=None)
    later = build({"/version": '{"version": "0.32.0"}'}, {}, None, taken="before", url=None)
    merged = keep_launch(later, first)
    assert merged.settings["launch.argv"] == "vllm serve"
    assert merged.settings["server.version"] == "0.32.0"
    assert merged.sources["launch"] == "harness demo"
    assert merged.config_id == config_id(merged.settings) != later.config_id
    assert keep_launch(later, None) is later
    assert isinstance(merged, Manifest)


def test_compare_view_of_the_manifest_diff() -> None:
    from harness.compare.model import ManifestDiff
    from harness.compare.views import CHANGES_SHOWN, manifest_lines

    a = {f"x.k{i:02d}": i for i in range(CHANGES_SHOWN + 3)}
    b = {k: v + 1 for k, v in a.items()}
    many = ManifestDiff(config_a=config_id(a), config_b=config_id(b), changes=diff_settings(a, b))
    head, lines = manifest_lines(many)
    assert head.lines == (f"what ran: config A {config_id(a)}, B {config_id(b)}",)
    assert lines.lines[0] == "B: k00 0 → 1" and len(lines.lines) == CHANGES_SHOWN + 1
    assert lines.lines[-1] == "… 3 more settings changed (--json)"
    (same,) = manifest_lines(ManifestDiff(config_a="ab", config_b="ab"))
    assert same.lines == ("what ran: the same configuration in A and B (config ab)",)
    (missing,) = manifest_lines(ManifestDiff(config_a="ab"))
    assert missing.tone == "warn" and "no manifest.json in B" in missing.lines[0]
    assert manifest_lines(None) == []
