"""The elastic study's section of the reproduction report: the paper's Tables 2-5 beside ours (means
over seeds and job sets), and whether each of its claims holds, per trace, with the numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd

from simcore.reporting.published import (
    ELASTIC_SPEEDUP,
    ELASTIC_TABLE1,
    ELASTIC_TABLE_COLUMNS,
    ELASTIC_TABLES,
    ELASTIC_TEXT,
)
from simcore.reporting.reproduction import REPRODUCTION_COLUMNS, mean_and_range, reproduction_row
from simcore.reporting.tables import markdown_table
from simcore.studies.elastic.jobsets import PAPER_INTERACTIVE_SHARE, PAPER_TOP_SHARE, PAPER_UTILISATION
from simcore.studies.elastic.metrics import SAME_POOL, same_pool_name

PAPER = "elastic-2009"
# our summary columns for the paper's (W per type, mean and std, interactive delay mean and std)
OURS = dict(
    zip(
        ELASTIC_TABLE_COLUMNS,
        (
            "W_interactive_mean",
            "W_interactive_std",
            "W_batch_mean",
            "W_batch_std",
            "delay_interactive_mean",
            "delay_interactive_std",
        ),
    )
)


def reproduction_rows(runs: pd.DataFrame, speedups: pd.DataFrame) -> pd.DataFrame:
    """Per trace and run: our mean over seeds and sets next to each published cell."""
    rows = []
    for (trace, name), block in runs.groupby(["trace", "run"], sort=False):
        if name not in ELASTIC_TABLES:
            continue
        kind = block["kind"].iloc[0]
        for column, published in zip(ELASTIC_TABLE_COLUMNS, ELASTIC_TABLES[name]):
            rows.append(
                reproduction_row(
                    PAPER,
                    "Tables 4-5" if kind == "ELA" else "Tables 2-3",
                    f"{trace} {name}",
                    column,
                    published,
                    block[OURS[column]].mean(),
                    trace=trace,
                    sample_size=len(block),
                    sample="runs (seeds x job sets)",
                )
            )
    for (trace, name), block in speedups.groupby(["trace", "run"], sort=False):
        if name in ELASTIC_SPEEDUP:
            rows.append(
                reproduction_row(
                    PAPER,
                    "Table 5",
                    f"{trace} {name}",
                    "speedup %",
                    ELASTIC_SPEEDUP[name],
                    100 * block["speedup"].mean(),
                    trace=trace,
                    sample_size=len(block),
                    sample="runs (seeds x job sets)",
                )
            )
    return pd.DataFrame(rows, columns=REPRODUCTION_COLUMNS)


LAMBDA_LITTLE = 0.02  # "λ_s has little effect": mean interactive W within 0.02 between λ 0.5 and 1
EST_CLOSE = 0.02  # "EST ≈ ORA": mean interactive W within 0.02
CLOSER_TOLERANCE = 0.75  # "about 4× (3×) closer to W = 1": at least 75 % of the paper's factor
CLOSEST = 1e-3  # the smallest distance 1 − W a ratio divides by
PREFERRED_TOLERANCE = 0.2  # "the preferred pool is 90 cores" (of 81): within 0.2 of that ratio to P_rig
UTILISATION_BAND = 0.1  # "≈ 0.5 elastic, ≈ 0.7 rigid": within 0.1
FAIRNESS_CLOSE = 0.05  # "the fairness difference RL − NAT is about 0"
CLAIM_COLUMNS = ["trace", "claim", "paper", "holds", "numbers", "reason"]


def text(section: str, row: str, column: str) -> float:
    return ELASTIC_TEXT[(section, row, column)]


def spread(values, digits: int = 3, scale: float = 1.0) -> str:
    """mean [10th, 90th percentile] over the runs (seeds x job sets)."""
    values = np.asarray(values, dtype=float) * scale
    return mean_and_range(values.mean(), np.quantile(values, 0.1), np.quantile(values, 0.9), f".{digits}f")


class Claims:
    """The runs of one trace, split as the claims need them: the paper's learner runs (rigid and
    elastic; the ablations of docs/elastic.md §8 are left out), NAT, and the baselines."""

    def __init__(self, block: pd.DataFrame):
        learner = block["kind"].isin(["RIG", "ELA"])
        paper = learner & (block["reward_utilisation"] == "interval") & (block["pre_training_pool"] == "explore")
        self.rigid = block[paper & (block["kind"] == "RIG")]
        self.elastic = block[paper & (block["kind"] == "ELA")]
        self.nat = block[block["run"] == "NAT"]
        self.block = block

    def per_run(self, rows: pd.DataFrame, metric: str) -> pd.Series:
        return rows.groupby("run", sort=False)[metric].mean()

    def against(self, rows: pd.DataFrame, other: pd.DataFrame, keys, metric: str) -> pd.DataFrame:
        """`rows` joined to `other` on `keys` (the paired baseline of each run), metric and the other's."""
        return rows.merge(other[[*keys, metric]], on=keys, suffixes=("", "_other"))

    def pairs(self, rows: pd.DataFrame, differ: str, a, b) -> list[tuple[str, str]]:
        """Run names of `rows` that differ only in setting `differ` (a against b)."""
        names = rows.drop_duplicates("run").set_index("run")
        settings = ["model", "lambda", "elastic"]
        found = []
        for name, row in names[names[differ] == a].iterrows():
            match = names[
                (names[differ] == b) & np.logical_and.reduce([names[c] == row[c] for c in settings if c != differ])
            ]
            found += [(name, other) for other in match.index]
        return found


