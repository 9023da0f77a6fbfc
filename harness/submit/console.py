"""``harness submit`` on the console: byte progress while it hashes and uploads, the
report's view once it is done, and what a stopped run left and how it goes on."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from harness.console_hooks import byte_progress
from harness.submit.model import Hooks, SubmitConfig, SubmitReport
from harness.submit.resume import resume_command, resume_note
from harness.submit.state import load_state, state_path
from harness.submit.views import sections
from harness.view.console import print_sections


class ConsoleProgress:
    """Two byte bars, ``verify`` then ``upload``, and the core's messages; ``hooks`` is
    what the core is given; ``close`` removes the bars."""

    def __init__(self, console: Console, archive: Path) -> None:
        self.bar = byte_progress(console)
        self.bar.start()
        size = archive.stat().st_size if archive.is_file() else 0
        self._hashing = self.bar.add_task("verify", total=size)
        self._upload = self.bar.add_task("upload", total=size, visible=False)
        self.hooks = Hooks(
            say=lambda msg: console.print(msg),
            hash_bytes=lambda n: self.bar.advance(self._hashing, n),
            start_upload=self._start_upload,
            sent_bytes=lambda n: self.bar.advance(self._upload, n),
        )

    def _start_upload(self, total: int, done: int) -> None:
        self.bar.update(self._hashing, visible=False)
        self.bar.update(self._upload, total=total, completed=done, visible=True)

    def close(self) -> None:
        self.bar.stop()


def render(console: Console, report: SubmitReport, folder: Path) -> None:
    print_sections(console, sections(report))
    if report.submission_id:
        console.print(f"[green]submission_id[/] {report.submission_id}")
    console.print(f"report: {folder / report.FILENAME}")


def stopped_note(cfg: SubmitConfig, folder: Path, argv: Sequence[str]) -> str:
    """Ctrl-C / SIGTERM: what is saved where, and the exact command that goes on."""
    spath = state_path(cfg.archive)
    note = resume_note(load_state(spath), resume_command(argv))
    saved = [p.name for p in (spath,) if p.exists()]
    if (folder / SubmitReport.FILENAME).exists():
        saved.append(str(folder / SubmitReport.FILENAME))
    where = f" (saved: {', '.join(saved)})" if saved else ""
    return f"submit stopped: {note}{where}"
