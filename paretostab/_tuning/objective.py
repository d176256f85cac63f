"""The trial function of a tuning study: draw a setting, run the protocol, record it.

Each trial draws the selector's hyperparameters from the spec's search space
(:func:`suggest_params`), runs the resampling protocol of its :class:`~paretostab._problem.Problem`
and returns ``(accuracy, stability)``; it records every requested measure, k̄, the run
count, where its time went (user attribute ``timing``) and the spec's hash, uploads its
RunSet (``.npz``) to the study's artifact store (so that reports can recompute any
measure) and, when it joins the Pareto front as it finishes, its feature stability map
(``.png``), which the Optuna dashboard shows, coloured by the study's palette (a feature
has one colour in every trial's map and in the report's,
:func:`~paretostab.maps.study_palette`); its dashboard note says all of it
(:mod:`paretostab._tuning.notes`).

With shared resamples (the spec's default) every trial runs on the same M resamples,
seeded by the study's resample seed, and the objective keeps the prepared runs in one
:class:`~paretostab._run_cache.RunCache` per process: a trial then costs its fits, not their
preparation.
"""

from __future__ import annotations

import contextlib
import io
import math
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, cast

import numpy as np
import optuna
from optuna.artifacts import upload_artifact
from optuna.distributions import CategoricalChoiceType

from paretostab._errors import InvalidInputError
from paretostab._faults import environment_error, one_line
from paretostab._optuna_internals import (
    one_transaction,
    set_trial_user_attrs,
    storage_of,
    study_id_of,
    trial_id_of,
)
from paretostab._problem import Problem
from paretostab._run_cache import DEFAULT_CACHE_BYTES, RunCache
from paretostab._runset import RunSet
from paretostab._signals import raise_if_stopped
from paretostab._tuning.coordination import Interrupts, TrialSlots, release
from paretostab._tuning.notes import (
    NOTE_FEATURES,
    failed_note,
    has_note,
    rewrite_note,
    trial_note,
    write_note,
)
from paretostab._tuning.study import chance_flags_of, front_points, objective_names
from paretostab.evaluation import chance_p_value, no_information_value
from paretostab.front import pareto_front
from paretostab.maps import FeaturePalette, StabilityMap, stability_map
from paretostab.measures import get_measure
from paretostab.spec import SELECTOR_PARAM, Param, StudySpec, param_name, trial_selector

__all__ = ["MAP_DPI", "MAP_SIZE", "TrialObjective", "kept_ranks", "suggest", "suggest_params"]

# The per-trial stability map PNG, for optuna-dashboard: its artifact cards show an image
# in a 200 × 150 px box (too small for any legend, and not clickable), so the trial's note
# embeds the map at its natural size, as the dashboard's own "insert an image" does (the
# note's images are shown at most as wide as the note, 900–1000 px in a 1280–1440 px
# window). 8 × 5 in at 110 dpi is 880 × 550 px: the legend's text is 12–13 px high, the
# title and axis labels 15 px.
MAP_SIZE = (8.0, 5.0)
MAP_DPI = 110.0


def suggest(trial: optuna.Trial, param: Param,
            name: str | None = None) -> CategoricalChoiceType:
    """Draw one hyperparameter from its spec range, as Optuna parameter ``name`` (by
    default the parameter's own name)."""
    name = name or param.name
    if param.choices is not None:
        return trial.suggest_categorical(name, list(param.choices))
    low, high = param.bounds()
    if param.integer:
        return trial.suggest_int(name, int(low), int(high), log=param.log)
    return trial.suggest_float(name, float(low), float(high), log=param.log)


def suggest_params(trial: optuna.Trial, spec: StudySpec) -> dict[str, object]:
    """Draw a trial's parameters: in a multi-selector study its selector (categorical
    ``selector``), then that selector's searched parameters (a conditional space)."""
    params: dict[str, object] = {}
    selector = spec.selectors[0]
    if spec.selector_choice:
        params[SELECTOR_PARAM] = trial.suggest_categorical(
            SELECTOR_PARAM, [s.name for s in spec.selectors])
        selector = trial_selector(spec, params)[0]
    for param in selector.search:
        name = param_name(spec, selector, param)
        params[name] = suggest(trial, param, name)
    return params


