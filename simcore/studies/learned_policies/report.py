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
