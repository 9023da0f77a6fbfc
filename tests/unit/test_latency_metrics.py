import pytest

from harness.client.records import ErrorKind, RequestError, RequestRecord, StreamEvent
from harness.latency.analysis import explain_gap, risk_flags
from harness.latency.metrics import bucket_result, itl_values, strip_think, to_row
from harness.latency.procedure import official_procedure
from harness.latency.report import RequestRow
from harness.profiles import Bucket, load_profile
from harness.risk import FlagKind
from harness.tokenizer import load_tokenizer

MS = 1_000_000
BUCKET = Bucket(name="short", prompt_tokens=64, max_tokens=4, baseline_ms=1000.0)


@pytest.fixture(scope="module")
def tok():
    return load_tokenizer("qwen:Qwen/Qwen3.5-4B")


def streamed(times_ms, texts):
    rec = RequestRecord(endpoint="/v1/completions", stream=True, send_ns=0)
    rec.events = [
        StreamEvent(t_ns=int(t * MS), text=x) for t, x in zip(times_ms, texts, strict=True)
    ]
    rec.first_token_ns = rec.events[0].t_ns
    rec.last_token_ns = rec.events[-1].t_ns
    rec.end_ns = rec.last_token_ns + 1 * MS
    rec.text = "".join(texts)
    rec.usage_completion_tokens = 4
    rec.usage_prompt_tokens = 64
    return rec


def test_streamed_row_timings(tok):
    # " the" is one Qwen token; the second event carries two tokens
    rec = streamed([50, 60, 80], [" the", " the the", " the"])
    row, itls = to_row(
        rec, bucket="short", mode="strict", phase="timed", index=0, prompt_tokens=64, tok=tok
    )
    assert row.output_tokens == 4
    assert row.ttft_ms == 50
    assert row.e2e_ms == 80  # streamed: send → last text event
    assert row.end_of_stream_ms == 81
    assert row.tpot_ms == pytest.approx(30 / 3)
    # event 2: 10 ms over 2 tokens → 5, 5; event 3: 20 ms over 1 token
    assert itls == [5.0, 5.0, 20.0]


def test_itl_skips_empty_events():
    rec = streamed([10, 20], ["a", "b"])
    assert itl_values(rec, [1, 0]) == []


def test_official_row_uses_parse_time(tok):
    rec = RequestRecord(endpoint="/invocations", stream=False, send_ns=0)
    rec.end_ns = 100 * MS
    rec.parsed_ns = 101 * MS
    rec.text = " the the"
    row, itls = to_row(
        rec, bucket="short", mode="official", phase="timed", index=0, prompt_tokens=61, tok=tok
    )
    assert row.e2e_ms == 101 and row.output_tokens == 2 and itls == []
    assert row.ttft_ms is None


def test_failed_row(tok):
    rec = RequestRecord(endpoint="/invocations", stream=False, send_ns=0)
    rec.error = RequestError(ErrorKind.HTTP_STATUS, "HTTP 500", status=500)
    row, _ = to_row(
        rec, bucket="short", mode="official", phase="timed", index=0, prompt_tokens=61, tok=tok
    )
    assert not row.ok and row.e2e_ms is None and row.error_kind == "http_status"


def rows(e2es, *, out=4, mode="official", fail=0, warm_fail=0):
    rs = [
        RequestRow(
            bucket="short",
            mode=mode,
            phase="timed",
            index=i,
            ok=True,
            e2e_ms=e,
            output_tokens=out,
            server_output_tokens=out,
            prompt_tokens=64,
            server_prompt_tokens=64,
        )
        for i, e in enumerate(e2es)
    ]
    rs += [
        RequestRow(
            bucket="short", mode=mode, phase="timed", index=99, ok=False, error_kind="timeout"
        )
    ] * fail
    rs += [
        RequestRow(
            bucket="short", mode=mode, phase="warmup", index=0, ok=False, error_kind="connect"
        )
    ] * warm_fail
    return rs


def test_bucket_result_drops_failures_and_ignores_warmup():
    res = bucket_result(
        BUCKET,
        rows([100.0, 200.0, 300.0], fail=2, warm_fail=1),
        mode="official",
        endpoint="/invocations",
    )
    assert (res.n_ok, res.n_failed, res.n_warmup_failed) == (3, 2, 1)
    assert res.median_ms == 200.0
    assert res.speedup == 5.0
    assert res.errors == {"timeout": 2}
    assert res.n_short_outputs == 0
    lo, hi = res.median_ci95
    assert lo <= 200.0 <= hi


def test_bucket_result_empty_and_single():
    empty = bucket_result(BUCKET, rows([], fail=3), mode="official", endpoint="/x")
    assert empty.n_ok == 0 and empty.median_ms is None and empty.speedup is None
    one = bucket_result(BUCKET, rows([250.0]), mode="official", endpoint="/x")
    assert one.median_ms == 250.0 and one.speedup == 4.0


def test_short_outputs_flagged():
    res = bucket_result(BUCKET, rows([100.0, 100.0], out=1), mode="official", endpoint="/x")
    assert res.n_short_outputs == 2
    flags = risk_flags([res], [])
    (flag,) = flags
    assert (flag.kind, flag.source) == (FlagKind.EARLY_STOP, "latency")
    assert flag.text.startswith("early-stop: 2/2")


