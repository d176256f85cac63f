"""The main jobs as Python functions, for notebooks and scripts: :func:`tune`,
:func:`study_report`, :func:`choose` and :func:`compare`. Each returns an object with its
numbers as attributes (the front as a pandas DataFrame, the dominance area with its
interval, the chosen trial with its features) that a Jupyter notebook shows inline
(``_repr_html_``) and that writes its files on request (``save``). The command line
(:mod:`paretostab._cli`) is a layer over these functions.

>>> import paretostab
>>> study = paretostab.tune("quickstart", storage="sqlite:///demo.db")  # doctest: +SKIP
>>> result = study.report(gamma=0.6)                                   # doctest: +SKIP
>>> result.dominance_area, result.chosen.features                      # doctest: +SKIP
"""

from __future__ import annotations

import functools
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from paretostab._choice import Choice, kept_runs
from paretostab._errors import InvalidInputError, described
from paretostab._validation import Interval
from paretostab.measures import measure_label

if TYPE_CHECKING:
    import optuna

    from paretostab.report import Comparison, StudyFigures, StudyReport, StudyReportResult
    from paretostab.spec import StudySpec
    from paretostab.stable_set import StableSet

__all__ = ["Choice", "ComparisonResult", "Report", "TunedStudy", "as_spec", "choose", "compare",
           "study_report", "tune"]


def as_spec(spec: object, *, memory: bool = False) -> StudySpec:
    """A :class:`~paretostab.spec.StudySpec` from what a user gives: a spec, a mapping in
    the TOML layout, the path of a TOML file or the name of a built-in spec
    (``"quickstart"``). ``memory``: the data are given in memory, so a mapping or file
    without ``[data] source`` means ``source = "memory"``
    (:func:`~paretostab.spec.parse_spec`)."""
    from paretostab.spec import StudySpec, find_spec, load_spec, parse_spec

    if isinstance(spec, StudySpec):
        return spec
    if isinstance(spec, Mapping):
        return parse_spec(spec, memory=memory)
    if isinstance(spec, str | os.PathLike):
        return load_spec(find_spec(spec), memory=memory)
    raise InvalidInputError(
        "spec must be a StudySpec, a mapping in the TOML layout, a TOML file's path or a "
        f"built-in spec's name; got {type(spec).__name__}.")


def _frame(frame: pd.DataFrame, rows: int = 20) -> dict[str, object]:
    """The first ``rows`` rows of ``frame`` as HTML (pandas', which escapes the cells:
    markup) and how many it leaves out: a ``frame`` of ``notebook.html``."""
    from paretostab._templating import Markup

    shown = frame.head(rows).rename(columns={c: measure_label(c) for c in frame.columns})
    return {"table": Markup(shown.to_html(index=False, float_format="{:.4g}".format, border=0)),
            "more": len(frame) - rows}


# --------------------------------------------------------------------------- tune

#: :func:`tune`'s ``timeout`` when given: seconds.
_TIMEOUT = Interval("number", 0, closed="neither", why=" (seconds after which no new trial "
                                                       "starts)")


