"""Reading a tuned study for the report: the report package's one contact with Optuna.

:func:`read_study` opens a study of a storage as a :class:`StudyReader`, which gives what
the report's analyses need as plain data: the completed trials as a table (accuracy,
every measure asked for — recomputed from the trials' RunSets where the study did not
record it — k̄ (:data:`KBAR`) and parameters), a trial's RunSet, the study's objective and recorded
measures, and the replicates of front trials (002 §3: ``B`` fresh protocols of a trial's
setting), which it runs once and caches in the study's system attributes (kept with the
study, not shown by the dashboard as artifacts one could delete), so that a second report
or a comparison re-runs nothing. What re-running a trial needs — the spec the study was
made from and its data (:class:`~paretostab.problem.Problem`), the artifact store — is
built on first use.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Sequence

import optuna
import pandas as pd
from optuna.trial import TrialState

from paretostab.errors import InvalidInputError, UnknownNameError
from paretostab.evaluation import HeldOutScore, outer_study_name
from paretostab.maps import FeaturePalette
from paretostab.optuna_internals import storage_of, study_id_of
from paretostab.problem import Problem
from paretostab.progress import progress_bar
from paretostab.runset import RunSet
from paretostab.spec import SELECTOR_PARAM, StudySpec, parse_spec
from paretostab.storage import artifact_store, display_url, load_runset, open_storage
from paretostab.vocabulary import KBAR

__all__ = ["HELD_OUT_KEY", "LABELS_KEY", "REPLICATES_KEY", "StudyReader",
           "open_study", "read_study"]

#: Prefix of the study system attributes that cache a front trial's replicates
#: (``paretostab:replicates:<trial number>:<B>``).
REPLICATES_KEY = "paretostab:replicates:"
#: Prefix of those caching a trial's held-out score
#: (``paretostab:held-out:<trial number>:<level>``).
HELD_OUT_KEY = "paretostab:held-out:"
#: Prefix of those caching whether a trial's selection ignores the labels
#: (``paretostab:ignores-labels:<trial number>``).
LABELS_KEY = "paretostab:ignores-labels:"


def open_study(storage: optuna.storages.BaseStorage, study_name: str | None) -> optuna.Study:
    """The study ``study_name`` of ``storage``, or its only study when no name is given
    (the studies of a nested evaluation's outer folds, ``<name>/outer-<k>``, belong to
    their study)."""
    names = [s.study_name for s in optuna.get_all_study_summaries(storage)]
    if study_name is None:
        own = [n for n in names  # a nested evaluation's outer folds belong to their study
               if not any(n.startswith(outer_study_name(m, 1)[:-1]) for m in names)]
        if len(own) == 1:
            study_name = own[0]
        elif len(names) != 1:
            raise InvalidInputError(
                f"The storage holds {len(names)} studies ({', '.join(names) or 'none'}); "
                "choose one with --study-name."
            )
        study_name = names[0]
    if study_name not in names:
        raise UnknownNameError.for_name("study", study_name, names)
    return optuna.load_study(study_name=study_name, storage=storage)


def read_study(storage_url: str, study_name: str | None = None, *,
               artifacts: str | None = None,
               storage: optuna.storages.BaseStorage | None = None,
               data: object = None) -> StudyReader:
    """The study ``study_name`` (default: the storage's only one) of the storage at
    ``storage_url`` (or the already opened ``storage``), which must exist, as a
    :class:`StudyReader`; its artifact store (``artifacts``, default the storage's) is
    opened when a RunSet is first read; ``data``: the data of a study tuned on data in
    memory."""
    storage = open_storage(storage_url, must_exist=True) if storage is None else storage
    return StudyReader(open_study(storage, study_name), storage_url,
                       functools.partial(artifact_store, storage_url, artifacts,
                                         must_exist=True), data)


class StudyReader:
    """A tuned study, read for the report (see the module's docstring).

    Parameters
    ----------
    study : optuna.Study
    storage_url : str
        Where it is stored: the URL it is read from (its password too; the report shows
        :attr:`location`).
    open_store : callable
        Opens the study's artifact store (called once, when first needed).
    data : optional
        The data of a study tuned on data given in memory (``tune(spec, data=…)``), in
        any form :func:`~paretostab.data.as_dataset` takes; checked against the content
        hash the study stored. None: the spec's ``[data]`` source is loaded.
    """

    def __init__(self, study: optuna.Study, storage_url: str,
                 open_store: Callable[[], object], data: object = None) -> None:
        self.study = study
        self.storage_url = storage_url
        self._open_store = open_store
        self._data = data

    @property
    def name(self) -> str:
        return self.study.study_name

    @property
    def storage(self) -> optuna.storages.BaseStorage:
        return storage_of(self.study)

    @property
    def location(self) -> str:
        """Where the study is stored, as the report says it: the storage URL with its
        password masked (:func:`~paretostab.storage.display_url`)."""
        return display_url(self.storage_url)

    # ------------------------------------------------------------------ the study's own

    @functools.cached_property
    def objective(self) -> str:
        """The registry name of the study's stability objective."""
        return (self.study.user_attrs.get("objective")
                or (self.study.metric_names or ["", "stability"])[1])

    @functools.cached_property
    def recorded(self) -> list[str]:
        """The measures the study's spec records on every trial."""
        return list(self.study.user_attrs.get("spec", {}).get("objective", {})
                    .get("record", []))

    @property
    def has_spec(self) -> bool:
        """Whether the study holds its spec (older versions did not): without it no
        trial can be re-run."""
        return "spec" in self.study.user_attrs

    @functools.cached_property
    def spec(self) -> StudySpec:
        """The spec the study was made from."""
        if not self.has_spec:
            raise InvalidInputError(
                f"Study {self.name!r} holds no spec (made by an older version): its "
                "trials cannot be re-run; use --replicates 0.")
        return parse_spec(self.study.user_attrs["spec"])

    @functools.cached_property
    def problem(self) -> Problem:
        """The spec with its data (loaded on first use)."""
        return Problem.from_spec(self.spec, self._data)

    @functools.cached_property
    def palette(self) -> FeaturePalette | None:
        """The colours of the study's features, which its trials' maps on the dashboard
        took too (:func:`~paretostab.tuning.study.study_palette`; 003 §3: "each feature is
        assigned a color"); None for a study without its spec (no data to compute them
        from)."""
        from paretostab.tuning.study import study_palette

        return study_palette(self.study, self.problem) if self.has_spec else None

    def note_front(self, front: pd.DataFrame, when: str) -> None:
        """Give the study's optuna-dashboard note the front as of this report: the study
        note (:func:`~paretostab.tuning.notes.study_note`) and a section listing the
        ``front`` rows (trial, metric in the column ``accuracy``, objective) computed
        ``when``. Trial notes say nothing of the front (later trials change it); this note
        says when it was current. Nothing for a study without its spec (made by hand)."""
        from paretostab.measures import get_measure
        from paretostab.tuning.notes import rewrite_note, study_note

        if not self.has_spec:
            return
        spec = self.spec
        metric, objective = spec.protocol.metric, spec.objective.stability
        label = get_measure(objective).label
        lines = ["", f"## The Pareto front, as of the report of {when}", "",
                 f"{len(front)} trials, by increasing {metric} (later trials may change it: "
                 "run `python -m paretostab report` again):", ""]
        lines += [f"- trial {int(row['trial'])}: {metric} {row['accuracy']:.4f} · {label} "
                  f"{row[objective]:.4f}" for _, row in front.iterrows()]
        rewrite_note(self.storage, study_id_of(self.study), None,
                     study_note(spec) + "\n".join(lines) + "\n")

    def outer_reader(self, fold: int) -> StudyReader | None:
        """The study of outer fold ``fold`` of a nested evaluation
        (:func:`~paretostab.evaluation.outer_study_name`) in the same storage, read with
        the same artifact store and data; None when it has not been created yet."""
        name = outer_study_name(self.name, fold)
        names = {s.study_name for s in optuna.get_all_study_summaries(self.storage)}
        if name not in names:
            return None
        return StudyReader(optuna.load_study(study_name=name, storage=self.storage),
                           self.storage_url, lambda: self.store, self._data)

    @functools.cached_property
    def store(self):
        """The study's artifact store (opened on first use)."""
        return self._open_store()

    def selectors(self, table: pd.DataFrame) -> list[str]:
        """The selectors of a study's trials (``table``'s ``selector`` column, in a
        multi-selector study), else its spec's."""
        if SELECTOR_PARAM in table.columns:
            return sorted(str(s) for s in table[SELECTOR_PARAM].dropna().unique())
        name = self.study.user_attrs.get("spec", {}).get("selector", {}).get("name", [])
        return [name] if isinstance(name, str) else list(name)

    # ------------------------------------------------------------------ trials

    def trial(self, number: int) -> optuna.trial.FrozenTrial:
        """Trial ``number`` (without copying every trial, as ``study.trials`` does)."""
        return self.study.get_trials(deepcopy=False)[int(number)]

    def runset(self, number: int) -> RunSet:
        """The RunSet trial ``number`` uploaded."""
        return load_runset(self.trial(number), storage=self.storage, store=self.store)

    def trial_table(self, measures: Sequence[str]) -> pd.DataFrame:
        """One row per completed trial: ``trial`` (its number), ``accuracy``, every measure
        of ``measures`` (a measure no trial recorded is recomputed from the trials'
        RunSets), ``kbar`` (:data:`KBAR`: k̄) and the trial's parameters. Empty when no
        trial has completed."""
        rows = []
        for trial in self.study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
            recorded = trial.user_attrs.get("measures", {})
            rows.append({"trial": trial.number, "accuracy": trial.values[0],
                         **{m: recorded.get(m, math.nan) for m in measures},
                         KBAR: trial.user_attrs.get("mean_selected"), **trial.params})
        table = pd.DataFrame(rows)
        missing = [m for m in measures if not table.empty and table[m].isna().all()]
        for index, number in enumerate(table["trial"] if missing else ()):
            values = self.problem.measure_values(self.runset(number), missing)
            for name in missing:
                table.loc[index, name] = values.get(name, math.nan)
        return table

    # ------------------------------------------------------------------ replicates

    @functools.cached_property
    def _cache(self) -> dict:
        """The study's cached replicates, held-out scores and label probes, read once:
        every trial looks its own up here, and the methods that compute them keep it up
        to date."""
        return {key: values for key, values in
                self.storage.get_study_system_attrs(study_id_of(self.study)).items()
                if key.startswith((REPLICATES_KEY, HELD_OUT_KEY, LABELS_KEY))}

    def _cached(self, key: str, compute: Callable[[], object]) -> object:
        """The study's cached value under ``key``, computed and stored when missing."""
        if key not in self._cache:
            self._cache[key] = compute()
            self.storage.set_study_system_attr(study_id_of(self.study), key,
                                               self._cache[key])
        return self._cache[key]

    def held_out_score(self, number: int, level: float) -> HeldOutScore:
        """Trial ``number``'s setting refitted on the development part and scored on the
        held-out part (:meth:`~paretostab.problem.Problem.held_out_score`), cached in the
        study (``paretostab:held-out:N:level``)."""
        params = self.trial(number).params
        found = self._cached(f"{HELD_OUT_KEY}{int(number)}:{level}", lambda: (
            self.problem.held_out_score(params, level=level).to_dict()))
        return HeldOutScore(**found)

    def ignores_labels(self, number: int) -> bool:
        """Whether trial ``number``'s setting selects the same features whatever the
        labels (:meth:`~paretostab.problem.Problem.ignores_labels`), cached in the study
        (``paretostab:ignores-labels:N``)."""
        params = self.trial(number).params
        return bool(self._cached(f"{LABELS_KEY}{int(number)}",
                                 lambda: self.problem.ignores_labels(params)))

    def default_replicates(self) -> int:
        """``B`` of the study's spec (``protocol.replicates``)."""
        return self.spec.protocol.replicates

    def replicates(self, number: int, n_replicates: int, measures: Iterable[str]) -> dict:
        """The accuracy and ``measures`` of ``n_replicates`` fresh protocols of trial
        ``number``'s setting: ``{"accuracy": [...], measure: [...]}`` — cached in the
        study (``paretostab:replicates:N:B``); a cached entry lacking a measure is run
        again and extended."""
        measures = list(measures)
        key = f"{REPLICATES_KEY}{int(number)}:{n_replicates}"
        cached = self._cache.get(key)
        if cached is not None and all(m in cached for m in measures):
            return cached
        problem = self.problem
        runsets = problem.replicates(self.trial(number).params, n_replicates,
                                     random_state=[self.spec.seed or 0, int(number), 1])
        values: dict[str, list[float]] = {"accuracy": [r.accuracy for r in runsets]}
        for runs in runsets:
            found = problem.measure_values(runs, measures)
            for name in measures:
                values.setdefault(name, []).append(found.get(name, math.nan))
        self._cache[key] = {**(cached or {}), **values}
        self.storage.set_study_system_attr(study_id_of(self.study), key, self._cache[key])
        return values

    def replicate_trials(self, numbers: Sequence[int], n_replicates: int,
                         measures: Sequence[str], *, progress: bool | None = None,
                         description: str = "replicates") -> dict[int, dict]:
        """:meth:`replicates` of each of the trials ``numbers`` (trial number → values),
        with their progress: a bar on a terminal and plain lines on stderr otherwise
        (``progress`` None), the bar (True) or nothing (False)
        (:func:`~paretostab.progress.progress_bar`)."""
        found = {}
        with progress_bar(len(numbers), f"{description} (B = {n_replicates})",
                          progress=progress, unit="trials", leave=False) as bar:
            for number in numbers:
                found[int(number)] = self.replicates(number, n_replicates, measures)
                bar.update()
        return found
