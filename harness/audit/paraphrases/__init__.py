"""The paraphrases phase: ``benchmark_detection``'s quality half, the quality graders' items
against light paraphrases (docs/audit.md, "The quality prompts against paraphrases").

It sends (``send.py``) each item as the grader sends it and paraphrased, interleaved, and a
second, independent look with other paraphrases only when the first one splits.

Its record is ``record.py``'s ``Asked`` (``audit.json``'s ``paraphrases``).

Its rule (``rule.py``), pure functions over the pairs: the quality half, merged into the
one ``benchmark_detection`` verdict with the timed phase's filler half by that rule's
record (harness/audit/timed/rules.py).
"""