def verdict(claim: str, paper: str, numbers: str | list[str], failing: list[str]) -> tuple:
    """A check's row: the claim holds when nothing failed; the failures are its reason."""
    return claim, paper, not failing, numbers if isinstance(numbers, str) else "; ".join(numbers), "; ".join(failing)


def claims(runs: pd.DataFrame, speedups: pd.DataFrame) -> pd.DataFrame:
    """Every claim of the paper (its §5.2-5.3, the contract's §12) on each trace, computed from the
    runs: whether it holds, the paper's numbers, ours (mean [10th, 90th percentile] over seeds and
    job sets), and when it fails, the measured reason."""
    rows = []
    for trace, block in runs.groupby("trace", sort=False):
        found = Claims(block)
        checks = [check(found, speedups[speedups["trace"] == trace]) for check in CHECKS]
        rows += [
            {
                "trace": trace,
                "claim": claim,
                "paper": paper,
                "holds": bool(holds),
                "numbers": numbers,
                "reason": "" if holds else reason,
            }
            for claim, paper, holds, numbers, reason in (c for c in checks if c is not None)
        ]
    return pd.DataFrame(rows, columns=CLAIM_COLUMNS)


def rl_beats_nat(found: Claims, _):
    if found.nat.empty or found.rigid.empty:
        return None
    paired = found.against(found.rigid, found.nat, ["jobset"], "W_interactive_mean")
    paired = found.against(paired, found.nat, ["jobset"], "delay_interactive_mean")
    w_wins = paired["W_interactive_mean"] > paired["W_interactive_mean_other"]
    delay_wins = paired["delay_interactive_mean"] < paired["delay_interactive_mean_other"]
    w, delay = found.per_run(found.rigid, "W_interactive_mean"), found.per_run(found.rigid, "delay_interactive_mean")
    nat_w, nat_delay = found.nat["W_interactive_mean"].mean(), found.nat["delay_interactive_mean"].mean()
    rigid, nat = found.rigid, found.nat
    numbers = (
        f"rigid RL W {spread(rigid['W_interactive_mean'])} vs NAT {spread(nat['W_interactive_mean'])}; "
        f"delay {spread(rigid['delay_interactive_mean'], 0)} s vs NAT {spread(nat['delay_interactive_mean'], 0)} s; "
        f"both better in {int((w_wins & delay_wins).sum())} of {len(paired)} runs"
    )
    failing = [f"{name} W {value:.3f} <= NAT {nat_w:.3f}" for name, value in w.items() if value <= nat_w]
    failing += [
        f"{name} delay {value:.0f} s >= NAT {nat_delay:.0f} s" for name, value in delay.items() if value >= nat_delay
    ]
    (rl_w, *_, rl_delay, _), (nat_w_paper, *_, nat_delay_paper, _) = (
        ELASTIC_TABLES["RIG-ORA-0.5"],
        ELASTIC_TABLES["NAT"],
    )
    paper = f"W {rl_w:.3f} vs NAT {nat_w_paper:.3f}; delay {rl_delay:.0f} vs {nat_delay_paper:.0f} s"
    return verdict(
        "RL beats NAT on interactive W and interactive delay (rigid runs)",
        paper,
        numbers,
        failing,
    )


