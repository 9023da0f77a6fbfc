"""The probe phase: one prompt asked in the graders' two body shapes on their routes, then
streamed (docs/audit.md, "The probe phase").

It sends (``send.py``) a warm-up, then each way of asking twice (the chat body on the
OpenAI chat route and the quality route, the prompt body on the OpenAI completions route
and the latency route), a second, independent set only when the first splits, then the
streams and their second looks.

Its record is ``record.py``'s ``Probe`` (``audit.json``'s ``probes``).

Its rules, pure functions over the probes: ``one_stack`` (``stack.py``) and
``stream_consistency`` (``stream.py``), each bound to its record (harness/audit/rule.py)
in ``rules.py``.
"""
