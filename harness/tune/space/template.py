"""A candidate's launch: the command and env templates filled with its parameter values,
and the parameter diff from the baseline (the trial's "what changed")."""

from __future__ import annotations

import json
import shlex
import string
from collections.abc import Collection, Mapping

from harness.errors import ConfigError
from harness.tune.space import Choice, Serve

_FORMATTER = string.Formatter()
# what an inactive parameter's placeholder fills (harness/tune/space/conditions.py): the shell
# word holding it is then left out of the command, and an env variable using it is unset
INACTIVE = "\x1finactive\x1f"


def render(value: Choice) -> str:
    """A parameter value as the command line gets it (``true``/``false`` for booleans)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def fill(
    template: str,
    values: Mapping[str, Choice],
    port: int,
    where: str,
    inactive: Collection[str] = (),
) -> str:
    """``template`` with ``{port}`` and each ``{NAME}`` filled (an ``inactive`` parameter:
    :data:`INACTIVE`); an unknown field is a ConfigError naming it (``where``: the key of
    SPACE.toml it comes from)."""
    fields = {"port": str(port), **{k: INACTIVE for k in inactive}}
    fields |= {k: render(v) for k, v in values.items()}
    out: list[str] = []
    try:
        parsed = list(_FORMATTER.parse(template))
    except ValueError as err:
        raise ConfigError(f"SPACE.toml: {where}: bad template ({err})") from None
    for literal, field, spec, conv in parsed:
        out.append(literal)
        if field is None:
            continue
        if field not in fields or spec or conv:
            known = ", ".join("{" + k + "}" for k in fields)
            raise ConfigError(
                f"SPACE.toml: {where}: unknown placeholder {{{field}}}",
                hint=f"a template may use {known}",
            )
        out.append(fields[field])
    return "".join(out)


def launch_argv(
    serve: Serve, values: Mapping[str, Choice], port: int, inactive: Collection[str] = ()
) -> list[str]:
    """The candidate's argv: the filled command split like a shell would (an empty value
    leaves no argument; a word holding an ``inactive`` parameter is left out)."""
    text = fill(serve.command or "", values, port, "serve.command", inactive)
    try:
        argv = [a for a in shlex.split(text) if INACTIVE not in a]
    except ValueError as err:
        raise ConfigError(f"SPACE.toml: serve.command: {err} in {text!r}") from None
    if not argv:
        raise ConfigError("SPACE.toml: serve.command: empty once filled")
    return argv


def launch_args(
    serve: Serve, values: Mapping[str, Choice], port: int, inactive: Collection[str] = ()
) -> list[str]:
    """An image candidate's container command (``args``, filled and split like a shell
    would; ``{port}`` is the profile's port inside the container; a word holding an
    ``inactive`` parameter is left out)."""
    text = fill(serve.args, values, port, "serve.args", inactive)
    try:
        return [a for a in shlex.split(text) if INACTIVE not in a]
    except ValueError as err:
        raise ConfigError(f"SPACE.toml: serve.args: {err} in {text!r}") from None


def docker_line(image: str, env: Mapping[str, str], args: list[str], port: int) -> str:
    """An image candidate's exact launch as one ``docker run`` line (its port published on
    the same port of this machine, as a competitor would try it by hand)."""
    parts = ["docker", "run", "--rm", "-p", f"{port}:{port}"]
    for k, v in env.items():
        parts += ["-e", f"{k}={v}"]
    return " ".join(shlex.quote(a) for a in [*parts, image, *args])


def dockerfile(image: str, env: Mapping[str, str], args: list[str]) -> str:
    """The image candidate baked into an image of its own: ``docker build -t T - <
    Dockerfile``, then ``harness package --image T``."""
    lines = [f"FROM {image}"]
    lines += [f"ENV {k}={json.dumps(v)}" for k, v in env.items()]
    if args:
        lines.append(f"CMD {json.dumps(args)}")
    return "\n".join(lines) + "\n"


def launch_env(
    serve: Serve, values: Mapping[str, Choice], port: int, inactive: Collection[str] = ()
) -> dict[str, str]:
    """The candidate's environment (a variable using an ``inactive`` parameter is unset)."""
    filled = {k: fill(v, values, port, f"serve.env.{k}", inactive) for k, v in serve.env.items()}
    return {k: v for k, v in filled.items() if INACTIVE not in v}


def launch_url(
    serve: Serve, values: Mapping[str, Choice], port: int, inactive: Collection[str] = ()
) -> str:
    return fill(serve.url, values, port, "serve.url", inactive).replace(INACTIVE, "")


def shell_line(argv: list[str], env: Mapping[str, str]) -> str:
    """The exact launch as one shell line: ``K=V … cmd args``."""
    pre = [f"{k}={shlex.quote(v)}" for k, v in env.items()]
    return " ".join([*pre, *(shlex.quote(a) for a in argv)])


def diff_text(values: Mapping[str, Choice], baseline: Mapping[str, Choice]) -> str:
    """What changed from the baseline: ``max_num_seqs 8→16, prefix_caching off→on``;
    ``baseline`` when nothing did."""
    parts = [
        f"{k} {render(baseline[k])}→{render(v)}" if k in baseline else f"{k}={render(v)}"
        for k, v in values.items()
        if k not in baseline or baseline[k] != v or type(baseline[k]) is not type(v)
    ]
    return ", ".join(parts) if parts else "baseline"
