"""Optuna multi-objective tuning: maximise accuracy and a chosen stability measure.

A study is defined by a spec (:mod:`paretostab.spec`). Each trial draws the selector's
hyperparameters from the spec's search space, runs the resampling protocol
(:func:`paretostab.protocol.run_protocol`), returns ``(accuracy, stability)`` and records
every requested measure in the trial's user attributes. The trial's RunSet (``.npz``) is
uploaded to an Optuna artifact store beside the storage, so that reports can recompute any
measure; a trial that joins the Pareto front when it finishes uploads its feature
stability map (``.png``) too, which the Optuna dashboard shows on its page.

With shared resamples (the spec's default) every trial runs on the same M resamples,
seeded by the study's ``resample_seed`` (the spec's seed, or entropy drawn once when the
study is created without one), and each process keeps its prepared runs in a
:class:`~paretostab.protocol.RunCache`: a trial then costs its fits, not their
preparation. Each trial records where its time went (user attribute ``timing``).

For the Optuna dashboard: the study's metric names are what a person reads (``accuracy``,
``φ_iw``), the study has a note saying what the objectives are and how every trial
computes them (:func:`study_note`), and every trial a note with its values, measures, k̄
and most frequent features, and its stability map shown full size when it has one
(:func:`trial_note`).

Optuna appears only here, in the CLI and in the report's loader.
"""

from __future__ import annotations

import math
import multiprocessing
import multiprocessing.connection
import os
import re
import signal
import sys
import tempfile
import threading
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import optuna
from optuna.artifacts import upload_artifact
from optuna.trial import TrialState

from paretostab.coordination import (
    GRACE_SECONDS,
    HEARTBEAT_SECONDS,
    Interrupts,
    StreamSampler,
    TrialSlots,
    counted_trials,
    release,
)
from paretostab.data import load_dataset
from paretostab.errors import InvalidInputError, ParetostabError, StabilityWarning, WorkerError
from paretostab.maps import StabilityMap, stability_map
from paretostab.measures import get_measure
from paretostab.protocol import DEFAULT_CACHE_BYTES, RunCache, RunSet, run_protocol
from paretostab.similarity import FeatureSimilarity
from paretostab.spec import SAMPLERS, SELECTOR_PARAM, Param, StudySpec
from paretostab.storage import DEFAULT_STORAGE, artifact_store, open_storage

# The per-trial stability map PNG, for optuna-dashboard: its artifact cards show an image
# in a 200 × 150 px box (too small for any legend, and not clickable), so the trial's note
# embeds the map at its natural size, as the dashboard's own "insert an image" does (the
# note's images are shown at most as wide as the note, 900–1000 px in a 1280–1440 px
# window). 8 × 5 in at 110 dpi is 880 × 550 px: the legend's text is 12–13 px high, the
# title and axis labels 15 px.
MAP_SIZE = (8.0, 5.0)
MAP_DPI = 110.0
NOTE_FEATURES = 10  # the most frequent features a trial's note lists

# ------------------------------------------------------------------------- the study


def make_sampler(spec: StudySpec, seed: int | None) -> optuna.samplers.BaseSampler:
    """The spec's sampler seeded with ``seed``. A multi-selector study's search space is
    conditional (each selector draws its own parameters): TPE then models the parameters
    of each selector's trials together (``multivariate``, ``group``), as Optuna advises
    for conditional spaces.

    A grid takes the spec's seed whatever ``seed`` is: Optuna's ``GridSampler`` shuffles
    its points with its seed and names each by its place (a trial's ``grid_id``), so every
    process must shuffle alike — with a seed of its own, a process would read another
    process's ``grid_id`` as another point, run some points twice and never run others."""
    name = spec.sampler
    if name == "tpe":
        if spec.selector_choice:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
                return optuna.samplers.TPESampler(seed=seed, multivariate=True, group=True)
        return optuna.samplers.TPESampler(seed=seed)
    if name == "grid":
        return optuna.samplers.GridSampler(spec.grid(), seed=spec.seed)
    if name == "nsga2":
        return optuna.samplers.NSGAIISampler(seed=seed)
    if name == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    if name == "gp":
        try:
            return optuna.samplers.GPSampler(seed=seed)
        except ImportError as exc:
            raise InvalidInputError(
                f"The GP sampler needs extra packages ({exc}): pip install torch."
            ) from None
    raise InvalidInputError(f"sampler must be one of {SAMPLERS}; got {name!r}.")


