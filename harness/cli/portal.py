"""``harness portal``: a local organiser API (plus S3) to rehearse ``harness submit``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from collections.abc import Iterator

from aiohttp import web

from harness.cli.common import add_json, http_url, make_console, port_number, positive_int
from harness.client.urls import url_of
from harness.errors import EXIT_OK, UsageError
from harness.portal.app import Portal, PortalConfig
from harness.portal.s3proxy import S3Proxy
from harness.portal.serve import background_app, moto_s3
from harness.profiles import DEFAULT_PROFILE, load_profile
from harness.target import PROFILE


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "portal",
        help="local emulator of the organiser's Submission API (S3 via boto3; moto by default)",
    )
    p.add_argument("--host", default="127.0.0.1", help="listen address (default %(default)s)")
    p.add_argument(
        "--port",
        type=port_number,
        default=8000,
        help="listen port (default %(default)s; 0 = any free port)",
    )
    p.add_argument(
        "--s3-endpoint",
        type=http_url,
        metavar="URL",
        help="S3 endpoint to store uploads (default: an in-process moto server)",
    )
    p.add_argument(
        "--bucket",
        default="submissions",
        metavar="NAME",
        help="S3 bucket the uploads go to, created if missing (default: %(default)s)",
    )
    p.add_argument(
        PROFILE,
        help=f"the organiser to rehearse: its key header, single-PUT limit, URL lifetime and "
        f"daily limit come from the profile's [submit] (default: {DEFAULT_PROFILE})",
    )
    p.add_argument(
        "--api-key",
        metavar="KEY",
        help="require this key in the profile's key header (default: none, any caller is accepted)",
    )
    p.add_argument(
        "--single-max-bytes",
        type=positive_int,
        metavar="BYTES",
        help="largest single PUT in bytes (default: the profile's, {default:submit.single_max_bytes:bytes})",
    )
    p.add_argument(
        "--part-size",
        type=positive_int,
        default=100 * 1024 * 1024,
        metavar="BYTES",
        help="multipart part size in bytes (default 100 MiB)",
    )
    p.add_argument(
        "--url-expiry-s",
        type=positive_int,
        metavar="S",
        help="presigned URL lifetime in s (default: the profile's, {default:submit.single_url_expiry_s})",
    )
    limit = p.add_mutually_exclusive_group()
    limit.add_argument(
        "--submissions-per-day",
        type=positive_int,
        metavar="N",
        help="enforce this daily limit per team (default: none, so rehearsals can repeat)",
    )
    limit.add_argument(
        "--daily-limit",
        action="store_true",
        help="enforce the profile's daily limit per team ({default:submit.submissions_per_day} for {default:name}; default: off)",
    )
    p.add_argument(
        "--repeat-complete-s",
        type=float,
        default=600.0,
        metavar="S",
        help="answer a repeated /complete-upload with the first 200 for S seconds, then"
        " 404 NoSuchUpload, like S3 (default %(default)s; 0 = always NoSuchUpload)",
    )
    p.add_argument(
        "--no-strict",
        action="store_true",
        help="hand out URLs straight to S3 (default: through a proxy that rejects what real S3 rejects)",
    )
    add_json(p, help="(accepted for symmetry; the portal prints its URL)")
    p.add_argument("--quiet", action="store_true", help="no banner")
    p.set_defaults(func=run)


@contextlib.contextmanager
def _s3(args: argparse.Namespace) -> Iterator[str]:
    if args.s3_endpoint:
        yield args.s3_endpoint
        return
    # moto enforces S3's 5 MiB part minimum unless told otherwise; match --part-size.
    with moto_s3(part_min_bytes=min(args.part_size, 5 * 1024 * 1024)) as url:
        yield url


async def _serve(portal: Portal, host: str, port: int) -> tuple[web.AppRunner, int]:
    runner = web.AppRunner(portal.app(), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    return runner, int(runner.addresses[0][1])


def run(args: argparse.Namespace) -> int:
    console = make_console(args)
    profile = load_profile(args.profile)
    organiser = profile.submit
    if organiser is None:
        raise UsageError(
            f"profile {profile.name!r} has no [submit] section: no organiser to rehearse",
            hint="pass --profile efficient-qwen (or a profile with [submit])",
        )
    with _s3(args) as s3_url, contextlib.ExitStack() as stack:
        endpoint = s3_url
        if not args.no_strict:
            proxy = S3Proxy(upstream=s3_url)
            endpoint = stack.enter_context(background_app(proxy.app))
        cfg = PortalConfig(
            s3_endpoint=endpoint,
            bucket=args.bucket,
            api_key=args.api_key,
            header=organiser.header,
            single_max_bytes=args.single_max_bytes or organiser.single_max_bytes,
            part_size=args.part_size,
            url_expiry_s=args.url_expiry_s or organiser.single_url_expiry_s,
            submissions_per_day=organiser.submissions_per_day
            if args.daily_limit
            else args.submissions_per_day,
            repeat_complete_s=args.repeat_complete_s,
            rules=organiser,
        )
        portal = Portal(cfg)
        try:
            portal.ensure_bucket()
        except Exception as err:  # boto3/botocore raise many types; all mean "S3 not usable"
            raise UsageError(
                f"cannot use S3 at {s3_url}: {type(err).__name__}", hint="check --s3-endpoint"
            ) from None

        async def main() -> None:
            runner, port = await _serve(portal, args.host, args.port)
            # S3's own address, and the proxy's when presigned URLs go through it
            s3 = f"S3 at {s3_url}"
            if endpoint != s3_url:
                s3 += f", reached through a strict proxy at {endpoint}"
            banner = f"portal on {url_of(args.host, port)}  ({s3}; bucket {args.bucket})"
            console.print(banner, soft_wrap=True)  # one line: the URLs are copied from it
            console.print("Ctrl-C to stop")
            try:
                await asyncio.Event().wait()
            finally:
                await runner.cleanup()

        try:
            asyncio.run(main())
        except OSError as err:
            raise UsageError(
                f"cannot listen on {args.host}:{args.port}: {err.strerror}",
                hint="pick another --port (0 picks a free one)",
            ) from None
    return EXIT_OK
