"""`simcore` subcommands of the dynamic scheduling experiments (simcore.studies.dynamic_scheduling.study)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from simcore.engine.priority import THESIS_FUNCTIONS
from simcore.engine.workload import EmptyWorkloadError
from simcore.studies.dynamic_scheduling.report import dynamic_markdown, reproduction_rows
from simcore.studies.dynamic_scheduling.study import (
    DAY,
    SETTINGS,
    best_ratios,
    learned_functions,
    median_table,
    policies,
    run_sequences,
)
from simcore.workloads import files
from simcore.workloads import steps as step
from simcore.workloads.arguments import positive_float


def _part(text: str) -> tuple[int, int]:
    part, _, parts = text.partition("/")
    try:
        part, parts = int(part), int(parts)
    except ValueError:
        part = parts = -1
    if not 0 <= part < parts:
        raise ValueError(f"--part must be K/N with 0 <= K < N, got {text!r}")
    return part, parts


STEPS = step.Steps()
add_commands = STEPS.add_parsers


@STEPS.step(
    "dynamic-sweep: policies on non-overlapping sequences of a trace (the thesis's section 3.3)",
    step.inputs("workload", metavar="WORKLOAD.parquet", help="a filtered trace or a model"),
    step.TRACE_NAME,
    step.inputs(
        "--functions",
        default=None,
        metavar="FUNCTIONS.csv",
        help="fit-functions output; its best functions are the policies L1, L2, ...",
    ),
    step.option("--learned", type=int, default=0, help="how many learned functions to add (default 0)"),
    step.option(
        "--policies",
        nargs="+",
        default=["FCFS", "WFP3", "UNICEF", "SPF", *THESIS_FUNCTIONS],
        help="queue orders and the thesis's F1-F4 (default: those of Table 3.3)",
    ),
    step.option("--settings", nargs="+", choices=tuple(SETTINGS), default=list(SETTINGS)),
    step.option("--days", type=positive_float, default=15.0, help="length of a sequence (default 15)"),
    step.option("--max-sequences", type=int, help="only the first N sequences (default: all)"),
    step.option("--part", default="0/1", metavar="K/N", help="the sequences numbered K mod N (default all)"),
    step.output("--output", "-o", metavar="RUNS.parquet"),
)
def run_sweep(args) -> None:
    part, parts = _part(args.part)
    if args.learned < 0:
        raise ValueError(f"--learned must be >= 0, got {args.learned}")
    if args.learned and not args.functions:
        raise ValueError("--learned needs --functions (the fit-functions output)")
    learned = learned_functions(pd.read_csv(args.functions), args.learned) if args.learned else {}
    named = policies([*args.policies, *learned], learned)
    workload = files.read_workload(args.workload)
    span_days = (workload.submit[-1] - workload.submit[0]) / DAY
    if span_days < args.days:
        raise EmptyWorkloadError(
            f"{args.workload}: its submissions span {span_days:.2f} days, shorter than one sequence of {args.days:g}"
        )
    model = files.read_provenance(args.workload).get("model") is not None
    runs = run_sequences(workload, named, args.settings, args.days, args.max_sequences, part, parts)
    # models are compared with the thesis's model rows by machine size
    published_as = f"model-{workload.machine_size}" if model else args.trace
    runs.insert(0, "days", args.days)  # the report compares only sequences as long as the thesis's
    runs.insert(0, "published_as", published_as)
    runs.insert(0, "trace", args.trace)
    functions = {name: str(function) for name, (_, function) in named.items() if function is not None}
    runs["function"] = runs["policy"].map(functions).fillna("")
    # the policies run, the learned ones included, and the learned functions' formulas
    files.write_parquet(runs, args.output, step.provenance(args, policies=list(named), formulas=functions))
    print(
        f"{args.output}: {runs['sequence'].nunique()} sequences of {args.trace} x {len(args.settings)} settings "
        f"x {len(named)} policies"
    )


@STEPS.step(
    "dynamic-tables: Table 3.3 and the report section",
    step.inputs("runs", nargs="+", metavar="RUNS.parquet"),
    step.inputs(
        "--functions", default=None, metavar="FUNCTIONS.csv", help="the learned functions, named in the report"
    ),
    step.TABLES,
    step.SECTION,
)
def run_tables(args) -> None:
    runs = files.read_all(args.runs)
    # traces in the order given, each trace's sequences in order (the parts interleave them)
    traces = pd.Categorical(runs["trace"], categories=list(dict.fromkeys(runs["trace"])), ordered=True)
    runs = runs.assign(trace_rank=traces.codes).sort_values(["trace_rank", "sequence"], kind="stable")
    runs = runs.drop(columns="trace_rank").reset_index(drop=True)
    outdir = Path(args.outdir)
    medians = median_table(runs)
    by_function = runs.loc[runs["function"] != "", "policy"].unique()
    ratios = best_ratios(
        medians,
        {
            "thesis F1-F4": [p for p in by_function if p in THESIS_FUNCTIONS],
            "ours L1-L4": [p for p in by_function if p not in THESIS_FUNCTIONS],
        },
    )
    functions = pd.read_csv(args.functions) if args.functions else None
    files.write_parquet(runs, outdir / "runs.parquet", step.provenance(args))
    files.write_csv(medians, outdir / "medians.csv")
    files.write_csv(ratios, outdir / "ratios.csv")
    files.write_csv(reproduction_rows(medians), args.rows)
    files.write_text(args.markdown, dynamic_markdown(medians, ratios, runs, functions))
    print(f"{outdir}: {runs['trace'].nunique()} traces, {runs['sequence'].size} runs")


@STEPS.step(
    "plot-dynamic: box plots of the AVEbsld per sequence (Figures 3.3-3.6)",
    step.inputs("runs", metavar="RUNS.parquet", help="dynamic-tables' runs.parquet"),
    step.folder_output("--outdir", help="one PNG + PDF per setting"),
)
def run_plot(args) -> None:
    from simcore.reporting.style import save
    from simcore.studies.dynamic_scheduling.figures import dynamic_boxplot_figure

    runs, outdir = files.read_parquet(args.runs), Path(args.outdir)
    for setting in SETTINGS:
        part = runs[runs["setting"] == setting]
        if len(part):
            save(dynamic_boxplot_figure(part, setting), [outdir / f"{setting}.{ext}" for ext in ("png", "pdf")])
    print(f"{outdir}: box plots of {runs['setting'].nunique()} settings")


COMMANDS = STEPS.commands()