def create_or_load_study(spec: StudySpec, *, storage,
                         study_name: str | None = None) -> optuna.Study:
    """The spec's study in ``storage``, created on first use and resumed afterwards, with
    the spec's sampler seeded apart in this process (:class:`StreamSampler`).

    A study resumed under another spec (different content hash) is refused: its trials
    would not be comparable.
    """
    name = study_name or spec.name
    sampler = StreamSampler(lambda seed: make_sampler(spec, seed), spec.seed)
    study = optuna.create_study(storage=storage, study_name=name, load_if_exists=True,
                                directions=["maximize", "maximize"], sampler=sampler)
    known = study.user_attrs.get("spec_hash")
    if known is None:
        study.set_user_attr("spec_hash", spec.content_hash())
        study.set_user_attr("objective", spec.objective.stability)
        study.set_user_attr("spec", spec.to_dict())  # the report re-runs front trials
        study.set_user_attr("resample_seed", spec.seed if spec.seed is not None else
                            int(np.random.SeedSequence().entropy % 2**63))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            study.set_metric_names(objective_names(spec))
    elif known != spec.content_hash():
        raise InvalidInputError(
            f"Study {name!r} in this storage was made from another spec or by another "
            f"version of paretostab (hash {known[:12]}, this spec "
            f"{spec.content_hash()[:12]}); choose another --study-name."
        )
    if not has_note(study):  # written once: never over a note someone edited since
        write_note(study, study_note(spec))
    return study


def objective_names(spec: StudySpec) -> list[str]:
    """The study's metric names, as a person reads them: the protocol's metric and the
    stability measure's symbol (``["accuracy", "φ_iw"]``). The registry name of the
    stability measure is the study's user attribute ``objective``."""
    return [spec.protocol.metric, get_measure(spec.objective.stability).label]


def resample_seed(study: optuna.Study) -> int:
    """The seed of the resamples every trial of a shared-resamples study runs on."""
    return int(study.user_attrs["resample_seed"])


def suggest(trial: optuna.Trial, param: Param, name: str | None = None):
    """Draw one hyperparameter from its spec range, as Optuna parameter ``name`` (by
    default the parameter's own name)."""
    name = name or param.name
    if param.choices is not None:
        return trial.suggest_categorical(name, list(param.choices))
    if param.integer:
        return trial.suggest_int(name, int(param.low), int(param.high), log=param.log)
    return trial.suggest_float(name, float(param.low), float(param.high), log=param.log)


def suggest_params(trial: optuna.Trial, spec: StudySpec) -> dict[str, object]:
    """Draw a trial's parameters: in a multi-selector study its selector (categorical
    ``selector``), then that selector's searched parameters (a conditional space)."""
    params: dict[str, object] = {}
    selector = spec.selectors[0]
    if spec.selector_choice:
        params[SELECTOR_PARAM] = trial.suggest_categorical(
            SELECTOR_PARAM, [s.name for s in spec.selectors])
        selector = spec.trial_selector(params)[0]
    for param in selector.search:
        name = spec.param_name(selector, param)
        params[name] = suggest(trial, param, name)
    return params


@dataclass
class _Problem:
    """What every trial of a study shares: the data and, if needed, the similarity.
    Loaded once by ``tune`` and handed to its worker processes."""

    X: np.ndarray
    y: np.ndarray
    feature_names: tuple[str, ...]
    similarity: FeatureSimilarity | None
    groups: np.ndarray | None = None

    @classmethod
    def from_spec(cls, spec: StudySpec) -> _Problem:
        """The spec's data (a simulated source with seed 0: every process, every report
        of the study sees the same data) and similarity."""
        data = load_dataset(spec.data.source, label=spec.data.label, impute=spec.data.impute,
                            random_state=0)
        for selector in spec.selectors:  # a missing group labelling fails now
            spec.takes_data_groups(selector, data.groups)
        similarity = (FeatureSimilarity(data.X, spec.objective.similarity)
                      if spec.objective.similarity else None)
        return cls(data.X, data.y, data.feature_names, similarity, data.groups)

    def read_only(self) -> _Problem:
        """The same problem with data no one can change (copied where they view other
        memory): the run cache then recognises them without hashing them every trial."""
        def frozen(array):
            array = array if array.flags.owndata else array.copy()
            array.flags.writeable = False
            return array
        return _Problem(frozen(self.X), frozen(self.y), self.feature_names, self.similarity,
                        self.groups)

    def estimator(self, spec: StudySpec, params: dict):
        """The estimator of a trial with Optuna ``params`` (:meth:`StudySpec.estimator`
        with these data's feature groups)."""
        return spec.estimator(params, groups=self.groups)


