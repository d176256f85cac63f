"""The names several layers share, below all of them.

The spec checks them, the protocol runs them, tuning and the report show them: they are
kept in a module that imports nothing, so that a light layer (reading a spec, a table of
trials) names them without loading what uses them (scikit-learn, joblib, the selectors,
Optuna).

Attributes
----------
RESAMPLINGS : tuple of str
    How :func:`~paretostab._protocol.run_protocol` draws each run's training sample:
    stratified bootstrap, subsample, or complementary pairs of half-samples (the runs the
    PFER bounds of Shah & Samworth 2013 need).
METRICS : tuple of str
    The out-of-bag scores of a run's final model (:mod:`paretostab._metrics`).
KBAR : str
    The column of k̄ in the tables of trials.
FEATURE_COLORS : str
    The study attribute holding the order of the features its maps colour.
"""

__all__ = ["FEATURE_COLORS", "KBAR", "METRICS", "RESAMPLINGS"]

RESAMPLINGS = ("bootstrap", "subsample", "complementary_pairs")
METRICS = ("accuracy", "balanced_accuracy", "f1_macro", "roc_auc")

#: The column of k̄, the mean number of features a trial's runs selected, in the tables
#: of trials (ASCII, as ``front.csv`` writes it; pages and the command line show k̄).
KBAR = "kbar"

#: The study user attribute holding the features that have a colour in its maps, in the
#: palette's order (column indices, :func:`~paretostab.maps.feature_color_order`).
FEATURE_COLORS = "feature_colors"