@dataclass(frozen=True, eq=False)
class TunedStudy:
    """A tuned study: where it is, and its front as of now.

    Attributes
    ----------
    study : optuna.Study
    storage : str
        Its storage URL.
    artifacts : str or None
        Its artifact store (None: the storage's default).
    data : object
        The data given in memory to :func:`tune` (None: the spec's source), which the
        report re-runs trials on.
    selectors : tuple of str
        The selectors of the spec given to :func:`tune`: its report and choice import
        those named ``"module:Class"`` without ``trust_stored_code`` (the caller chose
        them; :func:`~paretostab.report._load.check_stored_code`).
    """

    study: optuna.Study
    storage: str
    artifacts: str | None = None
    data: object = None
    selectors: tuple[str, ...] = ()

    def __repr__(self) -> str:
        """Its name and storage (the password masked), not Optuna's object."""
        from paretostab._storage import display_url

        memory = "" if self.data is None else ", data in memory"
        return f"TunedStudy({self.name!r}, storage={display_url(self.storage)!r}{memory})"

    @property
    def name(self) -> str:
        return self.study.study_name

    @property
    def front(self) -> pd.DataFrame:
        """The Pareto-optimal trials (trial, metric, stability, k̄, parameters), by
        increasing accuracy."""
        from paretostab._tuning import front_table

        return front_table(self.study)

    @property
    def dominance_area(self) -> float:
        """The dominance area of the completed trials (uniform weight; 002 eq. 2)."""
        from paretostab._tuning import front_points
        from paretostab.front import dominance_area

        _, points = front_points(self.study)
        return dominance_area(points) if len(points) else 0.0

    @property
    def n_trials(self) -> int:
        """Its counted trials (completed, or failed by the trial itself)."""
        from paretostab._tuning import counted_trials

        return counted_trials(self.study)

    def report(self, **options) -> Report:
        """:func:`study_report` of this study (same storage, artifacts and data); the
        ``options`` are its keyword arguments (``measures``, ``replicates``, ``gamma``, …)."""
        return study_report(self, **options)

    def choose(self, gamma: float, **options) -> Choice:
        """:func:`choose` in this study: the front trial γ chooses; the ``options`` are
        :func:`choose`'s keyword arguments (``measure``, ``level``, ``allow_chance``).

        Parameters
        ----------
        gamma : float in [0, 1]
            The weight of accuracy in ``γA + (1 − γ)φ`` (003 §7.1), as :func:`choose`'s.
        """
        return choose(self, gamma, **options)

    def to_html(self) -> str:
        """The study as HTML (``notebook.html``): where it is, its counts and front."""
        from paretostab._storage import display_url
        from paretostab._templating import render_macro

        return str(render_macro(
            "notebook.html", "study", name=self.name, storage=display_url(self.storage),
            n_trials=self.n_trials, dominance_area=self.dominance_area,
            front=_frame(self.front)))

    _repr_html_ = to_html