def share_above_nat(found: Claims, _):
    if found.nat.empty or found.rigid.empty:
        return None
    failing, parts = [], []
    for kind in ("interactive", "batch"):
        metric = f"W_{kind}_above_0.9"
        lowest, nat = found.per_run(found.rigid, metric).min(), found.nat[metric].mean()
        parts.append(f"{kind} {spread(found.rigid[metric], 0, 100)} % vs NAT {100 * nat:.0f} %")
        if lowest <= nat:
            failing.append(f"{kind}: lowest rigid run {100 * lowest:.0f} % <= NAT {100 * nat:.0f} %")
    rl = (
        text("Section 5.2", "RIG", "P(W > 0.9) interactive %, at least"),
        text("Section 5.2", "RIG", "P(W > 0.9) batch %"),
    )
    nat = text("Section 5.2", "NAT", "P(W > 0.9) interactive %"), text("Section 5.2", "NAT", "P(W > 0.9) batch %")
    paper = f"interactive >= {rl[0]:.0f} % vs {nat[0]:.0f} %, batch {rl[1]:.0f} % vs {nat[1]:.0f} %"
    return verdict("more jobs with W > 0.9 with RL than NAT, both types (rigid runs)", paper, parts, failing)


def quick_starts(found: Claims, _):
    if found.nat.empty or found.rigid.empty:
        return None
    lowest = found.per_run(found.rigid, "interactive_within_2_min").min()
    nat = found.nat["interactive_within_2_min"].mean()
    rl_paper, nat_paper = (text("Section 5.2", row, "interactive wait < 2 min %") for row in ("RIG", "NAT"))
    paper = f"{rl_paper:.0f} % vs NAT {nat_paper:.0f} %"
    numbers = f"rigid RL {spread(found.rigid['interactive_within_2_min'], 0, 100)} % vs NAT {100 * nat:.0f} %"
    return (
        "more interactive waits under 2 minutes with RL than NAT (rigid runs)",
        paper,
        lowest > nat,
        numbers,
        f"lowest rigid run {100 * lowest:.0f} % <= NAT {100 * nat:.0f} %",
    )


def elastic_quick(found: Claims, _):
    if found.elastic.empty:
        return None
    late_limit = text("Section 5.3", "ELA", "interactive wait >= 2 min %, at most")
    above_limit = text("Section 5.3", "ELA", "P(W > 0.9) interactive %, at least")
    late = 100 * (1 - found.per_run(found.elastic, "interactive_within_2_min"))
    above = 100 * found.per_run(found.elastic, "W_interactive_above_0.9")
    failing = [f"{name} {value:.0f} % late" for name, value in late.items() if value > late_limit]
    failing += [f"{name} P(W > 0.9) {value:.0f} %" for name, value in above.items() if value < above_limit]
    numbers = (
        f"waits >= 2 min {spread(1 - found.elastic['interactive_within_2_min'], 1, 100)} %; "
        f"P(W > 0.9) {spread(found.elastic['W_interactive_above_0.9'], 0, 100)} %"
    )
    paper = f"<= {late_limit:.0f} % of interactive waits >= 2 min, P(W > 0.9) >= {above_limit:.0f} %"
    return verdict(
        "elastic runs: few interactive waits above 2 minutes, most W above 0.9",
        paper,
        numbers,
        failing,
    )


