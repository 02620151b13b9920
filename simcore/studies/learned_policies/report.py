"""The learned-policies study's section of the reproduction report: each of the
thesis's Table 3.2 functions F1-F4 beside our fit of the same functional form.

The thesis's F1-F4 are four specific forms with fitted coefficients; our
regression fits the same 576 forms on our trial scores. What can be compared
is one form's fit with the same form's fit (its MAE and the weight of its
submit-time term), not the thesis's k-th best with our k-th best, which may be
another form altogether.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simcore.engine.priority import THESIS_FUNCTIONS
from simcore.reporting.published import THESIS_TABLE32, THESIS_TABLE32_MACHINE_SIZE, THESIS_TABLE32_TRIALS
from simcore.reporting.reproduction import REPRODUCTION_COLUMNS, reproduction_row
from simcore.reporting.tables import markdown_table
from simcore.studies.learned_policies.study import canonical, submit_weight

PAPER = "thesis-ch3"
FORM_COLUMNS = ["phi_p", "phi_q", "phi_r", "op1", "op2"]


def thesis_form_fits(functions: pd.DataFrame) -> pd.DataFrame:
    """Per thesis function (F1-F4, Table 3.2's order): its published MAE and
    submit-time weight, and our fit of the same form (canonical()): its rank
    among our functions, function, MAE and weight (NaN when our regression has
    no finite fit of the form)."""
    forms = [canonical(form) for form in functions[FORM_COLUMNS].itertuples(index=False, name=None)]
    rows = []
    for name, formula, mae in THESIS_TABLE32:
        thesis = THESIS_FUNCTIONS[name]
        rank = forms.index(canonical(thesis.form)) if canonical(thesis.form) in forms else None
        ours = functions.iloc[rank] if rank is not None else None
        weight = (
            submit_weight(tuple(ours[FORM_COLUMNS]), tuple(ours[["theta1", "theta2", "theta3"]]))
            if ours is not None
            else None
        )
        rows.append(
            {
                "name": name,
                "thesis_function": formula,
                "thesis_mae": mae,
                "thesis_weight": submit_weight(thesis.form, thesis.theta),
                "our_rank": rank + 1 if rank is not None else np.nan,
                "our_function": ours["simplified"] if ours is not None else "",
                "our_mae": ours["mae"] if ours is not None else np.nan,
                "our_weight": weight if weight is not None else np.nan,
            }
        )
    return pd.DataFrame(rows)


def unlike_thesis(scores: pd.DataFrame) -> str:
    """Why our trial scores are not the thesis's setup ("" when they are): its
    machine size and trials per tuple (the MAE of a fit depends on both)."""
    machine_size, trials = int(scores["machine_size"].iloc[0]), int(scores["trials"].iloc[0])
    if (machine_size, trials) == (THESIS_TABLE32_MACHINE_SIZE, THESIS_TABLE32_TRIALS):
        return ""
    return (
        f"the thesis scored tuples on m = {THESIS_TABLE32_MACHINE_SIZE} with {THESIS_TABLE32_TRIALS:,} trials; "
        f"this run has m = {machine_size} with {trials:,} trials"
    )


def setup_label(scores: pd.DataFrame) -> str:
    """The sample our fits rest on, e.g. "tuples (|S| = 16, |Q| = 32), 256,000 trials each, m = 256"."""
    return (
        f"tuples (|S| = 16, |Q| = 32), {int(scores['trials'].iloc[0]):,} trials each, "
        f"m = {int(scores['machine_size'].iloc[0])}"
    )


def table32_rows(fits: pd.DataFrame, scores: pd.DataFrame) -> pd.DataFrame:
    """Per thesis function: its MAE and submit-time weight beside our fit of
    the same form; NaN (with the reason) when our setup is not the thesis's or
    the form has no fit of ours."""
    setup_note = unlike_thesis(scores)
    rows = []
    for fit in fits.itertuples(index=False):
        if setup_note:
            note = setup_note
        elif np.isnan(fit.our_rank):
            note = "our regression has no finite fit of this form"
        else:
            note = f"our fit of the same form, rank {int(fit.our_rank)} of ours"
        for column, published, ours in (
            ("MAE", fit.thesis_mae, fit.our_mae),
            ("weight of log10(r)", fit.thesis_weight, fit.our_weight),
        ):
            rows.append(
                reproduction_row(
                    PAPER,
                    "Table 3.2",
                    fit.name,
                    column,
                    published,
                    np.nan if setup_note else ours,
                    trace=scores["model"].iloc[0],
                    sample_size=scores["tuple"].nunique(),
                    sample=setup_label(scores),
                    note=note,
                )
            )
    return pd.DataFrame(rows, columns=REPRODUCTION_COLUMNS)


def learned_markdown(functions: pd.DataFrame, scores: pd.DataFrame, spread: pd.DataFrame | None) -> str:
    """The section: the thesis's F1-F4 beside our fit of each form, our best functions, and the
    score spread against the number of trials (`spread`, when given)."""
    fits = thesis_form_fits(functions)
    setup_note = unlike_thesis(scores)
    compared = [
        [
            f"{f.name}: {f.thesis_function}",
            f"{f.thesis_mae:.3e}",
            *(
                [f.our_function if isinstance(f.our_function, str) else "–", f"{f.our_mae:.3e}", str(int(f.our_rank))]
                if not np.isnan(f.our_rank)
                else ["–", "–", "–"]
            ),
        ]
        for f in fits.itertuples(index=False)
    ]
    best = [
        [
            str(k + 1),
            ours["simplified"] if isinstance(ours["simplified"], str) else "–",
            ours["function"],
            f"{ours['mae']:.3e}",
        ]
        for k, (_, ours) in enumerate(functions.head(len(THESIS_TABLE32)).iterrows())
    ]
    lines = [
        "## Thesis, chapter 3: learned scheduling functions (Table 3.2)",
        "",
        f"Trial scores of {scores['tuple'].nunique()} {setup_label(scores)}, drawn from {scores['model'].iloc[0]}; "
        f"the 576 functional forms fitted by least squares weighted by p·q and ranked by mean "
        f"absolute error ({len(functions)} distinct functions with a finite fit; equivalent forms such as "
        "a × 1/b and a ÷ b are listed once). r: seconds since the tuple's first job.",
        "",
        "Simplified as in the thesis: divided by the positive factor of the p, q term, which keeps the priority order.",
        "",
        "### The thesis's functions beside our fit of the same form",
        "",
        *([f"Not compared: {setup_note}.", ""] if setup_note else []),
        markdown_table(
            pd.DataFrame(
                compared, columns=["thesis", "thesis MAE", "our fit of the form (simplified)", "our MAE", "our rank"]
            ),
            "lrlrr",
        ),
        "",
        f"### Our best {min(len(THESIS_TABLE32), len(functions))} (run as L1, L2, ... in Table 3.3)",
        "",
        markdown_table(pd.DataFrame(best, columns=["rank", "ours (simplified)", "ours as fitted", "our MAE"]), "lllr"),
    ]
    if spread is not None:
        lines += [
            "",
            "Score spread against the number of trials (Figure 3.1c; thesis: 0.02 at 256,000 trials):",
            "",
            markdown_table(
                pd.DataFrame(
                    [[f"{int(r['trials']):,}", f"{r['normalized_std']:.4f}"] for _, r in spread.iterrows()],
                    columns=["trials", "normalized std"],
                ),
                "rr",
            ),
        ]
    lines.append("")
    return "\n".join(lines)