def kept_ranks(spec: StudySpec) -> str | int | None:
    """What of the rankings a trial's RunSet artifact keeps: what the spec's measures read
    — ``"full"`` if one reads whole rankings, the largest top-k if all read top-k lists,
    None if no measure reads rankings (a 100-run ranking of 12 600 features is 2.5 MB)."""
    depths = []
    for name in spec.objective.measures:
        info = get_measure(name)
        if info.input == "ranking":
            # an integer or None: the spec checks a top-k measure's k (resolve_objective)
            k = (cast("int | None", spec.objective.options.get("k")) if "k" in info.options
                 else None)
            if k is None:
                return "full"
            depths.append(int(k))
    return max(depths) if depths else None


class TrialObjective:
    """The trial function of a study: protocol → ``(accuracy, stability)``, attributes,
    artifacts and note.

    Parameters
    ----------
    problem : Problem
        The spec and its data (made read-only here).
    store : Optuna artifact store
        Where the trials' RunSets and maps go.
    resamples_seed : int, optional
        With shared resamples (required then): the seed of every trial's resamples
        (:func:`~paretostab._tuning.study.resample_seed`); the prepared runs are kept in one
        :class:`~paretostab._run_cache.RunCache` of ``cache_bytes`` for all of this
        objective's trials. With per-trial resamples, trial t draws its own from
        ``(seed, t)``.
    palette : FeaturePalette
        The colours of the features in the trials' maps (003 §3: "each feature is
        assigned a color"): the study's, :func:`~paretostab.maps.study_palette`,
        which the report's maps take too.
    n_jobs : int, optional
        Processes for the runs of a trial (default: the spec's).
    cache_bytes : int
    slots : TrialSlots, optional
        A trial first claims its slot, and is pruned without running if the study
        already has its trials.

    Attributes
    ----------
    interrupts : Interrupts
        Where Ctrl-C may stop a trial; a trial stopped by one fails with its reason and
        does not count.
    environment_failures : int
        The trials in a row that failed by their environment (a full or unwritable store,
        :func:`~paretostab._faults.environment_error`) or while being recorded; such a
        trial fails with its reason and does not count. ``last_failure`` is its reason,
        ``last_error`` the error.
    first_failures : int
        The trials in a row that failed by their own computation (an error of the
        selector, an undefined objective, a map that cannot be drawn) while the study had
        no completed trial: such a trial does not count (a selector failing in every
        trial spent all the study's slots, and a rerun after its fix ran nothing), and
        ``tune`` stops after a
        few (:data:`~paretostab._faults.ENVIRONMENT_FAILURES_IN_A_ROW`) with its error.
    """

    def __init__(self, problem: Problem, *, store, palette: FeaturePalette,
                 resamples_seed: int | None = None, n_jobs: int | None = None,
                 cache_bytes: int = DEFAULT_CACHE_BYTES,
                 slots: TrialSlots | None = None) -> None:
        spec = problem.spec
        self.shared = spec.protocol.resamples == "shared"
        if self.shared and resamples_seed is None:
            raise InvalidInputError("shared resamples need the study's resample seed.")
        self.problem = problem.read_only()
        self.store = store
        self.resamples_seed = resamples_seed
        self.palette = palette
        self.n_jobs = n_jobs
        self.cache = RunCache(cache_bytes) if self.shared else None
        self.slots = slots
        self.ranks = kept_ranks(spec)
        self.names = objective_names(spec)
        self.spec_hash = spec.content_hash()  # the spec is frozen: once, not every trial
        self.no_information = no_information_value(self.problem.y, spec.protocol.metric)
        self.interrupts = Interrupts()
        self.environment_failures = 0
        self.first_failures = 0
        self.last_failure = ""
        self.last_error: Exception | None = None
        _start_drawing()

    def __call__(self, trial: optuna.Trial) -> tuple[float, float]:
        spec, problem = self.problem.spec, self.problem
        try:
            with one_transaction(storage_of(trial.study)):  # the process and the params
                refused = None if self.slots is None else self.slots.claim(trial)
                if refused:
                    raise optuna.TrialPruned(refused)
                params = suggest_params(trial, spec)
        except Exception as exc:
            if not isinstance(exc, optuna.TrialPruned):
                self._failed(trial, exc, "could not start it: ")
            raise
        start = time.perf_counter()
        try:
            with self.interrupts.computation():
                runs = problem.run(params, random_state=self.resamples_seed if self.shared
                                   else [spec.seed or 0, trial.number],
                                   n_jobs=self.n_jobs, cache=self.cache,
                                   on_run=raise_if_stopped)  # one a clean-up swallowed
                protocol_end = time.perf_counter()
                values = problem.measure_values(runs)
                measures_end = time.perf_counter()
                outcome = self._outcome(trial, params, runs, values)
        except KeyboardInterrupt:
            release(storage_of(trial.study), trial_id_of(trial),
                    self.interrupts.reason or "interrupted")
            raise
        except Exception as exc:
            self._failed(trial, exc, "")
            raise
        try:
            result = self._record(trial, params, outcome,
                                  (start, protocol_end, measures_end))
        except Exception as exc:
            self._failed(trial, exc, "could not record it: ")
            raise
        self.environment_failures = 0
        return result

    def _failed(self, trial: optuna.Trial, exc: Exception, what: str) -> None:
        """Record why ``trial`` fails. An error of its own computation counts (the same
        parameters would fail again), unless the study has no completed trial yet
        (:attr:`first_failures`: the selector may not work at all, and a rerun after its
        fix must run the slot); an :func:`~paretostab._faults.environment_error`,
        or any error while starting the trial (claiming its slot, drawing its parameters)
        or recording it (its artifacts, note and attributes go to stores: the trial's
        result is lost, not wrong), does not: its slot is run again,
        and :attr:`environment_failures` counts it. When the storage itself fails, this
        records nothing, and the error goes on up."""
        environment = bool(what) or environment_error(exc)
        if environment:  # a computation's error tells nothing of the stores
            self.environment_failures += 1
        first = not environment and not self._study_has_result(trial)
        self.first_failures = self.first_failures + 1 if first else 0
        self.last_failure, self.last_error = f"{what}{one_line(exc)}", exc
        attrs = {"fail_reason": self.last_failure,
                 **({"counted": False} if environment or first else {})}
        with contextlib.suppress(Exception):
            set_trial_user_attrs(storage_of(trial.study), trial_id_of(trial), attrs)

    def _recorded(self, trial: optuna.Trial, params: dict,
                  values: tuple[float, float]) -> dict:
        """Count a trial whose result is being recorded; returns the user attributes that
        say why it fails when a value is undefined (NaN: Optuna fails it). Such a trial
        counts (the parameters the spec allowed gave it), unless the study has no
        completed trial yet: then it is one of :attr:`first_failures` (a selector that
        selects nothing, or only NaN, at every setting stopped no study, and a rerun
        after its fix ran nothing)."""
        undefined = [name for name, value in zip(self.names, values, strict=True)
                     if math.isnan(value)]
        if not undefined:
            self.first_failures = 0
            return {}
        self.last_failure = (f"{' and '.join(undefined)} undefined (NaN) at "
                             f"{_shown_params(params)}")
        self.last_error = None
        first = not self._study_has_result(trial)
        self.first_failures = self.first_failures + 1 if first else 0
        return {"fail_reason": self.last_failure, **({"counted": False} if first else {})}

    def _study_has_result(self, trial: optuna.Trial) -> bool:
        """Whether the study had a completed trial when ``trial`` claimed its slot
        (:attr:`TrialSlots.seen`; read now without slots)."""
        return bool(len(front_points(trial.study, None if self.slots is None
                                     else self.slots.seen)[0]))

    def _chance(self, params: dict, accuracy: float, on_front: bool) -> dict:
        """What the trial records of chance (its ``chance`` user attribute, which
        :func:`~paretostab._tuning.study.chance_flags_of` reads; the report's flags too):
        the p-value of its metric against the no-information value
        (:func:`~paretostab.evaluation.chance_p_value`) and, when it joins the front as
        it finishes, whether its selection ignores the labels (three fits on the whole
        data: :meth:`~paretostab._problem.Problem.ignores_labels`), which the report
        reads instead of probing it again."""
        metric = self.problem.spec.protocol.metric
        chance: dict[str, object] = {
            "metric": metric, "no_information": self.no_information,
            "p_value": (chance_p_value(accuracy, self.problem.y, metric)
                        if math.isfinite(accuracy) else math.nan)}
        if on_front:
            chance["ignores_labels"] = bool(self.problem.ignores_labels(params))
        return chance

    def _outcome(self, trial: optuna.Trial, params: dict, runs: RunSet,
                 values: dict) -> _Outcome:
        """What the trial computed beyond its runs and measures, before anything is
        written: whether it joins the front, its chance record, its stability map and,
        on the front, the map's PNG. Part of the trial's computation: a map that cannot be
        drawn is the trial's own failure (the same trial would fail again), never a
        store's (every trial failing to draw stopped the study as a store
        fault)."""
        spec = self.problem.spec
        accuracy, stability = runs.accuracy, values[spec.objective.stability]
        on_front = _on_front(trial, accuracy, stability,
                             None if self.slots is None else self.slots.seen)
        map_data = stability_map(runs, feature_names=self.problem.feature_names,
                                 top=NOTE_FEATURES, palette=self.palette)
        chance = self._chance(params, accuracy, on_front)
        png = (_map_png(map_data, f"Trial {trial.number} · {self.names[0]} {accuracy:.4f} · "
                                  f"{self.names[1]} {stability:.4f}") if on_front else None)
        return _Outcome(runs, values, accuracy, stability, map_data, chance, png)

    def _record(self, trial: optuna.Trial, params: dict, outcome: _Outcome,
                times: tuple[float, float, float]) -> tuple[float, float]:
        """Upload the trial's artifacts, write its note and user attributes: its result.
        If any of it fails, every artifact it uploaded is removed again (the trial fails:
        its files would be orphans in the store), and a note it wrote says that it failed
        (:func:`~paretostab._tuning.notes.failed_note`)."""
        written = _WrittenArtifacts(self.store)
        try:
            # the artifacts' records, the note and the user attributes: one commit, after
            # the artifacts' files are written (Optuna commits each record before its file)
            with one_transaction(storage_of(trial.study)):
                return self._write_result(trial, params, outcome, times, written)
        except BaseException as exc:
            written.remove_all()
            reason = ("interrupted" if isinstance(exc, KeyboardInterrupt)
                      else f"could not record it: {one_line(exc)}")
            with contextlib.suppress(Exception):  # the store that failed may be the study's
                if has_note(trial):
                    rewrite_note(storage_of(trial.study), study_id_of(trial.study),
                                 trial_id_of(trial), failed_note(trial.number, reason))
            raise

    def _write_result(self, trial: optuna.Trial, params: dict, outcome: _Outcome,
                      times: tuple[float, float, float],
                      written: _WrittenArtifacts) -> tuple[float, float]:
        spec, runs, values = self.problem.spec, outcome.runs, outcome.values
        start, protocol_end, measures_end = times
        accuracy, stability, chance = outcome.accuracy, outcome.stability, outcome.chance
        image = _upload_artifacts(trial, runs, outcome.png, written, self.ranks)
        artifacts_end = time.perf_counter()
        flags = chance_flags_of({trial.number: chance})
        write_note(trial, trial_note(trial.number, spec, values, accuracy, outcome.map_data,
                                     image=image, selector=params.get(SELECTOR_PARAM),
                                     flagged=flags.reason(trial.number) if flags else ""))
        end = time.perf_counter()
        # seconds to 0.1 ms: the dashboard shows a user attribute on one line that does
        # not wrap, and at full precision the timing (270 characters) made the trial pane
        # wider than a 2600 px window, cutting off the note's right side (now 160
        # characters: the pane fits windows from about 1650 px)
        cache_mib = (self.cache.nbytes / 2**20) if self.cache is not None else 0.0
        attrs = {
            "measures": values, "mean_selected": runs.mean_selected, "runs": runs.runs,
            "seconds": end - start,
            "timing": {key: round(value, 4) for key, value in {
                "protocol": protocol_end - start,
                # RunSet's __post_init__ sets the optional timings (zeros)
                "preparation": float(cast(np.ndarray, runs.prepare_seconds).sum()),
                "fits": float(runs.fit_seconds.sum()),
                "scoring": float(cast(np.ndarray, runs.score_seconds).sum()),
                "measures": measures_end - protocol_end,
                "artifacts": end - measures_end, "note": end - artifacts_end,  # ⊂ artifacts
                "run_cache_mib": cache_mib}.items()},
            "spec_hash": self.spec_hash, "chance": chance}
        if runs.params.get("calibrated"):
            attrs["calibrated"] = runs.params["calibrated"]
        attrs.update(self._recorded(trial, params, (accuracy, stability)))
        set_trial_user_attrs(storage_of(trial.study), trial_id_of(trial), attrs)
        return accuracy, stability


