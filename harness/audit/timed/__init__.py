"""The timed phase: the grader's repeated prompt against its two controls, in rounds
(docs/audit.md, "What it sends").

It sends, per audited bucket (or the Paris sweep's one workload), the grader's warm-ups,
then rounds of the repeated prompt and its controls in rotating order (``timed``, and
``confirm`` when a second, independent set must confirm a split, ``third`` when both split
but one only narrowly), then the repeated prompt
for one token (``one_token``): each round's prompts from ``source.py`` (the latency
grader's filler and its controls, ``controls.py``; the sweep's random-token prompt and its
controls, ``sweep.py``), sent as the grader sends its own by ``send.py``.

Its records are the report's ``Sample`` (harness/audit/report.py, with its ``Role`` and
``Phase``), whose timing it shares with the paraphrases' (harness/audit/timed_answer.py).

Its rules, pure functions over the samples (``analysis.py``): ``cached_answers`` (with the
replayed texts of ``replay.py``), ``benchmark_detection``'s filler half (its quality half is
the paraphrases': harness/audit/paraphrases/) and ``physically_possible``; ``rules.py``
binds each to its record (harness/audit/rule.py).
"""
