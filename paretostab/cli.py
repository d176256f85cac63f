"""Command line: ``python -m paretostab <command>``.

A thin layer over the library. Commands so far:

``measures``
    Compute every registered stability measure on the bundled example (bootstrap runs
    of a top-k Welch-t filter on scikit-learn's breast-cancer data) and print a table.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings

import pandas as pd

from paretostab.measures import get_measure, list_measures, stability
from paretostab.similarity import FeatureSimilarity


def _measures_table(runs: int, k: int, seed: int, threshold: float) -> pd.DataFrame:
    from paretostab._example import welch_t_filter_runs

    example = welch_t_filter_runs(runs=runs, k=k, random_state=seed)
    similarity = FeatureSimilarity(example.X, "spearman")
    inputs = {
        "selection": example.selection_matrix,
        "importance": example.importance_matrix,
        "ranking": example.rank_matrix,
    }
    rows = []
    for name in list_measures().index:
        info = get_measure(name)
        kwargs: dict = {}
        if info.needs_similarity:
            kwargs["similarity"] = similarity
        if info.options.get("threshold", None) is not None:
            kwargs["threshold"] = threshold
        if "k" in info.options:
            kwargs["k"] = k
        start = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = stability(name, inputs[info.input], **kwargs)
        rows.append({
            "measure": name,
            "value": value,
            "input": info.input,
            "bounds": f"[{info.lower:g}, {info.upper:g}]",
            "seconds": time.perf_counter() - start,
            "note": "; ".join(str(w.message) for w in caught),
        })
    return pd.DataFrame(rows).set_index("measure")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m paretostab", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    measures = commands.add_parser(
        "measures",
        help="every stability measure on the bundled example, as a table",
        description="Bootstrap runs of a top-k Welch-t filter on scikit-learn's breast-cancer "
        "data (569 × 30); every registered measure of the selections, importances (|t|) and "
        "rankings, with |Spearman| similarity where a measure needs one.",
    )
    measures.add_argument("--runs", type=int, default=30, help="bootstrap runs M (default 30)")
    measures.add_argument("--k", type=int, default=5, help="features selected per run")
    measures.add_argument("--seed", type=int, default=0, help="random seed")
    measures.add_argument("--threshold", type=float, default=0.9,
                          help="similarity threshold of the adjusted measures (default 0.9)")
    args = parser.parse_args(argv)
    if args.runs < 2 or not 1 <= args.k <= 30:
        parser.error("--runs must be >= 2 and --k in [1, 30]")
    table = _measures_table(args.runs, args.k, args.seed, args.threshold)
    with pd.option_context("display.max_rows", None, "display.width", 120,
                           "display.max_colwidth", 60, "display.float_format", "{:.4f}".format):
        print(f"Stability of a top-{args.k} Welch-t filter over {args.runs} bootstrap runs "
              "of breast_cancer (569 × 30):")
        print(table)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
