"""The continuations phase: ``complete_outputs``, an answer that ends early was ended by
the model (docs/audit.md, "What it sends" and "complete outputs: the probes").

It sends (``send.py``), per audited bucket, the grader's request once more, and when its
answer ended before ``max_tokens``, the same prompt continued with that answer, then, when
the continuation runs on, continued from inside the answer (the probes).

Its record is ``record.py``'s ``Continuation`` (``audit.json``'s ``continuations``).

Its rule (``rule.py``): ``complete_outputs``, pure functions over the checks, and its
record (harness/audit/rule.py).
"""
