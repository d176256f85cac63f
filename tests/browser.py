"""A real browser for the tests: Debian's Chromium, headless, one process per page.

``render(url)`` loads a page with a virtual-time budget (so its scripts run and its
fetches return), and gives the DOM as it stands afterwards (``--dump-dom``) and, when
asked, a PNG screenshot of the window (``--screenshot``), from one Chromium run with a new
temporary profile. ``probe_images(html_file)`` tells, for every ``<img>`` of a local page,
whether the browser decoded it (its natural size). ``not_blank(png)`` checks that a
screenshot shows something. ``Page`` parses a DOM: title, visible text, images, tables.

The tests run as root, hence ``--no-sandbox``; the network-facing background services are
off so that a run depends only on the page.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import numpy as np

CHROMIUM_MISSING = "no Chromium (Debian package chromium)"

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio")


class BrowserError(RuntimeError):
    """Chromium failed: the command, its exit code and the tail of its stderr."""


def find_chromium() -> str | None:
    """The Chromium binary: Debian's ``/usr/bin/chromium``, else ``chromium`` on PATH."""
    if os.access("/usr/bin/chromium", os.X_OK):
        return "/usr/bin/chromium"
    return shutil.which("chromium")


def _tail(text: str, lines: int = 20) -> str:
    """The last lines of Chromium's stderr, without its D-Bus complaints (no bus here)."""
    kept = [line for line in text.strip().splitlines() if "dbus/" not in line]
    return "\n".join(kept[-lines:]) or "(empty)"


@dataclass
class Rendered:
    dom: str
    screenshot: Path | None


def render(url: str, *, screenshot: Path | str | None = None, budget_ms: int = 3000,
           window: tuple[int, int] = (1280, 2000), timeout: float = 120.0) -> Rendered:
    """Load ``url`` headless, let ``budget_ms`` of virtual time pass, return the DOM after
    JavaScript ran and (if ``screenshot`` is a path) a PNG of the window there."""
    binary = find_chromium()
    if binary is None:
        raise BrowserError(CHROMIUM_MISSING)
    profile = tempfile.mkdtemp(prefix="paretostab-chromium-")
    command = [binary, *FLAGS, f"--user-data-dir={profile}",
               f"--virtual-time-budget={budget_ms}", "--dump-dom"]
    if screenshot is not None:
        screenshot = Path(screenshot)
        screenshot.unlink(missing_ok=True)
        command += [f"--screenshot={screenshot}", f"--window-size={window[0]},{window[1]}"]
    command.append(url)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as error:
        stderr = error.stderr.decode(errors="replace") if isinstance(error.stderr, bytes) \
            else (error.stderr or "")
        raise BrowserError(f"Chromium did not finish {url} in {timeout:.0f} s: "
                           f"{' '.join(command)}\n--- stderr (tail) ---\n{_tail(stderr)}") from None
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    problem = None
    if done.returncode != 0:
        problem = f"exit code {done.returncode}"
    elif "<html" not in done.stdout.lower():
        problem = "no DOM on stdout"
    elif screenshot is not None and not (screenshot.is_file() and screenshot.stat().st_size):
        problem = f"no screenshot written to {screenshot}"
    if problem:
        raise BrowserError(f"Chromium failed on {url} ({problem}): {' '.join(command)}\n"
                           f"--- stderr (tail) ---\n{_tail(done.stderr)}")
    return Rendered(dom=done.stdout, screenshot=screenshot)


_PROBE = """<script>
window.addEventListener("load", () => {
  const rows = Array.from(document.images, (img) => ({
    src: img.getAttribute("src") || "", complete: img.complete,
    width: img.naturalWidth, height: img.naturalHeight}));
  const out = document.createElement("pre");
  out.id = "paretostab-image-probe";
  out.textContent = JSON.stringify(rows);
  document.body.appendChild(out);
});
</script>"""