def measure_values(runs: RunSet, spec: StudySpec, similarity) -> dict[str, float]:
    """The objective's measure and every recorded one, with their applicable options."""
    values = {}
    for name in spec.objective.measures:
        info = get_measure(name)
        options = {k: v for k, v in spec.objective.options.items() if k in info.options}
        if info.input == "ranking" and runs.rank_matrix is None:
            continue
        extra = {"similarity": similarity} if info.needs_similarity else {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", StabilityWarning)
            values[name] = runs.stability(name, **extra, **options)
    return values


def kept_ranks(spec: StudySpec) -> str | int | None:
    """What of the rankings a trial's RunSet artifact keeps: what the spec's measures read
    — ``"full"`` if one reads whole rankings, the largest top-k if all read top-k lists,
    None if no measure reads rankings (a 100-run ranking of 12 600 features is 2.5 MB)."""
    depths = []
    for name in spec.objective.measures:
        info = get_measure(name)
        if info.input == "ranking":
            k = spec.objective.options.get("k") if "k" in info.options else None
            if k is None:
                return "full"
            depths.append(int(k))
    return max(depths) if depths else None


def make_objective(spec: StudySpec, problem: _Problem, *, store, n_jobs: int | None = None,
                   resamples_seed: int | None = None,
                   cache_bytes: int = DEFAULT_CACHE_BYTES, slots: TrialSlots | None = None):
    """The trial function: protocol → (accuracy, stability), attributes and artifacts.

    With shared resamples every trial's protocol is seeded by ``resamples_seed`` (see
    :func:`resample_seed`) and the prepared runs are kept in one :class:`RunCache` of
    ``cache_bytes`` per process for all of this objective's trials. With ``slots`` a trial
    first claims its slot, and is pruned without running if the study already has its
    trials. The function's ``interrupts`` (:class:`Interrupts`) say where Ctrl-C may stop
    it; a trial stopped by one fails with its reason and does not count.
    """
    shared = spec.protocol.resamples == "shared"
    if shared and resamples_seed is None:
        raise InvalidInputError("shared resamples need the study's resample seed.")
    cache = RunCache(cache_bytes) if shared else None
    problem = problem.read_only()
    ranks = kept_ranks(spec)
    names = objective_names(spec)
    interrupts = Interrupts()
    _start_drawing()

    def objective(trial: optuna.Trial) -> tuple[float, float]:
        refused = None if slots is None else slots.claim(trial)
        if refused:
            raise optuna.TrialPruned(refused)
        params = suggest_params(trial, spec)
        start = time.perf_counter()
        try:
            with interrupts.computation():
                runs = run_protocol(
                    problem.estimator(spec, params), problem.X, problem.y,
                    runs=spec.protocol.runs, resampling=spec.protocol.resampling,
                    sample_fraction=spec.protocol.sample_fraction,
                    prefilter=spec.data.prefilter, metric=spec.protocol.metric,
                    random_state=resamples_seed if shared else [spec.seed or 0, trial.number],
                    n_jobs=n_jobs or spec.protocol.n_jobs, cache=cache, progress=False)
                protocol_end = time.perf_counter()
                values = measure_values(runs, spec, problem.similarity)
        except KeyboardInterrupt:
            release(trial.study._storage, trial._trial_id, interrupts.reason)
            raise
        except Exception as exc:
            trial.set_user_attr("fail_reason", f"{type(exc).__name__}: {exc}")
            raise
        measures_end = time.perf_counter()
        accuracy, stability = runs.accuracy, values[spec.objective.stability]
        on_front = _on_front(trial, accuracy, stability)
        map_data = stability_map(runs, feature_names=problem.feature_names, top=NOTE_FEATURES)
        title = (f"Trial {trial.number} · {names[0]} {accuracy:.4f} · {names[1]} "
                 f"{stability:.4f}")
        image = _upload_artifacts(trial, runs, map_data, store, ranks,
                                  title=title if on_front else None)
        artifacts_end = time.perf_counter()
        write_note(trial, trial_note(trial.number, spec, values, accuracy, map_data,
                                     on_front=on_front, image=image,
                                     selector=params.get(SELECTOR_PARAM)))
        end = time.perf_counter()
        trial.set_user_attr("measures", values)
        trial.set_user_attr("mean_selected", runs.mean_selected)
        trial.set_user_attr("runs", runs.runs)
        trial.set_user_attr("seconds", end - start)
        # seconds to 0.1 ms: the dashboard shows a user attribute on one line that does
        # not wrap, and at full precision this one (270 characters) made the trial pane
        # wider than a 2600 px window, cutting off the note's right side (now 160
        # characters: the pane fits windows from about 1650 px)
        trial.set_user_attr("timing", {key: round(value, 4) for key, value in {
            "protocol": protocol_end - start, "preparation": float(runs.prepare_seconds.sum()),
            "fits": float(runs.fit_seconds.sum()), "scoring": float(runs.score_seconds.sum()),
            "measures": measures_end - protocol_end,
            "artifacts": end - measures_end, "note": end - artifacts_end,  # note ⊂ artifacts
            "run_cache_mib": (cache.nbytes / 2**20) if cache is not None else 0.0}.items()})
        trial.set_user_attr("spec_hash", spec.content_hash())
        if runs.params.get("calibrated"):
            trial.set_user_attr("calibrated", runs.params["calibrated"])
        if math.isnan(accuracy) or math.isnan(stability):
            trial.set_user_attr("fail_reason", "accuracy or stability is undefined (NaN)")
        return accuracy, stability

    objective.interrupts = interrupts
    return objective


def _on_front(trial: optuna.Trial, accuracy: float, stability: float) -> bool:
    """Whether ``(accuracy, stability)`` is on the front of the study's completed trials
    and it: the trial joins the front as it finishes (and every trial ever on the front
    did so when it finished)."""
    from paretostab.front import pareto_front

    points = front_points(trial.study)[1]
    return len(points) in pareto_front(np.vstack([points, [accuracy, stability]]))


def _start_drawing() -> None:
    """Import matplotlib and load its fonts now, by drawing a tiny map with a title: a
    start-up cost of the process (about a second), not of the first trial that draws
    one."""
    import io

    from paretostab.plot import stability_map_figure

    tiny = RunSet(selection_matrix=np.eye(2, dtype=bool), importance_matrix=np.eye(2),
                  rank_matrix=None, scores=np.ones(2), seeds=np.zeros(2, dtype=np.uint32),
                  fit_seconds=np.zeros(2), metric="accuracy", resampling="bootstrap",
                  selector="start-up")
    stability_map_figure(stability_map(tiny), size=MAP_SIZE, dpi=MAP_DPI,
                         title="Trial 0 · accuracy 1 · φ_iw 1").savefig(io.BytesIO(),
                                                                       format="png")


def _upload_artifacts(trial, runs: RunSet, map_data: StabilityMap, store, ranks, *,
                      title: str | None) -> str | None:
    """Upload the trial's RunSet and, with a ``title``, its feature stability map
    (``MAP_SIZE`` at ``MAP_DPI``, titled): the map's address on optuna-dashboard
    (``/artifacts/<study_id>/<trial_id>/<artifact_id>``, as the dashboard's own notes
    link images), else None.

    A map costs matplotlib about 0.13 s in the quickstart (laying out and rendering text
    mostly; 0.11 s at the former 640 × 400 px without a title), about half of the
    quickstart's median protocol (0.2–0.23 s): drawn only for the trials that join the
    front, which the dashboard and the report show; any other map is a ``load_runset``
    away, and every trial's note lists its most frequent features without drawing.
    """
    with tempfile.TemporaryDirectory() as folder:
        runset_path = runs.save(Path(folder) / f"runset-trial-{trial.number}.npz", ranks=ranks)
        upload_artifact(artifact_store=store, file_path=str(runset_path), study_or_trial=trial,
                        mimetype="application/octet-stream")
        if title is None:
            return None
        from paretostab.plot import stability_map_figure

        figure = stability_map_figure(map_data, size=MAP_SIZE, dpi=MAP_DPI, title=title)
        map_path = Path(folder) / f"stability-map-trial-{trial.number}.png"
        figure.savefig(map_path, pil_kwargs={"compress_level": 1})
        artifact_id = upload_artifact(artifact_store=store, file_path=str(map_path),
                                      study_or_trial=trial, mimetype="image/png")
    return f"/artifacts/{trial.study._study_id}/{trial._trial_id}/{artifact_id}"


def _optimize(study: optuna.Study, objective, slots: TrialSlots, *,
              timeout: float | None = None, callbacks=()) -> None:
    """Run trials of an objective from :func:`make_objective` with ``slots`` while the
    study has free slots (:meth:`TrialSlots.wait`), taking its interrupts where they are
    safe (:class:`Interrupts`): an interrupted trial is failed by Optuna, with its reason
    and ``counted`` = False, and the interrupt is re-raised."""
    interrupts = objective.interrupts
    deadline = None if timeout is None else time.monotonic() + timeout

    def next_slot(study: optuna.Study, trial) -> None:
        _say_failed(trial)
        if not slots.wait(interrupts, deadline):
            study.stop()

    with interrupts.handling(study):
        if slots.wait(interrupts, deadline):
            study.optimize(objective, catch=(Exception,), timeout=timeout,
                           callbacks=[*callbacks, next_slot])


def _say_failed(trial: optuna.trial.FrozenTrial) -> None:
    """One line on stderr for a failed trial, with its reason (Optuna would log a
    traceback; the reason is also the trial's ``fail_reason``)."""
    if trial.state == TrialState.FAIL:
        from tqdm.auto import tqdm

        reason = trial.user_attrs.get("fail_reason", "no reason recorded")
        tqdm.write(f"trial {trial.number} failed: {reason}", file=sys.stderr)


def _end_with_parent(interrupts: Interrupts) -> None:
    """Interrupt this worker process when the ``tune`` process that started it ends (even
    by kill -9), and end it 10 s later if the interrupt has not."""
    parent = multiprocessing.parent_process()

    def watch() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        interrupts.reason = "interrupted: the tune process that started its worker ended"
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(10.0)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="end-with-parent").start()


