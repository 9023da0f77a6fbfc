"""What a quality run says on the console: --decide's risk in words, the request rate."""

from __future__ import annotations

from harness.quality.console import risk_words
from harness.quality.render import rate_text


def test_risk_words() -> None:
    assert risk_words(None) == "undecided"
    assert risk_words(1.0) == "undecided: more documents needed (an error risk ≤ 0.1 % decides)"
    assert risk_words(0.35) == (
        "undecided: deciding now would risk an error of up to 35 % (0.1 % allowed)"
    )
    assert risk_words(0.00042) == "decided, error risk ≤ 0.042 %"
    assert risk_words(0.001) == "decided, error risk ≤ 0.1 %"
    assert risk_words(0.0) == "decided, certain: no answer still to come can change it"


def test_rate_counts_asked_answers_only() -> None:
    assert rate_text(asked=0, cached=14, elapsed_s=0.0006) == "cached"  # not 22666 req/s
    assert rate_text(asked=0, cached=0, elapsed_s=None) == "-"
    assert rate_text(asked=6, cached=8, elapsed_s=3.0) == "2.00 req/s"