def probe_images(html_file: Path | str, *, budget_ms: int = 3000) -> list[dict]:
    """For every ``<img>`` of a local HTML page, what the browser made of it: ``src``
    (shortened), ``complete`` and the decoded ``width``/``height`` (0 when it did not
    load). The page is copied beside itself (same folder, so relative paths resolve)
    with a small script added; the original is not touched."""
    html_file = Path(html_file)
    text = html_file.read_text(encoding="utf-8")
    at = text.lower().rfind("</body>")
    probed = text[:at] + _PROBE + text[at:] if at >= 0 else text + _PROBE
    copy = html_file.with_name(f".probe-{os.getpid()}-{html_file.name}")
    copy.write_text(probed, encoding="utf-8")
    try:
        dom = render(copy.resolve().as_uri(), budget_ms=budget_ms).dom
    finally:
        copy.unlink(missing_ok=True)
    found = Page(dom).element_text("paretostab-image-probe")
    if found is None:
        raise BrowserError(f"the image probe did not run on {html_file}")
    rows = json.loads(found)
    for row in rows:
        if len(row["src"]) > 80:
            row["src"] = row["src"][:77] + "..."
    return rows


def image_stats(png_path: Path | str) -> tuple[int, float]:
    """(distinct colours, standard deviation of the 0–255 channel values) of an image."""
    try:
        from PIL import Image
    except ImportError:
        import matplotlib.image

        pixels = matplotlib.image.imread(str(png_path))[..., :3].astype(np.float64)
        if pixels.max() <= 1.0:
            pixels = pixels * 255.0
    else:
        with Image.open(png_path) as image:
            pixels = np.asarray(image.convert("RGB"), dtype=np.float64)
    flat = pixels.reshape(-1, 3).round().astype(np.int64)
    colours = np.unique(flat[:, 0] * 65536 + flat[:, 1] * 256 + flat[:, 2]).size
    return int(colours), float(pixels.std())


def not_blank(png_path: Path | str, *, min_colours: int = 16, min_std: float = 8.0) -> bool:
    """Whether a screenshot shows something: more than a handful of distinct colours and
    a non-trivial spread of the pixel values (a blank or single-colour page has neither)."""
    colours, std = image_stats(png_path)
    return colours >= min_colours and std >= min_std


class Page(HTMLParser):
    """A rendered DOM, parsed: ``title``, ``text`` (visible text, whitespace collapsed),
    ``images`` (attribute dicts of every ``<img>``), ``tables`` (the text of each
    ``<table>``, cells separated by spaces) and the text of every element with an id
    (``element_text``)."""

    VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
                      "meta", "source", "track", "wbr"})
    HIDDEN = frozenset({"script", "style", "noscript", "template"})

    def __init__(self, dom: str):
        super().__init__(convert_charrefs=True)
        self.title = ""
        self.images: list[dict] = []
        self._tables: list[list[str]] = []
        self._open: list[tuple[str, str, int]] = []  # (tag, id, table index) of open elements
        self._hidden = 0
        self._in_title = False
        self._parts: list[str] = []
        self._by_id: dict[str, list[str]] = {}
        self.feed(dom)
        self.close()
        self.text = " ".join(" ".join(self._parts).split())
        self.tables = [" ".join(" ".join(parts).split()) for parts in self._tables]

    def __repr__(self):
        return f"Page(title={self.title!r}, {len(self.text)} characters of text)"

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "img":
            self.images.append(attrs)
        if tag in self.VOID:
            return
        table = -1
        if tag == "table":
            table = len(self._tables)
            self._tables.append([])
        self._hidden += tag in self.HIDDEN
        self._in_title = self._in_title or tag == "title"
        element_id = attrs.get("id") or ""
        if element_id:
            self._by_id.setdefault(element_id, [])
        self._open.append((tag, element_id, table))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in self.VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        for i in range(len(self._open) - 1, -1, -1):  # HTML may leave end tags out
            if self._open[i][0] == tag:
                closed = self._open[i:]
                del self._open[i:]
                self._hidden -= sum(t in self.HIDDEN for t, _, _ in closed)
                if any(t == "title" for t, _, _ in closed):
                    self._in_title = False
                break

    def handle_data(self, data):
        if self._in_title:
            self.title += data
            return
        tables = [table for _, _, table in self._open if table >= 0]
        for _, element_id, _ in self._open:
            if element_id:
                self._by_id[element_id].append(data)
        if tables and not self._hidden:
            self._tables[tables[-1]].append(data)  # the innermost open table
        if not self._hidden:
            self._parts.append(data)

    def element_text(self, element_id: str) -> str | None:
        """The text inside the element with this id (None when there is none)."""
        found = self._by_id.get(element_id)
        return None if found is None else "".join(found)
