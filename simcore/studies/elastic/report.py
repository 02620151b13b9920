"""The elastic study's section of the reproduction report: the paper's Tables 2-5 beside ours (means
over seeds and job sets), and whether each of its claims holds, per trace, with the numbers."""

from __future__ import annotations

import pandas as pd

from simcore.reporting.published import ELASTIC_SPEEDUP, ELASTIC_TABLE_COLUMNS, ELASTIC_TABLES, ELASTIC_TEXT
from simcore.reporting.reproduction import REPRODUCTION_COLUMNS, reproduction_row

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
LAMBDA_LITTLE = 0.02  # "λ has little effect": mean W within 0.02 between λ = 0.5 and 1
EST_CLOSE = 0.02  # "EST ≈ ORA": mean W within 0.02


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


def largest_gap(mean: pd.DataFrame, pairs) -> float:
    """The largest difference of mean interactive W between the runs of each pair."""
    return max(abs(mean.loc[a, "W_interactive_mean"] - mean.loc[b, "W_interactive_mean"]) for a, b in pairs)


def claims(runs: pd.DataFrame, speedups: pd.DataFrame) -> pd.DataFrame:
    """The paper's claims (its sections 5.2-5.3) on each trace: holds or not, with our numbers."""
    rows = []
    for trace, block in runs.groupby("trace", sort=False):
        mean = block.groupby("run")[["W_interactive_mean", "W_batch_mean", "utilisation"]].mean()
        rigid = [name for name in mean.index if name.startswith("RIG")]
        elastic = [name for name in mean.index if name.startswith("ELA")]
        checks = []
        if "NAT" in mean.index and rigid:
            worst = mean.loc[rigid, "W_interactive_mean"].min()
            checks.append(
                (
                    "RL beats NAT on interactive W",
                    worst > mean.loc["NAT", "W_interactive_mean"],
                    f"RL {worst:.3f} (lowest rigid run) vs NAT {mean.loc['NAT', 'W_interactive_mean']:.3f}",
                )
            )
        same_pool = [name for name in ("FCFS", "EDF") if name in mean.index]
        if same_pool and rigid:
            worst = mean.loc[rigid, "W_interactive_mean"].min()
            baselines = mean.loc[same_pool, "W_interactive_mean"]
            checks.append(
                (
                    "RL beats FCFS and EDF on the same pool on interactive W",
                    bool(worst > baselines.max()),
                    f"RL {worst:.3f} (lowest rigid run) vs "
                    + ", ".join(f"{name} {value:.3f}" for name, value in baselines.items()),
                )
            )
        delays = block.groupby("run")["delay_interactive_mean"].mean()
        equal_cost = [
            (name, f"FCFS on the pool of {name}") for name in elastic if f"FCFS on the pool of {name}" in delays
        ]
        if equal_cost:
            checks.append(
                (
                    "elastic RL beats FCFS on a pool of the same average size on interactive delay",
                    all(delays[name] < delays[fcfs] for name, fcfs in equal_cost),
                    ", ".join(f"{name} {delays[name]:.0f} s vs {delays[fcfs]:.0f} s" for name, fcfs in equal_cost),
                )
            )
        own = speedups[speedups["trace"] == trace]
        if len(own):
            values = own.groupby("run")["speedup"].mean() * 100
            checks.append(
                (
                    "elastic beats rigid on interactive delay by at least the paper's 45 % (45-73 %)",
                    bool((values >= 45).all()),
                    ", ".join(f"{name} {value:.0f} %" for name, value in values.items()),
                )
            )
        pairs = [(a, a[:-3] + "1") for a in rigid + elastic if a.endswith("0.5") and a[:-3] + "1" in mean.index]
        if pairs:
            gap = largest_gap(mean, pairs)
            checks.append(
                (
                    "λ has little effect",
                    gap <= LAMBDA_LITTLE,
                    f"largest change of mean interactive W between λ 0.5 and 1: {gap:.3f}",
                )
            )
        est = [(n, n.replace("EST", "ORA")) for n in mean.index if "EST" in n and n.replace("EST", "ORA") in mean.index]
        if est:
            gap = largest_gap(mean, est)
            checks.append(
                ("EST ≈ ORA", gap <= EST_CLOSE, f"largest EST - ORA difference of mean interactive W: {gap:.3f}")
            )
        if rigid and elastic:
            u_rig, u_ela = mean.loc[rigid, "utilisation"].mean(), mean.loc[elastic, "utilisation"].mean()
            published = ELASTIC_TEXT[("Section 5.3", "ELA-EST", "asymptotic utilisation %")] / 100
            checks.append(
                (
                    "utilisation ≈ 0.5 elastic vs ≈ 0.7 rigid",
                    bool(u_ela < u_rig),
                    f"elastic {u_ela:.2f} vs rigid {u_rig:.2f} (paper: {published:.1f} elastic)",
                )
            )
        rows += [
            {"trace": trace, "claim": claim, "holds": bool(holds), "numbers": numbers}
            for claim, holds, numbers in checks
        ]
    return pd.DataFrame(rows, columns=["trace", "claim", "holds", "numbers"])


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


def summary_markdown(summary: pd.DataFrame) -> list[str]:
    """One trace's runs: each metric's mean ± std [p10, p90] over seeds and job sets."""
    shown = [metric for metric in TABLE_COLUMNS if f"{metric}_mean" in summary]
    lines = [
        "| run | runs | " + " | ".join(TABLE_COLUMNS[metric] for metric in shown) + " |",
        "|---|--:|" + "--:|" * len(shown),
    ]
    for row in summary.to_dict("records"):
        lines.append(f"| {row['run']} | {row['runs']} | " + " | ".join(_cell(row, m) for m in shown) + " |")
    return lines


def elastic_markdown(runs: pd.DataFrame, speedups: pd.DataFrame, summary: pd.DataFrame, sources: dict) -> str:
    """The section: per trace its job sets, the summary of every run, the speedups against Table 5,
    and whether each claim of the paper holds."""
    checked = claims(runs, speedups)
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
        "time-average pool; first and last 500 online jobs left out.",
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
            "",
            *summary_markdown(block),
        ]
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
    lines += ["", "### The paper's claims", "", "| trace | claim | holds | our numbers |", "|---|---|:-:|---|"]
    lines += [
        f"| {row.trace} | {row.claim} | {'yes' if row.holds else 'no'} | {row.numbers} |"
        for row in checked.itertuples(index=False)
    ]
    return "\n".join(lines + [""])