def closer_to_one(found: Claims, _):
    pairs = found.pairs(pd.concat([found.rigid, found.elastic]), "elastic", True, False)
    if not pairs:
        return None
    failing, parts = [], []
    for kind in ("interactive", "batch"):
        factor = text("Section 5.3", "ELA vs RIG", f"(1 - mean W) RIG / ELA {kind}")
        metric = f"W_{kind}_mean"
        both = pd.concat(
            [
                found.block[found.block["run"] == elastic].merge(
                    found.block[found.block["run"] == rigid], on=["jobset", "seed"], suffixes=("", "_rigid")
                )
                for elastic, rigid in pairs
            ]
        )
        # as the paper reads its Tables 2 and 4: the ratio of the mean distances to W = 1; per pair, a
        # distance below 0.001 counts as 0.001 (an elastic run that delays no job is not infinitely better)
        ratio = (1 - both[f"{metric}_rigid"]).mean() / max((1 - both[metric]).mean(), CLOSEST)
        pairs_ratio = (1 - both[f"{metric}_rigid"]) / np.maximum(1 - both[metric], CLOSEST)
        parts.append(f"{kind} {ratio:.1f}× (per pair {spread(pairs_ratio, 1)}×)")
        if ratio < CLOSER_TOLERANCE * factor:
            failing.append(f"{kind} {ratio:.1f}× < {CLOSER_TOLERANCE:.0%} of {factor:.0f}×")
    interactive, batch = (
        text("Section 5.3", "ELA vs RIG", f"(1 - mean W) RIG / ELA {kind}") for kind in ("interactive", "batch")
    )
    paper = f"about {interactive:.0f}× (interactive), {batch:.0f}× (batch)"
    claim = "elastic runs closer to W = 1 than rigid ones ((1 − W) RIG / ELA, same model and λ)"
    return verdict(claim, paper, parts, failing)


def beats_same_pool(found: Claims, _):
    baselines = [name for name in ("FCFS", "EDF") if name in set(found.block["run"])]
    if not baselines or found.rigid.empty:
        return None
    numbers, failing = [], []
    for metric, better, unit, digits in (
        ("W_interactive_mean", np.greater, "", 3),
        ("delay_interactive_mean", np.less, " s", 0),
    ):
        ours = found.per_run(found.rigid, metric)
        for name in baselines:
            theirs = found.block.loc[found.block["run"] == name, metric].mean()
            numbers.append(f"{name} {metric.split('_')[0]} {theirs:.{digits}f}{unit}")
            failing += [
                f"{run} {metric.split('_')[0]} {value:.{digits}f}{unit} vs {name} {theirs:.{digits}f}{unit}"
                for run, value in ours.items()
                if not better(value, theirs)
            ]
    rigid = found.rigid
    numbers.insert(
        0, f"rigid RL W {spread(rigid['W_interactive_mean'])}, delay {spread(rigid['delay_interactive_mean'], 0)} s"
    )
    return verdict(
        "RL beats FCFS and EDF on the same rigid pool, interactive W and delay (our ordering claim)",
        "RL beats NAT (Tables 2-3)",
        "; ".join(numbers),
        failing,
    )


def beats_own_mean_pool(found: Claims, _):
    same = found.block[found.block["matches"].isin(set(found.elastic["run"]))]
    if same.empty:
        return None
    parts, failing, wins, total = [], [], 0, 0
    for name, ours in found.elastic.groupby("run", sort=False):
        for policy in SAME_POOL:
            theirs = same[same["run"] == same_pool_name(policy, name)]
            paired = ours.merge(theirs, on=["jobset", "seed"], suffixes=("", "_fixed"))
            if paired.empty:
                continue
            wins += int((paired["delay_interactive_mean"] < paired["delay_interactive_mean_fixed"]).sum())
            total += len(paired)
            ours_delay, fixed_delay = (
                paired["delay_interactive_mean"].mean(),
                paired["delay_interactive_mean_fixed"].mean(),
            )
            cost = (paired["core_hours"] / paired["core_hours_fixed"]).mean()
            parts.append(f"{name} {ours_delay:.0f} s vs {policy} {fixed_delay:.0f} s (core-hours ×{cost:.2f})")
            if ours_delay >= fixed_delay:
                failing.append(f"{name} {ours_delay:.0f} s >= {policy} {fixed_delay:.0f} s")
    parts.append(f"RL better in {wins} of {total} paired runs")
    return verdict(
        "elastic RL beats FCFS and EDF on a fixed pool of its own mean size (same cost) on interactive delay",
        "elastic beats rigid (Table 5); no same-cost baseline",
        "; ".join(parts),
        failing,
    )


