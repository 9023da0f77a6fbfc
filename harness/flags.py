"""The command line's flag vocabulary, owned in one place.

Every option that changes a measurement is a field of the measurement kind's
typed overrides record (``LatencyOverrides``, ``QualityOverrides``, ...), declared
with :func:`option`: its flag, type, help, default and, where the gate offers
it, the gate's spelling. From that one declaration:

- a command registers its flags (``XOverrides.add_arguments(parser)``) and
  parses into the record (``XOverrides.from_args(args)``);
- the gate offers the fields marked ``gate=`` (harness/gate/options.py) and
  hands each step the record built from its own options;
- a report's provenance records the record rendered back as flags
  (``overrides.argv()``), which re-parses to the same record.

``None`` means "the profile's value" for an override: the config builder of each
kind (``from_profile(profile, target, overrides)``) reads the profile for it.
The target flags every command shares (``--url``, ``--out``, ``--profile``, ...)
are spelled here too (:data:`URL` ...), for the same reason, and so are the
argparse types every command uses: numbers, :func:`http_url` (every URL option,
exit 2 on a URL without a scheme), :func:`port_number`, :func:`quality_limit`.
Every option's help shows its default (tests/unit/test_cli_help.py).
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar, Self

from harness.client.urls import http_base_url
from harness.errors import UsageError

URL = "--url"
IMAGE = "--image"
PROFILE = "--profile"
OUT = "--out"
NAME = "--name"
NOTE = "--note"
EXPERIMENT = "--experiment"
# an option several kinds and the gate itself (gate --image's container start) read
READY_TIMEOUT = "--ready-timeout"

_FLAG = "harness_flag"


def _number(text: str, convert: Callable[[str], Any], what: str) -> Any:
    try:
        return convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None


def _at_least(value: Any, text: str, low: float, strict: bool) -> Any:
    if value < low or (strict and value == low):
        raise argparse.ArgumentTypeError(f"{text!r} must be {'>' if strict else '>='} {low:g}")
    return value


def positive_float(text: str) -> float:
    return float(_at_least(_number(text, float, "a number"), text, 0, strict=True))


def non_negative_float(text: str) -> float:
    return float(_at_least(_number(text, float, "a number"), text, 0, strict=False))


def positive_int(text: str) -> int:
    return int(_at_least(_number(text, int, "a whole number"), text, 0, strict=True))


def non_negative_int(text: str) -> int:
    return int(_at_least(_number(text, int, "a whole number"), text, 0, strict=False))


def http_url(text: str) -> str:
    """An http(s) base URL (argparse type) for every ``--url``-like flag (harness/client/urls.py)."""
    try:
        return http_base_url(text)
    except UsageError as err:
        raise argparse.ArgumentTypeError(err.one_line()) from None


def port_number(text: str) -> int:
    """A TCP port, 0 (any free one) to 65535 (argparse type)."""
    value = non_negative_int(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (0-65535)")
    return value


LIMIT_HELP = (
    "documents per task: a fraction 0 < F <= 1 as the grader's QUALITY_LIMIT (the first"
    " ceil(F*n) of each task; 1 = all), or a whole count N > 1 (the first N, NON-OFFICIAL)"
)


def quality_limit(text: str) -> float:
    """``--limit`` (argparse type): a fraction in (0, 1], or a whole count above 1.

    1.5 is neither: refused rather than read as "all" (docs/quality.md, "--limit")."""
    value = positive_float(text)
    if value > 1 and not value.is_integer():
        raise argparse.ArgumentTypeError(
            f"{text!r} is neither a fraction (0 < F <= 1) nor a whole count of documents"
        )
    return value


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
    """``--seed``: None (the default) lets the core draw a fresh seed per run and record it
    (docs/timing.md, "Seeds"); a given seed replays a run's prompts exactly."""
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


def tokenizer(what: str) -> Any:
    """``--tokenizer``: the client tokenizer (every step with one takes the gate's)."""
    return option(
        "--tokenizer",
        help=f"{what} (default: the profile's)",
        gate=GateFlag("--tokenizer", help="the served model's tokenizer, for token counts"),
    )


def flag_of(f: dataclasses.Field[Any]) -> Flag | None:
    spec = f.metadata.get(_FLAG)
    return spec if isinstance(spec, Flag) else None


