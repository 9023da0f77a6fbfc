"""``harness vlm latency`` against the simulator taught image parts (port 0, one request at a time)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import aiohttp
import pytest

from harness.cli import main as harness_main
from harness.profiles import load_profile
from harness.target import Target
from harness.vlm.config import VlmOverrides, http_from_profile
from harness.vlm.over_http import chat_body, load_samples, measure_http
from harness.vlm.report import VlmReport
from tests.fixtures.simulator import SimProcessFactory, SimulatorFactory
from tests.fixtures.tiny_vlm import write_textvqa

pytestmark = pytest.mark.timeout(120)
PROFILE = load_profile("aicas-vlm")
SPEC = PROFILE.require_vlm()


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    return write_textvqa(tmp_path / "textvqa", n=4, seed=1)


def test_samples_keep_the_original_image_bytes(dataset: Path) -> None:
    samples = load_samples(dataset, 2, SPEC.max_samples)
    assert [s.question_id for s in samples] == [34602, 34603]
    assert samples[0].image.startswith(b"\x89PNG")
    o = VlmOverrides(dataset_path=dataset, model="m", request_timeout_s=60)
    cfg = http_from_profile(PROFILE, Target(folder=Path("."), url="http://u"), o)
    body = json.loads(chat_body(cfg, samples[0], 1, False))
    parts = body["messages"][0]["content"]
    assert [p["type"] for p in parts] == ["image_url", "text"]
    url = parts[0]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == samples[0].image


async def test_simulator_accepts_image_parts_and_rejects_bad_ones(
    simulator: SimulatorFactory,
) -> None:
    sim = await simulator(ttft_ms=1, itl_ms=0)
    png = base64.b64encode(b"\x89PNG fake").decode()

    async def post(url_part: object) -> int:
        body = {
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "image_url", "image_url": url_part},
                        {"type": "text", "text": "hi"},
                    ],
                }
            ],
            "max_tokens": 2,
        }
        async with (
            aiohttp.ClientSession() as s,
            s.post(f"{sim.url}/v1/chat/completions", json=body) as r,
        ):
            return r.status

    assert await post({"url": f"data:image/png;base64,{png}"}) == 200
    assert await post({"url": "data:image/png;base64,@@not-base64@@"}) == 400
    assert await post({"url": "data:text/plain;base64,aGk="}) == 400
    assert await post({"url": "http://example.com/a.png"}) == 400
    assert await post(None) == 400


async def test_measure_over_http(simulator: SimulatorFactory, dataset: Path) -> None:
    sim = await simulator(ttft_ms=20, itl_ms=2, models=("m",))
    o = VlmOverrides(
        dataset_path=dataset, model="m", num_samples=3, request_timeout_s=60,
        throughput_tokens=16, answer_tokens=8,
    )  # fmt: skip
    cfg = http_from_profile(PROFILE, Target(folder=Path("."), url=sim.url), o)
    samples = await measure_http(cfg)
    assert len(samples) == 3
    for s in samples:
        assert s.error is None, s.error
        assert s.counted and s.throughput_tokens == 16
        assert s.ttft_ms is not None and s.ttft_ms >= 20
        assert s.ttft_stream_ms is not None and s.ttft_stream_ms >= 20
        # 16 tokens: 20 ms to the first, 15 gaps of 2 ms, so the call takes >= 50 ms
        assert s.throughput_ms is not None and s.throughput_ms >= 50
        assert s.answer_generated and s.image_sha256


def test_cli_latency_writes_reports_and_flags_repeated_images(
    sim_process: SimProcessFactory, tmp_path: Path
) -> None:
    sp = sim_process(ttft_ms=5, itl_ms=1, models=(SPEC.model,))
    ds = write_textvqa(tmp_path / "textvqa", n=2, seed=1)
    out = tmp_path / "run"
    argv = ["vlm", "latency", "--url", sp.url, "--dataset-path", str(ds), "--out", str(out)]
    argv += ["--quiet", "--throughput-tokens", "8", "--answer-tokens", "4"]
    assert harness_main(argv) == 0
    rep = VlmReport.load(out)
    assert rep.mode == "http" and len(rep.samples) == 2 and rep.counted == 2
    assert not rep.official
    result = json.loads((out / "result.json").read_text())
    assert result["performance"]["avg_ttft_ms"] == rep.avg_ttft_ms
    # two solid-colour images drawn from the same small palette can repeat; same bytes → flagged
    shas = [s.image_sha256 for s in rep.samples]
    assert any("reuse an image" in f.text for f in rep.flags) == (len(set(shas)) < len(shas))