def _shown_params(params: dict) -> str:
    """A trial's parameters on one line: ``reg = 0.001, n_stable = 3``."""
    return ", ".join(f"{name} = {value:.4g}" if isinstance(value, float) else
                     f"{name} = {value}" for name, value in params.items()) or "its setting"


def _on_front(trial: optuna.Trial, accuracy: float, stability: float,
              seen: list[optuna.trial.FrozenTrial] | None) -> bool:
    """Whether ``(accuracy, stability)`` is on the front of the study's completed trials
    and it: the trial joins the front as it finishes (and every trial ever on the front
    did so when it finished). ``seen``: the study's trials as the trial read them when it
    claimed its slot (:attr:`TrialSlots.seen`), else read now; a trial that another
    process finished since is then not seen, which can put this trial on the front
    (draw its map) in vain, never leave it off when it is on."""
    points = front_points(trial.study, seen)[1]
    return len(points) in pareto_front(np.vstack([points, [accuracy, stability]]))


def _start_drawing() -> None:
    """Import matplotlib and load its fonts now, by drawing a tiny map with a title: a
    start-up cost of the process (about a second), not of the first trial that draws
    one."""
    tiny = RunSet(selection_matrix=np.eye(2, dtype=bool), importance_matrix=np.eye(2),
                  rank_matrix=None, scores=np.ones(2), seeds=np.zeros(2, dtype=np.uint32),
                  fit_seconds=np.zeros(2), metric="accuracy", resampling="bootstrap",
                  selector="start-up")
    _map_png(stability_map(tiny), "Trial 0 · accuracy 1 · φ_iw 1")


