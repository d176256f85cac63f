"""A tuning study: its sampler, its creation or resumption, and its front.

A study is defined by a spec (:mod:`paretostab.spec`): :func:`create_or_load_study` creates
it on first use — with the spec's hash, the spec itself (the report re-runs front trials
from it), the seed of its shared resamples, the order in which its features get their
colours in every map (:func:`~paretostab.maps.study_palette`), the metric names a person
reads and the dashboard's study note — and resumes it afterwards, refusing a spec that computes
something else. Its Pareto front is :func:`front_table`, its trials flagged at chance level
:func:`chance_flags_of`.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, cast

import numpy as np
import optuna
import pandas as pd
from optuna.trial import TrialState

from paretostab._errors import InvalidInputError
from paretostab._storage import display_url
from paretostab._tuning.coordination import StreamSampler
from paretostab._tuning.notes import has_note, study_note, write_note
from paretostab._vocabulary import FEATURE_COLORS, KBAR
from paretostab.evaluation import ChanceFlags
from paretostab.front import pareto_front
from paretostab.maps import feature_color_order
from paretostab.measures import get_measure
from paretostab.spec import SAMPLERS, StudySpec, grid

if TYPE_CHECKING:
    from paretostab._problem import Problem

__all__ = ["CHANCE_LEVEL", "chance_flags_of", "create_or_load_study", "front_points",
           "front_table", "make_sampler", "objective_names", "recorded_chance",
           "resample_seed"]

#: The level of the one-sided test by which ``tune`` flags a trial at chance level: the
#: report's default (``report --level``).
CHANCE_LEVEL = 0.95

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
        return optuna.samplers.GridSampler(grid(spec), seed=spec.seed)
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


def create_or_load_study(spec: StudySpec, *, storage: str | optuna.storages.BaseStorage | None,
                         study_name: str | None = None,
                         problem: Problem | None = None) -> optuna.Study:
    """The spec's study in ``storage``, created on first use and resumed afterwards, with
    the spec's sampler seeded apart in this process (:class:`StreamSampler`).

    A study resumed under another spec (different content hash) is refused: its trials
    would not be comparable. ``problem``: the spec with the data the study tunes on; a
    study created with it stores the colour order of its features (user attribute
    :data:`FEATURE_COLORS`, :func:`~paretostab.maps.study_palette`), computed from
    ``problem.X`` and ``problem.y``. Without it, every process computes that order itself
    when it needs it (as for a study made by an older version).
    """
    name = study_name or spec.name
    sampler = StreamSampler(lambda seed: make_sampler(spec, seed), spec.seed)
    study = optuna.create_study(storage=storage, study_name=name, load_if_exists=True,
                                directions=["maximize", "maximize"], sampler=sampler)
    known = study.user_attrs.get("spec_hash")
    if known is None:
        study.set_user_attr("spec_hash", spec.content_hash())
        study.set_user_attr("objective", spec.objective.stability)
        stored = spec.to_dict()  # the report re-runs front trials from it
        if spec.storage is not None:  # the dashboard shows it: no password
            stored["study"]["storage"] = display_url(spec.storage)
        study.set_user_attr("spec", stored)
        # a fresh SeedSequence's entropy is an int (numpy types it as any entropy given)
        study.set_user_attr("resample_seed", spec.seed if spec.seed is not None else
                            int(cast(int, np.random.SeedSequence().entropy) % 2**63))
        if problem is not None:
            study.set_user_attr(FEATURE_COLORS,
                                feature_color_order(problem.X, problem.y).tolist())
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


def front_points(study: optuna.Study, trials: list[optuna.trial.FrozenTrial] | None = None
                 ) -> tuple[list[optuna.trial.FrozenTrial], np.ndarray]:
    """The completed trials and their (accuracy, stability) values: of the study, or of
    its ``trials`` when the caller has just read them."""
    if trials is None:
        trials = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    else:
        trials = [t for t in trials if t.state == TrialState.COMPLETE]
    points = np.array([t.values for t in trials], dtype=float).reshape(-1, 2)
    return trials, points


def chance_flags_of(records: Mapping[int, Mapping]) -> ChanceFlags | None:
    """The flags, at :data:`CHANCE_LEVEL`, of trials by what their objective recorded of
    chance (trial number → its ``chance`` user attribute: its metric, the no-information
    value, its p-value against it and, for a trial that joined the front as it finished,
    whether its selection ignores the labels); None without records (a study tuned before
    trials recorded them)."""
    if not records:
        return None
    first = next(iter(records.values()))
    return ChanceFlags(first["metric"], first["no_information"], CHANCE_LEVEL,
                       {n: r["p_value"] for n, r in records.items()},
                       {n: r["ignores_labels"] for n, r in records.items()
                        if "ignores_labels" in r})


def recorded_chance(trials: Sequence[optuna.trial.FrozenTrial]) -> dict[int, Mapping]:
    """What ``trials`` recorded of chance (their ``chance`` user attribute), by number."""
    return {t.number: t.user_attrs["chance"] for t in trials if "chance" in t.user_attrs}


def front_table(study: optuna.Study) -> pd.DataFrame:
    """The Pareto-optimal trials as a table (pandas DataFrame), by increasing accuracy;
    with a ``flagged`` column, the reason a trial is flagged at chance level or as a
    selection that ignores the labels ("" when it is not; :func:`chance_flags_of`), where
    the trials recorded it (None for a trial that did not: one of a study resumed from a
    version that did not record it)."""
    trials, points = front_points(study)
    names = study.metric_names or ["accuracy", "stability"]
    front = [trials[index] for index in (pareto_front(points) if len(points) else [])]
    records = recorded_chance(front)
    flags = chance_flags_of(records)
    rows = []
    for trial in front:
        rows.append({"trial": trial.number, names[0]: trial.values[0], names[1]: trial.values[1],
                     KBAR: trial.user_attrs.get("mean_selected"),
                     **({} if flags is None else {"flagged": flags.reason(trial.number)
                                                  if trial.number in records else None}),
                     **trial.params})
    return pd.DataFrame(rows)