def tune(spec: object, /, *, data: object = None, storage: str | None = None,
         study_name: str | None = None, n_trials: int | None = None,
         timeout: float | None = None, n_jobs: int | None = None, workers: int = 1,
         artifacts: str | None = None, progress: bool | None = None,
         backend: str = "local", scheduler: str | None = None,
         cache_bytes: int | None = None, storage_wait: float | None = None,
         stop_wait: float | None = None, heartbeat_interval: int | None = None,
         grace_period: int | None = None) -> TunedStudy:
    """Run (or resume) a study until it has ``n_trials`` counted trials: the one ``tune``
    of the package, which ``python -m paretostab tune`` calls too.

    Parameters
    ----------
    spec : StudySpec, mapping, path or str
        The study spec (:func:`as_spec`: a built-in name such as ``"quickstart"``, a TOML
        file, a mapping in its layout).
    data : optional
        Data in memory instead of the spec's ``[data] source``: ``(X, y)``, a pandas
        DataFrame with the spec's label column, an ``anndata.AnnData`` (the label in its
        ``obs`` column) or a :class:`~paretostab.data.Dataset`, read with the spec's
        ``label``, ``impute`` and ``id``. The spec then needs no ``[data] source`` (``tune``
        sets ``"memory"``); one that names another source is refused.
    storage : str, optional
        An Optuna storage URL (default: the spec's, else ``sqlite:///paretostab.db``).
    study_name : str, optional
        Default: the spec's name (a fold's study name for a spec with ``outer_fold``).
    n_trials : int, optional
        The counted trials the study is to have in all (default: the spec's ``trials``).
    timeout : float, optional
        Seconds after which no new trial starts.
    n_jobs : int, optional
        Processes for the runs inside a trial (default: the spec's ``n_jobs``).
    workers : int
        Processes running trials (1: this one).
    artifacts : str, optional
        The artifact store: a folder (one shared folder for processes on several
        machines) or ``s3://bucket/prefix``; default: a folder beside the storage.
    progress : bool, optional
        The counted trials with the front's size and dominance area: a bar on a terminal
        and plain lines on stderr otherwise (None), the bar (True) or nothing (False).
    backend : {"local", "dask"}
        Where a trial's runs run: this machine, or the workers of a Dask cluster.
    scheduler : str, optional
        The Dask scheduler's address (``backend="dask"``).
    cache_bytes : int, optional
        The memory, in bytes, each process keeps prepared runs in between trials with
        shared resamples (default 3 GiB, never more than the machine can spare; 0 keeps
        none).
    storage_wait : float, optional
        Seconds a database outage is waited out before a ``StoreError`` (default 300).
    stop_wait : float, optional
        Seconds that ``workers`` which a stop signal has not stopped (a long native call)
        are waited for, all together, before they are killed and their trials failed
        (default 30). Keep it below what a batch system leaves between its SIGTERM and
        its kill -9 (SLURM's ``KillWait``, Kubernetes' ``terminationGracePeriodSeconds``,
        both 30 s by default) less a few seconds to fail the trials.
    heartbeat_interval, grace_period : int, optional
        Seconds between a running trial's heartbeats on an RDB storage, and without one
        after which another process fails it as stale and runs its slot again.

    Returns
    -------
    TunedStudy

    Notes
    -----
    With ``data``, the study stores ``source = "memory"`` and the data's
    content hash (SHA-256 of X, y and the feature names) in its spec, so that resuming it
    with other data is refused as resuming it with another spec is.

    ``n_trials`` is the study's, not this call's: every process that runs the study — the
    ``workers`` processes, other ``tune`` calls on the same storage, on other machines —
    takes trial slots from the same ``n_trials``
    (:class:`~paretostab._tuning.coordination.TrialSlots`), each with its own sampler
    stream (:class:`~paretostab._tuning.coordination.StreamSampler`). A trial whose process
    is gone fails as stale and its slot is run again: at once when the process was on this
    host, after ``grace_period`` seconds without one of its heartbeats (every
    ``heartbeat_interval`` seconds) on an RDB storage. ``n_jobs`` parallelises the runs
    inside a trial on this machine; with ``backend="dask"`` they run instead on the
    workers of the Dask cluster whose scheduler is at ``scheduler`` (``n_jobs`` unset;
    :mod:`~paretostab._tuning.cluster`), checked reachable before the data are loaded. The
    data are loaded once, here, before the study is created or opened; the workers map
    them from one file (one copy for all, not one each). For a database server without
    ``artifacts``, a line on stderr says where the artifacts go
    (:func:`~paretostab._storage.artifact_notice`). With shared resamples each process
    keeps its prepared runs in a :class:`~paretostab._protocol.RunCache` of
    ``cache_bytes``. A trial that raises is recorded as failed with its reason (user
    attribute ``fail_reason``), counts, and the study goes on; a trial failed by its
    environment (a full or unwritable artifact store or database,
    :func:`~paretostab._faults.environment_error`) or while being recorded does not count,
    and after :data:`~paretostab._faults.ENVIRONMENT_FAILURES_IN_A_ROW` of them in a row a
    process stops with a :class:`~paretostab._errors.StoreError` (a
    :class:`~paretostab._errors.MemoryLimitError` when the machine has not the memory a
    trial needs: :func:`~paretostab._protocol.run_protocol` refuses it before its work). A
    database outage is waited out for ``storage_wait`` seconds (then a ``StoreError``).
    Ctrl-C, SIGTERM and SIGHUP stop cleanly: completed trials are kept, the running one
    fails as interrupted (and does not count). A worker's error is raised here as a
    :class:`~paretostab._errors.WorkerError`. Optuna's INFO lines (one per trial) are held
    back during the call and the caller's level restored after
    (:func:`~paretostab._tuning.quiet_optuna`; a caller who wants them sets
    ``optuna.logging.DEBUG``); the command line keeps only its errors. ``progress``: the
    counted trials with the front's size and dominance area, as a bar on a terminal and as
    plain lines on stderr otherwise (None, the default), as the bar (True) or not at all
    (False) (:func:`~paretostab._progress.progress_bar`).

    Nested evaluation (``[protocol] outer_folds = K``): after the study on the whole data,
    the same procedure runs in each outer fold k as a study of its own,
    ``<name>/outer-<k>`` (:func:`~paretostab.evaluation.outer_study_name`), tuned on the
    fold's training part, with the same options (storage, workers, backend, resumed as
    any study); a spec with ``outer_fold = k`` runs that fold's study alone (one job per
    fold). Returns the study on the whole data (the fold's study for one fold).
    """
    from paretostab._storage import DEFAULT_STORAGE
    from paretostab._tuning import quiet_optuna, run_study
    from paretostab.spec import check_option

    if timeout is not None:  # before anything is made (-5 ran nothing)
        _TIMEOUT.check("timeout", timeout)
    if n_jobs is not None:  # the spec's rule: 0 is refused, not read as "the spec's"
        check_option("protocol.n_jobs", "n_jobs", n_jobs)
    spec = as_spec(spec, memory=data is not None)
    url = storage or spec.storage or DEFAULT_STORAGE
    given: dict[str, Any] = {"cache_bytes": cache_bytes, "storage_wait": storage_wait,
                             "stop_wait": stop_wait,
                             "heartbeat_interval": heartbeat_interval,
                             "grace_period": grace_period}
    with quiet_optuna():
        study = run_study(spec, storage=url, study_name=study_name, n_trials=n_trials,
                          timeout=timeout, n_jobs=n_jobs, workers=workers,
                          artifacts=artifacts, progress=progress, data=data,
                          backend=backend, scheduler=scheduler,
                          **{k: v for k, v in given.items() if v is not None})
    return TunedStudy(study, url, artifacts, data, tuple(s.name for s in spec.selectors))