def _map_png(map_data: StabilityMap, title: str) -> bytes:
    """A trial's feature stability map (``MAP_SIZE`` at ``MAP_DPI``, titled) as PNG.

    A map costs matplotlib about 0.13 s in the quickstart (laying out and rendering text
    mostly; 0.11 s at the former 640 × 400 px without a title), about half of the
    quickstart's median protocol (0.2–0.23 s): drawn only for the trials that join the
    front, which the dashboard and the report show; any other map is a ``load_runset``
    away, and every trial's note lists its most frequent features without drawing."""
    from paretostab.plot import stability_map_figure

    png = io.BytesIO()
    stability_map_figure(map_data, size=MAP_SIZE, dpi=MAP_DPI, title=title).savefig(
        png, format="png", pil_kwargs={"compress_level": 1})
    return png.getvalue()


@dataclass(frozen=True)
class _Outcome:
    """What a trial computed, before it is written: its runs and measures, its objective
    values, its stability map, its chance record and, on the front, its map's PNG."""

    runs: RunSet
    values: dict
    accuracy: float
    stability: float
    map_data: StabilityMap
    chance: dict
    png: bytes | None


def _upload_artifacts(trial: optuna.Trial, runs: RunSet, png: bytes | None,
                      written: _WrittenArtifacts, ranks: str | int | None) -> str | None:
    """Upload the trial's RunSet and, when it has one (:func:`_map_png`), its feature
    stability map: the map's address on optuna-dashboard
    (``/artifacts/<study_id>/<trial_id>/<artifact_id>``, as the dashboard's own notes
    link images), else None. ``written`` remembers what was uploaded: the caller removes
    it all if the upload or anything after it fails.
    """
    with tempfile.TemporaryDirectory() as folder:
        runset_path = runs.save(Path(folder) / f"runset-trial-{trial.number}.npz",
                                ranks=ranks)
        upload_artifact(artifact_store=written, file_path=str(runset_path),
                        study_or_trial=trial, mimetype="application/octet-stream")
        if png is None:
            return None
        map_path = Path(folder) / f"stability-map-trial-{trial.number}.png"
        map_path.write_bytes(png)
        artifact_id = upload_artifact(artifact_store=written, file_path=str(map_path),
                                      study_or_trial=trial, mimetype="image/png")
    return f"/artifacts/{study_id_of(trial.study)}/{trial_id_of(trial)}/{artifact_id}"


class _WrittenArtifacts:
    """An artifact store that remembers what it was asked to write, so that a trial that
    fails while being recorded leaves nothing behind: not its RunSet without its map, nor
    the empty or partial file of the write that failed (a full disk), nor the whole files
    of an upload whose note or attributes could not be written."""

    def __init__(self, store) -> None:
        self.store = store
        self.ids: list[str] = []

    def write(self, artifact_id: str, content_body: BinaryIO) -> None:
        self.ids.append(artifact_id)
        self.store.write(artifact_id, content_body)

    def open_reader(self, artifact_id: str) -> BinaryIO:
        return self.store.open_reader(artifact_id)

    def remove(self, artifact_id: str) -> None:
        self.store.remove(artifact_id)

    def remove_all(self) -> None:
        """Remove every artifact written (or begun) through this store; what cannot be
        removed (already gone, a store that refuses) is left."""
        for artifact_id in self.ids:
            with contextlib.suppress(Exception):
                self.store.remove(artifact_id)
