"""SPACE.toml: how to start a candidate, what may vary, the baseline, the budget.

One typed model (``extra="forbid"`` everywhere): a misspelt key is an error naming it,
exit 2, before anything is started (docs/tune.md, "SPACE.toml").
"""

from __future__ import annotations

import json
import math
import re
import shlex
import string
import tomllib
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    Field,
    ValidationError,
    model_validator,
)

from harness.errors import ConfigError
from harness.profiles import Profile, available_profiles, load_profile
from harness.tune.space import conditions
from harness.tune.space.parts import Budget as Budget
from harness.tune.space.parts import Choice as Choice
from harness.tune.space.parts import Confirm as Confirm
from harness.tune.space.parts import Match as Match
from harness.tune.space.parts import Param as Param
from harness.tune.space.parts import Race as Race
from harness.tune.space.parts import Range as Range
from harness.tune.space.parts import TuneOptions as TuneOptions
from harness.tune.space.serve import Serve as Serve
from harness.tune.space.serve import Strict
from harness.tune.space.slo import Slo

NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_FORMAT = string.Formatter()


class Space(Strict):
    name: str | None = None  # the tune's name and ledger experiment (default: the file's stem)
    profile: str = "efficient-qwen"
    serve: Serve
    params: dict[str, Param] = Field(min_length=1)
    baseline: dict[str, Choice] = Field(default_factory=dict)
    budget: Budget = Field(default_factory=lambda: Budget(trials=20))
    options: TuneOptions = Field(default_factory=TuneOptions)
    confirm: Confirm = Field(default_factory=Confirm)
    race: Race = Field(default_factory=Race)
    # [params.NAME] when = {...}: moved here from each parameter's table (see _lift_when)
    when: dict[str, Match] = Field(default_factory=dict)
    exclude: list[Annotated[Match, Field(min_length=1)]] = Field(default_factory=list)
    slo: list[Slo] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _lift_when(cls, data: Any) -> Any:
        """``[params.NAME]`` tables may carry ``when``; a choice list may be written as a
        table ``choices = [...]`` to carry one. Both become plain parameters here, their
        conditions collected into ``when``."""
        if not isinstance(data, dict) or not isinstance(data.get("params"), dict):
            return data
        if "when" in data:
            raise ValueError("when: a condition goes in its parameter's table: [params.NAME] when")
        params: dict[str, Any] = {}
        when: dict[str, Any] = {}
        for name, p in data["params"].items():
            if isinstance(p, dict) and "when" in p:
                p = {k: v for k, v in p.items() if k != "when"}
                when[name] = data["params"][name]["when"]
            if isinstance(p, dict) and set(p) == {"choices"}:
                p = p["choices"]
            params[name] = p
        return {**data, "params": params, "when": when}

    @model_validator(mode="after")
    def _consistent(self) -> Space:
        for name in self.params:
            if not NAME_RE.match(name) or name == "port":
                raise ValueError(
                    f"params.{name}: a parameter is named like an identifier, not port"
                )
        for name, value in self.baseline.items():
            if name not in self.params:
                raise ValueError(f"baseline.{name}: not a parameter ({', '.join(self.params)})")
            if not allowed(self.params[name], value):
                raise ValueError(f"baseline.{name}: {value!r} is not in its parameter's values")
        self._check_conditions()
        self._check_templates()
        for i, slo in enumerate(self.slo):
            if slo.uses_baseline and not self.baseline:
                raise ValueError(f'slo.{i}: a "baseline" bound needs a [baseline]')
        return self

    def _check_templates(self) -> None:
        """Every ``{NAME}`` of serve's templates is ``{port}`` or a parameter: a misspelt one
        is refused when the file is read, before any data check or candidate."""
        serve = self.serve
        templates = {"serve.command": serve.command or "", "serve.args": serve.args}
        templates |= {"serve.url": serve.url} if serve.image is None else {}
        templates |= {f"serve.env.{k}": v for k, v in serve.env.items()}
        known = ["port", *self.params]
        for where, template in templates.items():
            try:
                parsed = [p for p in string.Formatter().parse(template) if p[1] is not None]
            except ValueError as err:
                raise ValueError(f"{where}: bad template ({err})") from None
            for _, field, spec, conv in parsed:
                if spec or conv:
                    raise ValueError(
                        f"{where}: {{{field}}} takes no format spec or conversion "
                        f"(write {{{field}}}: the value is inserted as written)"
                    )
                if field not in known:
                    allowed_ = ", ".join("{" + k + "}" for k in known)
                    raise ValueError(
                        f"{where}: unknown placeholder {{{field}}} (a template may use {allowed_})"
                    )
        for where in ("serve.command", "serve.args"):
            self._check_quotes(where, templates[where])

    def _check_quotes(self, where: str, template: str) -> None:
        """The command is split like a shell would: a quote left open, in the template or in
        a value it takes, is refused now, not when the first trial is launched."""
        words = "".join(
            lit + ("x" if f is not None else "") for lit, f, _, _ in _FORMAT.parse(template)
        )
        try:
            shlex.split(words)
        except ValueError as err:
            raise ValueError(f"{where}: {err} (it is split like a shell would)") from None
        for name, param in self.params.items():
            if "{" + name + "}" not in template or not isinstance(param, list):
                continue
            for value in param:
                try:
                    shlex.split(str(value))
                except ValueError as err:
                    raise ValueError(
                        f"params.{name}: {value!r}: {err} (it goes into {where}, split like a "
                        "shell would)"
                    ) from None

    def _check_match(self, where: str, match: Match, owner: str | None = None) -> None:
        for key, raw in match.items():
            if key == owner:
                raise ValueError(f"{where}.{key}: a parameter's condition cannot name itself")
            if key not in self.params:
                others = ", ".join(k for k in self.params if k != owner)
                raise ValueError(f"{where}.{key}: not a parameter ({others})")
            param = self.params[key]
            if not isinstance(param, list):
                raise ValueError(f"{where}.{key}: a range; conditions name choice parameters")
            for value in raw if isinstance(raw, list) else [raw]:
                if not allowed(param, value):
                    raise ValueError(f"{where}.{key}: {value!r} is not in its parameter's values")

    def _check_conditions(self) -> None:
        for name, match in self.when.items():
            self._check_match(f"params.{name}.when", match, owner=name)
        for i, rule in enumerate(self.exclude):
            self._check_match(f"exclude.{i}", rule)
        names = list(self.params)
        conditions.order(names, self.conditions())  # a cycle is refused
        base = self.baseline
        for name in base:
            cond = self.conditions().get(name)
            known = cond is not None and all(k in base for k in cond)
            if cond is not None and known and not conditions.matches(cond, base):
                raise ValueError(
                    f"baseline.{name}: inactive in the baseline (params.{name}.when: "
                    f"{conditions.rule_text(cond)}); leave it out"
                )
        hit = conditions.excluded_by(self.exclusions(), base) if base else None
        if hit is not None:
            raise ValueError(f"baseline: excluded by exclude.{hit}")
        if self.conditional and not self.grid_points():
            raise ValueError("exclude: every combination of the parameters is excluded")

    @property
    def profile_arg(self) -> str | None:
        """A profile file's path, as a command line names it (``--profile PATH``); None for
        a shipped profile's name."""
        return self.profile if self.profile.endswith(".toml") else None

    @property
    def conditional(self) -> bool:
        """Conditions or exclusions: the grid is built from its valid points."""
        return bool(self.when or self.exclude)

    def conditions(self) -> dict[str, dict[str, list[Choice]]]:
        return {name: _lists(cond) for name, cond in self.when.items()}

    def exclusions(self) -> list[dict[str, list[Choice]]]:
        return [_lists(rule) for rule in self.exclude]

    def grid_points(self, seed: int | None = None) -> list[dict[str, Choice]]:
        """Every valid point of the choice parameters (the whole point of an all-choice
        space; ranges are left out): harness/tune/space/conditions.py."""
        choices = {k: p for k, p in self.params.items() if isinstance(p, list)}
        return conditions.grid_points(
            choices, self.conditions(), self.exclusions(), self.baseline, seed
        )

    def all_choices(self) -> bool:
        return all(isinstance(p, list) for p in self.params.values())

    def grid_size(self) -> int | None:
        if not self.all_choices():
            return None
        if self.conditional:
            return len(self.grid_points())
        return math.prod(len(p) for p in self.params.values() if isinstance(p, list))


