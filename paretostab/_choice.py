"""The trade-off a user chooses: the trial γ chooses, its values, parameters and the
features its selector keeps (003 §7.1), as ``choose`` returns it to Python and the command
line alike (:func:`paretostab.choose`, ``python -m paretostab choose``). It stands below
the report, which computes it, and the API, which returns it: importing it loads neither."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from markupsafe import Markup

from paretostab.measures import measure_label

__all__ = ["Choice"]


@dataclass(frozen=True)
class Choice:
    """The front trial γ chooses (003 §7.1).

    Attributes
    ----------
    trial : int
    gamma : float
    values : dict
        Its metric (under ``"accuracy"``) and stability measure, by registry name.
    params : dict
        Its Optuna parameters.
    features : tuple of str
        The features its selector selects when fitted once on the whole (development) data,
        by decreasing importance.
    held_out : dict or None
        Its metric on the held-out part, with its interval (``[protocol] holdout``).
    flagged : dict
        The trials passed over as flagged (their metric not above chance, or their
        selection ignoring the labels), with the reason.
    metric : str
        The study's protocol metric, which ``values["accuracy"]`` holds (``accuracy``,
        ``balanced_accuracy``, …): what :meth:`label` and the command line call it.
    """

    trial: int
    gamma: float
    values: Mapping[str, float]
    params: Mapping[str, object]
    features: tuple[str, ...]
    held_out: Mapping[str, object] | None
    flagged: Mapping[int, str]
    metric: str = "accuracy"

    def label(self, name: str) -> str:
        """How a key of :attr:`values` is said: the metric's real name for
        ``"accuracy"`` ("balanced accuracy"), a measure's symbol otherwise.

        Parameters
        ----------
        name : str
            A key of :attr:`values`.
        """
        return self.metric.replace("_", " ") if name == "accuracy" else measure_label(name)

    def __repr__(self) -> str:
        """The trial, γ, its values and how many features and flagged trials, not the
        lists (a short repr, as scikit-learn's estimators have)."""
        values = ", ".join(f"{name}={value:.4g}" for name, value in self.values.items())
        held = "" if self.held_out is None else ", held out"
        return (f"Choice(trial={self.trial}, gamma={self.gamma:g}, {values}, "
                f"{len(self.features)} features, {len(self.flagged)} flagged{held})")

    def __html__(self) -> Markup:
        """The choice as HTML (``notebook.html``), as markup: what a template inserts as it
        is, and what :meth:`to_html` returns."""
        from paretostab._templating import render_macro  # the report, when drawn

        return render_macro(
            "notebook.html", "choice", gamma=self.gamma, trial=self.trial,
            values=[(self.label(k), v) for k, v in self.values.items()],
            params=[(str(k), f"{v:.4g}" if isinstance(v, float) else str(v))
                    for k, v in self.params.items()],
            features=list(self.features), held_out=self.held_out, flagged=list(self.flagged))

    def to_html(self) -> str:
        """The choice as HTML: a notebook's representation (``_repr_html_``)."""
        return str(self.__html__())

    _repr_html_ = to_html
