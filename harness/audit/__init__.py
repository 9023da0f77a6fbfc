"""``harness audit``: the contest's rules, one verdict each with its evidence (docs/audit.md)."""