def _worker(spec: StudySpec, problem: _Problem, storage_url: str, artifacts: str | None,
            study_name: str | None, n_trials: int, timeout: float | None, n_jobs: int | None,
            cache_bytes: int, heartbeat: tuple[int, int], errors) -> None:
    """One tuning process (``--workers``): its own storage connection, sampler stream and
    run cache; the data come from the parent (loaded once). Its error goes to the parent
    through ``errors`` (the parent prints it) and it exits with code 1. In a process group
    of its own, it gets Ctrl-C from the parent (once), not from the terminal."""
    os.setpgrp()
    try:
        optuna.logging.set_verbosity(optuna.logging.ERROR)  # failures: _say_failed
        study = create_or_load_study(spec, storage=open_storage(
            storage_url, heartbeat_interval=heartbeat[0], grace_period=heartbeat[1]),
            study_name=study_name)
        slots = TrialSlots(study, n_trials)
        objective = make_objective(spec, problem, store=artifact_store(storage_url, artifacts),
                                   n_jobs=n_jobs, resamples_seed=resample_seed(study),
                                   cache_bytes=cache_bytes, slots=slots)
        _end_with_parent(objective.interrupts)
        _optimize(study, objective, slots, timeout=timeout)
    except KeyboardInterrupt:  # the parent reports
        return
    except BaseException as exc:
        errors.put(str(exc) if isinstance(exc, ParetostabError) else
                   f"a worker failed: {type(exc).__name__}: {exc}")
        sys.exit(1)


