"""Notes on the Optuna dashboard: what a study's objectives are, and each trial's values.

optuna-dashboard shows a Markdown note on a study's page and on each trial's. A study's
note (:func:`study_note`) says what the two objectives are, both maximised, and how every
trial computes them; a trial's note (:func:`trial_note`) gives its objective values, every
recorded measure by the papers' symbol, k̄, its most frequently selected features and,
for a trial on the front when it finished, its stability map full size: facts that later
trials do not change (a trial that fails after its note was written has it replaced,
:func:`failed_note`).

optuna-dashboard keeps notes in the study's system attributes, in a format of its own
(``optuna_dashboard/_note.py``, a private module): :func:`write_note` writes that format
directly, once per study or trial, without reading the other notes (see below). A test
reads the notes back with optuna-dashboard's ``get_note``; the browser test sees them.
"""

from __future__ import annotations

import math
import re

import optuna

from paretostab._optuna_internals import storage_of, study_id_of, trial_id_of
from paretostab.maps import StabilityMap
from paretostab.measures import get_measure
from paretostab.spec import SELECTOR_PARAM, StudySpec, param_name

__all__ = ["NOTE_FEATURES", "failed_note", "has_note", "note_failures", "put_note_section",
           "rewrite_note", "study_note", "trial_note", "with_section", "write_note"]

NOTE_FEATURES = 10  # the most frequent features a trial's note lists

# ------------------------------------------------------------------- dashboard notes
# optuna-dashboard keeps notes (Markdown) in the study's system attributes
# (optuna_dashboard/_note.py): a version under "dashboard:note_ver" (a trial's under
# "dashboard:<trial_id>:note_ver") and the body in pieces of at most 2045 characters
# under "…note_str:0", "…note_str:1", …. Its save_note (which works from inside a
# running trial) reads every note of the study twice to write one, a cost that grows
# with the study: measured per trial with 900-character notes, 8–17 ms at the start,
# 25–47 ms after 250 trials, 140–150 ms after 1000, on SQLite and PostgreSQL alike. A
# trial's note is written here once, as its version 1, without reading: 4–10 ms at
# every size (a quickstart trial: 6–7 ms median, about 3 % of its protocol). A test
# reads the notes back with optuna-dashboard's get_note; the browser test sees them.

_NOTE_PIECE = 2045


def _note_keys(trial_id: int | None) -> tuple[str, str]:
    """The version key and the body pieces' key prefix of a study's (None) or a trial's
    note."""
    where = "dashboard:" if trial_id is None else f"dashboard:{trial_id}:"
    return f"{where}note_ver", f"{where}note_str:"


def _note_target(study_or_trial: optuna.Study | optuna.Trial
                 ) -> tuple[optuna.storages.BaseStorage, int, int | None]:
    if isinstance(study_or_trial, optuna.Study):
        return storage_of(study_or_trial), study_id_of(study_or_trial), None
    study = study_or_trial.study
    return storage_of(study), study_id_of(study), trial_id_of(study_or_trial)


def has_note(study_or_trial: optuna.Study | optuna.Trial) -> bool:
    """Whether the study (or the running trial) has an optuna-dashboard note, even an
    emptied one."""
    storage, study_id, trial_id = _note_target(study_or_trial)
    return _note_keys(trial_id)[0] in storage.get_study_system_attrs(study_id)


def write_note(study_or_trial: optuna.Study | optuna.Trial, body: str) -> None:
    """Give a study (or a running trial) that has no note yet the optuna-dashboard note
    ``body`` (Markdown), as its version 1, without reading the study's other notes. Two
    processes writing a study's first note together write the same keys (the last
    wins)."""
    storage, study_id, trial_id = _note_target(study_or_trial)
    version, piece = _note_keys(trial_id)
    storage.set_study_system_attr(study_id, version, 1)
    for i in range(max(1, math.ceil(len(body) / _NOTE_PIECE))):
        storage.set_study_system_attr(study_id, f"{piece}{i}",
                                      body[i * _NOTE_PIECE:(i + 1) * _NOTE_PIECE])


def rewrite_note(storage: optuna.storages.BaseStorage, study_id: int, trial_id: int | None,
                 body: str) -> None:
    """Replace the optuna-dashboard note of a study (``trial_id`` None) or of a trial
    (running or finished) by ``body``, as optuna-dashboard's ``save_note`` does: the next
    version, its pieces, and the old pieces past the new ones emptied. Reads the study's
    system attributes once (a failed trial's note; rare)."""
    _save_note(storage, study_id, trial_id, storage.get_study_system_attrs(study_id), body)


