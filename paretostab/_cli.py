"""Command line: ``python -m paretostab <command>``.

A thin layer over the library:

``tune [SPEC]``
    Run or resume an Optuna study maximising accuracy and stability (default: the
    quickstart spec, into a local SQLite file); print the Pareto front.
``report``
    The report of a tuned study: fronts, dominance area with confidence interval, γ
    choice, stability maps (index.html, front.csv, summary.json).
``compare STUDY STUDY…``
    Compare studies (in one storage or several) by their fronts under each measure:
    dominance areas with intervals, pairwise differences with verdicts, the combined front,
    Table 3 of Hamer & Dupont, ECML 2021 (index.html, comparison.csv, comparison.json).
``choose --gamma G``
    The front trial chosen by γ, its parameters and selected features (``--save-model
    PATH``: its fitted pipeline as a skops file, for ``predict``).
``predict MODEL DATA``
    Classify the samples of a data file with a saved model: a CSV of sample, predicted
    label and class probabilities; with labels in the file, the metric and its interval.
``dashboard``
    Serve optuna-dashboard on a study storage with its artifact store.
``studies [NAME]``
    List the built-in study specs, or print one's TOML (to start a spec of one's own).
``measures``
    Compute every registered stability measure on a bundled example (bootstrap runs
    of a top-k Welch-t filter on scikit-learn's breast-cancer data) and print a table.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shlex
import signal
import socket
import sys
import time
import warnings

import pandas as pd

from paretostab._data_formats import FILE_TYPES, ORIENTATIONS, some_names
from paretostab._errors import DataWarning, InvalidInputError, ParetostabError
from paretostab._faults import DEFAULT_STORAGE_WAIT, GRACE_SECONDS, HEARTBEAT_SECONDS
from paretostab._run_cache import DEFAULT_CACHE_BYTES
from paretostab._signals import DEFAULT_STOP_WAIT, stop_signals
from paretostab._validation import Interval
from paretostab._version import __version__

__all__ = ["main"]

QUIET_HELP = ("no progress on stderr (by default a bar on a terminal, else a plain line "
              "every 10 steps or 30 s); errors still print")
ALLOW_CHANCE_HELP = ("let γ choose flagged trials (not above chance, or a selection that "
                     "ignores the labels)")
#: ``dashboard --port``: a TCP port the server can listen on.
PORT = Interval("integer", 1, 65535, why=" (a TCP port)")
TRUST_HELP = ("import a selector the study's stored spec names as module:Class (refused by "
              "default: whoever can write to the storage would choose the code this command "
              "runs); only for a storage whose writers you trust")
ARTIFACTS_HELP = ("artifact store: a folder (one shared folder for processes on several "
                  "machines) or s3://bucket/prefix (default: a folder beside the storage)")


def _tune(args) -> int:
    import optuna

    from paretostab._api import tune
    from paretostab._storage import DEFAULT_STORAGE, display_url
    from paretostab._tuning import counted_trials, front_table
    from paretostab._vocabulary import KBAR
    from paretostab.measures import measure_name
    from paretostab.spec import find_spec, load_spec, with_objective

    optuna.logging.set_verbosity(optuna.logging.ERROR)  # a failed trial: one line of tune's
    spec = load_spec(find_spec(args.spec or "quickstart"))
    if args.objective:
        spec = with_objective(spec, measure_name(args.objective))
    storage = args.storage or spec.storage or DEFAULT_STORAGE
    Interval("number", 0, why=" (GiB of prepared runs per process; 0 keeps none)"
             ).check("--cache-gib", args.cache_gib)
    start = time.perf_counter()
    try:
        study = tune(spec, storage=storage, study_name=args.study_name, n_trials=args.n_trials,
                     timeout=args.timeout, n_jobs=args.n_jobs, workers=args.workers,
                     artifacts=args.artifacts, cache_bytes=int(args.cache_gib * 2**30),
                     storage_wait=args.storage_wait, stop_wait=args.stop_wait,
                     heartbeat_interval=args.heartbeat_interval,
                     grace_period=args.grace_period, backend=args.backend,
                     scheduler=args.scheduler, progress=_progress(args)).study
    except KeyboardInterrupt as interrupt:
        return _interrupted("completed trials are kept; run the same command to resume.",
                            interrupt)
    seconds = time.perf_counter() - start
    trials = study.get_trials(deepcopy=False)
    states = pd.Series([t.state.name for t in trials]).value_counts().to_dict()
    cache = max((t.user_attrs.get("timing", {}).get("run_cache_mib", 0.0) for t in trials),
                default=0.0)
    shown = display_url(storage)
    print(f"Study {study.study_name!r} in {shown}: {_trials(counted_trials(study), 'counted')} "
          f"of {len(trials)} ({', '.join(f'{n} {s.lower()}' for s, n in states.items())}; "
          "an interrupted, stale or unrun trial does not count); this run took "
          f"{seconds:.1f} s" + (f"; prepared runs kept: {cache:.0f} MiB per process."
                                if cache else "."))
    table = front_table(study)
    if table.empty:  # not "Empty DataFrame / Columns: [] / Index: []"
        print("\nPareto front: empty (no trial completed).")
        return 0
    if "flagged" in table and not table["flagged"].any():  # a column of blanks says nothing
        table = table.drop(columns="flagged")
    elif "flagged" in table:  # a trial of a version that did not record chance
        table = table.assign(flagged=table["flagged"].fillna("(not recorded)"))
    with pd.option_context("display.max_columns", None, "display.width", 120,
                           "display.float_format", "{:.4g}".format):
        print(f"\nPareto front ({_trials(len(table))}):")
        print(table.rename(columns={KBAR: "k̄"}).to_string(index=False))
    extra = f" --study-name {shlex.quote(args.study_name)}" if args.study_name else ""
    artifacts = f" --artifacts {shlex.quote(args.artifacts)}" if args.artifacts else ""
    url = shlex.quote(shown)
    print(f"\nNext:\n  python -m paretostab report --storage {url}{extra}{artifacts}"
          "   (fronts, confidence, γ choice, maps → report/index.html)\n"
          f"  python -m paretostab choose --gamma 0.5 --storage {url}{extra}{artifacts}\n"
          f"  python -m paretostab dashboard --storage {url}{artifacts}"
          "   (the stability map of each front trial)"
          + ("\n  (the password is shown as ***: type yours in its place)"
             if shown != storage else ""))
    return 0


def _trials(n: int, adjective: str = "") -> str:
    """``n`` trials, in the singular for one: "1 trial", "3 counted trials"."""
    return f"{n} {adjective + ' ' if adjective else ''}trial{'' if n == 1 else 's'}"


def _dashboard(args) -> int:
    from paretostab._storage import DEFAULT_STORAGE, artifact_store, display_url, open_storage

    try:
        import optuna_dashboard
    except ImportError:
        raise InvalidInputError("the dashboard needs optuna-dashboard: "
                                "pip install 'paretostab[dashboard]'.") from None
    PORT.check("--port", args.port)
    storage = args.storage or DEFAULT_STORAGE
    opened = open_storage(storage, must_exist=True)
    store = artifact_store(storage, args.artifacts, must_exist=True)
    try:  # before it says it serves: a traceback from the server's bind otherwise
        family, kind, _, _, address = socket.getaddrinfo(args.host, args.port,
                                                         type=socket.SOCK_STREAM)[0]
        with socket.socket(family, kind) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server does
            probe.bind(address)
    except OSError as exc:  # a host that does not resolve or is no address here; a port in use
        raise InvalidInputError(f"the dashboard cannot listen at {args.host}:{args.port} "
                                f"({exc.strerror or exc}); give another --host or --port."
                                ) from None
    print(f"Serving {display_url(storage)} at http://{args.host}:{args.port}/ (Ctrl-C stops).")
    optuna_dashboard.run_server(opened, host=args.host, port=args.port, artifact_store=store)
    return 0


def _progress(args) -> bool | None:
    """A command's ``progress``: none with ``--quiet``, else a bar on a terminal and plain
    lines on stderr otherwise (:func:`paretostab._progress.progress_bar`)."""
    return False if args.quiet else None


def _one_line(show):
    """``warnings.showwarning`` that shows a :class:`~paretostab.DataWarning` as one line
    on stderr, ``warning: …``, as an error is ``error: …`` (it comes before
    the study starts, and must be read); other warnings as ``show`` shows them."""
    def shown(message, category, filename, lineno, file=None, line=None) -> None:
        if not issubclass(category, DataWarning):
            return show(message, category, filename, lineno, file, line)
        print(f"warning: {message}", file=sys.stderr if file is None else file)
    return shown


def _interrupted(what: str, interrupt: KeyboardInterrupt) -> int:
    """Ctrl-C, SIGTERM or SIGHUP: one line on stderr naming the signal, and the shell's
    exit code for it (130, 143, 129)."""
    name = getattr(interrupt, "signum", signal.SIGINT)
    name = "Ctrl-C" if name == signal.SIGINT else signal.Signals(name).name
    print(f"\nInterrupted ({name}): {what}", file=sys.stderr)
    return getattr(interrupt, "exit_code", 130)


def _report(args) -> int:
    from paretostab._api import study_report
    from paretostab._storage import DEFAULT_STORAGE
    from paretostab._weight import as_weight

    measures = [m.strip() for m in args.measures.split(",")] if args.measures else None
    try:
        report = study_report(args.storage or DEFAULT_STORAGE, study_name=args.study_name,
                              measures=measures, replicates=args.replicates,
                              weight=as_weight(args.weight), gamma=args.gamma, level=args.level,
                              artifacts=args.artifacts, allow_chance=args.allow_chance,
                              progress=_progress(args), pfer=args.pfer, fdp=args.fdp,
                              assumption=args.assumption,
                              trust_stored_code=args.trust_stored_code)
        folder = report.save(args.out)
    except KeyboardInterrupt as interrupt:
        return _interrupted("no report written; the replicates computed so far are kept in "
                            "the study and reused by the next report.", interrupt)
    extra = "".join(f", {name}" for name in ("stable_set.csv", "selectors.csv")
                    if (folder / name).is_file())
    print(f"Report written to {folder / 'index.html'} (with front.csv{extra} and "
          "summary.json).")
    for found in report.stable_sets:
        _print_stable_set(found)
    return 0


def _print_stable_set(found) -> None:
    """A stable set as ``choose`` and ``report`` print it: what it controls, its features,
    and under which assumption."""
    print(f"stable set ({found.control.upper()} <= {found.target:g}): {found.summary}")
    if found.features:
        print(f"  features ({len(found.features)}, by decreasing frequency): "
              + ", ".join(found.features))
    print(f"  {found.guarantee}")


def _compare(args) -> int:
    from paretostab._api import compare
    from paretostab._weight import as_weight
    from paretostab.measures import measure_label as label

    measures = [m.strip() for m in args.measures.split(",")] if args.measures else None
    try:
        compared = compare(
            args.studies, args.storage, measures=measures, replicates=args.replicates,
            weight=as_weight(args.weight), level=args.level, out=args.out, artifacts=args.artifacts,
            progress=_progress(args), trust_stored_code=args.trust_stored_code)
        folder, comparison = compared.folder, compared.comparison
    except KeyboardInterrupt as interrupt:
        return _interrupted("no comparison written; the replicates computed so far are "
                            "kept in the studies and reused by the next compare or report.",
                            interrupt)
    print(f"Comparison written to {folder / 'index.html'} (with comparison.csv and "
          "comparison.json).")
    for d in comparison.differences:
        first = comparison.front(d.measure, d.first).dominance_area
        second = comparison.front(d.measure, d.second).dominance_area
        interval = ("" if d.low is None else
                    f", replicate means {d.estimate:+.4f}, {d.level:.0%} interval "
                    f"[{d.low:+.4f}, {d.high:+.4f}]")
        print(f"{label(d.measure)}: {d.first} vs {d.second}: dominance area {first:.4f} vs "
              f"{second:.4f} (difference {d.dominance_area:+.4f}{interval}): {d.verdict}")
    return 0


def _choose(args) -> int:
    from paretostab._api import choose
    from paretostab._storage import DEFAULT_STORAGE
    from paretostab.stable_set import check_controls

    check_controls(pfer=args.pfer, fdp=args.fdp, assumption=args.assumption)  # before the work
    try:
        chosen = choose(args.storage or DEFAULT_STORAGE, args.gamma,
                        study_name=args.study_name, measure=args.measure,
                        artifacts=args.artifacts, level=args.level,
                        allow_chance=args.allow_chance,
                        trust_stored_code=args.trust_stored_code)
    except KeyboardInterrupt as interrupt:
        return _interrupted("nothing chosen; the study is unchanged.", interrupt)
    values = {chosen.label(k): v for k, v in chosen.values.items()}
    print(", ".join([f"trial = {chosen.trial}", f"gamma = {chosen.gamma:.4g}",
                     *(f"{k} = {v:.4g}" for k, v in values.items())]))
    print("parameters: " + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                                     for k, v in chosen.params.items()))
    held_out = chosen.held_out
    if held_out is not None:
        print(f"held out ({held_out['data']}, {held_out['n']} examples never seen by the "
              f"search): {held_out['value']:.4g}, {held_out['level']:.0%} interval "
              f"[{held_out['low']:.4g}, {held_out['high']:.4g}]")
    if chosen.flagged:
        what = ("flagged (chosen from by --allow-chance)" if args.allow_chance
                else "passed over as flagged")
        print(f"{what}: " + "; ".join(f"trial {n}: {why}" for n, why in chosen.flagged.items()))
    if chosen.features:
        print(f"selected features ({len(chosen.features)}, by decreasing importance on the "
              f"whole {'development ' if held_out is not None else ''}data): "
              + ", ".join(chosen.features))
    else:
        print("selected features: unavailable (the study holds no spec to refit the selector)")
    try:
        if args.pfer is not None:
            _print_stable_set(chosen.stable_set(pfer=args.pfer, assumption=args.assumption))
        if args.fdp is not None:
            _print_stable_set(chosen.stable_set(fdp=args.fdp))
    except KeyboardInterrupt as interrupt:
        return _interrupted("no stable set; the decoy runs finished so far are lost, the "
                            "study is unchanged.", interrupt)
    if args.save_model:
        path = chosen.save_model(args.save_model)
        print(f"model written to {path} (python -m paretostab predict "
              f"{shlex.quote(str(path))} DATA classifies new samples)")
    return 0


def _predict(args) -> int:
    from pathlib import Path

    from paretostab._model import load_model

    if args.out and not Path(args.out).parent.is_dir():  # said before the work, not after
        raise InvalidInputError(f"cannot write the predictions to {args.out!r}: no folder "
                                f"{str(Path(args.out).parent)!r}.")
    model = load_model(args.model)
    label = args.label or "label"
    predictions = model.predict(args.data, label=label, id=args.id,
                                orientation=args.orientation, level=args.level)
    if args.label and predictions.score is None:  # asked for, not silently left out
        raise InvalidInputError(
            f"--label {args.label!r}: {Path(args.data).name} has no labels in such a column; "
            "name its label column, or leave --label out to classify samples without labels.")
    # the predictions on stdout when no --out is given: what is said goes to stderr then
    said = sys.stdout if args.out else sys.stderr
    if not args.out:
        predictions.table.to_csv(sys.stdout)
    else:
        try:
            predictions.table.to_csv(args.out)
        except OSError as exc:
            raise InvalidInputError(f"cannot write the predictions to {args.out!r} "
                                    f"({exc.strerror or exc}).") from None
        print(f"predictions for {len(predictions.table)} samples written to {args.out} "
              f"(study {model.study!r}, trial {model.trial})", file=said)
    if predictions.ignored:
        print(f"ignored {len(predictions.ignored)} column(s) that are not features of the "
              f"model: {some_names(predictions.ignored)}", file=said)
    score = predictions.score
    if score is not None:
        print(f"{predictions.metric.replace('_', ' ')} on the {score.n} labelled samples "
              f"(label column {label!r}): {score.value:.4g}, {score.level:.0%} interval "
              f"[{score.low:.4g}, {score.high:.4g}]", file=said)
    return 0


def _studies(args) -> int:
    from paretostab.spec import builtin_spec_data, builtin_spec_summaries, builtin_spec_text

    if args.name:
        sys.stdout.write(builtin_spec_text(args.name))
        return 0
    summaries = builtin_spec_summaries()
    width = max(map(len, summaries))
    unshipped = {name: builtin_spec_data(name) for name in summaries}
    for name, summary in summaries.items():
        print(f"{name:<{width}}  {summary}"
              + (f" [data not shipped: {unshipped[name]}]" if unshipped[name] else ""))
    print("\npython -m paretostab tune NAME runs one; python -m paretostab studies NAME > "
          "my.toml writes it out to edit."
          + ("\n[data not shipped]: the spec's comments say where to get its data file; "
             "point its [data] source at your copy." if any(unshipped.values()) else ""))
    return 0


def _plain_text(text: str) -> str:
    """``text`` without its reStructuredText markup (double backquotes, roles such as
    :func:`name`), as ``--help`` shows the module docstring."""
    return re.sub(r"(?::\w+:)?`{1,2}~?([^`]+?)`{1,2}", r"\1", text)


def _stable_set_options(parser: argparse.ArgumentParser, *, pfer: float | None) -> None:
    """The chosen trial's stable set: ``--pfer``, ``--fdp``, ``--assumption``."""
    from paretostab.stable_set import ASSUMPTIONS

    shown = f" (default {pfer:g}; 0 or less: none)" if pfer is not None else ""
    parser.add_argument("--pfer", type=_target, default=pfer, metavar="E",
                        help="the chosen trial's stable set: the features selected often "
                             "enough that the expected number of false positives is at most "
                             f"E{shown}")
    parser.add_argument("--fdp", type=_target, metavar="Q",
                        help="the chosen trial's stable set at an FDP+ of at most Q over "
                             "decoys (its setting runs once more on the data with permuted "
                             "copies of every feature; kept in the study; 0 or less: "
                             "none)")
    parser.add_argument("--assumption", choices=ASSUMPTIONS,
                        help="the PFER bound's assumption (default: unimodal with "
                             "complementary pairs, none otherwise)")