def speedup_claim(found: Claims, gains: pd.DataFrame):
    own = gains[gains["run"].isin(set(found.elastic["run"]))]
    if own.empty:
        return None
    smallest = min(ELASTIC_SPEEDUP.values())
    means = own.groupby("run", sort=False)["speedup"].mean() * 100
    numbers = ", ".join(f"{name} {spread(part['speedup'], 0, 100)} %" for name, part in own.groupby("run", sort=False))
    failing = [f"{name} {value:.0f} %" for name, value in means.items() if value < smallest]
    paper = ", ".join(f"{name} {value:.0f} %" for name, value in ELASTIC_SPEEDUP.items())
    return verdict(
        f"elastic beats rigid on interactive delay by at least {smallest:.0f} % (1 − ELA / RIG)",
        paper,
        numbers,
        failing,
    )


def lambda_gap(found: Claims, rows: pd.DataFrame):
    """The largest change of mean interactive W between λ 0.5 and 1, and the pairs behind it."""
    pairs = found.pairs(rows, "lambda", 0.5, 1.0)
    w = found.per_run(rows, "W_interactive_mean")
    return max((abs(w[a] - w[b]) for a, b in pairs), default=np.nan), pairs


def lambda_rigid(found: Claims, _):
    gap, pairs = lambda_gap(found, found.rigid)
    if not pairs:
        return None
    published = [values[0] for name, values in ELASTIC_TABLES.items() if name.startswith("RIG")]
    return (
        "λ_s has little effect (rigid runs)",
        f"W int. {min(published):.3f}-{max(published):.3f} over λ_s 0.5 and 1",
        gap <= LAMBDA_LITTLE,
        f"largest change of mean interactive W between λ 0.5 and 1: {gap:.3f} (tolerance {LAMBDA_LITTLE})",
        f"{gap:.3f} > {LAMBDA_LITTLE}",
    )


def lambda_elastic(found: Claims, _):
    gap, pairs = lambda_gap(found, found.elastic)
    if not pairs:
        return None
    rigid_gap, _ = lambda_gap(found, found.rigid)
    pools = found.elastic.groupby("lambda")["mean_pool"]
    delay = found.per_run(found.elastic, "delay_interactive_mean")
    ratios = [delay[a] / delay[b] for a, b in pairs]  # λ 0.5 over λ 1
    numbers = (
        f"largest change of mean interactive W: {gap:.3f} elastic vs {rigid_gap:.3f} rigid; delay λ 0.5 / λ 1: "
        + ", ".join(f"{a[:7]} {ratio:.2f}" for (a, _), ratio in zip(pairs, ratios))
        + "; mean pool by λ: "
        + ", ".join(f"{lam:g}: {spread(part, 0)}" for lam, part in pools)
    )
    holds = gap > (rigid_gap if not np.isnan(rigid_gap) else 0) and min(ratios) > 1
    reason = f"W gap {gap:.3f} vs rigid {rigid_gap:.3f}; delay ratio λ 0.5 / λ 1 as low as {min(ratios):.2f}"
    ratio = text("Section 5.3", "ELA-ORA-1 vs ELA-ORA-0.5", "mean delay ratio")
    paper = f"λ_e matters more than λ_s; λ 1 has {ratio:.1f}× less delay than λ 0.5 (ORA)"
    return (
        "λ_e matters in the elastic runs: more than λ_s, and λ = 1 (utilisation not weighed) has less delay "
        "than λ = 0.5",
        paper,
        holds,
        numbers,
        reason,
    )


