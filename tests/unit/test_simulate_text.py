"""The simulator's generated text: one Qwen3.5 token per piece, deterministic per key."""

from __future__ import annotations

import json

import pytest

from harness.simulate.requests import BadRequest, parse_request, render_chat
from harness.simulate.shapes import ChunkTemplate
from harness.simulate.textgen import Vocabulary, join
from harness.tokenizer import load_tokenizer
from tests.fixtures.qwen35_chat import CASES, REFUSED, ChatCase


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return Vocabulary(load_tokenizer("qwen:Qwen/Qwen3.5-4B"))


def test_every_word_is_one_qwen_token(vocab: Vocabulary) -> None:
    tok = vocab.tokenizer
    assert len(vocab.words) == 119  # the whole list survives with Qwen3.5
    for piece in vocab.words + vocab.think_head + vocab.think_tail:
        assert len(tok.encode(piece.text)) == 1, piece.text


@pytest.mark.parametrize("n", [1, 2, 7, 64, 512])
@pytest.mark.parametrize("think", [0, 5, 24])
def test_retokenised_count_equals_pieces(vocab: Vocabulary, n: int, think: int) -> None:
    for key in ("a", "hello world", "x" * 50):
        pieces = vocab.generate(key, n, think=think)
        assert len(pieces) == n
        ids = vocab.tokenizer.encode(join(pieces))
        assert len(ids) == n
        assert vocab.tokenizer.decode(ids) == join(pieces)


def test_think_block_shape(vocab: Vocabulary) -> None:
    text = join(vocab.generate("q", 40, think=3))
    assert text.startswith("<think>\nOkay ")
    head, answer = text.split("\n</think>\n\n")
    assert len(head.split()) == 1 + 1 + 3  # <think>, Okay, 3 words
    assert len(answer.split()) == 40 - (3 + 3 + 3)


def test_same_key_same_text_other_key_or_salt_other_text(vocab: Vocabulary) -> None:
    a = join(vocab.generate("prompt one", 32))
    assert a == join(vocab.generate("prompt one", 32))
    assert a != join(vocab.generate("prompt two", 32))
    assert a != join(vocab.generate("prompt one", 32, salt="other"))
    # a shorter answer is a prefix of the longer one: length does not change the text
    assert a.startswith(join(vocab.generate("prompt one", 8)))


def test_chunk_template_bytes_are_vllm_json() -> None:
    t = ChunkTemplate("completion", "cmpl-1", 'm"q')
    event = t.chunk(" the\\n", "length")
    assert event.startswith(b"data: ") and event.endswith(b"\n\n")
    obj = json.loads(event[6:])
    assert obj["object"] == "text_completion" and obj["model"] == 'm"q'
    assert obj["choices"][0] == {
        "index": 0,
        "text": " the\n",
        "logprobs": None,
        "finish_reason": "length",
        "stop_reason": None,
    }
    c = ChunkTemplate("chat", "chatcmpl-1", "m")
    assert json.loads(c.chunk(" of")[6:])["choices"][0]["delta"] == {"content": " of"}
    assert json.loads(c.role_chunk()[6:])["choices"][0]["delta"] == {
        "role": "assistant",
        "content": "",
    }
    u = json.loads(c.usage_chunk({"prompt_tokens": 1})[6:])
    assert u["choices"] == [] and u["usage"] == {"prompt_tokens": 1}


def test_chat_template_counts_like_chatml() -> None:
    tok = load_tokenizer("qwen:Qwen/Qwen3.5-4B")
    text = render_chat([{"role": "user", "content": "hi"}], thinking=True)
    assert text == "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n"
    ids = tok.encode(text)
    assert (
        ids[0] == 248045 and ids.count(248046) == 1
    )  # <|im_start|>, <|im_end|> are single specials
    off = render_chat([{"role": "user", "content": "hi"}], thinking=False)
    assert off.endswith("<think>\n\n</think>\n\n")


@pytest.mark.parametrize(
    "case", [c for c in CASES if c.add_generation_prompt], ids=lambda c: c.name
)
def test_chat_prompt_is_qwen35s_template(case: ChatCase) -> None:
    # usage.prompt_tokens is the count of what Qwen3.5's template renders (issue 35)
    body = {
        "messages": case.messages,
        "chat_template_kwargs": {"enable_thinking": case.enable_thinking},
    }
    assert parse_request(body, "chat").prompt_text == case.expected


@pytest.mark.parametrize("name", sorted(n for n in REFUSED if REFUSED[n]))
def test_messages_the_template_refuses_are_a_400(name: str) -> None:
    with pytest.raises(BadRequest) as err:
        parse_request({"messages": REFUSED[name]}, "chat")
    assert err.value.param == "messages"
