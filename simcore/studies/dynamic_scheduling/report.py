"""The dynamic scheduling experiments' section of the reproduction report:
Table 3.3 (median AVEbsld per experiment and policy) beside the thesis's."""

from __future__ import annotations

import pandas as pd

from simcore.reporting.published import THESIS_TABLE32, THESIS_TABLE33_DAYS, THESIS_TABLE33_MODEL_SEQUENCES
from simcore.reporting.reproduction import REPRODUCTION_COLUMNS, reproduction_row
from simcore.reporting.tables import markdown_table
from simcore.studies.dynamic_scheduling.study import SETTING_TITLES, published_row

PAPER = "thesis-ch3"
META = ("trace", "published_as", "setting", "sequences", "days")


def unlike_thesis(row) -> str:
    """Why an experiment's medians cannot stand beside the thesis's ("" when
    they can): its sequences must be as long, and on a model as many (the
    thesis's fifty; on a log it took them all, as we do)."""
    model = row["published_as"].startswith("model-")
    if row["days"] == THESIS_TABLE33_DAYS and (not model or row["sequences"] == THESIS_TABLE33_MODEL_SEQUENCES):
        return ""
    wanted = f"{THESIS_TABLE33_MODEL_SEQUENCES} sequences" if model else "sequences"
    return (
        f"the thesis used {wanted} of {THESIS_TABLE33_DAYS} days; "
        f"this run has {row['sequences']} sequences of {row['days']:g} days"
    )


def reproduction_rows(medians: pd.DataFrame) -> pd.DataFrame:
    """Our medians beside the thesis's Table 3.3, NaN (with the reason) for an
    experiment unlike the thesis's, so that e.g. a demo's short model trace
    does not stand for its model rows."""
    rows = []
    for _, row in medians.iterrows():
        note = unlike_thesis(row)
        for policy, published in published_row(row["published_as"], row["setting"]).items():
            if policy in row.index and pd.notna(row[policy]):
                rows.append(
                    reproduction_row(
                        PAPER,
                        "Table 3.3",
                        f"{row['published_as']}, {row['setting']}",
                        policy,
                        published,
                        float("nan") if note else row[policy],
                        trace=row["trace"],
                        sample_size=row["sequences"],
                        sample=f"sequences of {row['days']:g} days",
                        note=note,
                    )
                )
    return pd.DataFrame(rows, columns=REPRODUCTION_COLUMNS)


def _functions_table(runs: pd.DataFrame, functions: pd.DataFrame | None) -> str:
    """The policies given by a priority function, with the thesis's simplified
    notation (its Table 3.2 for F1-F4, fit-functions' for ours)."""
    simplified = {name: text for name, text, _ in THESIS_TABLE32}
    if functions is not None:
        simplified.update(
            {f"L{k + 1}": text for k, text in enumerate(functions["simplified"]) if isinstance(text, str)}
        )
    named = runs.loc[runs["function"] != "", ["policy", "function"]].drop_duplicates("policy")
    table = named.assign(simplified=[simplified.get(policy, "–") for policy in named["policy"]])
    return markdown_table(table.set_axis(["policy", "priority function (smallest first)", "simplified"], axis=1))


def dynamic_markdown(
    medians: pd.DataFrame, ratios: pd.DataFrame, runs: pd.DataFrame, functions: pd.DataFrame | None
) -> str:
    counts = runs.groupby("trace", sort=False)["sequence"].nunique()
    lines = [
        "## Thesis, section 3.3: learned functions in dynamic scheduling",
        "",
        "Each trace is cut into non-overlapping sequences of "
        + " or ".join(f"{days:g}" for days in dict.fromkeys(medians["days"]))
        + " days (the thesis: 15), each simulated alone from an empty machine "
        "with each policy in three settings: decisions on the actual run times without backfilling (list "
        "scheduling), on the users' requests without backfilling, and on the requests with aggressive (EASY) "
        "backfilling. The thesis's WFP and UNI are WFP3 and UNICEF; F1–F4 are its Table 3.2 functions and "
        "L1–L4 the best four of our regression. Sequences per trace: "
        + ", ".join(f"{trace} {count}" for trace, count in counts.items())
        + ".",
        "",
        _functions_table(runs, functions),
        "",
    ]
    policies = [c for c in medians.columns if c not in META]
    for setting, block in medians.groupby("setting", sort=False):
        rows, unlike = [], []
        for _, row in block.iterrows():
            note = unlike_thesis(row)
            published = {} if note else published_row(row["published_as"], setting)
            if note and published_row(row["published_as"], setting):
                unlike.append(f"{row['trace']} is not compared with the thesis's {row['published_as']}: {note}.")
            cells = [f"{row[p]:.2f}" + (f" ({published[p]:.2f})" if p in published else "") for p in policies]
            rows.append([row["trace"], str(row["sequences"]), *cells])
        lines += [
            f"### Table 3.3, {SETTING_TITLES[setting]}: median AVEbsld, ours (thesis)",
            "",
            markdown_table(pd.DataFrame(rows, columns=["trace", "sequences", *policies]), "lr" + "r" * len(policies)),
        ]
        lines += ["", *unlike, ""] if unlike else [""]
    if len(ratios):
        rows = [
            [
                r.trace,
                r.setting,
                r.functions,
                f"{r.best_hand_engineered:.2f}",
                f"{r.best_function:.2f}",
                f"{r.ratio:.2f}",
            ]
            for r in ratios.itertuples(index=False)
        ]
        columns = ["trace", "setting", "functions", "best hand-engineered", "best function", "ratio"]
        lines += [
            "### Best hand-engineered median over the best function's median",
            "",
            markdown_table(pd.DataFrame(rows, columns=columns), "lllrrr"),
            "",
        ]
    return "\n".join(lines)
