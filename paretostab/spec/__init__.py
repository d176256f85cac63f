"""Study specs: a TOML file → frozen dataclasses that define an Optuna study completely.

A spec says which data, which resampling protocol, which selector with which fixed
parameters and which search space, and which stability measure to maximise next to the
accuracy. It is validated entirely when it is read — before any data is loaded or any
trial runs: an unknown key, a bad value or an unknown name raises
:class:`~paretostab.InvalidInputError` (or :class:`~paretostab.UnknownNameError`
for names, with the closest suggestion) naming the file, the key with its table
(``selector.search.epsilon``), what is allowed and what was given.

The layout (every table but ``[study]``'s ``name``, ``[data]``'s ``source`` and
``[selector]``'s ``name`` is optional; :func:`reference_table` lists every key with its
type, default and description, :func:`json_schema` is the JSON Schema that TOML editors
use through a first line ``#:schema ../paretostab/spec/spec.schema.json`` in the
repository's ``studies/``)::

    [study]
    name = "singh_hybrid_rfe"    # the Optuna study name
    trials = 200                 # >= 1
    seed = 0                     # integer >= 0: same spec + seed ⇒ same study
    sampler = "tpe"              # "tpe" | "nsga2" | "gp" | "random" | "grid"
    storage = "sqlite:///x.db"   # an Optuna storage URL; absent = the tuning default

    [data]
    source = "../data/singh.csv.gz"  # load_dataset source; relative to this file's folder
    label = "label"              # the class column of a table
    id = "sample"                # the column of sample IDs (absent: an index-like first column)
    impute = "median"            # "mean" | "median" | "drop"; absent = missing values fail
    prefilter = 1250             # keep the t highest-variance features (per run)

    [protocol]
    runs = 100                   # M >= 2 (even with "complementary_pairs")
    resampling = "bootstrap"     # paretostab._vocabulary.RESAMPLINGS: "bootstrap" |
                                 # "subsample" | "complementary_pairs"
    sample_fraction = 0.9        # only with resampling = "subsample"
    metric = "accuracy"          # paretostab._vocabulary.METRICS
    replicates = 10              # B >= 3, for the report's confidence regions
    n_jobs = 2                   # joblib processes per protocol (results do not depend on it)
    resamples = "shared"         # "shared": every trial on the same M resamples (default);
                                 # "per_trial": each trial draws its own

    [selector]
    name = "hybrid_rfe"          # paretostab.selectors.SELECTORS; in Python also a class or
                                 # an instance (stored as "module:Class" + its fixed params)
    [selector.fixed]             # estimator parameters held fixed
    n_features = 20
    [selector.search]            # overrides / extends the registry's search space
    n_stable = [0, 20]                                # integer bounds: an integer range
    epsilon = { low = 1e-3, high = 1.0, log = true }  # log scale
    criterion = { choices = ["variance", "welch_t"] } # categorical

    # or several selectors: the selector is then a categorical parameter of the study,
    # each with its own fixed parameters and (conditional) search space
    # [selector]
    # name = ["lasso", "svm_rfe", "random_forest"]
    # [selector.fixed.lasso]
    # target_features = 20
    # [selector.search.svm_rfe]
    # reg = { low = 1e-3, high = 1e3, log = true }

    [objective]
    stability = "iw"             # any registered measure (the second objective)
    similarity = "spearman"      # "spearman" | "pearson" | "nmi"; iff a measure needs one
    record = ["nogueira", "pearson", "iw"]   # measured on every trial as well
    [objective.options]          # the stability measure's options (list_measures())
    k = 20

Rules the parser applies:

* The search space is the selector's registry space; ``[selector.search]`` overrides
  ranges by name and adds new ones; a parameter fixed (by the registry or in
  ``[selector.fixed]``) is not searched. Fixing or searching a parameter the registry
  fixes to something else (``n_stable`` of ``logistic_rfe``) is an error: choose the
  selector that has it free.
* Parameter names are checked against ``estimator().get_params()``. A range is integer
  when the estimator's default is an integer, float when the default is a float
  (``reg = [1, 100]`` is then the float range [1.0, 100.0]), and otherwise integer when
  both bounds are TOML integers — so is a registry :class:`~paretostab.selectors.Range`
  with integer bounds. ``low < high``; ``log`` needs ``low > 0`` (``low >= 1`` for
  integers, as Optuna requires).
* With several selectors, each one's tables follow these rules on their own; errors name
  the selector's table (``selector.search.svm_rfe.reg``). Trials record their selector as
  the categorical parameter ``selector`` (:data:`SELECTOR_PARAM`) and its searched
  parameters as ``<selector>.<parameter>`` (:func:`param_name`, :func:`trial_selector`).
  ``sampler = "grid"`` runs each selector once at its fixed setting (000 Fig. 6: one point
  per method, no search) — every parameter a selector's registry searches must then be
  fixed — or, with one selector, every combination of its categorical parameters
  (:func:`grid`); ``trials`` defaults to the grid's size (:func:`grid_size`).
* A fixed ``groups = "data"`` (:data:`DATA_GROUPS`, group lasso) takes the data set's
  feature groups (the simulated correlated groups; −1 marks a feature in no group).
* One cross-parameter rule: HybridRFE's stable set lies within the selected features,
  ``n_stable <= n_features``; the registry's default ``n_stable`` range is clipped to
  ``n_features``, a range written in the spec that exceeds it is an error.
* The measure options are checked by name, by type, and by evaluating the measure once on
  a tiny synthetic input (so a threshold outside [0, 1] fails here, not in trial 1).
* ``similarity`` is required when the objective or a recorded measure needs one, and
  refused otherwise.
* ``protocol.runs`` is even with ``resampling = "complementary_pairs"`` (runs 2j and
  2j + 1 are the two halves of one split: Shah & Samworth 2013).
* ``protocol.sample_fraction`` is allowed only with ``resampling = "subsample"``; a
  ``None`` in a mapping means absent for the keys whose default is absent (``storage``,
  ``impute``, ``prefilter``, ``similarity``), while ``study.seed = None`` asks for a fresh
  seed.
* Relative ``data.source`` paths are resolved against the spec file's folder (or ``base``
  of :func:`parse_spec`); the data are not read here. A ``simulated`` source is drawn with
  seed 0, so that every process and every report of a study sees the same data.
* The limits that depend on the data's size are checked once they are loaded, before a
  study opens (:func:`fit_to_data`, which ``Problem.from_spec`` calls; it first clips a
  selector's *default* range of a feature count, e.g. the lasso's ``target_features`` in
  [5, 50], and an estimator's default count, e.g. HybridRFE's ``n_features = 20``, to the
  d features a run sees, and says so): the data
  have at least 2 features, ``prefilter`` at most d, each selector's feature counts
  (``n_features``, ``target_features``; a scikit-learn selector's ``k``,
  ``n_features_to_select``, ``max_features`` when integers: fixed or searched)
  within the d features a run's selector sees (after the pre-filter), its per-feature
  arrays (``groups``, ``beta``, ``prior``) of the right size, a top-k ``k`` at most d.
  The errors name the key as the file writes it and the data's size.

``protocol.resamples`` says how trials draw their M resamples. ``"shared"`` (the
default): every trial of the study runs on the same resamples, seeded from the study's
seed, so that trials are compared on paired data, as the papers compare methods on the
same bootstrap samples (and the selector's own randomness, e.g. a random forest's, is
shared too: common random numbers); their preparation is then computed once per process
(:class:`~paretostab._run_cache.RunCache`). ``"per_trial"``: trial t draws its own from
``(seed, t)``. The report's replicates draw fresh resamples either way.

:meth:`StudySpec.content_hash` identifies what the trials compute (data, protocol,
selector, objective, and the seed when the resamples are shared; not the study name,
trial count, sampler, storage, nor ``n_jobs``, which does not change any result), so that
a stored study can be matched with the spec that made it.

The modules: :mod:`~paretostab.spec._keys` (how a key is declared: its kind, default, one
line of documentation and rules, as data), :mod:`~paretostab.spec._schema` (each key
declared once, and what is derived
from the declarations: parsing of the tables, ``to_dict``, the content hash, the JSON
Schema, the reference table), :mod:`~paretostab.spec._resolve` (the checks that need the
selector and measure registries), :mod:`~paretostab.spec._space` (the trial space:
searched parameters, the selector of a trial, the grid), :mod:`~paretostab.spec._files`
(the entry points: :func:`parse_spec`, :func:`load_spec`, the built-in specs).
"""

