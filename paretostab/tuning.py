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

Optuna appears only here, in the CLI and in the report's loader.
"""

from __future__ import annotations

import math
import multiprocessing
import multiprocessing.connection
import os
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
from paretostab.measures import get_measure
from paretostab.protocol import DEFAULT_CACHE_BYTES, RunCache, RunSet, run_protocol
from paretostab.selectors import get_selector
from paretostab.similarity import FeatureSimilarity
from paretostab.spec import SAMPLERS, Param, StudySpec
from paretostab.storage import DEFAULT_STORAGE, artifact_store, open_storage

# ------------------------------------------------------------------------- the study


def make_sampler(name: str, seed: int | None) -> optuna.samplers.BaseSampler:
    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed)
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
    sampler = StreamSampler(lambda seed: make_sampler(spec.sampler, seed), spec.seed)
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
            study.set_metric_names([spec.protocol.metric, spec.objective.stability])
    elif known != spec.content_hash():
        raise InvalidInputError(
            f"Study {name!r} in this storage was made from another spec or by another "
            f"version of paretostab (hash {known[:12]}, this spec "
            f"{spec.content_hash()[:12]}); choose another --study-name."
        )
    return study


def resample_seed(study: optuna.Study) -> int:
    """The seed of the resamples every trial of a shared-resamples study runs on."""
    return int(study.user_attrs["resample_seed"])


def suggest(trial: optuna.Trial, param: Param):
    """Draw one hyperparameter from its spec range."""
    if param.choices is not None:
        return trial.suggest_categorical(param.name, list(param.choices))
    if param.integer:
        return trial.suggest_int(param.name, int(param.low), int(param.high), log=param.log)
    return trial.suggest_float(param.name, float(param.low), float(param.high), log=param.log)


@dataclass
class _Problem:
    """What every trial of a study shares: the data and, if needed, the similarity.
    Loaded once by ``tune`` and handed to its worker processes."""

    X: np.ndarray
    y: np.ndarray
    feature_names: tuple[str, ...]
    similarity: FeatureSimilarity | None

    @classmethod
    def from_spec(cls, spec: StudySpec) -> _Problem:
        """The spec's data (a simulated source with seed 0: every process, every report
        of the study sees the same data) and similarity."""
        data = load_dataset(spec.data.source, label=spec.data.label, impute=spec.data.impute,
                            random_state=0)
        similarity = (FeatureSimilarity(data.X, spec.objective.similarity)
                      if spec.objective.similarity else None)
        return cls(data.X, data.y, data.feature_names, similarity)

    def read_only(self) -> _Problem:
        """The same problem with data no one can change (copied where they view other
        memory): the run cache then recognises them without hashing them every trial."""
        def frozen(array):
            array = array if array.flags.owndata else array.copy()
            array.flags.writeable = False
            return array
        return _Problem(frozen(self.X), frozen(self.y), self.feature_names, self.similarity)


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
    info = get_selector(spec.selector.name)
    shared = spec.protocol.resamples == "shared"
    if shared and resamples_seed is None:
        raise InvalidInputError("shared resamples need the study's resample seed.")
    cache = RunCache(cache_bytes) if shared else None
    problem = problem.read_only()
    ranks = kept_ranks(spec)
    interrupts = Interrupts()
    _start_drawing()

    def objective(trial: optuna.Trial) -> tuple[float, float]:
        if slots is not None and not slots.claim(trial):
            raise optuna.TrialPruned(
                f"not run: the study had its {slots.n_trials} trials, finished or running, "
                "when this one started")
        params = {p.name: suggest(trial, p) for p in spec.selector.search}
        start = time.perf_counter()
        try:
            with interrupts.computation():
                runs = run_protocol(
                    info.make(**{**spec.selector.fixed, **params}), problem.X, problem.y,
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
        _upload_artifacts(trial, runs, problem.feature_names, store, ranks,
                          draw_map=_on_front(trial, accuracy, stability))
        end = time.perf_counter()
        trial.set_user_attr("measures", values)
        trial.set_user_attr("mean_selected", runs.mean_selected)
        trial.set_user_attr("runs", runs.runs)
        trial.set_user_attr("seconds", end - start)
        trial.set_user_attr("timing", {
            "protocol": protocol_end - start, "preparation": float(runs.prepare_seconds.sum()),
            "fits": float(runs.fit_seconds.sum()), "scoring": float(runs.score_seconds.sum()),
            "measures": measures_end - protocol_end, "artifacts": end - measures_end,
            "run_cache_mib": (cache.nbytes / 2**20) if cache is not None else 0.0})
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
    """Import matplotlib and load its fonts now, by drawing a tiny map: a start-up cost of
    the process (about a second), not of the first trial that draws one."""
    import io

    from paretostab.maps import stability_map
    from paretostab.plot import stability_map_figure

    tiny = RunSet(selection_matrix=np.eye(2, dtype=bool), importance_matrix=np.eye(2),
                  rank_matrix=None, scores=np.ones(2), seeds=np.zeros(2, dtype=np.uint32),
                  fit_seconds=np.zeros(2), metric="accuracy", resampling="bootstrap",
                  selector="start-up")
    stability_map_figure(stability_map(tiny)).savefig(io.BytesIO(), format="png")


def _upload_artifacts(trial, runs: RunSet, feature_names, store, ranks, *,
                      draw_map: bool) -> None:
    """The trial's RunSet and, when ``draw_map``, its feature stability map (a PNG costs
    matplotlib about 0.15–0.2 s, mostly laying out and rendering text: 8 % of a trial's
    protocol with shared resamples; drawn for the trials that join the front, which the
    dashboard and the report show; any other map is a ``load_runset`` away)."""
    with tempfile.TemporaryDirectory() as folder:
        runset_path = runs.save(Path(folder) / f"runset-trial-{trial.number}.npz", ranks=ranks)
        upload_artifact(artifact_store=store, file_path=str(runset_path), study_or_trial=trial,
                        mimetype="application/octet-stream")
        if not draw_map:
            return
        from paretostab.maps import stability_map
        from paretostab.plot import stability_map_figure

        figure = stability_map_figure(stability_map(runs, feature_names=feature_names, top=10))
        map_path = Path(folder) / f"stability-map-trial-{trial.number}.png"
        figure.savefig(map_path, pil_kwargs={"compress_level": 1})
        upload_artifact(artifact_store=store, file_path=str(map_path), study_or_trial=trial,
                        mimetype="image/png")


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
