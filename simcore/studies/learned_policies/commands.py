"""`simcore` subcommands of the learned-functions study (simcore.studies.learned_policies.study)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from simcore.reporting.published import THESIS_TABLE32
from simcore.studies.learned_policies.report import setup_label, table32_rows, thesis_form_fits, unlike_thesis
from simcore.studies.learned_policies.study import draw_tuples, fit_family, score_spread, score_tuples
from simcore.workloads.commands import output_file
from simcore.workloads.files import read_all, read_workload, write_csv, write_parquet, write_text


def add_commands(commands) -> None:
    scores = commands.add_parser("trial-scores", help="trial scores of tuples (S, Q) drawn from a workload")
    scores.add_argument("workload", metavar="WORKLOAD.parquet", help="e.g. a Lublin-Feitelson model")
    scores.add_argument("--tuples", type=int, required=True, help="tuples drawn in all (same draw for every chunk)")
    scores.add_argument("--select", required=True, metavar="FIRST:STOP", help="tuple numbers scored by this job")
    scores.add_argument("--trials", type=int, required=True, help="random permutations per tuple")
    scores.add_argument("--seed", type=int, default=0)
    scores.add_argument("--output", "-o", required=True, type=output_file, metavar="SCORES.parquet")

    spread = commands.add_parser("trial-spread", help="score spread against the number of trials (Figure 3.1c)")
    spread.add_argument("workload", metavar="WORKLOAD.parquet")
    spread.add_argument("--trials", type=int, nargs="+", required=True)
    spread.add_argument("--repeats", type=int, default=10)
    spread.add_argument("--seed", type=int, default=0)
    spread.add_argument("--output", "-o", required=True, type=output_file, metavar="SPREAD.csv")

    fit = commands.add_parser("fit-functions", help="nonlinear regression of the function family on trial scores")
    fit.add_argument("scores", nargs="+", metavar="SCORES.parquet")
    fit.add_argument(
        "--output", "-o", required=True, type=output_file, metavar="FUNCTIONS.csv", help="every form, ranked by MAE"
    )
    fit.add_argument("--markdown", required=True, metavar="SECTION.md", help="the reproduction report section")
    fit.add_argument("--rows", required=True, metavar="ROWS.csv", help="published-vs-ours rows")
    fit.add_argument("--spread", metavar="SPREAD.csv", help="trial-spread output, shown in the section")

    plot = commands.add_parser("plot-trial-scores", help="trial-score distributions and spread (Figure 3.1)")
    plot.add_argument("scores", nargs="+", metavar="SCORES.parquet")
    plot.add_argument("--spread", required=True, metavar="SPREAD.csv")
    plot.add_argument("--output", nargs="+", required=True, type=output_file, metavar="FILE.png|pdf")


def _span(select: str, count: int) -> range:
    first, _, stop = select.partition(":")
    numbers = range(int(first), int(stop))
    if not (0 <= numbers.start < numbers.stop <= count):
        raise ValueError(f"--select {select}: tuple numbers must lie in 0..{count}")
    return numbers


def run_scores(args) -> int:
    workload = read_workload(args.workload)
    numbers = _span(args.select, args.tuples)
    tuples = draw_tuples(workload, args.tuples, args.seed)
    model = Path(args.workload).stem
    scores = score_tuples(
        [tuples[k] for k in numbers],
        workload.machine_size,
        args.trials,
        args.seed,
        numbers,
        label=f"{model} tuples {args.select}",
    )
    # the setup the scores rest on travels with them, for the report's comparison with the thesis's
    scores.insert(0, "trials", args.trials)
    scores.insert(0, "machine_size", workload.machine_size)
    scores.insert(0, "model", model)
    write_parquet(
        scores,
        args.output,
        {
            "command": "trial-scores",
            "workload": args.workload,
            "tuples": args.tuples,
            "select": args.select,
            "trials": args.trials,
            "seed": args.seed,
        },
    )
    print(f"{args.output}: {len(numbers)} tuples x {args.trials} trials")
    return 0


def run_spread(args) -> int:
    workload = read_workload(args.workload)
    release, run, procs = draw_tuples(workload, 1, args.seed)[0]
    write_csv(
        score_spread(release, run, procs, workload.machine_size, args.trials, args.repeats, args.seed), args.output
    )
    print(f"{args.output}: score spread for {len(args.trials)} trial counts")
    return 0


def learned_markdown(functions: pd.DataFrame, scores: pd.DataFrame, spread: pd.DataFrame | None) -> str:
    fits = thesis_form_fits(functions)
    setup_note = unlike_thesis(scores)
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
        "| thesis | thesis MAE | our fit of the form (simplified) | our MAE | our rank |",
        "|---|--:|---|--:|--:|",
    ]
    lines += [
        f"| {f.name}: {f.thesis_function} | {f.thesis_mae:.3e} | "
        + (
            f"{f.our_function if isinstance(f.our_function, str) else '–'} | {f.our_mae:.3e} | {int(f.our_rank)} |"
            if not np.isnan(f.our_rank)
            else "– | – | – |"
        )
        for f in fits.itertuples(index=False)
    ]
    lines += [
        "",
        f"### Our best {min(len(THESIS_TABLE32), len(functions))} (run as L1, L2, ... in Table 3.3)",
        "",
        "| rank | ours (simplified) | ours as fitted | our MAE |",
        "|---|---|---|--:|",
    ]
    lines += [
        f"| {k + 1} | {ours['simplified'] if isinstance(ours['simplified'], str) else '–'} | {ours['function']} | "
        f"{ours['mae']:.3e} |"
        for k, (_, ours) in enumerate(functions.head(len(THESIS_TABLE32)).iterrows())
    ]
    if spread is not None:
        lines += [
            "",
            "Score spread against the number of trials (Figure 3.1c; thesis: 0.02 at 256,000 trials):",
            "",
            "| trials | normalized std |",
            "|--:|--:|",
        ]
        lines += [f"| {int(r['trials']):,} | {r['normalized_std']:.4f} |" for _, r in spread.iterrows()]
    lines.append("")
    return "\n".join(lines)


def run_fit(args) -> int:
    scores = read_all(args.scores)
    functions = fit_family(scores)
    spread = pd.read_csv(args.spread) if args.spread else None
    write_csv(functions, args.output)
    rows = table32_rows(thesis_form_fits(functions), scores)
    write_csv(rows, args.rows)
    write_text(args.markdown, learned_markdown(functions, scores, spread))
    print(f"{args.output}: {len(functions)} functions; best {functions['function'].iloc[0]}")
    return 0


def run_plot(args) -> int:
    from simcore.reporting.style import save
    from simcore.studies.learned_policies.figures import trial_scores_figure

    save(trial_scores_figure(read_all(args.scores), pd.read_csv(args.spread)), args.output)
    print(f"trial-score figure of {len(args.scores)} score files")
    return 0


COMMANDS = {
    "trial-scores": run_scores,
    "trial-spread": run_spread,
    "fit-functions": run_fit,
    "plot-trial-scores": run_plot,
}