def _save_note(storage: optuna.storages.BaseStorage, study_id: int, trial_id: int | None,
               attrs: dict, body: str) -> None:
    """:func:`rewrite_note` with the study's system attributes ``attrs`` already read."""
    version, piece = _note_keys(trial_id)
    pieces = [body[i * _NOTE_PIECE:(i + 1) * _NOTE_PIECE]
              for i in range(max(1, math.ceil(len(body) / _NOTE_PIECE)))]
    old = sum(1 for key in attrs if key.startswith(piece))
    storage.set_study_system_attr(study_id, version, int(attrs.get(version, 0)) + 1)
    for i, text in enumerate(pieces):
        storage.set_study_system_attr(study_id, f"{piece}{i}", text)
    for i in range(len(pieces), old):
        storage.set_study_system_attr(study_id, f"{piece}{i}", "")


def put_note_section(storage: optuna.storages.BaseStorage, study_id: int, heading: str,
                     section: str, *, new: str) -> None:
    """Put ``section`` (Markdown whose first line is a heading starting with ``heading``)
    in the study's optuna-dashboard note, keeping the rest of the note as it is — what a
    person wrote there included (the report's front replaced the whole note,
    and a person's edit with it): in place of the note's section under such a heading
    (up to the next heading of level 1 or 2), else after the note's text; a study
    without a note gets ``new``, then the section."""
    attrs = storage.get_study_system_attrs(study_id)
    version, piece = _note_keys(None)
    note = ("".join(str(attrs.get(f"{piece}{i}", "")) for i in
                    range(sum(1 for key in attrs if key.startswith(piece))))
            if version in attrs else new)
    _save_note(storage, study_id, None, attrs, with_section(note, heading, section))


_HEADING = re.compile(r"#{1,2} ")


def with_section(note: str, heading: str, section: str) -> str:
    """``note`` (Markdown) with ``section`` in place of its lines from the first line
    starting with ``heading`` to the next heading of level 1 or 2 (or the end), else
    appended after a blank line; the rest of ``note`` unchanged."""
    lines = note.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.startswith(heading)), None)
    section = section.rstrip("\n") + "\n"
    if start is None:
        return (note.rstrip("\n") + "\n\n" if note.strip() else "") + section
    end = next((i for i in range(start + 1, len(lines)) if _HEADING.match(lines[i])),
               len(lines))
    rest = "".join(lines[end:])
    return "".join(lines[:start]) + section + ("\n" + rest if rest else "")


def failed_note(number: int, reason: str) -> str:
    """The note of a trial that failed after its note was written (while being recorded,
    or killed and failed as stale): its values were not kept."""
    return (f"**Trial {number}** · failed: {_md(reason)}\n\nIts values were not kept; it does "
            "not count, and the study runs its slot again.\n")


def note_failures(storage: optuna.storages.BaseStorage, study_id: int,
                  failed: list[tuple[int, int, str]]) -> None:
    """Replace the notes of the failed trials ``(trial id, number, reason)`` that have one
    by :func:`failed_note` (trials without a note keep none)."""
    attrs = storage.get_study_system_attrs(study_id)
    for trial_id, number, reason in failed:
        if _note_keys(trial_id)[0] in attrs:
            rewrite_note(storage, study_id, trial_id, failed_note(number, reason))


_MARKUP = re.compile(r"[\\`*\[\]<>|~&]|(?<!\w)_|_(?!\w)")


def _md(text: object) -> str:
    """``text`` on one line, read literally in the note's Markdown: the characters that
    would start markup escaped (``|`` must be, in a table), ``_`` only where it could
    (``φ_iw`` and ``g1_0`` stay as they are, for whoever edits the note)."""
    return _MARKUP.sub(lambda found: "\\" + found.group(0), " ".join(str(text).split()))


def _number(value: float) -> str:
    return "nan" if value is None or math.isnan(value) else f"{value:.4f}"


_METRICS = {"accuracy": "out-of-bag accuracy", "balanced_accuracy":
            "out-of-bag balanced accuracy", "f1_macro": "out-of-bag macro-averaged F1",
            "roc_auc": "out-of-bag ROC AUC (one-vs-rest, macro-averaged, with K > 2 classes)"}


def _resamples(spec: StudySpec) -> str:
    """How a trial's M resamples are drawn, in words."""
    p, data = spec.protocol, f"`{spec.data.source.replace('`', '')}`"  # a code span: literal
    if p.resampling == "bootstrap":
        kind = (f"M = {p.runs} stratified bootstrap resamples of {data} (each class drawn "
                "with replacement to its size)")
    elif p.resampling == "complementary_pairs":
        kind = (f"M = {p.runs} stratified half-samples of {data} in {p.runs // 2} "
                "complementary pairs (each class split into ⌊n/2⌋ and the rest, each half "
                "scored on the other)")
    else:
        kind = (f"M = {p.runs} stratified subsamples of {data} ({p.sample_fraction:.0%} of "
                "each class, without replacement)")
    if p.resamples == "shared":
        seed = "the study's seed" if spec.seed is None else f"seed {spec.seed}"
        return f"{kind}, the same for every trial (shared resamples, {seed})"
    return f"{kind}, drawn afresh for every trial"