def _trust(trust_stored_code: object) -> bool:
    """``trust_stored_code`` checked: True or False (a string would be taken for the
    names trusted)."""
    if not isinstance(trust_stored_code, bool):
        raise InvalidInputError(f"trust_stored_code must be True or False; got "
                                f"{described(trust_stored_code)}.")
    return trust_stored_code


def _located(study: object, study_name: str | None, artifacts: str | None,
             data: object, trust_stored_code: bool) -> dict[str, Any]:
    """The storage URL, study name, artifact store, data and trusted selectors of a
    :class:`TunedStudy` or a storage URL, as the report's entries take them (a tuned
    study's storage, open, too: not opened again)."""
    trusted = _trust(trust_stored_code)
    if isinstance(study, TunedStudy):
        from paretostab._optuna_internals import storage_of

        return {"storage_url": study.storage, "study_name": study_name or study.name,
                "artifacts": artifacts or study.artifacts,
                "data": study.data if data is None else data,
                "storage": storage_of(study.study),
                "trusted": trusted or study.selectors}
    if isinstance(study, str):
        return {"storage_url": study, "study_name": study_name, "artifacts": artifacts,
                "data": data, "trusted": trusted}
    raise InvalidInputError(
        f"study must be a TunedStudy (what tune returns) or a storage URL; got "
        f"{type(study).__name__}.")


# --------------------------------------------------------------------------- choose


