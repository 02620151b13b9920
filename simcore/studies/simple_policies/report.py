"""The simple-policies study's section of the reproduction report: Tables 4.3
and 4.4 and the headline gains against FCFS beside the thesis's values."""

from __future__ import annotations

import pandas as pd

from simcore.reporting.published import THESIS_SAF_BEST_GAIN, THESIS_TABLE43, THESIS_TABLE44
from simcore.reporting.reproduction import REPRODUCTION_COLUMNS, reproduction_row
from simcore.reporting.tables import markdown_table

PAPER = "thesis-ch4"


def reproduction_rows(premature: pd.DataFrame, summary: pd.DataFrame, gains: pd.DataFrame) -> pd.DataFrame:
    rows = [
        reproduction_row(
            PAPER,
            "Table 4.3",
            r["trace"],
            "premature jobs (%)",
            THESIS_TABLE43[r["trace"]],
            r["premature_pct"],
            trace=r["trace"],
            sample_size=r["jobs"],
            sample="jobs of the whole trace",
        )
        for _, r in premature.iterrows()
        if r["trace"] in THESIS_TABLE43
    ]
    rows += [
        reproduction_row(
            PAPER,
            "Table 4.4",
            r["trace"],
            r["order"],
            THESIS_TABLE44[r["order"]][r["trace"]],
            r["premature_ratio_mean"],
            trace=r["trace"],
            sample_size=r["variants"],
            sample="resampled variants",
        )
        for _, r in summary.iterrows()
        if r["trace"] in THESIS_TABLE44.get(r["order"], {})
    ]
    saf = gains[(gains["order"] == "SAF") & gains["trace"].isin(list(THESIS_TABLE43))]
    if len(saf):
        best = saf.loc[saf["change_bsld_mean"].idxmin()]
        variants = summary.set_index(["trace", "order"]).at[(best["trace"], "SAF"), "variants"]
        rows.append(
            reproduction_row(
                PAPER,
                "Section 4.3",
                "best trace",
                "SAF AVEbsld gain over FCFS (%)",
                THESIS_SAF_BEST_GAIN,
                -best["change_bsld_mean"],
                trace=best["trace"],
                sample_size=variants,
                sample="resampled variants",
            )
        )
    return pd.DataFrame(rows, columns=REPRODUCTION_COLUMNS)


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
        "the target).",
        "",
        "### Change against FCFS on the same variant (%)",
        "",
        markdown_table(
            pd.DataFrame(
                [
                    [r["trace"], r["order"], *(_band(r, f"change_{metric}") for metric in ("bsld", "wait", "ppbsld"))]
                    for _, r in gains.iterrows()
                ],
                columns=["trace", "order", "AVEbsld", "mean wait", "mean pp-bsld"],
            ),
            "llrrr",
        ),
    ]
    best = reproduction_rows(premature, summary, gains)
    headline = best[best["table"] == "Section 4.3"]
    if len(headline):
        lines += [
            "",
            f"Best SAF AVEbsld gain over FCFS among the thesis's traces: "
            f"{headline['ours'].iloc[0]:.1f} % (thesis: up to {THESIS_SAF_BEST_GAIN} %).",
        ]
    table43 = [
        [r["trace"], str(THESIS_TABLE43.get(r["trace"], "–")), f"{r['premature_pct']:.1f}"]
        for _, r in premature.iterrows()
    ]
    traces = list(dict.fromkeys(summary["trace"]))
    table44 = []
    for order, block in summary.groupby("order", sort=False):
        cells = block.set_index("trace")["premature_ratio_mean"]
        published = THESIS_TABLE44.get(order, {})
        table44.append([order, *(f"{published.get(t, '–')} / {cells.get(t, float('nan')):.2f}" for t in traces)])
    categories = [
        [
            r["trace"],
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
        "Each cell: thesis / ours (mean over variants).",
        "",
        markdown_table(pd.DataFrame(table44, columns=["order", *traces]), "l" + "r" * len(traces)),
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
