"""The trade-off a user chooses: the trial γ chooses, its values, parameters and the
features its selector keeps (003 §7.1), as ``choose`` returns it to Python and the command
line alike (:func:`paretostab.choose`, ``python -m paretostab choose``)."""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass

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
        The trials passed over as no better than chance, with the reason.
    """

    trial: int
    gamma: float
    values: Mapping[str, float]
    params: Mapping[str, object]
    features: tuple[str, ...]
    held_out: Mapping[str, object] | None
    flagged: Mapping[int, str]

    def to_html(self) -> str:
        values = ", ".join(f"{html.escape(measure_label(k))} {v:.4f}"
                           for k, v in self.values.items())
        params = ", ".join(f"{html.escape(str(k))} = {v:.4g}" if isinstance(v, float)
                           else f"{html.escape(str(k))} = {html.escape(str(v))}"
                           for k, v in self.params.items())
        lines = [f"<strong>γ = {self.gamma:g} chooses trial {self.trial}</strong>: {values}",
                 f"parameters: {params}",
                 f"features ({len(self.features)}): "
                 + html.escape(", ".join(self.features))]
        if self.held_out is not None:
            h = self.held_out
            lines.append(f"held out ({html.escape(str(h['data']))}, {h['n']} examples): "
                         f"{h['value']:.4f} [{h['low']:.4f}, {h['high']:.4f}]")
        if self.flagged:
            lines.append(f"passed over as no better than chance: trials "
                         f"{', '.join(str(n) for n in self.flagged)}")
        return "<div>" + "<br>".join(lines) + "</div>"

    _repr_html_ = to_html
