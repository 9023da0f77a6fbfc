"""The measurement-kind record type (``record.py``), below every measurement package.

Each kind's record is built from it in its own package (``harness/<pkg>/kind.py``) and
listed once, in order, in the registry (``harness/registry/``), which sits above them."""
