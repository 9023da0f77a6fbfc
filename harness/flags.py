"""The command line's flag vocabulary, owned in one place: the option declarations.

Every option that changes a measurement is a field of the measurement kind's
typed overrides record (``LatencyOverrides``, ``QualityOverrides``, ...), declared
with :func:`option`: its flag, type, help, default and, where the gate offers
it, the gate's spelling. From that one declaration:

- a command registers its flags (``XOverrides.add_arguments(parser)``) and
  parses into the record (``XOverrides.from_args(args)``; harness/overrides.py);
- the gate offers the fields marked ``gate=`` (harness/gate/options.py) and
  hands each step the record built from its own options;
- a report's provenance records the record rendered back as flags
  (``overrides.argv()``), which re-parses to the same record.

The options several kinds share (``--ready-timeout``, ``--seed``, ``--metrics``,
``--tokenizer`` ...) are declared here once. The target flags every command shares
(``--url``, ``--out``, ...) are spelled in harness/target.py, the argparse types
(numbers, URLs, ports, ``--limit``) in harness/argtypes.py.
Every option's help shows its default (tests/unit/test_cli_help.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.argtypes import positive_float

# an option several kinds and the gate itself (gate --image's container start) read
READY_TIMEOUT = "--ready-timeout"

_FLAG = "harness_flag"


# The one readiness default of every command that waits for a server: the profile's
# [readiness] timeout_s, which is the graders' 10 minutes in every shipped profile.
READY_DEFAULT = (
    "the profile's [readiness] timeout_s: {default:readiness.timeout_s}, the graders' 10 minutes"
)


@dataclass(frozen=True)
class GateFlag:
    """How ``harness gate`` offers an option: its spelling there, and the gate's own default
    where it differs from the command's (``--latency-mode`` is ``both`` in the gate)."""

    name: str
    default: object = None
    help: str = ""  # the gate's words, where several steps share the option


@dataclass(frozen=True)
class Flag:
    name: str  # "--runs"
    help: str
    type: Callable[[str], Any] | None = None
    choices: Sequence[object] | None = None
    metavar: str | None = None
    gate: GateFlag | None = None


def option(
    name: str,
    *,
    help: str,
    default: Any = None,
    type: Callable[[str], Any] | None = None,
    choices: Sequence[object] | None = None,
    metavar: str | None = None,
    gate: str | GateFlag | None = None,
) -> Any:
    """A field of an overrides record that is also a flag (see the module docstring).

    A ``bool`` field is a switch: default False → ``--flag`` sets it; default True →
    the flag (``--no-chart``) clears it. A seed the run draws itself (``--seed``'s
    None) is recorded in the report's provenance, not rendered back."""
    meta = {
        _FLAG: Flag(
            name=name,
            help=help,
            type=type,
            choices=choices,
            metavar=metavar,
            gate=GateFlag(gate) if isinstance(gate, str) else gate,
        )
    }
    return field(default=default, metadata=meta)


def seconds(
    name: str, *, help: str, default: float | None = None, gate: GateFlag | None = None
) -> Any:
    """An option in seconds (a positive number, shown as ``S``)."""
    return option(name, default=default, type=positive_float, metavar="S", help=help, gate=gate)


def request_timeout(default: float) -> Any:
    return seconds("--timeout", default=default, help="per-request timeout in s")


def ready_timeout() -> Any:
    """The readiness wait every server step has (and the gate offers to all of them)."""
    return seconds(
        READY_TIMEOUT,
        help=f"how long to wait for the ready path to answer 200, in s (default: {READY_DEFAULT})",
        gate=GateFlag(
            READY_TIMEOUT,
            help=f"how long each step waits for the server, in s (default: {READY_DEFAULT})",
        ),
    )


def ready_interval() -> Any:
    return seconds(
        "--ready-interval",
        help="readiness poll interval in s (default: the profile's, {default:readiness.poll_interval_s})",
    )


WAIT_FOR_START = "--wait-for-start"


def wait_for_start() -> Any:
    """``--wait-for-start``: the server is still starting, so a refused connection is no
    reason to stop waiting before ``--ready-timeout`` (client/readiness.py gives up after
    10 s of refusals otherwise); every kind that waits has it, and the gate offers it."""
    return option(
        WAIT_FOR_START,
        default=False,
        help="the server is still starting: keep waiting through refused connections up to "
        "--ready-timeout (without it, 10 s of refusals stop the wait: nothing listens)",
        gate=GateFlag(
            WAIT_FOR_START,
            help="the server is still starting: every step keeps waiting through refused "
            "connections up to --ready-timeout",
        ),
    )


def prompt_seed(what: str, repeats: str = "") -> Any:
    """``--seed``: None (the default) lets the kind's config builder (``from_profile``) draw a
    fresh seed per run, recorded (docs/timing.md, "Seeds"); a given seed replays a run's
    prompts exactly."""
    return option(
        "--seed",
        type=int,
        help=f"{what} seed: replays a run's prompts exactly (default: a fresh one per run, "
        f"recorded{repeats})",
    )


def usage_probe(after: str, text: str, modes: str) -> Any:
    """``--usage-probe``: after the measured traffic, ask for token ids (harness/usage.py)."""
    return option(
        "--usage-probe",
        default="auto",
        choices=("auto", "on", "off"),
        help=f"after the {after}, ask the server for its token ids where usage exceeds the "
        f"{text} (default: auto, off in official mode, on in {modes})",
    )


def metrics_scrape(per: str, modes: str) -> Any:
    """``--metrics``: scrape /metrics around each ``per`` (bucket, level) for attribution."""
    return option(
        "--metrics",
        default="auto",
        choices=("auto", "on", "off"),
        help=f"scrape the server's /metrics around each {per} for attribution "
        f"(default: auto, off in official mode, on in {modes})",
    )


def engine() -> Any:
    """``--engine``: which engine's metric names to read (default: the one detected)."""
    from harness.engines.registry import names

    return option(
        "--engine",
        choices=names(),
        help="the serving engine whose /metrics names, units and flags harness reads "
        "(default: detected from /metrics, /props, /info, /get_server_info; docs/engines.md)",
    )


def tokenizer(what: str) -> Any:
    """``--tokenizer``: the client tokenizer (every step with one takes the gate's)."""
    return option(
        "--tokenizer",
        help=f"{what} (default: the profile's)",
        gate=GateFlag("--tokenizer", help="the served model's tokenizer, for token counts"),
    )


def model_name(default: str) -> Any:
    """``--model``: the model name the bodies carry (throughput, audit)."""
    return option("--model", help=f"the body's model field (default: {default})")


def flag_of(f: dataclasses.Field[Any]) -> Flag | None:
    spec = f.metadata.get(_FLAG)
    return spec if isinstance(spec, Flag) else None