def choose(study: object, gamma: float, /, *, study_name: str | None = None,
           measure: str | None = None, artifacts: str | None = None, data: object = None,
           level: float = 0.95, allow_chance: bool = False,
           trust_stored_code: bool = False) -> Choice:
    """The front trial maximising γ·accuracy + (1 − γ)·stability among the trials not
    flagged at chance level (:func:`paretostab.report.choose_trial`).

    Parameters
    ----------
    study : TunedStudy or str
        What :func:`tune` returned, or a storage URL (with ``study_name`` when it holds
        several studies).
    gamma : float in [0, 1]
        The trade-off γ: 1 chooses by accuracy alone, 0 by stability alone (003 §7.1).
    study_name : str, optional
        The study of a storage URL (default: the storage's only study).
    measure : str, optional
        The stability measure (default: the study's objective).
    artifacts : str, optional
        The study's artifact store (default: the folder beside the storage).
    data : optional
        The data of a study tuned on data given in memory, as :func:`tune` took them:
        the chosen trial's selector is refitted on them to list its features.
    level : float
        Of the chance test and the held-out interval.
    allow_chance : bool
        Let γ choose a flagged trial.
    trust_stored_code : bool
        Import a selector the study's stored spec names as ``"module:Class"`` although
        nobody gave it here (default False: refused in one line, before any import, unless
        the study is a :class:`TunedStudy` of that spec, the module belongs to paretostab,
        scikit-learn, numpy or scipy, or an installed package registers the class): whoever
        can write to a storage chooses the code its readers would run. As Hugging Face's
        ``trust_remote_code``; ``--trust-stored-code`` on the command line.

    Returns
    -------
    Choice
    """
    from paretostab.report import choose_trial

    return choose_trial(gamma=gamma, measure=measure, level=level, allow_chance=allow_chance,
                        **_located(study, study_name, artifacts, data, trust_stored_code))


# --------------------------------------------------------------------------- report


@dataclass(frozen=True, eq=False)
class Report:
    """A study's report: its analysis (:class:`~paretostab.report.StudyReport`)
    and figures, shown inline in a notebook, written by :meth:`save`.

    Attributes
    ----------
    computed : StudyReportResult
        The study as read, its analysis and figures
        (:func:`~paretostab.report.analysed_study`).
    """

    computed: StudyReportResult

    def __repr__(self) -> str:
        """The analysis's few numbers, not its tables and figures."""
        return f"Report({self.analysis!r})"

    @property
    def analysis(self) -> StudyReport:
        """The report's numbers (:class:`~paretostab.report.StudyReport`)."""
        return self.computed.analysis

    @property
    def figures(self) -> StudyFigures:
        return self.computed.figures

    @property
    def front(self) -> pd.DataFrame:
        """The front trials with every measure, k̄ and parameters."""
        return self.analysis.front_table

    @property
    def dominance_area(self) -> float:
        return float(self.analysis.front.dominance_area)

    @property
    def interval(self):
        """The dominance area's interval from the replicates
        (:class:`~paretostab.report.DominanceAreaInterval`; None without)."""
        return self.analysis.front.interval

    @property
    def chosen(self) -> Choice:
        """The trial γ chooses, with the features its selector selects on the whole data."""
        a, study = self.analysis, self.computed.study
        trade_off, number = a.trade_off, a.chosen_trial
        held = None
        if a.held_out is not None:
            held = {"data": a.held_out.description, **a.held_out.scores[number].to_dict()}
        features = (() if trade_off.selected_features is None
                    else tuple(trade_off.selected_features["feature"]))
        return Choice(trial=number, gamma=a.gamma,
                      values={v["objective"]: v["trial"] for v in trade_off.values[:2]},
                      params=dict(trade_off.params), features=features, held_out=held,
                      flagged=({} if a.flags is None or a.allow_chance else
                               {n: a.flags.reason(n) for n in a.flags.flagged_trials}),
                      metric=a.metric, read_runs=kept_runs(a.chosen_runs), study=a.study,
                      fit_model=(functools.partial(study.problem.final_model,
                                                   study.params[number])
                                 if study.has_spec else None))

    @property
    def held_out(self):
        """:class:`~paretostab.report._estimates.HeldOutEvaluation` or None."""
        return self.analysis.held_out

    @property
    def nested(self):
        """:class:`~paretostab.report._estimates.NestedEvaluation` or None."""
        return self.analysis.nested

    @property
    def stable_sets(self) -> tuple[StableSet, ...]:
        """The chosen trial's stable sets, one per error control the report was asked
        for (``pfer``, ``fdp``); :meth:`Choice.stable_set` computes others."""
        return self.analysis.stable_sets

    def save(self, out: str | Path = "report") -> Path:
        """Write ``index.html``, ``front.csv``, ``summary.json`` (and ``selectors.csv``) to
        ``out`` and give the study's dashboard note the front as of now; returns ``out``.

        Parameters
        ----------
        out : str or Path
            The report's folder, created if missing (default ``report`` in the working
            folder).
        """
        from paretostab.report import save_study_report

        return save_study_report(self.computed, out)

    def to_html(self) -> str:
        """The whole report page, self-contained (figures embedded)."""
        from paretostab.report import study_sections, write_report

        with tempfile.TemporaryDirectory() as folder:
            page = write_report(folder, title=f"paretostab report: {self.analysis.study}",
                                sections=study_sections(self.analysis, self.figures),
                                figure_files=())
            return page.read_text(encoding="utf-8")

    def _repr_html_(self) -> str:
        """The report in a notebook (``notebook.html``): its counts, the front's figure,
        the front and the choice."""
        import base64

        from paretostab._templating import render_macro
        from paretostab.report import figure_to_png

        a = self.analysis
        png = base64.b64encode(figure_to_png(self.figures.front, dpi=90)).decode("ascii")
        return str(render_macro(
            "notebook.html", "report", study=a.study, n_trials=len(a.table),
            n_front=len(a.front.trials), dominance_area=self.dominance_area, png=png,
            front=_frame(self.front), chosen=self.chosen))