def est_close(found: Claims, _):
    parts, failing = [], []
    for label, rows in (("rigid", found.rigid), ("elastic", found.elastic)):
        pairs = found.pairs(rows, "model", "EST", "ORA")
        if not pairs:
            continue
        w = found.per_run(rows, "W_interactive_mean")
        gap = max(abs(w[a] - w[b]) for a, b in pairs)
        parts.append(f"{label} {gap:.3f}")
        if gap > EST_CLOSE:
            failing.append(f"{label} {gap:.3f} > {EST_CLOSE}")
    if not parts:
        return None
    return verdict(
        "EST ≈ ORA: largest difference of mean interactive W, rigid and elastic",
        "EST about as good as ORA (Tables 2-5)",
        ", ".join(parts) + f" (tolerance {EST_CLOSE})",
        failing,
    )


def preferred(found: Claims, _):
    if found.elastic.empty:
        return None
    paper_ratio = text("Section 5.3", "ELA", "preferred pool cores") / text("Section 4.2", "LAL", "cores")
    ratio = found.elastic["preferred_pool"] / found.elastic["rigid_pool"]
    holds = abs(ratio.mean() - paper_ratio) <= PREFERRED_TOLERANCE
    numbers = f"preferred pool / P_rig {spread(ratio, 2)} (the level held longest)"
    return (
        "the preferred pool is a little above the rigid one",
        f"90 cores of 81 (ratio {paper_ratio:.2f})",
        holds,
        numbers,
        f"ratio {ratio.mean():.2f}, not within {PREFERRED_TOLERANCE} of {paper_ratio:.2f}",
    )


def utilisation_bands(found: Claims, _):
    if found.elastic.empty or found.rigid.empty:
        return None
    paper_ela = text("Section 5.3", "ELA-EST", "asymptotic utilisation %") / 100
    paper_rig = text("Section 5.3", "RIG-EST", "steady utilisation %") / 100
    u_ela, u_rig = found.elastic["utilisation"], found.rigid["utilisation"]
    failing = [
        f"{label} {values.mean():.2f} outside {target:.1f} ± {UTILISATION_BAND}"
        for label, values, target in (("elastic", u_ela, paper_ela), ("rigid", u_rig, paper_rig))
        if abs(values.mean() - target) > UTILISATION_BAND
    ]
    sizing = found.rigid["rigid_pool"].iloc[0]
    numbers = (
        f"elastic {spread(u_ela, 2)}, rigid {spread(u_rig, 2)}; the rigid pool is sized for U = "
        f"{PAPER_UTILISATION} over the submission span (P_rig {sizing}), so rigid U is set by the sizing rule, "
        "not learnt"
    )
    return verdict(
        f"utilisation ≈ {paper_ela:.1f} elastic and ≈ {paper_rig:.1f} rigid (± {UTILISATION_BAND})",
        f"{paper_ela:.1f} elastic (asymptotic), {paper_rig:.1f} rigid",
        numbers,
        failing,
    )


def fairness_close(found: Claims, _):
    if found.nat.empty or found.rigid.empty:
        return None
    paired = found.against(found.rigid, found.nat, ["jobset"], "fairness_mean")
    difference = paired["fairness_mean"] - paired["fairness_mean_other"]
    holds = abs(difference.mean()) <= FAIRNESS_CLOSE
    return (
        "the fairness of RL and NAT differ by about 0 (rigid runs)",
        "difference negligible (Fig. 6)",
        holds,
        f"F RL − NAT {spread(difference)} (tolerance {FAIRNESS_CLOSE})",
        f"mean difference {difference.mean():.3f}",
    )


CHECKS = (
    rl_beats_nat,
    share_above_nat,
    quick_starts,
    beats_same_pool,
    lambda_rigid,
    est_close,
    elastic_quick,
    closer_to_one,
    speedup_claim,
    beats_own_mean_pool,
    lambda_elastic,
    preferred,
    utilisation_bands,
    fairness_close,
)


