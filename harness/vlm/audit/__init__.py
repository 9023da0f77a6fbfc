"""``harness vlm audit``: the AICAS rule against hard-coded answers, asked in-process."""