def study_report(study: object, /, *, study_name: str | None = None,
                 measures: Sequence[str] | None = None, replicates: int | None = None,
                 weight: object = None, gamma: float = 0.5, level: float = 0.95,
                 artifacts: str | None = None, data: object = None,
                 progress: bool | None = None, allow_chance: bool = False,
                 pfer: float | None = 1.0, fdp: float | None = None,
                 assumption: str | None = None, trust_stored_code: bool = False) -> Report:
    """The report of a tuned study, computed and drawn without writing:
    :meth:`Report.save` writes it (``index.html``, ``front.csv``, ``summary.json``), as
    ``python -m paretostab report`` does. (Named apart from the package
    :mod:`paretostab.report`, which holds the report's modules.)

    Parameters
    ----------
    study : TunedStudy or str
        What :func:`tune` returned, or a storage URL (with ``study_name`` when it holds
        several studies).
    study_name : str, optional
        The study of a storage URL (default: the storage's only study).
    measures : sequence of str, optional
        The stability measures whose fronts are shown (default: the objective and every
        measure the spec records); the front, the dominance area and its confidence
        interval are those of the study's objective.
    replicates : int, optional
        B re-runs of each front trial for the Hotelling confidence regions (002 §3;
        default: the spec's ``protocol.replicates``; 0 skips them). They are kept in the
        study, and the next report reuses them.
    weight : str, optional
        The dominance area's weighting of the objective plane: ``"uniform"`` (default),
        ``"accuracy:A"`` or ``"stability:A"``.
    gamma : float in [0, 1]
        The trade-off γ (003 §7.1): the report marks and details the front trial
        maximising γ·accuracy + (1 − γ)·stability, its parameters, values, replicate
        means with intervals and the features it selects on the whole data.
    level : float
        The confidence level of the regions, intervals and of the chance test.
    artifacts : str, optional
        The study's artifact store (default: the folder beside the storage).
    data : optional
        The data of a study tuned on data given in memory, as :func:`tune` took them
        (checked against the content hash the study stored).
    progress : bool, optional
        The replicates computed: a bar on a terminal and plain lines on stderr otherwise
        (None), the bar (True) or nothing (False).
    allow_chance : bool
        Let γ choose a flagged trial (its metric does not
        exceed the no-information value at ``level``, or a selection that ignores the
        labels); by default γ passes over them.
    pfer : float or None
        The chosen trial's stable set with an expected number of false positives at most
        ``pfer`` (:func:`paretostab.stable_set.stable_set`; default 1; None: not shown).
    fdp : float or None
        Its stable set with an FDP⁺ over decoys at most ``fdp`` (default None: not shown;
        the trial's setting runs once more on the data with decoys, kept in the study).
    assumption : {"none", "unimodal", "r-concave"}, optional
        The PFER bound's assumption (default: ``unimodal`` on complementary pairs,
        ``none`` otherwise).
    trust_stored_code : bool
        As :func:`choose`'s.

    Returns
    -------
    Report
    """
    from paretostab.report import analysed_study

    return Report(analysed_study(
        measures=measures, replicates=replicates, weight=weight, gamma=gamma, level=level,
        progress=progress, allow_chance=allow_chance, pfer=pfer, fdp=fdp,
        assumption=assumption,
        **_located(study, study_name, artifacts, data, trust_stored_code)))


