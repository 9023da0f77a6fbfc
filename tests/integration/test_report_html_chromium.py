"""report.html opened in headless Chromium (Debian's ``chromium``): every plot decodes and shows.

Two real renderings of each page: a screenshot (checked to be non-blank, and
non-blank inside each plot's on-screen box), and a DOM dump of a copy of the
page with a probe script appended that lists each ``<img>``'s natural size after
load. The report itself carries no script. Set ``HARNESS_ARTIFACTS_DIR`` to keep
the screenshots. Each report kind's run page is checked in the rendered DOM:
its sections, and the tables and plots inside each (tests/fixtures/report_kinds.py).
"""

from __future__ import annotations

import base64
import io
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from PIL import Image, ImageStat

from harness.cli import main
from tests.fixtures.report_kinds import EXPECTED, make_kinds, structure
from tests.unit.test_report_data import make_history

pytestmark = pytest.mark.timeout(300)

WIDTH, HEIGHT = 1280, 2400
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    f"--window-size={WIDTH},{HEIGHT}",
]
PROBE = """<script>
window.addEventListener("load", () => {
  const rows = [...document.images].map((i) => {
    const r = i.getBoundingClientRect();
    return [i.id, i.complete, i.naturalWidth, i.naturalHeight,
            Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height)].join(",");
  });
  const pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = rows.join(";");
  document.body.appendChild(pre);
});
</script></body>"""
PROBE_OUT = re.compile(r'<pre id="probe">([^<]*)</pre>')
EMBEDDED = re.compile(r'<img id="(plot-[a-z-]+)"[^>]*src="data:image/png;base64,([^"]+)"')


@dataclass(frozen=True)
class Shown:
    id: str
    complete: bool
    natural: tuple[int, int]
    box: tuple[int, int, int, int]  # left, top, width, height in CSS px


def chromium() -> str:
    exe = shutil.which("chromium")
    if exe is None:
        pytest.fail("chromium is not installed: run `make setup-system` (apt-get install chromium)")
    return exe


def browse(page: Path, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [chromium(), *FLAGS, f"--user-data-dir={profile}", *args, page.resolve().as_uri()]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def screenshot(page: Path, tmp: Path) -> Image.Image:
    png = tmp / f"{page.stem}.png"
    browse(page, tmp / "profile-shot", f"--screenshot={png}")
    img = Image.open(png).convert("RGB")
    if artifacts := os.environ.get("HARNESS_ARTIFACTS_DIR"):
        Path(artifacts).mkdir(parents=True, exist_ok=True)
        shutil.copy(png, Path(artifacts) / f"report-{page.parent.name}-{page.stem}.png")
    return img


def rendered(page: Path, tmp: Path) -> tuple[str, list[Shown]]:
    """The DOM Chromium built from the page, and each image as it was shown."""
    probe = tmp / f"{page.stem}-probe.html"
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE), encoding="utf-8")
    dom = browse(probe, tmp / "profile-dom", "--dump-dom", "--virtual-time-budget=10000").stdout
    found = PROBE_OUT.search(dom)
    assert found, "the probe did not run: no load event in the dumped DOM"
    out = []
    for row in filter(None, found.group(1).split(";")):
        iid, complete, nw, nh, left, top, w, h = row.split(",")
        out.append(
            Shown(
                iid, complete == "true", (int(nw), int(nh)), (int(left), int(top), int(w), int(h))
            )
        )
    return dom, out


def embedded_sizes(page: Path) -> dict[str, tuple[int, int]]:
    sizes = {}
    for iid, b64 in EMBEDDED.findall(page.read_text(encoding="utf-8")):
        sizes[iid] = Image.open(io.BytesIO(base64.b64decode(b64))).size
    return sizes


def check_page(page: Path, tmp: Path, expected: list[str]) -> str:
    """Every plot decodes and shows; returns the rendered DOM."""
    sizes = embedded_sizes(page)
    assert list(sizes) == expected
    dom, shown = rendered(page, tmp)
    assert [s.id for s in shown] == expected
    for s in shown:
        # decoded by the browser at the PNG's own size: the image rendered, not a broken icon
        assert s.complete and s.natural == sizes[s.id] and s.natural[0] > 300, s
    shot = screenshot(page, tmp)
    assert shot.size == (WIDTH, HEIGHT)
    # text alone (a check run's page) varies less than a page with plots
    assert max(ImageStat.Stat(shot).stddev) > (20 if expected else 5), "the screenshot is blank"
    visible = [s for s in shown if s.box[1] + s.box[3] <= HEIGHT]
    assert visible or not expected, "no plot within the screenshot"
    for s in visible:
        left, top, w, h = s.box
        region = shot.crop((left, top, left + w, top + h))
        colors = region.getcolors(maxcolors=1 << 16)
        assert colors is None or len(colors) > 8, f"{s.id} is blank in the screenshot"
        assert max(ImageStat.Stat(region).stddev) > 10, f"{s.id} is flat in the screenshot"
    return dom


def test_ledger_report_renders_in_chromium(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    make_history(reports)
    assert main(["report", "--reports-dir", str(reports), "--quiet"]) == 0
    check_page(
        reports / "report.html",
        tmp_path,
        ["plot-score", "plot-waterfall", "plot-buckets", "plot-distributions", "plot-quality"],
    )


def test_run_report_renders_in_chromium(tmp_path: Path) -> None:
    folder = make_history(tmp_path / "reports")[2]
    assert main(["report", str(folder), "--quiet"]) == 0
    check_page(
        folder / "report.html", tmp_path, ["plot-buckets", "plot-distributions", "plot-quality"]
    )


@pytest.fixture(scope="module")
def kinds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return make_kinds(tmp_path_factory.mktemp("kinds"))


@pytest.mark.parametrize("kind", list(EXPECTED))
def test_every_kind_renders_in_chromium(kinds: dict[str, Path], tmp_path: Path, kind: str) -> None:
    """The rendered DOM holds the kind's sections, and inside each its tables and plots."""
    folder = kinds[kind]
    assert main(["report", str(folder), "--quiet"]) == 0
    plots = [f"plot-{p}" for _, shown in EXPECTED[kind].values() for p in shown]
    dom = check_page(folder / "report.html", tmp_path, plots)
    assert structure(dom) == EXPECTED[kind]
