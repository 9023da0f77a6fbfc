"""Measurement kinds: the record type (``record.py``) and the one ordered registry
(``registry.py``). Each kind's record lives in its own package (``harness/<pkg>/kind.py``)."""