def tune(spec: StudySpec, *, storage: str | None = None, study_name: str | None = None,
         n_trials: int | None = None, timeout: float | None = None, n_jobs: int | None = None,
         workers: int = 1, artifacts: str | None = None,
         cache_bytes: int = DEFAULT_CACHE_BYTES, progress: bool | None = None,
         heartbeat_interval: int = HEARTBEAT_SECONDS,
         grace_period: int = GRACE_SECONDS) -> optuna.Study:
    """Run (or resume) the spec's study until it has ``n_trials`` counted trials.

    ``n_trials`` is the study's, not this call's: every process that runs the study — the
    ``workers`` processes, other ``tune`` calls on the same storage, on other machines —
    takes trial slots from the same ``n_trials`` (:class:`TrialSlots`), each with its own
    sampler stream (:class:`StreamSampler`). A trial whose process is gone fails as stale
    and its slot is run again: at once when the process was on this host, after
    ``grace_period`` seconds without one of its heartbeats (every
    ``heartbeat_interval`` seconds) on an RDB storage. ``n_jobs`` parallelises the runs
    inside a trial. The data are loaded once, here, before the study is created or
    opened, and handed to the workers. With shared resamples each process keeps its
    prepared runs in a :class:`~paretostab.protocol.RunCache` of ``cache_bytes``. A trial
    that raises is recorded as failed with its reason (user attribute ``fail_reason``),
    counts, and the study goes on. Ctrl-C stops cleanly: completed trials are kept, the
    running one fails as interrupted (and does not count). A worker's error is raised
    here as a :class:`~paretostab.errors.WorkerError`.
    """
    url = storage or spec.storage or DEFAULT_STORAGE
    total = spec.trials if n_trials is None else n_trials
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidInputError(f"workers must be an integer >= 1; got {workers!r}.")
    if isinstance(total, bool) or not isinstance(total, int) or total < 1:
        raise InvalidInputError(f"n_trials must be an integer >= 1; got {total!r}.")
    if spec.sampler == "grid" and total > spec.grid_size():
        raise InvalidInputError(f"n_trials: the grid has {spec.grid_size()} points, each run "
                                f"once; got {total}.")
    if isinstance(cache_bytes, bool) or not isinstance(cache_bytes, int) or cache_bytes < 0:
        raise InvalidInputError(
            f"cache_bytes must be an integer >= 0 (the run cache's memory budget per "
            f"process); got {cache_bytes!r}.")
    optuna.logging.set_verbosity(optuna.logging.ERROR)  # failures: _say_failed
    problem = _Problem.from_spec(spec)
    store = artifact_store(url, artifacts)  # both checked before the study is opened
    study = create_or_load_study(spec, storage=open_storage(
        url, heartbeat_interval=heartbeat_interval, grace_period=grace_period),
        study_name=study_name)
    start = counted_trials(study)
    if start >= total:
        return study
    enabled = sys.stderr.isatty() if progress is None else progress
    from tqdm.auto import tqdm

    bar = tqdm(total=total - start, desc=f"study {study.study_name}", disable=not enabled)
    try:
        if workers == 1:
            slots = TrialSlots(study, total)
            objective = make_objective(spec, problem, store=store,
                                       n_jobs=n_jobs, resamples_seed=resample_seed(study),
                                       cache_bytes=cache_bytes, slots=slots)
            _optimize(study, objective, slots, timeout=timeout,
                      callbacks=[lambda s, t: _advance(bar, s, start)])
        else:
            _run_workers(min(workers, total - start), study, bar, start, args=(
                spec, problem, url, artifacts, study_name, total, timeout, n_jobs,
                cache_bytes, (heartbeat_interval, grace_period)))
    finally:
        bar.close()
    return study


