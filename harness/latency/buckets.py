"""``--buckets``: which of the profile's latency buckets a run measures.

Read once, before anything is measured (the command's config, and the gate before
its first step): an empty list or entry, a name given twice or a name the profile
does not have is a usage error naming the profile's buckets. A bucket named twice
would be measured twice and counted twice in the score; an empty list used to mean
"all", silently.
"""

from __future__ import annotations

from harness.errors import ConfigError
from harness.profiles import Bucket, LatencySpec


def choose_buckets(spec: LatencySpec, text: str | None) -> tuple[Bucket, ...]:
    """The buckets ``text`` (``short,long``) names, in its order; None: all of them."""
    if text is None:
        return tuple(spec.buckets)
    valid = [b.name for b in spec.buckets]
    hint = f"valid buckets: {', '.join(valid)} (the profile's; comma-separated, each once)"
    names = [n.strip() for n in text.split(",")]
    if not any(names):
        raise ConfigError(f"--buckets {text!r} names no bucket", hint=hint)
    if "" in names:
        raise ConfigError(f"--buckets {text!r} has an empty name", hint=hint)
    twice = sorted({n for n in names if names.count(n) > 1}, key=names.index)
    if twice:
        raise ConfigError(f"--buckets {text!r} names {', '.join(twice)} twice", hint=hint)
    unknown = [n for n in names if n not in valid]
    if unknown:
        raise ConfigError(f"--buckets {text!r}: unknown bucket {unknown[0]!r}", hint=hint)
    return tuple(spec.bucket(n) for n in names)
