"""003 Table 5 reproduced: stability of the lasso, our protocol next to the paper's values.

Run from the repository root::

    python benchmarks/table5_lasso.py                  # breast cancer (scikit-learn's copy)
    python benchmarks/table5_lasso.py --all            # + the shared UCI and microarray sets

003 §7.2.1: logistic lasso with λ calibrated to select k̄ = min(20, √d) features on
average (rounded), M = 30 bootstrap runs, accuracy on the out-of-bag examples, importances
I_lin of the lasso model; microarray sets pre-filtered to their 5 000 highest-variance
features (on each run's training sample). Prints a Markdown table: ours, then the paper's.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from paretostab._protocol import run_protocol  # noqa: E402
from paretostab.data import load_dataset  # noqa: E402
from paretostab.selectors._linear import ElasticNetSelector  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
#: 003 Table 5: (A, φ, φ_pears, φ_iw)
PAPER = {
    "breast_cancer": (0.95, 0.71, 0.91, 0.78),
    "ionosphere": (0.85, 0.74, 0.91, 0.76),
    "sonar": (0.73, 0.44, 0.52, 0.37),
    "alon": (0.80, 0.20, 0.23, 0.17),
    "singh": (0.91, 0.31, 0.57, 0.37),
    "gravier": (0.73, 0.18, 0.22, 0.15),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--all", action="store_true", help="also the shared data sets")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    names = list(PAPER) if args.all else ["breast_cancer"]
    print(f"lasso, M = {args.runs} bootstrap runs, k̄ = round(min(20, √d)), seed {args.seed}\n")
    print("| data | n × d | k̄ target / got | λ₁ | A | φ | φ_pears | φ_iw | paper A, φ, φ_pears, "
          "φ_iw | s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in names:
        source = name if name == "breast_cancer" else SHARED / f"{name}.csv.gz"
        if name != "breast_cancer" and not Path(source).exists():
            print(f"| {name} | (not found: {source.name}) |")
            continue
        data = load_dataset(source)
        n, d = data.X.shape
        target = round(min(20, math.sqrt(d)))
        prefilter = 5000 if d > 5000 else None
        start = time.perf_counter()
        runs = run_protocol(ElasticNetSelector(l1_ratio=1.0, target_features=target),
                            data.X, data.y, runs=args.runs, prefilter=prefilter,
                            random_state=args.seed, progress=False)
        seconds = time.perf_counter() - start
        paper = ", ".join(f"{v:.2f}" for v in PAPER[name])
        print(f"| {name} | {n} × {d} | {target} / {runs.mean_selected:.1f} "
              f"| {runs.params['reg']:.4g} | {runs.accuracy:.2f} "
              f"| {runs.stability('nogueira'):.2f} | {runs.stability('pearson'):.2f} "
              f"| {runs.stability('iw'):.2f} | {paper} | {seconds:.0f} |")


if __name__ == "__main__":
    main()
