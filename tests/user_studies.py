"""Studies of a user's own selector, long enough to be stopped mid-way, and the processes
that ran their trials: what the tests of stop signals and faults start and watch."""

from __future__ import annotations

from pathlib import Path

from tests.waiting import current

__all__ = ["selector_spec", "trial_pids"]


def selector_spec(folder: Path, name: str, selector: str, *, trials: int = 400) -> Path:
    """The spec of a study (by default a long one) of the user's ``selector``
    (``module:Class``, a selector with an ``n_keep`` parameter)."""
    spec = folder / f"{name}.toml"
    spec.write_text(
        f'[study]\nname = "{name}"\ntrials = {trials}\nseed = 0\nsampler = "random"\n'
        '[data]\nsource = "simulated:n_other=30,n_per_class=20"\n[protocol]\nruns = 3\n'
        f'[selector]\nname = "{selector}"\n'
        '[selector.search]\nn_keep = [2, 6]\n[objective]\nstability = "iw"\n',
        encoding="utf-8")
    return spec


def trial_pids(url: str, name: str) -> set[int]:
    study = current(url, name)
    return set() if study is None else {
        t.user_attrs["process"]["pid"] for t in study.get_trials(deepcopy=False)
        if "process" in t.user_attrs}
