"""Optuna multi-objective tuning: maximise accuracy and a chosen stability measure.

A study is defined by a spec (:mod:`paretostab.spec`); :func:`run_study`, the engine of
the one public :func:`paretostab.tune`, runs or resumes it on any Optuna storage, in one
process or several, until it has its trials. The package is not public API: users call
:func:`paretostab.tune`. The modules:

- :mod:`~paretostab.tuning.study`: the study's set-up — its sampler, its creation or
  resumption under one spec, its front;
- :mod:`~paretostab.tuning.objective`: the trial function — draw a setting, run the
  protocol of the study's :class:`~paretostab.problem.Problem`, record its measures,
  artifacts and note;
- :mod:`~paretostab.tuning.processes`: :func:`run_study`, running trials in this process or in
  worker processes;
- :mod:`~paretostab.tuning.coordination`: many processes on one study — counted trials,
  trial slots, sampler streams, stale trials, interrupts;
- :mod:`~paretostab.tuning.notes`: the notes the Optuna dashboard shows.

Optuna appears in this package, in :mod:`paretostab.storage`, in the command line and in
the report's reader and writer (:mod:`paretostab.report.load`,
:mod:`paretostab.report.write`); its private interfaces only in
:mod:`paretostab.optuna_internals`.
"""

from paretostab.tuning.processes import run_study
from paretostab.tuning.study import create_or_load_study, front_table

__all__ = ["create_or_load_study", "front_table", "run_study"]
