"""`simcore` subcommands of the learned-functions study (simcore.studies.learned_policies.study)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from simcore.studies.learned_policies.report import learned_markdown, table32_rows, thesis_form_fits
from simcore.studies.learned_policies.study import draw_tuples, fit_family, score_spread, score_tuples
from simcore.workloads.arguments import output_file
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