def _target(text: str) -> float | None:
    """A target of ``--pfer`` or ``--fdp``: a number; 0 or less turns it off (``nan`` is
    kept, for the check of the controls to refuse, where it once turned the control off)."""
    value = float(text)
    return None if value <= 0 else value


class _Parser(argparse.ArgumentParser):
    """argparse's parser, keeping the option strings it is given (argparse lists them
    under private names only), to name the closest one to a mistyped option."""

    options: tuple[str, ...] = ()
    shown: tuple[tuple[str, str], ...] = ()  # (dest, how an error names it)

    def add_argument(self, *args, **kwargs) -> argparse.Action:
        action = super().add_argument(*args, **kwargs)
        self.options = (*self.options, *action.option_strings)
        shown = max(action.option_strings, key=len, default=action.metavar or action.dest)
        self.shown = (*self.shown, (action.dest, str(shown)))
        return action

    def refuse_blank(self, args: argparse.Namespace) -> None:
        """Exit with one ``error:`` line for a blank value given to an option or argument
        of this (a command's) parser: each took it for one not given, its default — the
        quickstart for ``tune ""``, ``paretostab.db`` for ``--storage ""``, the working
        folder for ``--out ""``, no model for ``--save-model ""`` — so that a shell's
        unset variable (``--storage "$DB"``) ran or wrote another study than the one
        meant."""
        for dest, shown in self.shown:
            value = getattr(args, dest, None)
            values = value if isinstance(value, list) else [value]
            blank = next((v for v in values if isinstance(v, str) and not v.strip()), None)
            if blank is not None:
                leave = f", or leave {shown} out" if shown.startswith("-") else ""
                self.exit(2, f"error: {shown}: a blank value ({blank!r}) names nothing; "
                             f"give one{leave}.\n")

    def unrecognized(self, unknown: list[str]) -> None:
        """Exit with argparse's error for the ``unknown`` arguments of this (a command's)
        parser, naming the closest option to a mistyped one (``--trials``:
        ``--n-trials``), as Python 3.14's argparse does with ``suggest_on_error``."""
        hints = [match[0] for word in unknown if word.startswith("-") for match in
                 [difflib.get_close_matches(word.split("=")[0], self.options, n=1)] if match]
        self.error(f"unrecognized arguments: {' '.join(unknown)}"
                   + (f" (did you mean {' or '.join(dict.fromkeys(hints))}?)" if hints else ""))


