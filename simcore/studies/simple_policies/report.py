"""The simple-policies study's section of the reproduction report: Tables 4.3
and 4.4 and the headline gains against FCFS beside the thesis's values, one row
per trace and input preparation (the study's filter, the thesis's text; each
conversion, e.g. Batsim's standard converter)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from simcore.campaign.layout import split_conversion
from simcore.reporting.published import THESIS_SAF_BEST_GAIN, THESIS_TABLE43, THESIS_TABLE44
from simcore.reporting.reproduction import REPRODUCTION_COLUMNS, reproduction_row
from simcore.reporting.tables import markdown_table

PAPER = "thesis-ch4"
# How a trace was prepared, by its conversion (simcore.campaign.layout; None: the study's filter)
PREPARATIONS = {None: "text", "batsim": "Batsim conversion", "strict": "strict filter", "truncate": "truncate filter"}


# Why the report has Batsim-conversion rows, said when it has some
BATSIM_ROWS = (
    " Each log runs twice: as the thesis's text describes it (the *text* rows: the truncate filter, requested "
    "processors, a job killed at its request), and through Batsim's standard converter with its defaults "
    "(*Batsim conversion*: allocated processors, run ≤ 0 dropped, each job runs floor(run) + 1 s under the "
    "walltime max(2 × run, request)). The thesis's code is not public and its text does not say how the logs "
    "became Batsim workloads; the converter's defaults are the likeliest pipeline. "
    "docs/results/simple_policies/hypotheses.md lists what else was tried on KTH-SP2 and how far each moves "
    "Table 4.4."
)


def prepared(name: str) -> tuple[str, str]:
    """(the log's trace name, how it was prepared) of a trace as the study ran it."""
    trace, mode = split_conversion(name)
    return trace, PREPARATIONS[mode]


def row_label(name: str) -> str:
    """'KTH-SP2' for the study's own filter, 'KTH-SP2 (Batsim conversion)' for a conversion."""
    trace, preparation = prepared(name)
    return trace if preparation == PREPARATIONS[None] else f"{trace} ({preparation})"


def reproduction_rows(premature: pd.DataFrame, summary: pd.DataFrame, gains: pd.DataFrame) -> pd.DataFrame:
    """Published vs ours, one row per trace and preparation (row_label)."""
    rows = [
        reproduction_row(
            PAPER,
            "Table 4.3",
            row_label(r["trace"]),
            "premature jobs (%)",
            THESIS_TABLE43[prepared(r["trace"])[0]],
            r["premature_pct"],
            trace=r["trace"],
            sample_size=r["jobs"],
            sample="jobs of the whole trace",
        )
        for _, r in premature.iterrows()
        if prepared(r["trace"])[0] in THESIS_TABLE43
    ]
    rows += [
        reproduction_row(
            PAPER,
            "Table 4.4",
            row_label(r["trace"]),
            r["order"],
            THESIS_TABLE44[r["order"]][prepared(r["trace"])[0]],
            r["premature_ratio_mean"],
            trace=r["trace"],
            sample_size=r["variants"],
            sample="resampled variants",
        )
        for _, r in summary.iterrows()
        if prepared(r["trace"])[0] in THESIS_TABLE44.get(r["order"], {})
    ]
    preparation = gains["trace"].map(lambda name: prepared(name)[1])
    published = gains["trace"].map(lambda name: prepared(name)[0] in THESIS_TABLE43)
    for how, saf in gains[(gains["order"] == "SAF") & published].groupby(preparation, sort=False):
        best = saf.loc[saf["change_bsld_mean"].idxmin()]
        variants = summary.set_index(["trace", "order"]).at[(best["trace"], "SAF"), "variants"]
        rows.append(
            reproduction_row(
                PAPER,
                "Section 4.3",
                "best trace" if how == PREPARATIONS[None] else f"best trace ({how})",
                "SAF AVEbsld gain over FCFS (%)",
                THESIS_SAF_BEST_GAIN,
                -best["change_bsld_mean"],
                trace=best["trace"],
                sample_size=variants,
                sample="resampled variants",
            )
        )
    return pd.DataFrame(rows, columns=REPRODUCTION_COLUMNS)


def factor_off(published: pd.Series, ours: pd.Series) -> pd.Series:
    """How many times ours is off the published value, either way (>= 1)."""
    ratio = ours / published
    return np.maximum(ratio, 1.0 / ratio)


def _band(row, column, digits=1) -> str:
    return f"{row[f'{column}_mean']:.{digits}f} [{row[f'{column}_p10']:.{digits}f}, {row[f'{column}_p90']:.{digits}f}]"


def simple_policies_markdown(
    premature: pd.DataFrame, summary: pd.DataFrame, gains: pd.DataFrame, threshold_factor: float
) -> str:
    lines = [
        "## Thesis, chapter 4: simple policies beyond EASY-FCFS",
        "",
        f"EASY with the queue order FCFS, SPF, SQF or SAF, aggressive backfilling in queue order and the "
        f"threshold Θ = {threshold_factor:g} × the trace's largest requested time, on user-week resampled "
        "variants of the truncated traces. Values: mean [10th, 90th percentile] over variants (the thesis "
        "showed the 10–90 % range of 10 samples; it simulated with Batsim, so orderings and magnitudes are "
        "the target)."
        + (
            BATSIM_ROWS
            if (summary["trace"].map(lambda name: prepared(name)[1]) == PREPARATIONS["batsim"]).any()
            else ""
        ),
        "",
        "### Change against FCFS on the same variant (%)",
        "",
        markdown_table(
            pd.DataFrame(
                [
                    [
                        row_label(r["trace"]),
                        r["order"],
                        *(_band(r, f"change_{metric}") for metric in ("bsld", "wait", "ppbsld")),
                    ]
                    for _, r in gains.iterrows()
                ],
                columns=["trace", "order", "AVEbsld", "mean wait", "mean pp-bsld"],
            ),
            "llrrr",
        ),
    ]
    compared = reproduction_rows(premature, summary, gains)
    for _, headline in compared[compared["table"] == "Section 4.3"].iterrows():
        lines += [
            "",
            f"Best SAF AVEbsld gain over FCFS among the thesis's traces, {headline['row']}: "
            f"{headline['ours']:.1f} % (thesis: up to {THESIS_SAF_BEST_GAIN} %).",
        ]
    table43 = [
        [row_label(r["trace"]), str(THESIS_TABLE43.get(prepared(r["trace"])[0], "–")), f"{r['premature_pct']:.1f}"]
        for _, r in premature.iterrows()
    ]
    orders = list(dict.fromkeys(summary["order"]))
    ratios = summary.set_index(["trace", "order"])["premature_ratio_mean"]
    table44 = []
    for name in sorted(dict.fromkeys(summary["trace"]), key=lambda name: (prepared(name)[0], name)):
        published = [THESIS_TABLE44.get(order, {}).get(prepared(name)[0]) for order in orders]
        table44.append(
            [
                row_label(name),
                *(
                    f"{'–' if value is None else value} / {ratios.get((name, order), np.nan):.2f}"
                    for value, order in zip(published, orders)
                ),
            ]
        )
    factors = compared[compared["table"] == "Table 4.4"].assign(
        off=lambda rows: factor_off(rows["published"], rows["ours"]),
        preparation=lambda rows: rows["trace"].map(lambda name: prepared(name)[1]),
    )
    off = [
        f"{how}: geometric mean {np.exp(np.log(block['off']).mean()):.2f}×, largest {block['off'].max():.2f}× "
        f"({block.loc[block['off'].idxmax(), 'row']}, {block.loc[block['off'].idxmax(), 'column']})"
        for how, block in factors.groupby("preparation", sort=False)
    ]
    categories = [
        [
            row_label(r["trace"]),
            r["order"],
            _band(r, "backfilled", 0),
            *(f"{r[f'bsld_{c}_mean']:.0f}" for c in ("1", "1-10", "10-100", "100+")),
        ]
        for _, r in summary.iterrows()
    ]
    lines += [
        "",
        "### Table 4.3: premature jobs (request ≥ 100 × run), % of the trace's jobs",
        "",
        markdown_table(pd.DataFrame(table43, columns=["trace", "thesis", "ours"]), "lrr"),
        "",
        "### Table 4.4: average slowdown of premature jobs / of standard jobs",
        "",
        "Each cell: thesis / ours (mean over variants). How far ours is off the thesis (the larger of "
        "ours/thesis and thesis/ours) over the table's cells: " + "; ".join(off) + "."
        if off
        else "Each cell: thesis / ours (mean over variants).",
        "",
        markdown_table(pd.DataFrame(table44, columns=["trace", *orders]), "l" + "r" * len(orders)),
        "",
        "### Backfilled jobs and slowdown categories (Figures 4.3, 4.4)",
        "",
        markdown_table(
            pd.DataFrame(categories, columns=["trace", "order", "backfilled", "bsld = 1", "1–10", "10–100", "≥ 100"]),
            "llrrrrr",
        ),
    ]
    lines.append("")
    return "\n".join(lines)