# --------------------------------------------------------------------------- compare


@dataclass(frozen=True, eq=False)
class ComparisonResult:
    """Studies compared by their fronts (000 §6.2, 002 §3).

    Attributes
    ----------
    comparison : Comparison
        Every study's front, dominance area and interval under every measure, the
        pairwise differences with verdicts, the combined front.
    folder : Path
        Where its page, ``comparison.csv`` and ``comparison.json`` were written.
    """

    comparison: Comparison
    folder: Path

    def __repr__(self) -> str:
        return f"ComparisonResult({self.comparison!r}, folder={str(self.folder)!r})"

    @property
    def table(self) -> pd.DataFrame:
        """One row per study × measure (``comparison.csv``)."""
        return self.comparison.to_frame()

    def to_html(self) -> str:
        return (self.folder / "index.html").read_text(encoding="utf-8")

    def _repr_html_(self) -> str:
        """The comparison in a notebook (``notebook.html``): its table."""
        from paretostab._templating import render_macro

        return str(render_macro("notebook.html", "comparison", table=_frame(self.table, rows=40)))


def compare(studies: Sequence[str], /, storages: Sequence[str] | None = None, *,
            measures: Sequence[str] | None = None, replicates: int | None = None,
            weight: object = None, level: float = 0.95, out: str | Path = "comparison",
            artifacts: Sequence[str] | None = None,
            progress: bool | None = None, trust_stored_code: bool = False) -> ComparisonResult:
    """Compare studies by their fronts (000 §6.2, 002 §3), writing the comparison to
    ``out`` (``index.html``, ``comparison.csv``, ``comparison.json``), as
    ``python -m paretostab compare`` does (:func:`paretostab.report.build_comparison`).

    Parameters
    ----------
    studies : sequence of str
        The study names, two or more.
    storages : sequence of str, optional
        Storage URLs: none (``sqlite:///paretostab.db``), one for every study, or one per
        study in the studies' order.
    measures : sequence of str, optional
        The stability measures compared (default: every study's objective and the
        measures every study records; one a study did not record is recomputed from its
        trials' RunSets).
    replicates : int, optional
        B re-runs of each trial on a study's front (default: each study's spec
        ``protocol.replicates``; 0: none), kept in the study as a report keeps them.
    weight : str, optional
        ``"uniform"`` (default), ``"accuracy:A"`` or ``"stability:A"``: the dominance
        area's weighting.
    level : float
        The confidence level of every region, interval and verdict.
    out : str or Path
        The folder written.
    artifacts : sequence of str, optional
        The artifact stores, as ``storages`` (default: the folder beside each storage).
    progress : bool, optional
        The replicates computed: a bar on a terminal and plain lines on stderr otherwise
        (None), the bar (True) or nothing (False).
    trust_stored_code : bool
        As :func:`choose`'s (for every study).

    Returns
    -------
    ComparisonResult
    """
    from paretostab.report import build_comparison

    folder, comparison = build_comparison(
        list(studies), storages, measures=measures, replicates=replicates, weight=weight,
        level=level, out=out, artifacts=artifacts, progress=progress,
        trusted=_trust(trust_stored_code))
    return ComparisonResult(comparison, Path(folder))
