"""In a real browser (headless Chromium, ``tests/browser.py``): the report's ``index.html``
and optuna-dashboard's study and trial pages on one small study, and the ``compare`` page
of it and a second study, as a person would open them — the DOM after the scripts ran,
every image decoded, and screenshots that are not blank. Set
``PARETOSTAB_SCREENSHOTS=folder`` to keep the screenshots there.

Skipped, saying so, only where no Chromium binary exists (``.ci/run`` installs Debian's).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import optuna
import pytest

from tests import servers
from tests.browser import (
    CHROMIUM_MISSING,
    Page,
    find_chromium,
    image_stats,
    not_blank,
    probe_images,
    render,
)
from tests.extras import need
from tests.studies import storage_url, write_spec
from tests.waiting import wait_until

pytestmark = pytest.mark.skipif(find_chromium() is None, reason=CHROMIUM_MISSING)

DASHBOARD_BUDGET_MS = 5000  # virtual time for the dashboard's app to fetch and draw


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """A tiny two-objective study (accuracy, φ_iw), tuned by the command line: its folder,
    storage URL and the Optuna study."""
    folder = tmp_path_factory.mktemp("browser")
    spec = write_spec(folder, "tiny", trials=6)
    url = storage_url(folder)
    subprocess.run([sys.executable, "-m", "paretostab", "tune", str(spec), "--storage", url],
                   capture_output=True, text=True, cwd=folder, check=True)
    return folder, url, optuna.load_study(study_name="tiny", storage=url)


def shot(tmp_path, name):
    """Where a screenshot goes: the test's folder, or $PARETOSTAB_SCREENSHOTS if set."""
    folder = Path(os.environ.get("PARETOSTAB_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder / name


def assert_not_blank(png):
    colours, std = image_stats(png)
    assert not_blank(png), f"{png} looks blank: {colours} colours, standard deviation {std:.1f}"


@pytest.mark.slow
def test_the_report_renders_with_its_figures_front_table_and_gamma_choice(study, tmp_path):
    folder, url, optuna_study = study
    out = tmp_path / "report"
    subprocess.run([sys.executable, "-m", "paretostab", "report", "--storage", url,
                    "--out", str(out), "--gamma", "0.6", "--replicates", "3"],
                   capture_output=True, text=True, cwd=folder, check=True)
    index = out / "index.html"
    png = shot(tmp_path, "report.png")
    dom = render(index.as_uri(), screenshot=png, window=(1280, 2400)).dom
    page = Page(dom)
    ids = set(re.findall(r'\sid="([^"]+)"', dom))
    targets = re.findall(r'href="#([^"]+)"', dom)
    assert {f"trial-{t.number}" for t in optuna_study.best_trials} <= set(targets)
    assert set(targets) <= ids, f"links without a target: {sorted(set(targets) - ids)}"

    assert page.title.startswith("paretostab report") and "tiny" in page.title, page.title
    text = page.text
    for name in ("accuracy", "φ_iw"):  # the objective names, the measure by its symbol
        assert name in text, f"{name!r} not on the page: {text[:500]}"
    assert "Pareto front" in text
    assert re.search(r"γ\s*=\s*0\.6", text), f"no γ = 0.6 choice on the page: {text[:800]}"
    summary = json.loads((out / "summary.json").read_text())
    chosen = summary["chosen"][0]
    section = page.element_text("chosen-trade-off") or ""
    assert f"chooses trial {chosen}" in section, f"no chosen trade-off section: {section[:500]}"
    for name in (*optuna_study.trials[chosen].params, "mean of 3 replicates", "φ_iw"):
        assert name in section, f"{name!r} not in the chosen trade-off: {section[:800]}"
    features = page.element_text("features-selected-on-the-whole-data-4") or ""
    assert all(f["feature"] in features
               for f in summary["chosen_trade_off"]["selected_features"]), features[:500]

    front = sorted(t.number for t in optuna_study.best_trials)
    tables = [t for t in page.tables if "trial" in t and "accuracy" in t]
    assert tables, f"no table with trial and accuracy columns among {len(page.tables)} tables"
    cells = set(tables[0].split())
    assert {str(n) for n in front} <= cells, f"front {front} not all in the table: {tables[0]}"

    assert page.images, "no <img> on the page"
    for image in page.images:
        src = image.get("src", "")
        if src.startswith("data:"):
            header, _, data = src.partition(",")
            assert header.startswith("data:image/") and len(base64.b64decode(data)) > 100, \
                header
        else:
            assert src and (out / src).is_file(), f"image {src!r} is not a file beside the page"
    decoded = probe_images(index)
    assert len(decoded) == len(page.images)
    not_loaded = [row for row in decoded if not (row["complete"] and row["width"] > 0)]
    assert not not_loaded, f"images the browser did not decode: {not_loaded}"
    assert_not_blank(png)


@pytest.mark.slow
def test_the_comparison_renders_its_fronts_differences_and_table3(study, tmp_path):
    folder, url, _ = study
    other = write_spec(tmp_path, "other", trials=4)
    other_url = storage_url(tmp_path, "other.db")
    subprocess.run([sys.executable, "-m", "paretostab", "tune", str(other), "--storage",
                    other_url], capture_output=True, text=True, cwd=tmp_path, check=True)
    out = tmp_path / "cmp"
    subprocess.run([sys.executable, "-m", "paretostab", "compare", "tiny", "other",
                    "--storage", url, "--storage", other_url, "--out", str(out),
                    "--replicates", "3"], capture_output=True, text=True, cwd=folder, check=True)
    index = out / "index.html"
    png = shot(tmp_path, "compare.png")
    dom = render(index.as_uri(), screenshot=png, window=(1280, 2400)).dom
    page = Page(dom)
    ids = set(re.findall(r'\sid="([^"]+)"', dom))
    targets = set(re.findall(r'href="#([^"]+)"', dom))
    assert targets <= ids, f"links without a target: {sorted(targets - ids)}"
    assert page.title == "paretostab comparison: tiny, other", page.title
    for section in ("summary", "fronts-and-dominance-areas", "under-phi-iw", "under-phi",
                    "under-phi-pears", "pairwise-differences", "combined-front", "table-3",
                    "references"):
        assert section in targets, f"no link to section {section!r}"
    data = json.loads((out / "comparison.json").read_text())
    summary = page.tables[0]
    assert all(name in summary for name in ("tiny", "other", url, other_url)), summary

    pairs = next((t for t in page.tables if "DA(A) − DA(B)" in t), "")
    verdicts = re.findall(r"(φ_iw|φ_pears|φ) tiny other .*?"
                          r"(overlap: no difference shown|tiny's front dominates other's|"
                          r"other's front dominates tiny's|(?:tiny|other) has the larger "
                          r"dominance area)", pairs)
    assert [v for _, v in verdicts] == [d["verdict"] for d in data["differences"]], verdicts
    table3 = page.element_text("table-3") or ""
    assert all(row["group"] in table3 for row in data["table3"]), table3[:500]
    for section in ("fronts-and-dominance-areas", "combined-front"):
        assert "<img" in dom.split(f'id="{section}"')[1].split("<section")[0], section

    assert len(page.images) == 2
    decoded = probe_images(index)
    not_loaded = [row for row in decoded if not (row["complete"] and row["width"] > 0)]
    assert len(decoded) == 2 and not not_loaded, decoded
    assert_not_blank(png)


def get(address, timeout=5.0):
    with urllib.request.urlopen(address, timeout=timeout) as response:
        return response.status, response.headers.get("Content-Type", ""), response.read()


@contextlib.contextmanager
def dashboard(url, folder):
    """``python -m paretostab dashboard`` on a free port of 127.0.0.1: its base address
    once it answers; stopped (terminate, wait) at the end."""
    need("optuna_dashboard")
    port = servers.free_port()
    log = folder / f"dashboard-{port}.log"
    with open(log, "wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "paretostab", "dashboard", "--storage", url,
             "--host", "127.0.0.1", "--port", str(port)],
            stdout=output, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=folder)
    base = f"http://127.0.0.1:{port}"

    def answers() -> bool:
        if process.poll() is not None:
            pytest.fail(f"the dashboard exited with {process.returncode}:\n"
                        f"{log.read_text(errors='replace')[-2000:]}")
        try:
            get(f"{base}/api/studies", timeout=2.0)
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return False
        return True

    try:
        wait_until(answers, what=f"the dashboard to answer at {base} (its output: {log})",
                   poll=0.2)
        yield base
    finally:
        servers.stop_s3(process)  # terminate, wait (kill after 10 s): any server process


def top_feature(url, trial):
    """The name and selection frequency of the trial's most frequently selected feature,
    from its RunSet artifact."""
    from paretostab._storage import artifact_store, load_runset, open_storage
    from paretostab.data import load_dataset
    from paretostab.maps import stability_map

    runs = load_runset(trial, storage=open_storage(url), store=artifact_store(url))
    names = load_dataset("simulated:n_other=30,n_per_class=20", random_state=0).feature_names
    m = stability_map(runs, feature_names=names)
    return m.names[0], float(m.frequency[0])


def assert_on_page(text, patterns, where):
    for pattern in patterns:
        assert re.search(pattern, text), f"{pattern!r} not on the {where}: {text[:2000]}"


@pytest.mark.slow
def test_the_dashboard_shows_the_study_and_a_trial_with_its_map(study, tmp_path):
    import io

    from PIL import Image

    from paretostab._tuning.objective import MAP_DPI, MAP_SIZE

    folder, url, optuna_study = study
    assert optuna_study.metric_names == ["accuracy", "φ_iw"]
    with dashboard(url, tmp_path) as base:
        summaries = json.loads(get(f"{base}/api/studies")[2])["study_summaries"]
        study_id = next(s["study_id"] for s in summaries if s["study_name"] == "tiny")

        study_png = shot(tmp_path, "dashboard-study.png")
        page = Page(render(f"{base}/dashboard/studies/{study_id}", screenshot=study_png,
                           budget_ms=DASHBOARD_BUDGET_MS, window=(1400, 1000)).dom)
        text = page.text
        assert "tiny" in text, f"no study name on the study page: {text[:500]}"
        # the objectives by name on the Pareto front's axes
        assert_on_page(text, [r"Objective X:\s*accuracy\b", r"Objective Y:\s*φ_iw\b"],
                       "study page")
        assert "Pareto Front" in text, f"the app did not draw its Pareto front: {text[:800]}"
        assert_not_blank(study_png)

        note_png = shot(tmp_path, "dashboard-study-note.png")
        text = Page(render(f"{base}/dashboard/studies/{study_id}/note", screenshot=note_png,
                           budget_ms=DASHBOARD_BUDGET_MS, window=(1400, 1000)).dom).text
        assert_on_page(text, [r"Two objectives, both maximised",  # (list numbers: CSS)
                              r"accuracy\s*: the out-of-bag accuracy",
                              r"φ_iw \(measure\s*iw\s*, in \[-1, 1\]\): the stability",
                              r"M = 3 stratified bootstrap resamples", r"φ_pears"],
                       "study's note page")
        assert_not_blank(note_png)

        trial = min(optuna_study.best_trials, key=lambda t: t.number)
        trial_png = shot(tmp_path, "dashboard-trial.png")
        page = Page(render(f"{base}/dashboard/studies/{study_id}/trials?numbers={trial.number}",
                           screenshot=trial_png, budget_ms=DASHBOARD_BUDGET_MS,
                           window=(1400, 1400)).dom)
        text = page.text
        assert f"Trial {trial.number}" in text, f"trial {trial.number} not shown: {text[:800]}"
        for value in trial.values:  # JavaScript and Python print a float the same way
            assert repr(value) in text, f"value {value!r} not on the trial page: {text[:1500]}"
        # the trial's note: objectives by name with their values, a measure by its symbol,
        # k̄ and the most frequent feature with its p_f
        accuracy, phi = trial.values
        name, frequency = top_feature(url, trial)
        measures = trial.user_attrs["measures"]
        assert_on_page(text, [
            rf"Trial {trial.number}\b",
            rf"accuracy = {accuracy:.4f} · φ_iw = {phi:.4f}",
            rf"φ_pears = {measures['pearson']:.4f} \(\s*pearson\s*\)",
            rf"k̄ = {trial.user_attrs['mean_selected']:.2f} features selected per run",
            rf"\b{re.escape(name)}: {frequency:.2f}"], "trial page's note")
        cards = [img for img in page.images
                 if img.get("alt") == f"stability-map-trial-{trial.number}.png"]
        assert cards, f"no stability map card on the trial page: {page.images}"
        maps = [img for img in page.images
                if img.get("alt") == f"Stability map of trial {trial.number}"]
        assert maps, f"no stability map in the trial's note: {page.images}"
        assert maps[0]["src"] == cards[0]["src"]
        status, kind, body = get(base + maps[0]["src"])
        assert status == 200 and body[:8] == b"\x89PNG\r\n\x1a\n", (status, kind, body[:20])
        with Image.open(io.BytesIO(body)) as image:  # shown at its size in the note
            assert image.size == (round(MAP_SIZE[0] * MAP_DPI), round(MAP_SIZE[1] * MAP_DPI))
        assert_not_blank(trial_png)


@pytest.mark.slow
def test_not_blank_tells_an_empty_page_from_a_drawn_one(tmp_path):
    from PIL import Image

    blank = tmp_path / "blank.png"
    Image.new("RGB", (200, 100), "white").save(blank)
    assert not not_blank(blank)
    page = tmp_path / "page.html"
    page.write_text("<!DOCTYPE html><title>t</title><h1>Stability</h1>"
                    "<div style='width:300px;height:200px;background:linear-gradient("
                    "90deg,#08306b,#f7fbff)'></div>", encoding="utf-8")
    drawn = tmp_path / "drawn.png"
    rendered = render(page.as_uri(), screenshot=drawn, budget_ms=500, window=(400, 300))
    assert Page(rendered.dom).title == "t" and "Stability" in Page(rendered.dom).text
    assert not_blank(drawn)

