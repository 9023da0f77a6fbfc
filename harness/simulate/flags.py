"""The simulator's flags: every knob of :class:`SimConfig` declared with ``option()``.

``harness simulate`` registers them (:meth:`SimOverrides.add_arguments`) and builds its
config from what was given (:meth:`SimOverrides.config`: a knob left out keeps
SimConfig's own default, which its help shows); :class:`SimProcess` renders a config
back to the same flags (:meth:`SimOverrides.of` then ``argv()``). A knob's flag, type,
metavar and help are written here once, not inferred from its field's name.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any, ClassVar, Self, get_type_hints

from harness.flags import option
from harness.overrides import Overrides, add_valued, render_value
from harness.simulate.config import DIALECTS, ROUTES, Dialect, SimConfig, make_config


def _ms(name: str, help: str) -> Any:
    return option(name, type=float, metavar="MS", help=help)


def _rate(name: str, help: str) -> Any:
    return option(name, type=float, metavar="RATE", help=f"share of {help}")


def _count(name: str, help: str) -> Any:
    return option(name, type=int, metavar="N", help=help)


def _switch(name: str, help: str) -> Any:
    """``--flag`` / ``--no-flag``; neither: SimConfig's default."""
    return option(name, help=help)


@dataclass(frozen=True)
class SimOverrides(Overrides):
    """The knobs a command line gives (None: SimConfig's default), in the help's order."""

    COMMAND: ClassVar[str] = "simulate"

    models: tuple[str, ...] | None = option(
        "--model",
        metavar="NAME",
        help="served model name, repeatable (default: Qwen/Qwen3.5-4B and sim)",
    )
    dialect: Dialect | None = option(
        "--engine",
        choices=DIALECTS,
        help="whose /metrics names to serve: vLLM's (default), SGLang's, llama.cpp's (no "
        "request counter, no histograms), or LMDeploy's, TGI's, mistral.rs's (their engine "
        "record's names; docs/engines.md)",
    )
    disable_route: tuple[str, ...] | None = option(
        "--disable-route",
        choices=ROUTES,
        metavar="ROUTE",
        help=f"answer 404 on this route, repeatable ({', '.join(ROUTES)}; default: none)",
    )
    # timing
    ttft_ms: float | None = _ms("--ttft-ms", "time to first token, from request arrival (ms)")
    itl_ms: float | None = _ms(
        "--itl-ms", "inter-token latency (ms); token i is due at TTFT + i*ITL"
    )
    prefill_ms_per_token: float | None = _ms(
        "--prefill-ms-per-token", "added to TTFT per (uncached) prompt token (ms)"
    )
    prefix_cache: bool | None = _switch(
        "--prefix-cache", "emulate a prefix cache: prompt blocks seen before cost no prefill"
    )
    busy_wait_us: float | None = option(
        "--busy-wait-us",
        type=float,
        metavar="US",
        help="busy-wait this long (µs) before each deadline when one request is in flight",
    )
    jitter_pct: float | None = option(
        "--jitter-pct",
        type=float,
        metavar="N",
        help="per-request timing jitter: TTFT, prefill and ITL scaled by exp(N(0, PCT/100)), "
        "one seeded draw per request (default 0: exact)",
    )
    # output length
    output_tokens: int | None = _count(
        "--output-tokens",
        "the model's natural length: stop ('stop') after N tokens unless ignore_eos (a "
        "prompt that ends with its own complete answer: at once); none: only max_tokens "
        "stops it",
    )
    run_on: int | None = _count(
        "--run-on",
        "continued with its own complete answer (--output-tokens), the model runs on N more "
        "tokens before it ends, as a near-tie end of sequence does (honest: llama.cpp's "
        "SmolLM2 did); continued from inside its answer it ends where the answer ended",
    )
    stop_early_at: int | None = _count(
        "--stop-early-at",
        "stop after N tokens whatever the client asked (an early-stopping server, a cut "
        "output: against the rules); none: never",
    )
    default_max_tokens: int | None = _count(
        "--default-max-tokens", "max_tokens when the request has none"
    )
    tokens_per_chunk: int | None = _count("--tokens-per-chunk", "tokens per SSE event")
    max_model_len: int | None = _count(
        "--max-model-len", "context length; longer prompt+max_tokens get vLLM's 400"
    )
    think_tokens: int | None = _count(
        "--think-tokens", "reasoning words inside <think> when thinking is on"
    )
    count_eos: bool | None = _switch(
        "--count-eos",
        "count the EOS token that ends a 'stop' answer in usage and token ids, as vLLM does "
        "(default: off)",
    )
    special_tokens: int | None = _count(
        "--special-tokens",
        "the last N generated tokens are special tokens absent from the text (vLLM's "
        "detokeniser skips them) but timed and counted in usage (default: 0)",
    )
    # identity
    seed: int | None = _count("--seed", "seed of text generation and of fault draws")
    tokenizer: str | None = option(
        "--tokenizer", metavar="TEXT", help="tokenizer spec for token accounting"
    )
    # quality
    accuracy: float | None = option(
        "--accuracy",
        type=float,
        metavar="P",
        help="answer the local benchmark data's multiple-choice questions (MMLU-Pro, GPQA) "
        "right with probability P, seeded per question (default: none, generated text)",
    )
    accuracy_data: str | None = option(
        "--accuracy-data",
        metavar="DIR",
        help="the benchmark data folder --accuracy reads its answers from "
        "(default: harness's sample data)",
    )
    # faults
    error_rate: float | None = _rate(
        "--error-rate", "requests (0 to 1) answered with --error-status"
    )
    error_status: int | None = _count("--error-status", "HTTP status of --error-rate answers")
    hang_rate: float | None = _rate("--hang-rate", "requests (0 to 1) never answered")
    drop_rate: float | None = _rate(
        "--drop-rate", "requests (0 to 1) whose connection is closed mid-answer"
    )
    malformed_json_rate: float | None = _rate(
        "--malformed-json-rate", "answers (0 to 1) with truncated JSON"
    )
    malformed_sse_rate: float | None = _rate(
        "--malformed-sse-rate", "streams (0 to 1) with broken SSE framing and no [DONE]"
    )
    usage_skew: int | None = _count(
        "--usage-skew", "add N to usage.completion_tokens (wrong usage counts)"
    )
    think_leak: bool | None = _switch(
        "--think-leak", "put a <think> block in the content even with thinking off"
    )
    nondeterministic: bool | None = _switch("--nondeterministic", "greedy output differs per call")
    route_divergence: bool | None = _switch(
        "--route-divergence", "/invocations answers differently from /v1/completions"
    )
    ignore_max_tokens: bool | None = _switch(
        "--ignore-max-tokens", "emit 25%% more tokens than max_tokens"
    )
    fail_under_concurrency: int | None = _count(
        "--fail-under-concurrency",
        "answer 503 when more than N requests are in flight; none: never",
    )
    cache_responses: bool | None = _switch(
        "--cache-responses",
        "answer a non-streamed request whose body was seen before at once, with the first "
        "answer, without the engine (an exact-response cache: against the rules)",
    )
    filler_speedup: float | None = option(
        "--filler-speedup",
        type=float,
        metavar="F",
        help="serve the grader's filler prompt F times faster than any other (benchmark "
        "detection: against the rules; default 1: none)",
    )
    repeat_speedup: float | None = option(
        "--repeat-speedup",
        type=float,
        metavar="F",
        help="serve a prompt seen before F times faster (its decode replayed, not cached: "
        "against the rules, the Paris sweep repeats its prompts; default 1: none)",
    )
    second_stack: bool | None = _switch(
        "--second-stack",
        "answer prompt bodies (the latency grader's shape, any route) from a second model: "
        "other text than the same prompt sent as chat messages gets (against the rules)",
    )
    prompt_speedup: float | None = option(
        "--prompt-speedup",
        type=float,
        metavar="F",
        help="serve prompt bodies F times faster than chat bodies, the same text (a faster "
        "second stack for the latency routes: against the rules; default 1: none)",
    )
    stream_mismatch: str | None = option(
        "--stream-mismatch",
        choices=("first_token", "usage", "eos"),
        metavar="KIND",
        help="a stream that is not the non-streamed answer (against the rules): first_token "
        "(another first word), usage (2 tokens more than the same answer not streamed), eos "
        "(a second end of sequence after the finish) (default: none)",
    )
    quality_detection: str | None = option(
        "--quality-detection",
        choices=("canned", "routed"),
        metavar="HOW",
        help="recognise the quality graders' prompts (the shipped items' exact text) and "
        "serve them otherwise (against the rules): canned (a short answer, 20 times faster) "
        "or routed (a bigger model: 1.5 times slower per token, answers 60 %% as long) "
        "(default: none)",
    )
    bad_input_5xx: bool | None = _switch(
        "--bad-input-5xx", "answer bad input with 500 instead of 400"
    )
    # log
    log_file: str | None = option(
        "--log-file", metavar="FILE", help="append every request to this JSONL file"
    )
    log_bodies: bool | None = _switch("--log-bodies", "keep request bodies in the log")
    log_limit: int | None = _count(
        "--log-limit", "entries kept in memory for /_sim/log (the log file keeps all)"
    )

    @classmethod
    def _kinds(cls) -> dict[str, str]:
        """Each field's shape on the command line: a switch, a repeatable, or one value."""
        hints = get_type_hints(cls)
        out = {}
        for f, _ in cls.flags():
            hint = hints[f.name]
            out[f.name] = (
                "switch"
                if hint == bool | None
                else "repeat"
                if hint == tuple[str, ...] | None
                else "value"
            )
        return out

    @classmethod
    def add_arguments(
        cls,
        p: argparse.ArgumentParser,
        *,
        only: Any = None,
        required: Any = (),
    ) -> None:
        """Every knob's flag; the help shows SimConfig's default (none given: that one)."""
        kinds = cls._kinds()
        for f, spec in cls.flags():
            text = spec.help
            if "default" not in text:  # a help that says its default already is not told twice
                text += f" (default: {_shown(SimConfig.model_fields[f.name].default)})"
            if kinds[f.name] == "switch":
                p.add_argument(
                    spec.name,
                    dest=f.name,
                    action=argparse.BooleanOptionalAction,
                    default=None,
                    help=text,
                )
            elif kinds[f.name] == "repeat":
                p.add_argument(
                    spec.name,
                    dest=f.name,
                    action="append",
                    choices=spec.choices,
                    metavar=spec.metavar,
                    help=text,
                )
            else:
                add_valued(p, spec, f.name, None, text)

    @classmethod
    def of(cls, cfg: SimConfig) -> Self:
        """The knobs of ``cfg`` that differ from SimConfig's defaults."""
        defaults = SimConfig()
        given = {
            f.name: getattr(cfg, f.name)
            for f, _ in cls.flags()
            if getattr(cfg, f.name) != getattr(defaults, f.name)
        }
        return cls(**given)

    def config(self) -> SimConfig:
        """SimConfig with these knobs (the others its defaults); a bad value: ConfigError."""
        knobs = {
            f.name: tuple(value) if isinstance(value, list) else value
            for f, _ in self.flags()
            if (value := getattr(self, f.name)) is not None
        }
        return make_config(**knobs)

    def argv(self) -> list[str]:
        """The ``harness simulate`` flags that re-create these knobs."""
        kinds = self._kinds()
        out: list[str] = []
        for f, spec in self.flags():
            value = getattr(self, f.name)
            if value is None:
                continue
            if kinds[f.name] == "switch":
                out.append(spec.name if value else "--no-" + spec.name.removeprefix("--"))
            elif kinds[f.name] == "repeat":
                for item in value:
                    out += [spec.name, str(item)]
            else:
                out += [spec.name, render_value(value)]
        return out


def _shown(default: object) -> str:
    if isinstance(default, bool):
        return "on" if default else "off"
    return "none" if default is None else str(default)