def _lists(match: Match) -> dict[str, list[Choice]]:
    return {k: v if isinstance(v, list) else [v] for k, v in match.items()}


def allowed(param: Param, value: Choice) -> bool:
    if isinstance(param, list):
        return any(type(v) is type(value) and v == value for v in param)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if param.is_int and not isinstance(value, int):
        return False
    return param.low <= value <= param.high


def _where(loc: tuple[int | str, ...]) -> str:
    # pydantic's union branches add type names ("list[...]", "Range"): keep the keys
    return ".".join(str(p) for p in loc if not (isinstance(p, str) and ("[" in p or p == "Range")))


def _other_branch(error: Any) -> bool:
    """A parameter is a choice list or a range: pydantic reports both branches' errors, and
    the one for the shape not given ("Input should be a valid list" for a range) says
    nothing (a reversed range must say ``high 1 < low 5``)."""
    given = error.get("input")
    if error["type"] == "list_type":
        return isinstance(given, dict)
    return error["type"] in ("model_type", "model_attributes_type") and isinstance(given, list)


def parse_space(text: str, source: str = "SPACE.toml") -> Space:
    """The file's text as a :class:`Space`; a ConfigError naming the first bad key."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(
            f"{source}: not valid TOML ({err})",
            hint="fix the line it names; docs/tune.md has a SPACE.toml to start from",
        ) from None
    try:
        return Space.model_validate(data)
    except ValidationError as err:
        errors = err.errors()
        first = next((e for e in errors if not _other_branch(e)), errors[0])
        where = _where(first["loc"])
        msg = first["msg"].removeprefix("Value error, ")
        raise ConfigError(
            f"{source}: {where}: {msg}" if where else f"{source}: {msg}",
            hint="see docs/tune.md for the keys SPACE.toml takes",
        ) from None


def load_space(path: Path) -> Space:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise ConfigError(
            f"cannot read {path}: {err.strerror or type(err).__name__}",
            hint="pass the path of a SPACE.toml",
        ) from None
    space = parse_space(text, path.name)
    if space.name is None:
        space = space.model_copy(update={"name": path.stem})
    if space.profile_arg is not None and not Path(space.profile).is_absolute():
        # relative to SPACE.toml's folder, wherever harness tune is started from
        space = space.model_copy(update={"profile": str((path.parent / space.profile).resolve())})
    return space


def pinned_text(text: str, space: Space) -> str:
    """The file's text for the tune folder's copy, with a relative profile path made the
    absolute one it resolved to (``--resume`` reads the copy from another folder)."""
    raw = tomllib.loads(text).get("profile")
    if raw is None or raw == space.profile:
        return text
    line = re.compile(r"""^(\s*profile\s*=\s*)(?:"[^"\n]*"|'[^'\n]*')""", re.M)
    return line.sub(lambda m: m.group(1) + json.dumps(space.profile), text, count=1)


def space_profile(space: Space, source: str = "SPACE.toml") -> Profile:
    """The profile SPACE.toml names; a missing one is an error about the file's key, not
    about a ``--profile`` flag harness tune does not have."""
    try:
        return load_profile(space.profile)
    except ConfigError as err:
        raise ConfigError(
            f"{source}: profile: {err.message}",
            hint=f"name a shipped profile ({', '.join(available_profiles())}) or a .toml file "
            "(a relative path is read from SPACE.toml's folder)",
        ) from None
