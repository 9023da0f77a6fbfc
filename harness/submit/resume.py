"""What a stopped ``harness submit`` says to do next: an exact command, never a blind re-submit.

The advice names the command that resumes (the same archive, team, API and
options, without ``--restart``, which would discard the confirmed parts, and
without ``--resubmit``). Once ``/submit`` was sent (or may have been), the
advice says so, and the command it gives only records the situation: a re-run
refuses to send ``/submit`` again unless ``--resubmit`` is given
(docs/submit.md, "Kills and resume").
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from harness.submit.state import UploadState

# What does not carry over to the resuming command: a fresh start, a second submission,
# the stopped run's own folder (its submit.json stays as the record of that run).
_DROP_SWITCHES = ("--restart", "--resubmit", "--dry-run")
_DROP_VALUED = ("--out", "--name", "--note")


def resume_command(argv: Sequence[str]) -> str:
    """``argv`` (``harness submit …`` as given) less the options that must not repeat, quoted."""
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg in _DROP_SWITCHES:
            continue
        if arg in _DROP_VALUED:
            skip = True
            continue
        if arg.split("=", 1)[0] in _DROP_VALUED and "=" in arg:
            continue
        out.append(arg)
    return shlex.join(out)


def resume_note(state: UploadState | None, command: str) -> str:
    """What a stopped run left confirmed, and the command that goes on from there."""
    if state is None or (state.upload_id is None and not state.s3_key):
        return f"nothing was uploaded yet; to start the upload again run: {command}"
    if state.submission_id:
        return f"submitted as {state.submission_id}; nothing more to send ({command} reports it)"
    if state.submit_requested:
        return (
            f"/submit was sent for {state.s3_key} and its answer not seen: it may have arrived,"
            " so do not submit again; check your team's submissions with the organiser."
            f" `{command}` records this and sends nothing; only if none arrived, add --resubmit"
        )
    if state.uploaded:
        return f"the upload is complete, /submit was not sent; to submit it run: {command}"
    if state.complete_requested:
        return f"completion was requested; to ask again and submit run: {command}"
    if state.upload_type == "single":
        return f"the single PUT was not confirmed; to send the file again and submit run: {command}"
    n, total = len(state.parts), state.num_parts or 0
    return (
        f"{n} of {total} parts confirmed by S3; to send only the other {total - n} and submit"
        f" run: {command}"
    )
