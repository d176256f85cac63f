"""Reading tuned studies for the report: the report package's only reader of a storage.

:func:`open_source` finds a study in a storage (:class:`StudySource`: the study, where it
is stored, its artifact store and the data it was tuned on); :func:`read_study` reads it
in one pass as a frozen :class:`~paretostab.report._study_data.StudyData` — the completed
trials as a table (accuracy, every measure asked for, recomputed from the trials' RunSets
where the study did not record it, k̄ and parameters), its spec, objective and recorded
measures, the colours of its features, the refits cached in the study's system attributes
(:mod:`~paretostab.report._refits`) with the label probes its trials recorded as they
joined the front, and the studies of its outer folds — and
:func:`read_runsets` the RunSets of the trials a report maps. The analyses take the
:class:`~paretostab.report._study_data.StudyData`; what they compute is written back by
:mod:`~paretostab.report._write` alone.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.metadata
import math
import sys
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import optuna
import pandas as pd
from optuna.trial import TrialState

from paretostab._errors import InvalidInputError, UnknownNameError
from paretostab._model import TRUSTED_PACKAGES
from paretostab._optuna_internals import storage_of, study_id_of
from paretostab._runset import RunSet
from paretostab._storage import artifact_store, display_url, load_runset, open_storage
from paretostab._vocabulary import FEATURE_COLORS, KBAR
from paretostab.evaluation import outer_study_name
from paretostab.measures import measure_name
from paretostab.report._study_data import (
    LABELS_KEY,
    REFIT_KEYS,
    StudyData,
)
from paretostab.selectors import ENTRY_POINT_GROUP
from paretostab.spec import parse_spec

__all__ = ["TRUST_OPTION", "StudySource", "check_stored_code", "open_source", "open_study",
           "read_runsets", "read_study"]

#: How a person allows the selectors a storage names to be imported: the command line's
#: option and the Python keyword (Hugging Face's ``trust_remote_code`` is the model).
TRUST_OPTION = "--trust-stored-code (trust_stored_code=True in Python)"


def open_study(storage: optuna.storages.BaseStorage, study_name: str | None) -> optuna.Study:
    """The study ``study_name`` of ``storage``, or its only study when no name is given
    (the studies of a nested evaluation's outer folds, ``<name>/outer-<k>``, belong to
    their study)."""
    names = [s.study_name for s in optuna.get_all_study_summaries(storage)]
    if not names:
        raise InvalidInputError("The storage holds no study; run tune into it first or "
                                "pass the --storage of a tuned study.")
    if study_name is None:
        own = [n for n in names  # a nested evaluation's outer folds belong to their study
               if not any(n.startswith(outer_study_name(m, 1)[:-1]) for m in names)]
        if len(own) == 1:
            study_name = own[0]
        elif len(names) != 1:
            raise InvalidInputError(
                f"The storage holds {len(names)} studies ({', '.join(names)}); "
                "choose one with --study-name."
            )
        study_name = names[0]
    if study_name not in names:
        raise UnknownNameError.for_name("study", study_name, names)
    return optuna.load_study(study_name=study_name, storage=storage)


@dataclass(frozen=True, eq=False)
class StudySource:
    """Where a study is read from and what the report writes goes to.

    Attributes
    ----------
    study : optuna.Study
    storage_url : str
        The URL it is stored at (its password too; the report shows
        :func:`~paretostab._storage.display_url` of it).
    artifacts : str or None
        Its artifact store (None: the storage's default), opened on first use
        (:attr:`store`).
    data : object
        The data of a study tuned on data in memory (``tune(spec, data=…)``), in any form
        :func:`~paretostab.data.as_dataset` takes; checked against the content hash the
        study stored. None: the spec's ``[data]`` source.
    trusted : bool or collection of str
        The ``"module:Class"`` selectors of the stored spec that may be imported
        (:func:`check_stored_code`): those of the spec the caller gave (a
        :class:`~paretostab.TunedStudy`'s), or all (True: ``--trust-stored-code``).
    """

    study: optuna.Study
    storage_url: str
    artifacts: str | None = None
    data: object = None
    trusted: bool | Collection[str] = ()

    @property
    def name(self) -> str:
        return self.study.study_name

    @property
    def storage(self) -> optuna.storages.BaseStorage:
        return storage_of(self.study)

    @functools.cached_property
    def store(self) -> object:
        """The study's artifact store (opened on first use: a wrong folder is one error
        line)."""
        return artifact_store(self.storage_url, self.artifacts, must_exist=True)

    @functools.cached_property
    def objective(self) -> str:
        """The registry name of the study's stability objective: the one ``tune`` stored,
        else the study's second objective's name when it is a measure's; a study with
        neither (a plain Optuna study) is refused in one line."""
        name = self.study.user_attrs.get("objective")
        if name:
            return name
        names = self.study.metric_names or []
        if len(names) == 2:
            with contextlib.suppress(UnknownNameError):
                return measure_name(names[1])
        raise InvalidInputError(
            f"Study {self.name!r} was not made by paretostab tune: it names no stability "
            "measure (tune stores it as the study's user attribute 'objective', with the "
            "spec and each trial's runs); report, choose and compare read the studies tune "
            "makes.")

    @functools.cached_property
    def recorded(self) -> tuple[str, ...]:
        """The measures the study's spec records on every trial."""
        return tuple(self.study.user_attrs.get("spec", {}).get("objective", {})
                     .get("record", []))

    def outer(self, folds: int) -> list[StudySource | None]:
        """The studies of outer folds 1..``folds`` of a nested evaluation
        (:func:`~paretostab.evaluation.outer_study_name`) in the same storage, with the
        same artifact store and data; None for a fold not created yet."""
        names = {s.study_name for s in optuna.get_all_study_summaries(self.storage)}
        found: list[StudySource | None] = []
        for fold in range(1, folds + 1):
            name = outer_study_name(self.name, fold)
            found.append(None if name not in names else StudySource(
                optuna.load_study(study_name=name, storage=self.storage), self.storage_url,
                self.artifacts, self.data, self.trusted))
        return found


def open_source(storage_url: str, study_name: str | None = None, *,
                artifacts: str | None = None,
                storage: optuna.storages.BaseStorage | None = None,
                data: object = None, trusted: bool | Collection[str] = ()) -> StudySource:
    """The study ``study_name`` (default: the storage's only one) of the storage at
    ``storage_url`` (or the already opened ``storage``), which must exist; ``trusted``:
    the stored selectors that may be imported (:class:`StudySource`)."""
    storage = open_storage(storage_url, must_exist=True) if storage is None else storage
    return StudySource(open_study(storage, study_name), storage_url, artifacts, data,
                       trusted)


def check_stored_code(study: str, stored: Mapping, trusted: bool | Collection[str]) -> None:
    """Refuse, before anything is imported, a stored spec whose ``[selector] name`` is a
    ``"module:Class"`` nobody here chose: parsing the spec imports that module, and a
    study's database is written by whoever can write to it — a shared database, a file
    sent by someone — while ``python -m`` puts the working folder on the import path, so
    that a stored ``"evilmod:Evil"`` ran the ``evilmod.py`` lying there.

    A stored name is imported when ``trusted`` is True (the person said so:
    :data:`TRUST_OPTION`), when it is in ``trusted`` (the spec the caller gave: a study
    :func:`~paretostab.tune` has just run), when it is the class of an entry point of
    :data:`~paretostab.selectors.ENTRY_POINT_GROUP` (a package installed to register
    it), or when its module belongs to a package of
    :data:`~paretostab._model.TRUSTED_PACKAGES` (paretostab and the packages it has
    imported already: their modules are found in their installed folders only, never in
    the working folder). A registry name (``"lasso"``) imports nothing.

    Parameters
    ----------
    study : str
        The study's name, for the error line.
    stored : mapping
        The spec as the study stores it (its user attribute ``spec``).
    trusted : bool or collection of str
        As :class:`StudySource`'s.

    Raises
    ------
    InvalidInputError
        One line naming the study, the selector and its module, and
        :data:`TRUST_OPTION`.
    """
    if isinstance(trusted, bool):  # True: every name; False: none given
        if trusted:
            return
        trusted = ()
    names = stored.get("selector", {}).get("name", []) if isinstance(stored, Mapping) else []
    names = [names] if isinstance(names, str) else names
    foreign = [name for name in names if isinstance(name, str) and ":" in name
               and name not in trusted and not _imported_trusted(name)]
    if not foreign:
        return
    registered = {entry.value for entry in
                  importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}
    for name in foreign:
        if name not in registered:
            raise InvalidInputError(
                f"Study {study!r}: its stored spec names the selector {name!r}, which would "
                f"import module {name.partition(':')[0]!r}, code chosen by whoever wrote "
                f"the storage; not imported. If you trust the storage's writers, pass "
                f"{TRUST_OPTION}.")


def _imported_trusted(name: str) -> bool:
    """Whether the module of ``"module:Class"`` lies in a package of
    :data:`~paretostab._model.TRUSTED_PACKAGES` already imported (its submodules are then
    looked for in its installed folder alone, not on the import path)."""
    top = name.partition(":")[0].partition(".")[0]
    return top in TRUSTED_PACKAGES and top in sys.modules


def read_study(source: StudySource, measures: Sequence[str] | None = None, *,
               outer_folds: bool = False) -> StudyData:
    """The study of ``source``, read once: its completed trials with the values of
    ``measures`` (default: the objective and the recorded measures; a measure no trial
    recorded is recomputed from the trials' RunSets), its spec, cached refits, feature
    colours, and — with ``outer_folds``, for a nested evaluation — its outer folds'
    studies (with the objective)."""
    study = source.study
    names = list(measures) if measures is not None else [source.objective,
                                                          *source.recorded]
    rows, params, probes = [], {}, {}
    for trial in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
        recorded = trial.user_attrs.get("measures", {})
        rows.append({"trial": trial.number, "accuracy": trial.values[0],
                     **{m: recorded.get(m, math.nan) for m in names},
                     KBAR: trial.user_attrs.get("mean_selected"), **trial.params})
        params[trial.number] = dict(trial.params)
        chance = trial.user_attrs.get("chance", {})
        if "ignores_labels" in chance:  # probed by tune as the trial joined the front
            probes[f"{LABELS_KEY}{trial.number}"] = chance["ignores_labels"]
    attrs = study.user_attrs
    if "spec" in attrs:
        check_stored_code(study.study_name, attrs["spec"], source.trusted)
    spec = parse_spec(attrs["spec"]) if "spec" in attrs else None
    cache = {**probes, **{key: value for key, value in
                          source.storage.get_study_system_attrs(study_id_of(study)).items()
                          if key.startswith(REFIT_KEYS)}}
    order = attrs.get(FEATURE_COLORS)
    selector = attrs.get("spec", {}).get("selector", {}).get("name", [])
    outer: tuple[StudyData | None, ...] = ()
    if outer_folds and spec is not None and spec.protocol.outer_folds:
        outer = tuple(None if fold is None else read_study(fold, [source.objective])
                      for fold in source.outer(spec.protocol.outer_folds))
    data = StudyData(
        name=source.name, location=display_url(source.storage_url),
        objective=source.objective, recorded=source.recorded, spec=spec,
        table=pd.DataFrame(rows), params=params, cache=cache,
        feature_colors=None if order is None else tuple(int(f) for f in order),
        selector_names=(selector,) if isinstance(selector, str) else tuple(selector),
        outer=outer, data_given=source.data)
    _recompute_missing(data, source, names)
    return data


def _recompute_missing(data: StudyData, source: StudySource, names: Sequence[str]) -> None:
    """Fill the measures of ``names`` that no trial of ``data`` recorded from the trials'
    RunSets (a step of reading: the table is complete before anyone sees it)."""
    table = data.table
    missing = [m for m in names if not table.empty and table[m].isna().all()]
    if not missing:
        return
    trials = source.study.get_trials(deepcopy=False)
    for index, number in enumerate(table["trial"]):  # one RunSet in memory at a time
        runs = load_runset(trials[int(number)], storage=source.storage, store=source.store)
        values = data.problem.measure_values(runs, missing)
        for name in missing:
            table.loc[index, name] = values.get(name, math.nan)


def read_runsets(source: StudySource, numbers: Sequence[int] | pd.Series
                 ) -> Mapping[int, RunSet]:
    """The RunSets the trials ``numbers`` uploaded, by trial number."""
    trials = source.study.get_trials(deepcopy=False)
    return {int(n): load_runset(trials[int(n)], storage=source.storage, store=source.store)
            for n in numbers}
