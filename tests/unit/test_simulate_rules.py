"""Pure rules of the simulator: request parsing, output length, prefix cache, faults, config."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from harness.cli.simulate import config_from_args, register
from harness.errors import ConfigError
from harness.simulate.config import SimConfig, make_config
from harness.simulate.engine import Engine, PrefixCache
from harness.simulate.faults import Fault, FaultPlan
from harness.simulate.flags import SimOverrides
from harness.simulate.requests import BadRequest, parse_json, parse_request
from harness.tokenizer import load_tokenizer


def _completion(**extra: Any) -> dict[str, Any]:
    return {"prompt": "hello", "max_tokens": 8, **extra}


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"max_tokens": 3}, "prompt"),
        (_completion(max_tokens=-1), "max_tokens"),
        (_completion(max_tokens=0), "max_tokens"),
        (_completion(max_tokens="8"), "max_tokens"),
        (_completion(max_tokens=True), "max_tokens"),
        (_completion(prompt=12), "prompt"),
        (_completion(prompt=["a", "b"]), "prompt"),
        (_completion(stream="yes"), "stream"),
        (_completion(temperature=-0.5), "temperature"),
        (_completion(model=3), "model"),
        (_completion(prompt=""), "prompt"),
        (_completion(stream_options={"include_usage": True}), "stream_options"),
    ],
)
def test_bad_completion_bodies(body: dict[str, Any], param: str) -> None:
    with pytest.raises(BadRequest) as err:
        parse_request(body, "completion")
    assert err.value.param == param


@pytest.mark.parametrize(
    "messages", [None, [], "hi", [{"content": "x"}], [{"role": "user", "content": 5}], ["x"]]
)
def test_bad_chat_bodies(messages: Any) -> None:
    with pytest.raises(BadRequest):
        parse_request({"messages": messages}, "chat")


def test_bad_json() -> None:
    for raw in (b"{bad", b"", b"[1, 2]", b"\xff"):
        with pytest.raises(BadRequest):
            parse_json(raw)


def test_parse_flags() -> None:
    r = parse_request(
        _completion(temperature=0, stream=True, stream_options={"include_usage": True}),
        "completion",
    )
    assert (r.greedy, r.stream, r.include_usage, r.thinking) == (True, True, True, False)
    assert parse_request({"prompt": [1, 2, 3]}, "completion").prompt_ids == [1, 2, 3]
    assert parse_request({"prompt": ["one"]}, "completion").prompt_text == "one"
    chat = {
        "messages": [{"role": "user", "content": [{"type": "text", "text": "a"}], "type": "text"}]
    }
    assert not parse_request(chat, "chat").thinking
    assert parse_request({**chat, "thinking": True}, "chat").thinking
    on = parse_request({**chat, "chat_template_kwargs": {"enable_thinking": True}}, "chat")
    assert on.thinking and on.prompt_text.endswith("<|im_start|>assistant\n<think>\n")
    assert (
        parse_request({**chat, "max_tokens": 9, "max_completion_tokens": 4}, "chat").max_tokens == 4
    )


@pytest.fixture(scope="module")
def tok() -> Any:
    return load_tokenizer("qwen:Qwen/Qwen3.5-4B")


def _length(tok: Any, body: dict[str, Any], **knobs: Any) -> tuple[int, str]:
    eng = Engine(make_config(**knobs), tok)
    req = parse_request(body, "completion")
    return eng.length(req, eng.check_length(1, req))


def test_output_length_rules(tok: Any) -> None:
    assert _length(tok, _completion()) == (8, "length")
    assert _length(tok, {"prompt": "x"}) == (16, "length")  # default_max_tokens, like vLLM
    assert _length(tok, _completion(), output_tokens=3) == (3, "stop")
    assert _length(tok, _completion(), output_tokens=30) == (8, "length")
    assert _length(tok, _completion(ignore_eos=True), output_tokens=3) == (8, "length")
    assert _length(tok, _completion(min_tokens=5), output_tokens=3) == (5, "stop")
    assert _length(tok, _completion(ignore_eos=True), stop_early_at=2) == (2, "stop")
    assert _length(tok, _completion(), ignore_max_tokens=True) == (10, "length")


def test_the_model_ends_at_once_after_its_own_complete_answer(tok: Any) -> None:
    """complete_outputs (docs/audit.md): the prompt continued with the model's finished
    answer gets EOS next; continued with a cut answer (``--stop-early-at``), it goes on."""
    eng = Engine(make_config(output_tokens=4), tok)
    first = eng.plan(
        parse_request(_completion(temperature=0, prompt="Dogs. "), "completion"), [1], "/x", 0
    )
    answer = "".join(p.text for p in first.pieces)
    assert (len(first.pieces), first.finish_reason) == (4, "stop")
    assert _length(tok, _completion(temperature=0, prompt="Dogs. " + answer), output_tokens=4) == (
        0,
        "stop",
    )
    assert _length(
        tok, _completion(temperature=0, prompt="Dogs. " + answer[:-1]), output_tokens=4
    ) == (
        4,
        "stop",
    )
    cut = Engine(make_config(output_tokens=6, stop_early_at=4), tok)
    part = cut.plan(
        parse_request(_completion(temperature=0, prompt="Dogs. "), "completion"), [1], "/x", 0
    )
    text = "".join(p.text for p in part.pieces)
    assert (len(part.pieces), part.finish_reason) == (4, "stop")
    again = parse_request(_completion(temperature=0, prompt="Dogs. " + text), "completion")
    assert cut.length(again, 8) == (2, "stop")  # the rest of the model's 6, never EOS at once


def test_the_model_goes_on_along_its_own_answer_and_a_near_tie_runs_on(tok: Any) -> None:
    """complete_outputs' evidence (docs/audit.md): continued from inside its answer the
    model writes the rest of it and ends where it ended; with ``--run-on N`` (a near-tie
    EOS, honest) continued with its complete answer it writes N more and stops; a server
    that cuts at 4 (``--stop-early-at``) ends every continuation 4 tokens after its start."""

    def ask(eng: Engine, prompt: str) -> tuple[str, str]:
        req = parse_request(_completion(temperature=0, prompt=prompt, max_tokens=20), "completion")
        plan = eng.plan(req, [1], "/x", 0)
        return "".join(p.text for p in plan.pieces), plan.finish_reason

    honest = Engine(make_config(output_tokens=6, run_on=3), tok)
    answer, finish = ask(honest, "Dogs. ")
    words = answer.split(" ")[1:]
    assert (len(words), finish) == (6, "stop")
    start = "Dogs. " + "".join(" " + w for w in words[:2])
    assert ask(honest, start) == ("".join(" " + w for w in words[2:]), "stop")  # the rest
    more, finish = ask(honest, "Dogs. " + answer)
    assert (len(more.split(" ")[1:]), finish) == (3, "stop")  # the near tie: 3 more
    assert ask(Engine(make_config(output_tokens=6), tok), "Dogs. " + answer) == ("", "stop")
    cut = Engine(make_config(output_tokens=12, stop_early_at=4), tok)
    part, _ = ask(cut, "Dogs. ")
    on, finish = ask(cut, "Dogs. " + "".join(" " + w for w in part.split(" ")[1:2]))
    assert (on.split(" ")[1:], finish) == (part.split(" ")[2:] + on.split(" ")[4:], "stop")
    assert len(on.split(" ")[1:]) == 4  # 4 after its start: the cut moves with the start


def test_context_length_is_checked(tok: Any) -> None:
    eng = Engine(make_config(max_model_len=10), tok)
    with pytest.raises(BadRequest, match="maximum context length is 10 tokens"):
        eng.check_length(5, parse_request(_completion(max_tokens=6), "completion"))
    assert eng.check_length(5, parse_request({"prompt": "x"}, "completion")) == 5


def test_prefix_cache_counts_whole_blocks() -> None:
    cache = PrefixCache()
    a = list(range(40))
    assert cache.lookup_and_add(a) == 0
    assert cache.lookup_and_add(a) == 32  # two whole blocks of 16; the tail is recomputed
    assert cache.lookup_and_add(a[:16] + [999] * 24) == 16
    assert cache.lookup_and_add(list(range(16))) == 15  # never the whole prompt
    cache.clear()
    assert cache.lookup_and_add(a) == 0


def test_fault_draws_are_seeded_and_exclusive() -> None:
    cfg = make_config(seed=7, error_rate=0.2, drop_rate=0.1)
    a = [FaultPlan(cfg).draw() for _ in range(1)]
    plan1, plan2 = FaultPlan(cfg), FaultPlan(cfg)
    seq1 = [plan1.draw() for _ in range(2000)]
    assert seq1 == [plan2.draw() for _ in range(2000)]
    assert a[0] == seq1[0]
    assert 0.17 < seq1.count(Fault.ERROR) / 2000 < 0.23
    assert 0.07 < seq1.count(Fault.DROP) / 2000 < 0.13
    assert set(seq1) == {None, Fault.ERROR, Fault.DROP}
    assert FaultPlan(make_config()).draw() is None


def test_config_rejects_bad_knobs() -> None:
    with pytest.raises(ConfigError, match="error_rate"):
        make_config(error_rate=1.5)
    with pytest.raises(ConfigError, match="unknown route"):
        make_config(disable_route=("/nope",))
    with pytest.raises(ConfigError, match="valid knobs"):
        make_config(ttft=3)


def test_cli_flags_round_trip_through_to_argv() -> None:
    cfg = make_config(
        ttft_ms=50,
        itl_ms=1.5,
        prefix_cache=True,
        models=("a", "b"),
        disable_route=("/tokenize",),
        usage_skew=-2,
        fail_under_concurrency=8,
        output_tokens=3,
        log_bodies=False,
    )
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(["simulate", *SimOverrides.of(cfg).argv()])
    assert config_from_args(args) == cfg
    assert config_from_args(parser.parse_args(["simulate"])) == SimConfig()


def test_request_log_keeps_the_newest_and_mirrors_to_jsonl(tmp_path: Any) -> None:
    import json

    from harness.simulate.log import LogEntry, RequestLog

    path = tmp_path / "log.jsonl"
    log = RequestLog(path, limit=10)
    for i in range(12):
        e = log.new(
            method="POST", path="/x", arrival_ns=i, conn_id=0, peer_port=1, conn_request_index=i
        )
        e.record_write(1, 5, 6, 7)
        log.finish(e)
    assert [e.index for e in log.entries] == list(range(2, 12))  # 12 > 10 + 10 %: trimmed to 10
    log.new(method="GET", path="/y", arrival_ns=0, conn_id=0, peer_port=1, conn_request_index=0)
    assert [e.index for e in log.entries] == list(range(2, 13))  # 11: within the slack
    log.close()
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert len(lines) == 12 and lines[3]["chunk_written_ns"] == [7]
    assert LogEntry.from_dict({**lines[3], "extra": 1}).conn_request_index == 3