TABLE_COLUMNS = {  # summary column -> heading of the report's table
    "W_interactive_mean": "W int.",
    "W_batch_mean": "W batch",
    "W_interactive_above_0.9": "P(W>0.9) int.",
    "W_batch_above_0.9": "P(W>0.9) batch",
    "delay_interactive_mean": "int. delay (s)",
    "interactive_within_2_min": "int. < 2 min",
    "fairness_mean": "F",
    "utilisation": "U",
    "mean_pool": "pool",
}


def _cell(row, metric: str) -> str:
    """mean ± std [p10, p90] where the spread exists, else the mean."""
    mean = row.get(f"{metric}_mean")
    if mean is None or pd.isna(mean):
        return "-"
    digits = 0 if metric.startswith(("delay", "mean_pool")) else 3
    text = f"{mean:.{digits}f}"
    std = row.get(f"{metric}_std")
    if row["runs"] > 1 and std is not None and not pd.isna(std):
        text += f" ± {std:.{digits}f} [{row[f'{metric}_p10']:.{digits}f}, {row[f'{metric}_p90']:.{digits}f}]"
    return text


def summary_markdown(summary: pd.DataFrame) -> str:
    """One trace's runs: each metric's mean ± std [p10, p90] over seeds and job sets."""
    shown = [metric for metric in TABLE_COLUMNS if f"{metric}_mean" in summary]
    rows = [[row["run"], str(row["runs"]), *(_cell(row, m) for m in shown)] for row in summary.to_dict("records")]
    columns = ["run", "runs", *(TABLE_COLUMNS[metric] for metric in shown)]
    return markdown_table(pd.DataFrame(rows, columns=columns), "lr" + "r" * len(shown))


SET_COLUMNS = {  # set statistic -> heading of the job-set table, with LAL's value
    "online_jobs": ("online jobs", "9,500"),
    "monitoring_jobs_removed": ("monitoring jobs removed", "removed (count not given)"),
    "interactive_share": ("interactive share", f"{PAPER_INTERACTIVE_SHARE:.2f}"),
    "interactive_median_s": ("int. median (s)", f"{ELASTIC_TABLE1['interactive'][2]:.0f}"),
    "batch_median_s": ("batch median (s)", f"{ELASTIC_TABLE1['batch'][2]:.0f}"),
    "largest_vo_share": ("largest VO share", f"{PAPER_TOP_SHARE:.2f}"),
    "rigid_pool": ("P_rig", f"{text('Section 4.2', 'LAL', 'cores'):.0f} (the site)"),
    "paper_distance": ("distance", "0"),
}


def job_set_markdown(sets: pd.DataFrame) -> str:
    """One trace's job sets beside LAL's workload (Table 1, Section 4.2)."""
    rows = [["LAL (the paper)", *(paper for _, paper in SET_COLUMNS.values())]]
    for row in sets.to_dict("records"):
        cells = [
            f"{row[c]:,.0f}"
            if c in ("online_jobs", "monitoring_jobs_removed", "rigid_pool") or c.endswith("_s")
            else f"{row[c]:.2f}"
            for c in SET_COLUMNS
        ]
        rows.append([row["jobset"], *cells])
    columns = ["job set", *(heading for heading, _ in SET_COLUMNS.values())]
    return markdown_table(pd.DataFrame(rows, columns=columns), "l" + "r" * len(SET_COLUMNS))


def ablation_line(runs: pd.DataFrame) -> list[str]:
    """The ablation runs (the contract's cumulative U, a rigid pre-training pool) beside the paper's
    learner of the same model and λ: mean pool and interactive delay."""
    learners = runs[runs["kind"] == "ELA"]
    variant = (learners["reward_utilisation"] != "interval") | (learners["pre_training_pool"] != "explore")
    if not variant.any():
        return []
    paper = learners[~variant]
    parts = []
    for name, rows in learners[variant].groupby("run", sort=False):
        same = paper[(paper["model"] == rows["model"].iloc[0]) & (paper["lambda"] == rows["lambda"].iloc[0])]
        reference = (
            f" against {same['run'].iloc[0]} pool {spread(same['mean_pool'], 0)}, "
            f"delay {same['delay_interactive_mean'].mean():.0f} s"
            if len(same)
            else ""
        )
        parts.append(
            f"{name} pool {spread(rows['mean_pool'], 0)}, "
            f"delay {rows['delay_interactive_mean'].mean():.0f} s{reference}"
        )
    return ["", "Ablations of the elastic reward (docs/elastic.md §8): " + "; ".join(parts) + "."]


