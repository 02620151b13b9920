"""`simcore` subcommands of the learned-functions study (simcore.studies.learned_policies.study)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from simcore.studies.learned_policies.report import learned_markdown, table32_rows, thesis_form_fits
from simcore.studies.learned_policies.study import draw_tuples, fit_family, score_spread, score_tuples
from simcore.workloads import files
from simcore.workloads import steps as step

STEPS = step.Steps()
add_commands = STEPS.add_parsers


def _span(select: str, count: int) -> range:
    first, _, stop = select.partition(":")
    numbers = range(int(first), int(stop))
    if not (0 <= numbers.start < numbers.stop <= count):
        raise ValueError(f"--select {select}: tuple numbers must lie in 0..{count}")
    return numbers


@STEPS.step(
    "trial-scores: trial scores of tuples (S, Q) drawn from a workload",
    step.inputs("workload", metavar="WORKLOAD.parquet", help="e.g. a Lublin-Feitelson model"),
    step.option("--tuples", type=int, required=True, help="tuples drawn in all (same draw for every chunk)"),
    step.option("--select", required=True, metavar="FIRST:STOP", help="tuple numbers scored by this job"),
    step.option("--trials", type=int, required=True, help="random permutations per tuple"),
    step.option("--seed", type=int, default=0),
    step.output("--output", "-o", metavar="SCORES.parquet"),
)
def run_scores(args) -> None:
    workload = files.read_workload(args.workload)
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
    files.write_parquet(scores, args.output, step.provenance(args))
    print(f"{args.output}: {len(numbers)} tuples x {args.trials} trials")


@STEPS.step(
    "trial-spread: score spread against the number of trials (Figure 3.1c)",
    step.inputs("workload", metavar="WORKLOAD.parquet"),
    step.option("--trials", type=int, nargs="+", required=True),
    step.option("--repeats", type=int, default=10),
    step.option("--seed", type=int, default=0),
    step.output("--output", "-o", metavar="SPREAD.csv"),
)
def run_spread(args) -> None:
    workload = files.read_workload(args.workload)
    release, run, procs = draw_tuples(workload, 1, args.seed)[0]
    files.write_csv(
        score_spread(release, run, procs, workload.machine_size, args.trials, args.repeats, args.seed), args.output
    )
    print(f"{args.output}: score spread for {len(args.trials)} trial counts")


@STEPS.step(
    "fit-functions: nonlinear regression of the function family on trial scores",
    step.inputs("scores", nargs="+", metavar="SCORES.parquet"),
    step.inputs("--spread", default=None, metavar="SPREAD.csv", help="trial-spread output, shown in the section"),
    step.output("--output", "-o", metavar="FUNCTIONS.csv", help="every form, ranked by MAE"),
    step.SECTION,
)
def run_fit(args) -> None:
    scores = files.read_all(args.scores)
    functions = fit_family(scores)
    spread = pd.read_csv(args.spread) if args.spread else None
    files.write_csv(functions, args.output)
    rows = table32_rows(thesis_form_fits(functions), scores)
    files.write_csv(rows, args.rows)
    files.write_text(args.markdown, learned_markdown(functions, scores, spread))
    print(f"{args.output}: {len(functions)} functions; best {functions['function'].iloc[0]}")


@STEPS.step(
    "plot-trial-scores: trial-score distributions and spread (Figure 3.1)",
    step.inputs("scores", nargs="+", metavar="SCORES.parquet"),
    step.inputs("--spread", metavar="SPREAD.csv"),
    step.output("--output", nargs="+", metavar="FILE.png|pdf"),
)
def run_plot(args) -> None:
    from simcore.reporting.style import save
    from simcore.studies.learned_policies.figures import trial_scores_figure

    save(trial_scores_figure(files.read_all(args.scores), pd.read_csv(args.spread)), args.output)
    print(f"trial-score figure of {len(args.scores)} score files")


COMMANDS = STEPS.commands()