from paretostab.spec._files import (
    builtin_spec_data,
    builtin_spec_names,
    builtin_spec_path,
    builtin_spec_summaries,
    builtin_spec_text,
    check_builtin_data,
    find_spec,
    load_spec,
    parse_spec,
    with_objective,
)
from paretostab.spec._resolve import fit_to_data
from paretostab.spec._schema import (
    BUILTIN_SOURCES,
    DATA_GROUPS,
    MEMORY_SOURCE,
    RESAMPLES,
    SAMPLERS,
    SIMILARITIES,
    DataSpec,
    FrozenMap,
    ObjectiveSpec,
    Param,
    ProtocolSpec,
    SelectorSpec,
    StudySpec,
    check_option,
    json_schema,
    reference_table,
)
from paretostab.spec._space import (
    SELECTOR_PARAM,
    grid,
    grid_size,
    param_name,
    trial_selector,
)

__all__ = ["BUILTIN_SOURCES", "DATA_GROUPS", "MEMORY_SOURCE", "RESAMPLES", "SAMPLERS",
           "SELECTOR_PARAM", "SIMILARITIES", "DataSpec", "FrozenMap", "ObjectiveSpec", "Param",
           "ProtocolSpec", "SelectorSpec", "StudySpec", "builtin_spec_data", "builtin_spec_names",
           "builtin_spec_path", "builtin_spec_summaries", "builtin_spec_text", "check_builtin_data",
           "check_option",
           "find_spec", "fit_to_data", "grid", "grid_size", "json_schema", "load_spec",
           "param_name", "parse_spec", "reference_table", "trial_selector", "with_objective"]