def claims_markdown(checked: pd.DataFrame) -> str:
    """The claims `checked` (`claims`), whether each holds as yes or no."""
    shown = checked.assign(holds=["yes" if holds else "no" for holds in checked["holds"]])
    headings = ["trace", "claim", "the paper", "holds", "our numbers", "why it fails"]
    return markdown_table(shown[CLAIM_COLUMNS].set_axis(headings, axis="columns"), "lllc")


def elastic_markdown(
    runs: pd.DataFrame,
    speedups: pd.DataFrame,
    summary: pd.DataFrame,
    sources: dict,
    sets: pd.DataFrame,
    checked: pd.DataFrame,
) -> str:
    """The section: per trace its job sets beside the paper's workload, the summary of every run,
    the speedups against Table 5, the ablations, and the claims `checked` (`claims`)."""
    lines = [
        "## Responsive scheduling and elastic provisioning (SARSA + ESN, seed 003)",
        "",
        "Serial grid jobs of several virtual organisations, scheduled by SARSA with an echo-state-network "
        "Q-function on a rigid pool (RIG) or with the pool size chosen too (ELA), with actual (ORA) or "
        "estimated (EST) execution times (docs/elastic.md). The paper's workload (LAL, 2006) is not public; "
        "LPC-EGEE is a site of the same grid and era, UniLu-Gaia the replication. Absolute values are not "
        "comparable (another workload, and NAT ran on the site's own machine): compare orderings and ratios. "
        "Each cell: mean ± standard deviation [10th, 90th percentile] over seeds and job sets; W is the "
        "responsiveness p / (p + wait), F the fairness at election, U the final utilisation, pool the "
        "time-average pool; first and last 500 online jobs left out. The elastic runs are compared with the "
        "rigid pool and, at the same cost, with FCFS and EDF on a fixed pool of each run's own mean size.",
    ]
    for trace, block in summary.groupby("trace", sort=False):
        own = runs[runs["trace"] == trace]
        lines += [
            "",
            f"### {trace}",
            "",
            f"{own['jobset'].nunique()} job set(s) ({', '.join(dict.fromkeys(own['jobset']))}), "
            f"{own['seed'].nunique()} seed(s), rigid pool "
            f"{', '.join(str(pool) for pool in dict.fromkeys(own['rigid_pool']))}; "
            f"VOs from {sources.get(trace, 'the trace')}.",
        ]
        own_sets = sets[sets["trace"] == trace]
        if len(own_sets):
            lines += [
                "",
                "The online jobs of each set beside LAL's (distance: |interactive share − 0.47| + |largest VO "
                "share − 0.53|, the ranking of `simcore elastic-sets`):",
                "",
                job_set_markdown(own_sets),
            ]
        lines += ["", summary_markdown(block)]
        gains = speedups[speedups["trace"] == trace]
        if len(gains):
            mean = gains.groupby("run", sort=False)["speedup"].mean() * 100
            lines += [
                "",
                "Speedup of the elastic runs over the rigid ones (1 − interactive delay ELA / RIG, same model "
                "and λ, paired by job set and seed): "
                + ", ".join(
                    f"{name} {value:.0f} %"
                    + (f" (paper {ELASTIC_SPEEDUP[name]:.0f} %)" if name in ELASTIC_SPEEDUP else "")
                    for name, value in mean.items()
                )
                + ".",
            ]
        lines += ablation_line(own)
    lines += [
        "",
        "### The paper's claims",
        "",
        "Each computed from the runs above (the paper's learner: the ablations left out); our numbers are "
        "mean [10th, 90th percentile] over seeds and job sets; a claim that fails gives the measured reason.",
        "",
        claims_markdown(checked),
    ]
    return "\n".join(lines + [""])