def test_gap_prefix_cache_and_early_stop():
    off = bucket_result(BUCKET, rows([100.0] * 5), mode="official", endpoint="/x")
    strict = bucket_result(BUCKET, rows([400.0] * 5, mode="strict"), mode="strict", endpoint="/y")
    gap = explain_gap(off, strict)
    assert (gap.cause_kind, gap.cause.startswith("prefix cache")) == ("prefix_cache", True)
    assert gap.official_speedup == 10.0 and gap.strict_speedup == 2.5
    assert gap.share_of_official_speedup == pytest.approx(0.75)
    short = bucket_result(BUCKET, rows([100.0] * 5, out=1), mode="official", endpoint="/x")
    assert explain_gap(short, strict).cause_kind == "early_stop"
    assert explain_gap(short, strict).cause.startswith("early stop")
    same = bucket_result(BUCKET, rows([390.0] * 5, mode="strict"), mode="strict", endpoint="/y")
    assert explain_gap(
        bucket_result(BUCKET, rows([400.0] * 5), mode="official", endpoint="/x"), same
    ).cause.startswith("agree")


def test_strip_think():
    assert strip_think("<think>\nhmm\n</think>\n\nAnswer") == "Answer"
    assert strip_think("plain") == "plain"


def test_official_procedure_is_the_profiles_runs_warmups_and_buckets():
    spec = load_profile().require_latency()
    names = [b.name for b in spec.buckets]
    assert official_procedure(spec.runs, spec.warmup, names, spec)
    assert not official_procedure(spec.runs - 1, spec.warmup, names, spec)
    assert not official_procedure(spec.runs, spec.warmup + 1, names, spec)
    assert not official_procedure(spec.runs, spec.warmup, names[:2], spec)
    quick = spec.model_copy(update={"runs": 3, "warmup": 1})
    assert official_procedure(3, 1, names, quick)


def _judged(official_ms: float | None, ttft_ms: float | None, worst: float | None, cal=None):
    from harness.latency.report import BucketResult, Calibration, LatencyReport
    from harness.stats.summary import Dist

    def bucket(mode, median, ttft=None):
        return BucketResult(
            name="short",
            mode=mode,
            endpoint="/x",
            prompt_tokens_nominal=64,
            prompt_tokens=64,
            max_tokens=128,
            baseline_ms=2582.0,
            n_ok=5,
            n_failed=0,
            median_ms=median,
            speedup=None,
            ttft=None if ttft is None else Dist(n=5, median=ttft),
        )

    rep = LatencyReport(
        mode="both",
        official=[bucket("official", official_ms)] if official_ms is not None else [],
        strict=[bucket("strict", 900.0, ttft_ms)] if ttft_ms is not None else [],
        calibration=cal
        if worst is None
        else Calibration(ttft_error_ms=Dist(n=10, median=0.4, p99=0.99 * worst, max=worst)),
    )
    from harness.latency.analysis import selftest_flags, smallest_median

    return smallest_median(rep), selftest_flags(rep)


def test_selftest_flag_rule_with_literal_numbers():
    # the loaded machine: 641 ms against medians of hundreds of ms; 10 requests
    # show no p99, so the flag reads and names the largest error
    smallest, flags = _judged(345.0, 120.0, 641.0)
    assert smallest == ("strict short TTFT", 120.0)
    assert [f.kind.value for f in flags] == ["self_test_error"]
    assert "641.0 ms at worst of 10 requests (too few for a p99: 10 of 662 needed)" in (
        flags[0].text
    )
    assert "strict short TTFT 120.0 ms" in flags[0].text
    # an idle machine: p99 of a few ms is under the 10 ms floor, whatever the medians
    assert _judged(2.0, 1.5, 4.0)[1] == []
    # above the floor, 10 % of the smallest median decides
    assert _judged(345.0, 120.0, 12.0)[1] == []  # 12 ms <= 10 % of 120 ms
    assert len(_judged(345.0, 100.0, 12.0)[1]) == 1  # 12 ms > 10 ms
    assert _judged(5000.0, None, 400.0)[1] == []  # official only: 10 % of 5 s
    # nothing to judge: no self-test, or no median
    assert _judged(345.0, None, None)[1] == []
    assert _judged(None, None, 900.0) == (None, [])


def test_selftest_flag_reads_the_conservative_p99_from_662_requests():
    from harness.latency.report import Calibration
    from harness.stats.summary import dist

    errors = [1.0] * 695 + [30.0] * 5  # empirical p99 1.0 ms; the estimate sees the tail
    cal = Calibration(ttft_error_ms=dist(errors))
    assert cal.ttft_error_ms.p99 == 1.0
    [flag] = _judged(345.0, 120.0, None, cal)[1]
    assert "p99 ≤ 30.0 ms at 99%" in flag.text


def test_a_gap_below_the_decode_cost_is_a_response_cache_not_the_prefix_cache():
    """The official answers' 4 tokens cost 3 steps × TPOT at the server's own decode speed:
    a prefix cache cannot go under half of that; an answer cache does (issue 37)."""
    from harness.stats.summary import Dist

    strict = bucket_result(BUCKET, rows([400.0] * 5, mode="strict"), mode="strict", endpoint="/y")
    slow_decode = strict.model_copy(update={"tpot": Dist(n=5, median=90.0)})  # 270 ms of decode
    fast_decode = strict.model_copy(update={"tpot": Dist(n=5, median=10.0)})  # 30 ms of decode
    off = bucket_result(BUCKET, rows([100.0] * 5), mode="official", endpoint="/x")
    cached = explain_gap(off, slow_decode)
    assert cached.cause_kind == "response_cache"
    assert cached.cause.startswith("response cache: official answers took 100.0 ms, below the 270")
    assert explain_gap(off, fast_decode).cause_kind == "prefix_cache"
    (flag,) = [f for f in risk_flags([off], [slow_decode]) if f.kind is FlagKind.RESPONSE_CACHE]
    assert flag.text.startswith("RESPONSE-CACHE: response cache")
    assert not [f for f in risk_flags([off], [fast_decode]) if f.kind is FlagKind.RESPONSE_CACHE]
