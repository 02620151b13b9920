"""CPU cost of the full campaign (`snakemake --cores N` with config/config.yaml) on this machine.

Asks Snakemake for the campaign's jobs and their exact shell commands (a dry run), builds the
inputs of the heavy jobs with Snakemake (`results/`: traces, study traces, resampled variants,
models), then runs ONE job per (rule, trace) under getrusage and counts the user+sys CPU seconds
of the child. A job that loops over many units (variants, tuples, grid triples, sequences, E1
windows, seeds, trials) is run twice on a few units through the command's own options; the two
runs give a fixed cost (start, reading) and a cost per unit, and the job is projected as fixed +
per unit x its units: such rows are marked "projected". A projected job under --full-below CPU
seconds is then run whole and marked "measured". Projections are rough: units differ in cost
(grid triples, windows) and the two-point fit is noisy on a shared machine; where both were
run, projected small jobs came out between 0.2x and 1.2x the whole job (mostly low). The E2
co-scheduling replay is always run whole: its cost depends so much on the load and kappa that
projecting from one setting gave 40 s for a 354 s job (HPC2N). Each (rule, trace) cost is
multiplied by its number of jobs in the DAG; the table gives CPU hours per study and trace, the
total, the time on --cores cores and the longest single job (which bounds the wall time).

Outputs of the measured commands go to --scratch (default results-cost/), never over the
campaign's results/. Not measured: the light rules (tables, plots, aggregates, reports), counted
but listed apart. The predict-variants runs use a selection.csv made by predict-select from the
measured (reduced) grid chunks, and the dynamic sweep a functions.csv fitted on a cheap
trial-scores run (1,000 trials): which triple or function runs changes the cost little, not the
number of runs.

Time: one to two hours of CPU for every study and trace (about 8 minutes of it building the
inputs; most of the rest CEA-Curie, the elastic and co-scheduling runs), seconds to a few minutes
for one study and trace. Run it under `nice -n 10` on a shared machine. Examples:

    nice -n 10 python benchmarks/campaign_cost.py --pwa ../shared/pwa
    python benchmarks/campaign_cost.py --pwa ../shared/pwa --studies prediction --traces KTH-SP2
    python benchmarks/campaign_cost.py --dry        # the (rule, trace) pairs and their commands
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import resource
import shlex
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SIMCORE = [sys.executable, "-c", "import sys; from simcore.cli import main; sys.exit(main())"]

# rule -> study; rules under an artifact root are the artifact's
STUDY_OF_RULE = {
    "fetch_trace": "inputs",
    "model_trace": "inputs",
    "filter_trace": "inputs",
    "study_trace": "inputs",
    "resample": "fixed_policy",
    "sweep_fixed_policies": "fixed_policy",
    "learn_strategies": "bandit",
    "predict_grid": "prediction",
    "predict_header_size": "prediction",
    "predict_variants": "prediction",
    "simple_sweep": "simple_policies",
    "trial_scores": "learned_policies",
    "trial_spread": "learned_policies",
    "dynamic_sweep": "dynamic_scheduling",
    "coscheduling_flush": "coscheduling",
    "coscheduling_replay": "coscheduling",
    "elastic_run": "elastic",
    "rl_baselines_run": "job_selection",
}
# measured only after the rules whose outputs they read (selection.csv, functions.csv)
ORDER = ["trial_scores", "predict_grid"]


def dry_run(pwa: str) -> list[dict]:
    """The campaign's jobs: rule, wildcards, input, output, shell command (Snakemake's dry run)."""
    command = ["snakemake", "-n", "-p", "--forceall", "--config", f"pwa_mirror={pwa}"]
    text = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=True, env=_env()).stdout
    jobs = []
    for block in re.split(r"\n(?=\[\w{3} \w{3} )", text):
        rule = re.search(r"^(?:local)?rule (\w+):", block, re.M)
        if not rule:
            continue
        fields = {key: value for key, value in re.findall(r"^    (\w+): (.*)$", block, re.M)}
        wildcards = dict(item.split("=", 1) for item in fields.get("wildcards", "").split(", ") if "=" in item)
        shell = re.search(r"^Shell command: (.*)$", block, re.M)
        inputs = [f for f in fields.get("input", "").split(", ") if f]
        trace = wildcards.get("trace") or (Path(inputs[0]).name.split(".")[0] if len(inputs) == 1 else "-")
        root = wildcards.get("root", "results")
        study = STUDY_OF_RULE.get(rule.group(1))
        if study and root.endswith("artifact"):
            study = "artifact"
        if rule.group(1) == "resample_study_trace":
            study = wildcards["study"]
        jobs.append(
            {
                "rule": rule.group(1),
                "study": study,
                "trace": trace,
                "wildcards": wildcards,
                "input": inputs,
                "output": [f for f in fields.get("output", "").split(", ") if f] + [fields.get("log", "")],
                "shell": shell.group(1) if shell else None,
            }
        )
    return jobs


def _env():
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}


def _option(argv, name):
    return argv[argv.index(name) + 1]


def _set(argv, name, *values):
    """argv with option `name` taking `values` (added when absent)."""
    argv = list(argv)
    if name in argv:
        start = argv.index(name) + 1
        end = start
        while end < len(argv) and not argv[end].startswith("--"):
            end += 1
        argv[start:end] = values
    else:
        argv += [name, *values]
    return argv


def _parse(argv):
    from simcore.cli import build_parser

    return build_parser().parse_args(argv)


def reduce(rule: str, argv: list[str], level: int) -> tuple[list[str], float, float]:
    """The command on a few of its units (more at level 2 than at level 1): (argv, units run,
    units of the whole job). Units: variants, tuples, grid triples, sequences, windows,
    (load, kappa) settings, seeds or trials."""
    if "--select" in argv:  # variants or tuples, Python range
        first, stop = map(int, _option(argv, "--select").split(":"))
        return _set(argv, "--select", f"{first}:{first + level}"), level, stop - first
    if rule == "predict_grid":
        from simcore.studies.prediction.study import chunk_of_grid, triple_grid

        args = _parse(argv)
        grid = triple_grid(args.learning_rates, args.bases, args.weightings, args.corrections, args.backfills)
        chunks = args.chunks * max(1, len(grid) // (4 * level * args.chunks))  # about 4 triples a level
        part = len(chunk_of_grid(grid, args.chunk, chunks))
        return _set(argv, "--chunks", str(chunks)), part, len(chunk_of_grid(grid, args.chunk, args.chunks))
    if rule == "dynamic_sweep":
        from simcore.studies.dynamic_scheduling.study import sequences
        from simcore.workloads.files import read_workload

        args = _parse(argv)
        part, parts = map(int, args.part.split("/"))
        numbers = [n for n, *_ in sequences(read_workload(args.workload), args.days, args.max_sequences)]
        cut = parts * (4 if level == 1 else 2)
        few = sum(1 for n in numbers if n % cut == part)
        return _set(argv, "--part", f"{part}/{cut}"), few, sum(1 for n in numbers if n % parts == part)
    if rule == "coscheduling_flush":
        from simcore.studies.coscheduling.study import flush_windows
        from simcore.workloads.files import read_workload

        args = _parse(argv)
        full = len(flush_windows(read_workload(args.workload), args.window, args.max_windows))
        few = min(full, 100 * level)
        return _set(argv, "--max-windows", str(few)), few, full
    if rule == "elastic_run":
        return _set(argv, "--seeds", str(level)), level, int(_option(argv, "--seeds"))
    if rule == "trial_spread":
        args = _parse(argv)
        few = sorted(args.trials)[: level + 1]
        argv = _set(_set(argv, "--trials", *map(str, few)), "--repeats", "1")
        return argv, sum(few), sum(args.trials) * args.repeats
    return argv, 1, 1


def measure(rule: str, whole: list[str], log: Path, niceness: int, full_below: float) -> tuple[float | None, str]:
    """CPU seconds of the whole job, measured or projected, and how it was obtained. Projected:
    two reduced runs give a fixed cost (start, reading the input) and a cost per unit, the
    whole job costs fixed + per unit x its units."""
    argv1, units1, full = reduce(rule, whole, 1)
    if units1 >= full:
        cpu, code, _ = run(whole, Path(f"{log}.log"), niceness)
        return (cpu, "measured") if code == 0 else (None, f"FAILED (exit {code}, {log}.log)")
    argv2, units2, _ = reduce(rule, whole, 2)
    cpu1, code1, _ = run(argv1, Path(f"{log}.1.log"), niceness)
    cpu2, code2, _ = run(argv2, Path(f"{log}.2.log"), niceness)
    if code1 or code2:
        return None, f"FAILED (exit {code1 or code2}, {log}.1.log / .2.log)"
    per_unit = max(cpu2 - cpu1, 0.0) / (units2 - units1) if units2 > units1 else cpu1 / units1
    fixed = max(cpu1 - per_unit * units1, 0.0)
    projected = fixed + per_unit * full
    how = f"{units1:g} and {units2:g} of {full:g} units: {fixed:.1f} s + {per_unit:.2f} s/unit"
    if projected < full_below:
        cpu, code, _ = run(whole, Path(f"{log}.whole.log"), niceness)
        if code == 0:
            return cpu, f"measured (whole job; projected {projected:.0f} s from {how})"
    return projected, f"projected ({how})"


def command_of(job: dict, scratch: Path, helpers: dict) -> list[str]:
    """The job's simcore arguments, its outputs moved to scratch, its helper inputs swapped in."""
    argv = shlex.split(job["shell"].split(" > ")[0])
    assert argv[0] == "simcore", job["shell"]
    argv = argv[1:]
    here = scratch / job["rule"] / job["trace"]
    outputs = set(job["output"])
    for k, item in enumerate(argv):
        if item in outputs:
            argv[k] = str(here / Path(item).name)
        elif item in helpers:
            argv[k] = str(helpers[item])
    return argv