def _run_workers(workers: int, study: optuna.Study, bar, start: int, *, args) -> None:
    """Start ``workers`` processes of :func:`_worker` and follow the study until they end.
    Ctrl-C is passed on to each of them once (they stop after their trial's computation
    is interrupted), then awaited for 30 s. A worker's error is raised as a WorkerError."""
    context = multiprocessing.get_context("spawn")
    errors = context.SimpleQueue()
    processes = [context.Process(target=_worker, args=(*args, errors), name=f"worker-{i}")
                 for i in range(workers)]
    for process in processes:
        process.start()
    try:
        while any(p.is_alive() for p in processes):
            time.sleep(1.0)
            _advance(bar, study, start)
    except KeyboardInterrupt:
        for process in processes:
            if process.is_alive():
                os.kill(process.pid, signal.SIGINT)
        for process in processes:
            process.join(30.0)
            if process.is_alive():
                process.kill()
        raise
    _advance(bar, study, start)
    messages = []
    while not errors.empty():
        message = errors.get()
        if message not in messages:
            messages.append(message)
    failed = [p for p in processes if p.exitcode != 0]
    if failed:
        raise WorkerError(messages[0] if messages else (
            f"{failed[0].name} ended with exit code {failed[0].exitcode} "
            "(killed?) without an error message"))


def _advance(bar, study: optuna.Study, start: int) -> None:
    """Move the progress bar to the counted trials; show the front's size and area."""
    from paretostab.front import dominance_area, pareto_front

    bar.n = min(bar.total, counted_trials(study) - start)
    points = front_points(study)[1]
    if len(points):
        bar.set_postfix(front=len(pareto_front(points)), area=f"{dominance_area(points):.3f}")
    bar.refresh()