def _selectors_text(spec: StudySpec) -> str:
    """What a trial draws, in words (a sentence without its full stop)."""
    def one(selector) -> str:
        searched = ", ".join(f"`{param_name(spec, selector, p)}`" for p in selector.search)
        fixed = ", ".join(f"{k} = {v}" for k, v in selector.fixed.items())
        return (f"`{selector.name}` (searched: {searched or 'none'}"
                + (f"; fixed: {_md(fixed)}" if fixed else "") + ")")

    if not spec.selector_choice:
        return f"Every trial draws the hyperparameters of {one(spec.selectors[0])}"
    return (f"Every trial chooses a selector (the parameter `{SELECTOR_PARAM}`) among "
            + "; ".join(one(s) for s in spec.selectors)
            + ", then draws that selector's hyperparameters")


def study_note(spec: StudySpec) -> str:
    """The study's optuna-dashboard note (Markdown): the two objectives, both maximised,
    what they are, the protocol every trial runs (M runs, resampling, selector) and the
    other recorded measures."""
    metric, stability = spec.protocol.metric, get_measure(spec.objective.stability)
    runs = spec.protocol.runs
    others = [get_measure(n) for n in spec.objective.measures if n != stability.name]
    summary = stability.summary.removeprefix(f"{stability.label}:").strip()
    similarity = (f", with |{spec.objective.similarity}| feature similarity"
                  if spec.objective.similarity else "")
    lines = [
        "## Two objectives, both maximised",
        "",
        f"1. **{_md(metric)}**: the {_METRICS.get(metric, metric)} of each run's final model "
        f"(scored on the examples its resample left out), averaged over the {runs} runs.",
        f"2. **{_md(stability.label)}** (measure `{stability.name}`, in [{stability.lower:g}, "
        f"{stability.upper:g}]): the stability of the {runs} runs' feature "
        f"selections{_md(similarity)} — {_md(summary)} ({_md(stability.reference)})",
        "",
        f"**Protocol.** {_selectors_text(spec)}, and runs it on {_resamples(spec)}.",
        "",
    ]
    if others:
        lines += ["**Also recorded** on every trial (user attribute `measures`, by measure "
                  "name): " + ", ".join(f"{_md(m.label)} (`{m.name}`)" for m in others) + ".",
                  ""]
    lines.append("Each trial's note gives its objective values, every recorded measure, k̄ "
                 "(the mean number of features selected per run) and its most frequently "
                 "selected features; a trial that joined the Pareto front when it finished "
                 "shows its feature stability map. `python -m paretostab report` draws the "
                 "fronts with their confidence regions and the γ choice.")
    return "\n".join(lines) + "\n"


def trial_note(number: int, spec: StudySpec, measures: dict[str, float], accuracy: float,
               stability_map: StabilityMap, *, image: str | None = None,
               selector: str | None = None, top: int = NOTE_FEATURES,
               flagged: str = "") -> str:
    """A trial's optuna-dashboard note (Markdown), facts that do not change: its
    objective values by name, every recorded measure by its symbol (and registry name),
    k̄ and the runs, its ``top`` most frequently selected features with their selection
    frequencies ``p_f`` (``stability_map``'s order) and, with ``image`` (the map's
    address), its stability map. Lists, not tables: the dashboard draws tables without
    cell spacing; short lines: a long user attribute can make the trial pane wider than
    the window (optuna-dashboard does not wrap them), cutting off long lines' ends. Not
    whether it is on the front, which later trials change: the study's page and the
    report say that. ``flagged``: why it is flagged at chance level or as a selection
    that ignores the labels (:class:`~paretostab.evaluation.ChanceFlags`), "" if not."""
    metric, objective = spec.protocol.metric, get_measure(spec.objective.stability)
    m = stability_map
    lines = [
        f"**Trial {number}**" + (f" · selector `{selector}`" if selector else ""),
        "",
        f"- objectives (maximised): **{_md(metric)} = {_number(accuracy)}** · "
        f"**{_md(objective.label)} = {_number(measures.get(objective.name, math.nan))}**",
        "- measures: " + " · ".join(f"{_md(get_measure(name).label)} = {_number(value)} "
                                    f"(`{name}`)" for name, value in measures.items()),
        f"- k̄ = {m.mean_selected:.2f} features selected per run (mean) · M = {m.runs} "
        f"{spec.protocol.resampling} runs",
    ]
    if flagged:
        lines.insert(2, f"- **flagged**: {_md(flagged)}")
    shown = min(top, len(m.names))
    if shown:  # one a line: the dashboard's trial pane can be wider than the window
        lines.append(f"- top features by selection frequency p_f (the fraction of the "
                     f"{m.runs} runs selecting them; {len(m.names)} selected at least once):")
        lines += [f"  - {_md(name)}: {p:.2f}"
                  for name, p in zip(m.names[:shown], m.frequency[:shown], strict=True)]
        if len(m.names) > shown:
            lines.append(f"  - +{len(m.names) - shown} more")
    else:
        lines.append("- no feature was selected in any run")
    if image:
        lines += ["", f"![Stability map of trial {number}]({image})"]
    return "\n".join(lines) + "\n"