def render_value(value: object) -> str:
    """A value as a command line spells it (re-parses to the same value)."""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)


def _help(f: dataclasses.Field[Any], spec: Flag, required: bool = False) -> str:
    """The help text with its default (tests/unit/test_cli_help.py holds every flag to it);
    a required option's "(required)" is the help formatter's (harness/cli/__init__.py)."""
    if required or "default" in spec.help:
        return spec.help
    if isinstance(f.default, bool):  # a switch: not given by default
        return f"{spec.help} (default: off)"
    if f.default is None:
        return f"{spec.help} (default: none)"
    return f"{spec.help} (default: {render_value(f.default)})"


class Overrides:
    """Base of the typed overrides records (frozen dataclasses whose fields are :func:`option`)."""

    # the command this record belongs to (``harness latency``): for messages and docs
    COMMAND: ClassVar[str] = ""

    @classmethod
    def flags(cls) -> list[tuple[dataclasses.Field[Any], Flag]]:
        assert dataclasses.is_dataclass(cls), f"{cls.__name__} must be a dataclass"
        return [(f, spec) for f in fields(cls) if (spec := flag_of(f)) is not None]

    @classmethod
    def add_arguments(
        cls,
        p: argparse.ArgumentParser,
        *,
        only: Collection[str] | None = None,
        required: Collection[str] = (),
    ) -> None:
        """The record's flags on ``p``: all, or the fields named in ``only`` (a sub-command
        that takes some of them: ``vlm latency``); those in ``required`` must be given."""
        for f, spec in cls.flags():
            if only is not None and f.name not in only:
                continue
            if isinstance(f.default, bool):
                action = "store_false" if f.default else "store_true"
                p.add_argument(spec.name, dest=f.name, action=action, help=_help(f, spec))
                continue
            must = f.name in required
            add_valued(p, spec, f.name, f.default, _help(f, spec, must), required=must)

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Self:
        """The record a parsed command line holds; an absent option keeps the field default."""
        given = {
            f.name: value
            for f, _ in cls.flags()
            if (value := getattr(args, f.name, None)) is not None
        }
        return cls(**given)

    @classmethod
    def from_gate(cls, options: Mapping[str, object]) -> Self:
        """The record of one gate step: every gate option this record has (by the gate's key)."""
        given: dict[str, object] = {}
        for f, spec in cls.flags():
            if spec.gate is None:
                continue
            value = options.get(gate_key(spec.gate.name), spec.gate.default)
            if value is not None:
                given[f.name] = value
        return cls(**given)

    def argv(self) -> list[str]:
        """The flags that re-create this record (what differs from the defaults)."""
        out: list[str] = []
        for f, spec in self.flags():
            value = getattr(self, f.name)
            if isinstance(value, bool):
                if value != f.default:
                    out.append(spec.name)
                continue
            if value is None or value == f.default:
                continue
            out += [spec.name, render_value(value)]
        return out


def add_valued(
    p: argparse.ArgumentParser,
    spec: Flag,
    dest: str,
    default: object,
    help: str,
    *,
    required: bool = False,
) -> None:
    """One option that takes a value, as ``spec`` declares it (a command's or the gate's)."""
    # argparse's type= takes no None
    typed: dict[str, Any] = {} if spec.type is None else {"type": spec.type}
    p.add_argument(
        spec.name,
        dest=dest,
        choices=spec.choices,
        metavar=spec.metavar,
        default=default,
        required=required,
        help=help,
        **typed,
    )


def gate_key(flag: str) -> str:
    """``--latency-mode`` → ``latency_mode``: the gate's argparse dest for an option."""
    return flag.removeprefix("--").replace("-", "_")


@dataclass(frozen=True)
class Target:
    """Where a measurement runs and where its report goes: a server's URL or an image, and
    the run folder. Rendered as the leading flags of the command that re-runs it."""

    folder: Path
    url: str = ""
    image: str = ""

    def argv(self, profile: str) -> list[str]:
        out = [URL, self.url] if self.url else []
        if self.image:
            out += [IMAGE, self.image]
        return [*out, PROFILE, profile, OUT, str(self.folder)]