def main(argv: list[str] | None = None) -> int:
    """Run the command line ``argv`` (default: ``sys.argv[1:]``); its exit status.

    Output cut short by its reader (``paretostab measures | head -2``) ends the command
    quietly with status 141, a shell's for a process killed by SIGPIPE: the handling of
    ``BrokenPipeError`` that Python's documentation of the signal module recommends
    (standard output pointed at ``os.devnull``, so that the interpreter's last flush at
    exit does not fail again).
    """
    try:
        status = _run(argv)
        sys.stdout.flush()  # inside the try: a write buffered until now fails here
        return status
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE if hasattr(signal, "SIGPIPE") else 1


def _run(argv: list[str] | None) -> int:
    parser = _Parser(prog="python -m paretostab", description=_plain_text(__doc__),
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"paretostab {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    tune = commands.add_parser("tune", help="run or resume a study (default: quickstart)")
    tune.add_argument("spec", nargs="?", help="study spec: a TOML file or a built-in spec's "
                      "name (paretostab studies lists them); default quickstart")
    tune.add_argument("--storage", help="Optuna storage URL (default sqlite:///paretostab.db; "
                      "journal:PATH for a journal file)")
    tune.add_argument("--study-name", help="default: the spec's name (with --objective: "
                                           "<name>_<measure>)")
    tune.add_argument("--objective", help="tune the spec's space for this stability measure "
                                          "instead of its own (e.g. phi, phi_pears; Fig. 11 "
                                          "of Hamer & Dupont, JMLR 2021)")
    tune.add_argument("--n-trials", type=int, help="finished trials wanted in total")
    tune.add_argument("--timeout", type=float, help="seconds; stops starting new trials")
    tune.add_argument("--n-jobs", type=int, help="processes for the runs inside a trial")
    tune.add_argument("--workers", type=int, default=1, help="processes running trials")
    tune.add_argument("--backend", default="local",
                      help="where a trial's runs go: local (this machine's processes, the "
                      "default) or dask (the workers of a Dask cluster, with --scheduler; "
                      "pip install 'paretostab[dask]')")
    tune.add_argument("--scheduler", metavar="ADDRESS",
                      help="the Dask scheduler of --backend dask, e.g. tcp://host:8786")
    tune.add_argument("--artifacts", help=ARTIFACTS_HELP)
    tune.add_argument("--quiet", action="store_true", help=QUIET_HELP)
    tune.add_argument("--storage-wait", type=float, default=DEFAULT_STORAGE_WAIT,
                      metavar="SECONDS", help="how long to wait for a database server that "
                      "cannot be reached (a restart, a failover) before stopping "
                      "(default %(default)g)")
    tune.add_argument("--stop-wait", type=float, default=DEFAULT_STOP_WAIT,
                      metavar="SECONDS", help="after Ctrl-C, SIGTERM or SIGHUP, how long "
                      "--workers that have not stopped (a long native call) are waited for "
                      "before they are killed and their trials failed (default %(default)g; "
                      "keep it below a batch system's wait before its kill -9: SLURM's "
                      "KillWait, Kubernetes' terminationGracePeriodSeconds)")
    tune.add_argument("--heartbeat-interval", type=int, default=HEARTBEAT_SECONDS,
                      metavar="SECONDS", help="how often a running trial records on a "
                      "database storage (SQLite, PostgreSQL, MySQL) that its process is "
                      "alive (default %(default)d)")
    tune.add_argument("--grace-period", type=int, default=GRACE_SECONDS, metavar="SECONDS",
                      help="how long a running trial may go without a heartbeat before a "
                      "tune fails it as stale and runs its slot again: the trial of a "
                      "process killed with kill -9 or of a lost machine (default "
                      "%(default)d; at least --heartbeat-interval; a shorter one recovers "
                      "sooner but also fails the trial of a process stalled that long; give "
                      "every process of a study the same)")
    tune.add_argument("--cache-gib", type=float, default=DEFAULT_CACHE_BYTES / 2**30,
                      help="memory for the prepared runs each process keeps between trials "
                      "with shared resamples, in GiB (default %(default)g; 0: none)")
    dashboard = commands.add_parser("dashboard", help="optuna-dashboard on a study storage")
    dashboard.add_argument("--storage", help="Optuna storage URL (default sqlite:///paretostab.db)")
    dashboard.add_argument("--artifacts", help=ARTIFACTS_HELP)
    dashboard.add_argument("--host", default="127.0.0.1")
    dashboard.add_argument("--port", type=int, default=8080)
    report = commands.add_parser("report", help="the report of a tuned study (HTML, CSV, JSON)")
    report.add_argument("--storage", help="Optuna storage URL (default sqlite:///paretostab.db)")
    report.add_argument("--study-name", help="default: the storage's only study")
    report.add_argument("--measures", help="comma-separated stability measures to show "
                        "(default: the objective and the recorded ones; aliases phi, pears)")
    report.add_argument("--replicates", type=int,
                        help="B re-runs of each front trial (default: the spec's; 0: none)")
    report.add_argument("--weight", help="uniform (default), accuracy:A or stability:A")
    report.add_argument("--gamma", type=float, default=0.5,
                        help="the trade-off γ in [0, 1]: the report marks and details the "
                             "trial maximising γA+(1−γ)φ (default 0.5)")
    report.add_argument("--level", type=float, default=0.95, help="confidence level")
    report.add_argument("--allow-chance", action="store_true",
                        help=ALLOW_CHANCE_HELP)
    _stable_set_options(report, pfer=1.0)
    report.add_argument("--out", default="report", help="output folder (default: report)")
    report.add_argument("--artifacts", help=ARTIFACTS_HELP)
    report.add_argument("--quiet", action="store_true", help=QUIET_HELP)
    report.add_argument("--trust-stored-code", action="store_true", help=TRUST_HELP)
    compare = commands.add_parser(
        "compare", help="compare studies by their fronts (HTML, CSV, JSON)",
        description="Compare studies by their (accuracy, stability) Pareto fronts under each "
        "measure: dominance areas with confidence intervals from replicates of the front "
        "trials, pairwise differences with verdicts, the front of all studies together and "
        "Table 3 of Hamer & Dupont, ECML 2021.")
    compare.add_argument("studies", nargs="+", metavar="STUDY", help="study names (two or more)")
    compare.add_argument("--storage", action="append",
                         help="Optuna storage URL: once for every study, or once per study in "
                              "their order (default sqlite:///paretostab.db)")
    compare.add_argument("--measures", help="comma-separated stability measures (default: the "
                         "studies' objectives and the measures every study records)")
    compare.add_argument("--replicates", type=int, help="B re-runs of each front trial "
                         "(default: each study's spec; 0: none)")
    compare.add_argument("--weight", help="uniform (default), accuracy:A or stability:A")
    compare.add_argument("--level", type=float, default=0.95, help="confidence level")
    compare.add_argument("--out", default="comparison",
                         help="output folder (default: comparison)")
    compare.add_argument("--artifacts", action="append",
                         help=ARTIFACTS_HELP + "; once for every study, or once per study")
    compare.add_argument("--quiet", action="store_true", help=QUIET_HELP)
    compare.add_argument("--trust-stored-code", action="store_true", help=TRUST_HELP)
    choose = commands.add_parser("choose", help="the front trial chosen by γ, and its features")
    choose.add_argument("--gamma", type=float, required=True, help="γ in [0, 1]")
    choose.add_argument("--storage", help="Optuna storage URL (default sqlite:///paretostab.db)")
    choose.add_argument("--study-name", help="default: the storage's only study")
    choose.add_argument("--measure", help="stability measure (default: the objective)")
    choose.add_argument("--level", type=float, default=0.95,
                        help="level of the chance test and the held-out interval")
    choose.add_argument("--allow-chance", action="store_true",
                        help=ALLOW_CHANCE_HELP)
    _stable_set_options(choose, pfer=None)
    choose.add_argument("--save-model", metavar="PATH",
                        help="write the chosen trade-off's pipeline, refitted on the whole "
                             "(development) data, as a skops file (for predict)")
    choose.add_argument("--artifacts", help=ARTIFACTS_HELP)
    choose.add_argument("--quiet", action="store_true", help=QUIET_HELP)
    choose.add_argument("--trust-stored-code", action="store_true", help=TRUST_HELP)
    predict = commands.add_parser(
        "predict", help="classify the samples of a data file with a saved model",
        description="Classify the samples of a data file with a model saved by choose "
        "--save-model: a CSV of sample (the file's sample IDs, else the row number from 1), "
        "predicted label and one proba_<class> column per class. The model's features are "
        "read by name, in any order; other columns are ignored, and a file lacking one of "
        "them is refused. With a label column, the metric and its interval too.")
    predict.add_argument("model", help="a model file (choose --save-model)")
    predict.add_argument("data", help=f"the new samples: a {FILE_TYPES} file")
    predict.add_argument("--out", help="the CSV to write (default: standard output)")
    predict.add_argument("--label",
                         help="the label column, if the file has one (default label); a "
                              "column --label names must hold labels")
    predict.add_argument("--id", help="the column of sample IDs (default: an index-like "
                                      "first column, if any)")
    predict.add_argument("--orientation", choices=ORIENTATIONS, default=ORIENTATIONS[0],
                         help="how the table lies (default %(default)s)")
    predict.add_argument("--level", type=float, default=0.95,
                         help="level of the metric's interval (default %(default)g)")
    studies = commands.add_parser(
        "studies", help="list the built-in study specs, or print one",
        description="The built-in study specs, each with the first line of its comment "
        "(marked [data not shipped: FILE] when it reads a data file the package does not "
        "ship: its comments say where to get it); with a NAME, that spec's TOML on stdout, "
        "to start a spec of one's own: paretostab studies quickstart > my.toml")
    studies.add_argument("name", nargs="?", help="a built-in spec (default: list them all)")
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
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        commands.choices[args.command].unrecognized(unknown)
    commands.choices[args.command].refuse_blank(args)
    handlers = {"tune": _tune, "dashboard": _dashboard, "report": _report, "choose": _choose,
                "compare": _compare, "studies": _studies, "predict": _predict}
    if args.command in handlers:
        try:
            with stop_signals(), warnings.catch_warnings():  # SIGTERM, SIGHUP as Ctrl-C
                warnings.showwarning = _one_line(warnings.showwarning)
                return handlers[args.command](args)
        except ParetostabError as exc:
            parser.exit(2, f"error: {exc}\n")
    if args.runs < 2 or not 1 <= args.k <= 30:
        parser.error("--runs must be >= 2 and --k in [1, 30]")
    from paretostab._example import measures_table

    table = measures_table(args.runs, args.k, args.seed, args.threshold)
    with pd.option_context("display.max_rows", None, "display.width", 120,
                           "display.max_colwidth", 60, "display.float_format", "{:.4f}".format):
        print(f"Stability of a top-{args.k} Welch-t filter over {args.runs} bootstrap runs "
              "of breast_cancer (569 × 30):")
        print(table)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