def front_points(study: optuna.Study) -> tuple[list[optuna.trial.FrozenTrial], np.ndarray]:
    """The completed trials and their (accuracy, stability) values."""
    trials = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    points = np.array([t.values for t in trials], dtype=float).reshape(-1, 2)
    return trials, points


def front_table(study: optuna.Study):
    """The Pareto-optimal trials as a table (pandas DataFrame), by increasing accuracy."""
    import pandas as pd

    from paretostab.front import pareto_front

    trials, points = front_points(study)
    names = study.metric_names or ["accuracy", "stability"]
    rows = []
    for index in pareto_front(points) if len(points) else []:
        trial = trials[index]
        rows.append({"trial": trial.number, names[0]: trial.values[0], names[1]: trial.values[1],
                     "k̄": trial.user_attrs.get("mean_selected"), **trial.params})
    return pd.DataFrame(rows)


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


def _note_target(study_or_trial) -> tuple[optuna.storages.BaseStorage, int, int | None]:
    if isinstance(study_or_trial, optuna.Study):
        return study_or_trial._storage, study_or_trial._study_id, None
    return study_or_trial.storage, study_or_trial.study._study_id, study_or_trial._trial_id


def has_note(study_or_trial) -> bool:
    """Whether the study (or the running trial) has an optuna-dashboard note, even an
    emptied one."""
    storage, study_id, trial_id = _note_target(study_or_trial)
    return _note_keys(trial_id)[0] in storage.get_study_system_attrs(study_id)


def write_note(study_or_trial, body: str) -> None:
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


_MARKUP = re.compile(r"[\\`*\[\]<>|~&]|(?<!\w)_|_(?!\w)")


def _md(text: object) -> str:
    """``text`` on one line, read literally in the note's Markdown: the characters that
    would start markup escaped (``|`` must be, in a table), ``_`` only where it could
    (``φ_iw`` and ``g1_0`` stay as they are, for whoever edits the note)."""
    return _MARKUP.sub(lambda found: "\\" + found.group(0), " ".join(str(text).split()))


def _number(value: float) -> str:
    return "nan" if value is None or math.isnan(value) else f"{value:.4f}"


_METRICS = {"accuracy": "out-of-bag accuracy", "balanced_accuracy":
            "out-of-bag balanced accuracy", "roc_auc": "out-of-bag ROC AUC"}


def _resamples(spec: StudySpec) -> str:
    """How a trial's M resamples are drawn, in words."""
    p, data = spec.protocol, f"`{spec.data.source.replace('`', '')}`"  # a code span: literal
    if p.resampling == "bootstrap":
        kind = (f"M = {p.runs} stratified bootstrap resamples of {data} (each class drawn "
                "with replacement to its size)")
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
        searched = ", ".join(f"`{spec.param_name(selector, p)}`" for p in selector.search)
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
               stability_map: StabilityMap, *, on_front: bool, image: str | None = None,
               selector: str | None = None, top: int = NOTE_FEATURES) -> str:
    """A trial's optuna-dashboard note (Markdown): whether it joined the front, its
    objective values by name, every recorded measure by its symbol (and registry name),
    k̄ and the runs, its ``top`` most frequently selected features with their selection
    frequencies ``p_f`` (``stability_map``'s order) and, with ``image`` (the map's
    address), its stability map. Lists, not tables: the dashboard draws tables without
    cell spacing; short lines: a long user attribute can make the trial pane wider than
    the window (optuna-dashboard does not wrap them), cutting off long lines' ends."""
    metric, objective = spec.protocol.metric, get_measure(spec.objective.stability)
    m = stability_map
    where = "on the Pareto front when it finished" if on_front else "dominated when it finished"
    lines = [
        f"**Trial {number}**" + (f" · selector `{selector}`" if selector else "") + f" · {where}",
        "",
        f"- objectives (maximised): **{_md(metric)} = {_number(accuracy)}** · "
        f"**{_md(objective.label)} = {_number(measures.get(objective.name, math.nan))}**",
        "- measures: " + " · ".join(f"{_md(get_measure(name).label)} = {_number(value)} "
                                    f"(`{name}`)" for name, value in measures.items()),
        f"- k̄ = {m.mean_selected:.2f} features selected per run (mean) · M = {m.runs} "
        f"{spec.protocol.resampling} runs",
    ]
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
