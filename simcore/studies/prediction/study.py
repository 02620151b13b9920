"""The running-time prediction study (Gaussier et al., SC 2015; seed 001).

A *heuristic triple* is (predictor, correction, backfill variant). The study
simulates every triple on whole traces, selects one triple per trace by
leave-one-trace-out cross-validation (never looking at the evaluated trace),
and re-evaluates the selected triples and the baselines on resampled variants.
Predictors are named by labels: "request", "clairvoyant", "ave2", or
"reg:UNDER/OVER/WEIGHTING@LEARNING_RATE" for the online regression.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from simcore.engine._regression import REGRESSION_BASES, REGRESSION_WEIGHTINGS, RegressionPredictor, losses
from simcore.engine.policies import EASY_FCFS, Policy
from simcore.engine.simulation import simulate
from simcore.workloads.progress import progress

# The paper's two backfilling variants as policies, and conservative backfilling (every waiting job
# holds a reservation, docs/semantics.md "Reservation depth"), where an estimate moves every job's
# reservation rather than the head's alone (not in the paper; `prediction.backfills`).
BACKFILL_VARIANTS = {
    "EASY": EASY_FCFS,
    "SJBF": Policy(backfill="SPF"),
    "CONS": Policy(reservations="all"),
}
PAPER_BACKFILLS = ("EASY", "SJBF")
E_LOSS = ("linear", "squared", "large_area")  # equation (3)
SQUARED_LOSS = ("squared", "squared", "constant")  # plain least squares
TRIPLE = ["predictor", "correction", "backfill"]
# Predictors that never under-predict: no correction ever fires, so they are
# run once per backfill variant (with the `request` correction).
EXACT_OR_UPPER = ("request", "clairvoyant")


def regression_label(under: str, over: str, weighting: str, learning_rate: float) -> str:
    return f"reg:{under}/{over}/{weighting}@{learning_rate:g}"


def parse_regression(label: str) -> dict | None:
    """The RegressionPredictor options of a "reg:..." label, None for other labels."""
    if not label.startswith("reg:"):
        return None
    try:
        loss, rate = label[4:].split("@")
        under, over, weighting = loss.split("/")
        options = dict(under=under, over=over, weighting=weighting, learning_rate=float(rate))
    except ValueError:
        raise ValueError(f"predictor {label!r}: expected reg:UNDER/OVER/WEIGHTING@LEARNING_RATE") from None
    RegressionPredictor(**options)  # validates the names and the rate
    return options


def loss_of(label: str) -> tuple | None:
    """(under, over, weighting) of a regression label."""
    options = parse_regression(label)
    return None if options is None else (options["under"], options["over"], options["weighting"])


def make_estimate(label: str, l2: float):
    """The `estimate` argument of simulate() for a predictor label (a fresh
    instance for a regression, so no two simulations share one)."""
    options = parse_regression(label)
    if options is None:
        if label not in ("request", "clairvoyant", "ave2"):
            raise ValueError(f"unknown predictor {label!r}: request, clairvoyant, ave2 or reg:...")
        return label
    return RegressionPredictor(l2=l2, **options)


def triple_grid(
    learning_rates,
    bases=REGRESSION_BASES,
    weightings=REGRESSION_WEIGHTINGS,
    corrections=("request", "incremental", "doubling"),
    backfills=PAPER_BACKFILLS,
):
    """Every heuristic triple of the paper's campaign, one row each: the
    request and clairvoyant baselines, then AVE2 and the regressions (every
    under/over basis, weighting and learning rate) with every correction."""
    rows = [(p, "request", b) for p in EXACT_OR_UPPER for b in backfills]
    learned = ["ave2"] + [
        regression_label(u, o, w, rate) for u, o, w, rate in itertools.product(bases, bases, weightings, learning_rates)
    ]
    rows += list(itertools.product(learned, corrections, backfills))
    return pd.DataFrame(rows, columns=TRIPLE)


def prediction_quality(estimates: np.ndarray, workload) -> dict:
    """Accuracy of the (clipped) predictions the scheduler used: MAE in seconds,
    mean E-Loss, and the share of under-predicted jobs."""
    run = workload.run
    if len(run) == 0:
        return {"mae": 0.0, "mean_eloss": 0.0, "under_predicted": 0.0}
    return {
        "mae": float(np.mean(np.abs(estimates - run))),
        "mean_eloss": float(np.mean(losses(estimates, run, workload.procs, *E_LOSS))),
        "under_predicted": float(np.mean(estimates < run)),
    }


def evaluate_triples(workload, triples: pd.DataFrame, l2: float, keep_predictions=(), label=None):
    """Simulate each triple on `workload`: one row per triple (AVEbsld, mean
    wait, prediction quality, corrections) and the per-job initial estimates
    of the triples whose (predictor, correction, backfill) is in keep_predictions.
    With a `label`, progress lines on stderr (simcore.workloads.progress)."""
    rows, kept = [], {}
    chosen = triples[TRIPLE].itertuples(index=False)
    if label is not None:
        chosen = progress(chosen, len(triples), label)
    for predictor, correction, backfill in chosen:
        result = simulate(
            workload, estimate=make_estimate(predictor, l2), correction=correction, policy=BACKFILL_VARIANTS[backfill]
        )
        summary = result.summary()
        estimates = result.jobs["initial_estimate"]
        rows.append(
            {
                "predictor": predictor,
                "correction": correction,
                "backfill": backfill,
                "avg_bsld": summary["avg_bsld"],
                "avg_wait": summary["avg_wait"],
                "corrections": int(result.jobs["corrections"].sum()),
                **prediction_quality(estimates, workload),
            }
        )
        if (predictor, correction, backfill) in keep_predictions:
            kept[predictor] = estimates
    return pd.DataFrame(rows), kept


def chunk_of_grid(grid: pd.DataFrame, chunk: int, chunks: int) -> pd.DataFrame:
    """Every chunks-th triple from `chunk`: chunks of similar cost."""
    if not 0 <= chunk < chunks:
        raise ValueError(f"chunk {chunk} is not in 0..{chunks - 1}")
    return grid.iloc[chunk::chunks].reset_index(drop=True)


def figure_triples(learning_rates):
    """Triples whose per-job predictions are kept for Figures 4/5 and Table 8:
    AVE2 and the E-Loss and squared-loss regressions, with the paper's
    selected correction and variant (incremental, EASY-SJBF)."""
    labels = ["ave2"] + [regression_label(*loss, rate) for loss in (E_LOSS, SQUARED_LOSS) for rate in learning_rates]
    return {(label, "incremental", "SJBF") for label in labels}


# -- selection -----------------------------------------------------------------


def _key(row) -> tuple:
    return tuple(row[c] for c in TRIPLE)


def loto_best(grid: pd.DataFrame, trace: str, candidates: pd.DataFrame | None = None):
    """The triple with the smallest sum of AVEbsld over every trace except
    `trace` (ties: the first in grid order), among `candidates` (default: all
    non-clairvoyant triples); None when no other trace was simulated."""
    others = grid[(grid["trace"] != trace) & (grid["predictor"] != "clairvoyant")]
    if candidates is not None:
        others = others.merge(candidates[TRIPLE], on=TRIPLE)
    if others.empty:
        return None
    n_traces = others["trace"].nunique()
    totals = others.groupby(TRIPLE, sort=False).agg(total=("avg_bsld", "sum"), traces=("trace", "nunique"))
    totals = totals[totals["traces"] == n_traces]  # only triples run on every other trace
    return totals["total"].idxmin()


def _value(grid, trace, triple) -> float:
    match = grid[(grid["trace"] == trace) & (grid[TRIPLE] == list(triple)).all(axis=1)]
    return float(match["avg_bsld"].iloc[0]) if len(match) else np.nan


EASY = ("request", "request", "EASY")
EASY_PLUS_PLUS = ("ave2", "incremental", "SJBF")


def selection_table(grid: pd.DataFrame, default_learning_rate: float) -> pd.DataFrame:
    """Per trace: the cross-validated triple and its AVEbsld, the best triple in
    hindsight on the trace itself (what the paper's artifact reported), EASY,
    EASY++ and the E-Loss triple (incremental, SJBF) whose learning rate is
    chosen on the other traces (the default rate when there are none)."""
    eloss_candidates = grid.loc[
        (grid["predictor"].map(loss_of) == E_LOSS)
        & (grid["correction"] == "incremental")
        & (grid["backfill"] == "SJBF"),
        TRIPLE,
    ]
    rows = []
    for trace in dict.fromkeys(grid["trace"]):
        own = grid[(grid["trace"] == trace) & (grid["predictor"] != "clairvoyant")]
        hindsight = _key(own.loc[own["avg_bsld"].idxmin()])
        chosen = loto_best(grid, trace)
        eloss = loto_best(grid, trace, eloss_candidates)
        if eloss is None:
            eloss = (regression_label(*E_LOSS, default_learning_rate), "incremental", "SJBF")
        row = {"trace": trace}
        for name, triple in (("cv", chosen), ("hindsight", hindsight), ("eloss", eloss)):
            triple = triple or (None, None, None)
            row.update({f"{name}_{c}": v for c, v in zip(TRIPLE, triple)})
            row[f"{name}_avg_bsld"] = _value(grid, trace, triple) if triple[0] else np.nan
        row["easy_avg_bsld"] = _value(grid, trace, EASY)
        row["easy_plus_plus_avg_bsld"] = _value(grid, trace, EASY_PLUS_PLUS)
        rows.append(row)
    return pd.DataFrame(rows)


def variant_triples(selection_row: dict | None, default_learning_rate: float) -> pd.DataFrame:
    """What runs on the resampled variants of a trace: EASY, EASY-SJBF with
    requests, clairvoyant EASY and EASY-SJBF, EASY++, the E-Loss triple and
    the cross-validated triple (when there is one)."""
    rows = [
        EASY,
        ("request", "request", "SJBF"),
        ("clairvoyant", "request", "EASY"),
        ("clairvoyant", "request", "SJBF"),
        EASY_PLUS_PLUS,
    ]
    if selection_row is None:
        rows.append((regression_label(*E_LOSS, default_learning_rate), "incremental", "SJBF"))
    else:
        for name in ("eloss", "cv"):
            triple = tuple(selection_row[f"{name}_{c}"] for c in TRIPLE)
            if isinstance(triple[0], str):
                rows.append(triple)
    return pd.DataFrame(list(dict.fromkeys(rows)), columns=TRIPLE)


# -- tables ----------------------------------------------------------------------


def _reduction(new, base):
    return 100.0 * (1.0 - new / base)


def table1(grid: pd.DataFrame) -> pd.DataFrame:
    """EASY with requested times against clairvoyant EASY (the paper's Table 1)."""
    rows = []
    for trace in dict.fromkeys(grid["trace"]):
        easy = _value(grid, trace, EASY)
        clairvoyant = _value(grid, trace, ("clairvoyant", "request", "EASY"))
        rows.append(
            {"trace": trace, "easy": easy, "clairvoyant": clairvoyant, "decrease_pct": _reduction(clairvoyant, easy)}
        )
    return pd.DataFrame(rows)


def table6(grid: pd.DataFrame) -> pd.DataFrame:
    """Clairvoyant EASY/EASY-SJBF, EASY, EASY++, and the best and worst AVEbsld
    of the learned predictors (AVE2 and regressions) per backfill variant the grid ran."""
    rows = []
    for trace in dict.fromkeys(grid["trace"]):
        row = {
            "trace": trace,
            "clairvoyant_easy": _value(grid, trace, ("clairvoyant", "request", "EASY")),
            "clairvoyant_sjbf": _value(grid, trace, ("clairvoyant", "request", "SJBF")),
            "easy": _value(grid, trace, EASY),
            "easy_plus_plus": _value(grid, trace, EASY_PLUS_PLUS),
        }
        learned = grid[(grid["trace"] == trace) & ~grid["predictor"].isin(EXACT_OR_UPPER)]
        for backfill in [variant for variant in BACKFILL_VARIANTS if variant in set(grid["backfill"])]:
            values = learned.loc[learned["backfill"] == backfill, "avg_bsld"]
            row[f"learned_{backfill.lower()}_best"] = values.min()
            row[f"learned_{backfill.lower()}_worst"] = values.max()
        rows.append(row)
    return pd.DataFrame(rows)


# The triples run again at a trace's header machine size (prediction.header_size).
HEADER_SIZE_TRIPLES = pd.DataFrame(
    [("clairvoyant", "request", "EASY"), ("clairvoyant", "request", "SJBF"), EASY, EASY_PLUS_PLUS], columns=TRIPLE
)
TABLE6_BASELINES = ["clairvoyant_easy", "clairvoyant_sjbf", "easy", "easy_plus_plus"]


def header_size_table(grid: pd.DataFrame, header_runs: pd.DataFrame) -> pd.DataFrame:
    """Table 6's baselines of each trace run at both machine sizes, side by
    side: at the study's size (the grid) and at the header's (header_runs,
    one `machine_size` per trace)."""
    rows = []
    for trace, runs in header_runs.groupby("trace", sort=False):
        study_size = table6(grid[grid["trace"] == trace]).iloc[0]
        header_size = table6(runs).iloc[0]
        header_label = f"{runs['machine_size'].iloc[0]:,}, header"
        rows.append({"trace": trace, "header": False, "machine_size": "study's", **study_size[TABLE6_BASELINES]})
        rows.append({"trace": trace, "header": True, "machine_size": header_label, **header_size[TABLE6_BASELINES]})
    return pd.DataFrame(rows, columns=["trace", "header", "machine_size", *TABLE6_BASELINES])


def table8(grid: pd.DataFrame, selection: pd.DataFrame) -> pd.DataFrame:
    """MAE and mean E-Loss of the requested times, AVE2, and the E-Loss and
    squared-loss regressions (at the learning rate chosen for the E-Loss on
    the other traces), with incremental correction and EASY-SJBF, per trace."""
    rows = []
    for _, chosen in selection.iterrows():
        trace = chosen["trace"]
        rate = parse_regression(chosen["eloss_predictor"])["learning_rate"]
        techniques = (
            ("requested time", "request", "request"),
            ("AVE2", "ave2", "incremental"),
            ("E-Loss learning", chosen["eloss_predictor"], "incremental"),
            ("squared-loss learning", regression_label(*SQUARED_LOSS, rate), "incremental"),
        )
        for name, predictor, correction in techniques:
            match = grid[
                (grid["trace"] == trace)
                & (grid["predictor"] == predictor)
                & (grid["correction"] == correction)
                & (grid["backfill"] == "SJBF")
            ]
            if len(match):
                rows.append(
                    {
                        "trace": trace,
                        "technique": name,
                        "predictor": predictor,
                        "mae": float(match["mae"].iloc[0]),
                        "mean_eloss": float(match["mean_eloss"].iloc[0]),
                    }
                )
    return pd.DataFrame(rows, columns=["trace", "technique", "predictor", "mae", "mean_eloss"])


def correlations(grid: pd.DataFrame) -> pd.DataFrame:
    """Pearson correlation of the triples' AVEbsld between each pair of traces
    (Figure 3's statistic), over the triples run on both."""
    wide = grid.pivot_table(index=TRIPLE, columns="trace", values="avg_bsld", sort=False)
    traces = list(dict.fromkeys(grid["trace"]))
    rows = []
    for a, b in itertools.combinations(traces, 2):
        pair = wide[[a, b]].dropna()
        rows.append(
            {
                "trace_a": a,
                "trace_b": b,
                "triples": len(pair),
                "pearson": float(pair[a].corr(pair[b])) if len(pair) > 2 else np.nan,
            }
        )
    return pd.DataFrame(rows, columns=["trace_a", "trace_b", "triples", "pearson"])


def variant_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Per trace and triple over the resampled variants: AVEbsld mean and
    10th/90th percentiles, and the reduction against EASY on the same variant."""
    easy = runs[(runs[TRIPLE] == list(EASY)).all(axis=1)].set_index(["trace", "variant"])["avg_bsld"]
    runs = runs.assign(
        reduction_pct=_reduction(
            runs["avg_bsld"].to_numpy(), easy.reindex(pd.MultiIndex.from_frame(runs[["trace", "variant"]])).to_numpy()
        )
    )
    grouped = runs.groupby(["trace", *TRIPLE], sort=False)
    table = grouped.agg(
        variants=("variant", "nunique"), avg_bsld_mean=("avg_bsld", "mean"), reduction_mean=("reduction_pct", "mean")
    )
    for q in (10, 90):
        table[f"avg_bsld_p{q}"] = grouped["avg_bsld"].quantile(q / 100)
        table[f"reduction_p{q}"] = grouped["reduction_pct"].quantile(q / 100)
    return table.reset_index()
