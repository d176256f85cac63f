"""Optuna multi-objective tuning: maximise accuracy and a chosen stability measure.

A study is defined by a spec (:mod:`paretostab.spec`); :func:`run_study`, the engine of
the one public :func:`paretostab.tune`, runs or resumes it on any Optuna storage, in one
process or several, until it has its trials. The package is not public API: users call
:func:`paretostab.tune`. The modules:

- :mod:`~paretostab._tuning.study`: the study's set-up — its sampler, its creation or
  resumption under one spec, its front;
- :mod:`~paretostab._tuning.objective`: the trial function — draw a setting, run the
  protocol of the study's :class:`~paretostab._problem.Problem`, record its measures,
  artifacts and note;
- :mod:`~paretostab._tuning.processes`: :func:`run_study`, running trials in this process or in
  worker processes;
- :mod:`~paretostab._tuning.coordination`: many processes on one study — counted trials,
  trial slots, sampler streams, stale trials, interrupts;
- :mod:`~paretostab._tuning.notes`: the notes the Optuna dashboard shows.

Optuna appears in this package, in :mod:`paretostab._storage`, in the command line and in
the report's reader and writer (:mod:`paretostab.report._load`,
:mod:`paretostab.report._write`); its private interfaces only in
:mod:`paretostab._optuna_internals`.
"""

from paretostab._tuning.coordination import counted_trials
from paretostab._tuning.notes import put_note_section, study_note
from paretostab._tuning.processes import quiet_optuna, run_study
from paretostab._tuning.study import create_or_load_study, front_points, front_table

__all__ = ["counted_trials", "create_or_load_study", "front_points", "front_table",
           "put_note_section", "quiet_optuna", "run_study", "study_note"]
