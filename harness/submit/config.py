"""``harness submit``'s options as a typed overrides record, and its one config builder.

Like a measurement kind's (harness/flags.py): every option is a field declared with
``option()``; the command registers them (:meth:`SubmitOverrides.add_arguments`) and
parses into the record; :func:`from_profile` builds :class:`SubmitConfig` from the
profile's ``[package]`` and ``[submit]`` sections and the record.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import ClassVar, Self

from harness.argtypes import http_url, positive_int
from harness.errors import ConfigError
from harness.flags import option
from harness.overrides import Overrides
from harness.paths import reports_dir
from harness.profiles import Profile, SubmitSpec
from harness.submit.gated import UNGATED_FLAG, GateRecord
from harness.submit.model import SubmitConfig
from harness.submit.preflight import read_api_key
from harness.submit.retry import RetryPolicy

# The record's fields a submit cannot go without.
REQUIRED = ("team_id", "api_url")
# Repeatable options: each given one is appended.
REPEATABLE = ("reports",)


@dataclass(frozen=True)
class SubmitOverrides(Overrides):
    COMMAND: ClassVar[str] = "submit"

    team_id: str | None = option("--team", metavar="TEAM", help="your team id")
    api_url: str | None = option(
        "--api-url",
        type=http_url,
        metavar="URL",
        help="the organiser's Submission API base URL (required)",
    )
    api_key_file: str | None = option(
        "--api-key-file",
        metavar="FILE",
        help="file holding the API key (default: $HARNESS_API_KEY)",
    )
    parallel: int = option(
        "--parallel",
        default=6,
        type=positive_int,
        help="parts in flight (default %(default)s; 4–8 is right for S3)",
    )
    attempts: int = option(
        "--attempts",
        default=8,
        type=positive_int,
        help="tries per part before giving up (default %(default)s)",
    )
    restart: bool = option(
        "--restart", default=False, help="discard the saved upload state and start over"
    )
    resubmit: bool = option(
        "--resubmit",
        default=False,
        help="send /submit although an earlier run's /submit got no answer, or with --restart"
        " after a submission (only after checking with the organiser: a second"
        " submission costs the day)",
    )
    ungated_ok: bool = option(
        UNGATED_FLAG,
        default=False,
        help="submit although the archive's image was never gated or its last gate verdict is"
        " not PASS; recorded in submit.json (default: off, such a submit stops before any"
        " organiser call)",
    )
    reports: tuple[str, ...] = option(
        "--reports",
        default=(),
        metavar="DIR",
        help="also look for the image's gate.json in DIR and its sub-folders, repeatable"
        " (default: the reports folder only, $HARNESS_REPORTS_DIR or reports/)",
    )
    dry_run: bool = option(
        "--dry-run",
        default=False,
        help="run every local check (the whole pre-flight), make no network call (default: off)",
    )
    skip_archive_check: bool = option(
        "--skip-archive-check",
        default=False,
        help="upload without reading the archive through (gzip, tar, manifest, config); still"
        " hashed and compared with package.json; recorded in submit.json (default: off)",
    )

    @classmethod
    def add_arguments(
        cls,
        p: argparse.ArgumentParser,
        *,
        only: Collection[str] | None = None,
        required: Collection[str] = REQUIRED,
    ) -> None:
        """The record's flags in order; a repeatable one (``--reports``) appends."""
        for f, spec in cls.flags():
            if f.name in REPEATABLE:
                p.add_argument(
                    spec.name, dest=f.name, action="append", default=[], metavar=spec.metavar,
                    help=spec.help,
                )  # fmt: skip
            else:
                super().add_arguments(p, only=(f.name,), required=required)

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Self:
        return replace(super().from_args(args), reports=tuple(getattr(args, "reports", ())))


def gate_folders(o: SubmitOverrides) -> list[Path]:
    """Where the image's gate verdicts are looked for: the reports folder, then ``--reports``."""
    return [reports_dir(), *(Path(d) for d in o.reports)]


def from_profile(
    profile: Profile,
    archive: Path,
    o: SubmitOverrides,
    *,
    gate_records: Callable[[Iterable[Path]], list[GateRecord]],
    warn: Callable[[str], None],
) -> SubmitConfig:
    """The submit's config: the profile's ``[package]`` and ``[submit]``, then the options.

    ``gate_records`` reads the gate verdicts in folders (the gate's reader, which sits
    above this package); ``warn`` says what is worth a warning (an API key file others can
    read). The API key is read here, except for a dry run, which sends nothing."""
    if profile.package is None:
        raise ConfigError(f"profile {profile.name!r} has no [package] section")
    if o.team_id is None or o.api_url is None:
        raise ConfigError("--team and --api-url are required", hint="see harness submit --help")
    folders = gate_folders(o)
    return SubmitConfig(
        archive=archive,
        team_id=o.team_id,
        api_url=o.api_url,
        api_key="" if o.dry_run else read_api_key(o.api_key_file, warn),
        package=profile.package,
        submit=profile.submit or SubmitSpec(),
        parallel=o.parallel,
        restart=o.restart,
        resubmit=o.resubmit,
        dry_run=o.dry_run,
        skip_archive_check=o.skip_archive_check,
        policy=RetryPolicy(attempts=o.attempts),
        ungated_ok=o.ungated_ok,
        gate_records=lambda: gate_records(folders),
        gate_where=" or ".join(str(f) for f in folders),
        package_folders=folders,
    )