def run(argv: list[str], log: Path, niceness: int) -> tuple[float, int, float]:
    """CPU seconds (user+sys) of `simcore argv` and its children, its exit code, wall seconds."""
    for item in [str(log), *argv]:  # the scratch outputs' directories
        if item.startswith(str(log.parent.parent)):
            Path(item).parent.mkdir(parents=True, exist_ok=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    with open(log, "w") as out:
        code = subprocess.run(
            SIMCORE + argv, cwd=REPO, stdout=out, stderr=subprocess.STDOUT, env=_env(),
            preexec_fn=lambda: os.nice(niceness),
        ).returncode  # fmt: skip
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, code, time.monotonic() - start


def build_inputs(jobs: list[dict], pwa: str, cores: int) -> None:
    """Let Snakemake make the chosen jobs' inputs (except the helpers made here)."""
    targets = sorted({f for job in jobs for f in job["input"] if not f.endswith(("selection.csv", "functions.csv"))})
    targets = [f for f in targets if not (REPO / f).exists()]
    if targets:
        command = ["snakemake", "--cores", str(cores), "--config", f"pwa_mirror={pwa}", "--quiet", "rules", "--"]
        subprocess.run(command + targets, cwd=REPO, check=True, env=_env())


def make_selection(scratch: Path, niceness: int) -> Path | None:
    """selection.csv from the measured grid chunks (predict-select)."""
    runs = sorted(str(p) for p in (scratch / "predict_grid").glob("*/*.runs.parquet"))
    if not runs:
        return None
    out = scratch / "helpers" / "selection.csv"
    argv = ["predict-select", "--runs", *runs, "--default-learning-rate", "1"]
    argv += ["--grid", str(scratch / "helpers" / "grid.parquet"), "--selection", str(out)]
    return out if run(argv, scratch / "helpers" / "select.log", niceness)[1] == 0 else None


def make_functions(model: str, scratch: Path, niceness: int) -> Path | None:
    """functions.csv fitted on a cheap trial-scores run (10 tuples x 1,000 trials)."""
    here = scratch / "helpers"
    scores, out = here / "scores.parquet", here / "functions.csv"
    argv = ["trial-scores", model, "--tuples", "10", "--select", "0:10", "--trials", "1000", "--output", str(scores)]
    if run(argv, here / "scores.log", niceness)[1] != 0:
        return None
    argv = ["fit-functions", str(scores), "--output", str(out), "--markdown", str(here / "functions.md")]
    argv += ["--rows", str(here / "rows.csv")]
    return out if run(argv, here / "functions.log", niceness)[1] == 0 else None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pwa", default=str(REPO.parent / "shared" / "pwa"), help="PWA mirror (config pwa_mirror)")
    parser.add_argument("--traces", nargs="+", help="only these traces (default all)")
    parser.add_argument("--studies", nargs="+", help="only these studies (default all; see the table's rows)")
    parser.add_argument("--rules", nargs="+", help="only these rules (default all)")
    parser.add_argument("--scratch", default=str(REPO / "results-cost"), help="measured jobs' outputs and logs")
    parser.add_argument("--cores", type=int, default=56, help="cores of the projection (default 56)")
    parser.add_argument("--full-below", type=float, default=120.0, help="run whole a job projected under this (s)")
    parser.add_argument("--nice", type=int, default=10, help="niceness of the measured commands (default 10)")
    parser.add_argument("--no-build", action="store_true", help="inputs already in results/")
    parser.add_argument("--dry", action="store_true", help="list the jobs that would be measured, run nothing")
    args = parser.parse_args(argv)
    scratch = Path(args.scratch).resolve()

    jobs = dry_run(args.pwa)
    count = collections.Counter((job["study"], job["rule"], job["trace"]) for job in jobs)
    heavy = [job for job in jobs if job["study"] and job["shell"]]
    light = collections.Counter(job["rule"] for job in jobs if not job["study"])
    chosen = {}
    for job in sorted(heavy, key=lambda job: sorted(job["wildcards"].items())):
        if args.studies and job["study"] not in args.studies or args.traces and job["trace"] not in args.traces:
            continue
        if args.rules and job["rule"] not in args.rules:
            continue
        chosen.setdefault((job["study"], job["rule"], job["trace"]), job)
    if args.dry:
        for key, job in chosen.items():
            print(*key, count[key], job["shell"][:160])
        return 0
    if not args.no_build:
        build_inputs(list(chosen.values()), args.pwa, 1)

    helpers, rows = {}, []
    order = sorted(chosen, key=lambda key: (key[1] not in ORDER, ORDER.index(key[1]) if key[1] in ORDER else 0))
    for key in order:
        job = chosen[key]
        study, rule, trace = key
        if rule == "predict_variants" and "results/prediction/selection.csv" not in helpers:
            helpers["results/prediction/selection.csv"] = make_selection(scratch, args.nice)
        if rule == "dynamic_sweep" and "results/learned_policies/functions.csv" not in helpers:
            model = next((j["input"][0] for j in jobs if j["rule"] == "trial_scores"), None)
            build_inputs([{"input": [model]}], args.pwa, 1)
            helpers["results/learned_policies/functions.csv"] = make_functions(model, scratch, args.nice)
        if any(helpers.get(f, "") is None for f in job["input"]):
            rows.append((study, trace, rule, count[key], None, None, "not measured: no helper input"))
            continue
        whole = command_of(job, scratch, {k: v for k, v in helpers.items() if v})
        job_cpu, label = measure(rule, whole, scratch / "logs" / f"{rule}.{trace}", args.nice, args.full_below)
        print(f"{study:18} {rule:22} {trace:16} {count[key]:4} jobs  {job_cpu or 0:10.1f} s/job  {label}", flush=True)
        rows.append((study, trace, rule, count[key], job_cpu, None, label))

    print_table(rows, light, args.cores)
    return 0


def print_table(rows, light, cores) -> None:
    print("\n| study | trace | rule | jobs | CPU s / job | CPU h | how |")
    print("|---|---|---|---:|---:|---:|---|")
    total, longest = 0.0, (0.0, "")
    per_study = collections.defaultdict(float)
    for study, trace, rule, jobs, cpu, _, label in rows:
        hours = cpu * jobs / 3600 if cpu is not None else None
        if hours:
            total += hours
            per_study[study] += hours
            longest = max(longest, (cpu, f"{rule} {trace}"))
        shown = f"{hours:.2f}" if hours is not None else "-"
        print(f"| {study} | {trace} | {rule} | {jobs} | {cpu or 0:.1f} | {shown} | {label} |")
    print("\n| study | CPU h |\n|---|---:|")
    for study, hours in sorted(per_study.items(), key=lambda item: -item[1]):
        print(f"| {study} | {hours:.2f} |")
    print(f"\ntotal: {total:.2f} CPU h; on {cores} cores: {total / cores * 60:.1f} min if perfectly spread")
    print(f"longest single job: {longest[0] / 3600:.2f} h ({longest[1]}): the wall time cannot be shorter")
    print("not measured (light rules):", ", ".join(f"{rule} {n}" for rule, n in sorted(light.items())))


if __name__ == "__main__":
    sys.exit(main())
