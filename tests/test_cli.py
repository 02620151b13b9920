"""The `simcore` command, run as a real subprocess."""

import gzip
import importlib
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import HEADER, NO_REQUESTED_TIMES, REPO, job_line

from simcore.cli import COMMAND_MODULES, MODULE_OF, main
from simcore.engine.swf import detect_format
from simcore.workloads.files import read_provenance, read_workload, write_variants

REQUIRED_COLUMNS = {"job_id", "submit", "start", "end", "wait", "run", "procs", "requested", "backfilled"}


def simcore_cli(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "simcore.cli", *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=120
    )


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    path = tmp_path_factory.mktemp("example") / "example.swf"
    done = simcore_cli("example", "-o", path)
    assert done.returncode == 0, done.stderr
    return path


def test_example_is_deterministic(example, tmp_path):
    again = tmp_path / "again.swf"
    assert simcore_cli("example", "-o", again).returncode == 0
    assert again.read_bytes() == example.read_bytes()


def test_simulate_prints_a_readable_summary(example):
    done = simcore_cli("simulate", example, "--policy", "SAF", "--threshold", "144000")
    assert done.returncode == 0, done.stderr
    assert "SAF, threshold 144000 s, EASY; estimate request, correction request" in done.stdout
    assert "AVEbsld" in done.stdout and "kernel" in done.stdout


def test_order_names_are_accepted_in_any_case(example):
    done = simcore_cli("simulate", example, "--policy", "spf", "--backfill", "Sqf", "--json")
    assert done.returncode == 0, done.stderr
    canonical = simcore_cli("simulate", example, "--policy", "SPF", "--backfill", "SQF", "--json")
    summary, expected = json.loads(done.stdout), json.loads(canonical.stdout)
    for timing in ("kernel_seconds", "read_seconds"):
        summary.pop(timing), expected.pop(timing)
    assert summary == expected and (summary["order"], summary["backfill"]) == ("SPF", "SQF")


def test_simulate_writes_csv_for_a_csv_name_and_refuses_other_names(example, tmp_path):
    assert simcore_cli("simulate", example, "-o", tmp_path / "jobs.csv").returncode == 0
    assert simcore_cli("simulate", example, "-o", tmp_path / "jobs.parquet").returncode == 0
    csv, parquet = pd.read_csv(tmp_path / "jobs.csv"), pd.read_parquet(tmp_path / "jobs.parquet")
    assert list(csv.columns) == list(parquet.columns) and len(csv) == len(parquet)
    assert np.array_equal(csv["start"], parquet["start"])
    done = simcore_cli("simulate", example, "-o", tmp_path / "jobs.txt")
    assert done.returncode == 2 and "jobs.txt: name a .parquet or a .csv file" in done.stderr
    assert not (tmp_path / "jobs.txt").exists()


@pytest.mark.parametrize("command", [["simulate"], ["filter"], ["resample"]])
def test_an_output_that_cannot_be_written_is_refused_first(example, tmp_path, command):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    target = blocker / "out.parquet"
    done = simcore_cli(*command, example, "-o", target)
    assert done.returncode == 2, done.stderr
    assert f"{target}: cannot be written ({blocker} is not a directory)" in done.stderr
    assert "Traceback" not in done.stderr and ".tmp" not in done.stderr


def test_simulate_json_names_the_filter_and_machine_size(example):
    summary = json.loads(simcore_cli("simulate", example, "--json").stdout)
    assert summary["filter"] == "strict" and summary["machine_size"] == 64


def test_simulate_json_and_parquet(example, tmp_path):
    out = tmp_path / "jobs.parquet"
    done = simcore_cli("simulate", example, "--backfill", "SPF", "--estimate", "clairvoyant", "--json", "--output", out)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert {"jobs", "avg_wait", "max_wait", "avg_bsld", "backfilled", "kernel_seconds"} <= set(summary)
    frame = pd.read_parquet(out)
    assert REQUIRED_COLUMNS <= set(frame.columns)
    assert len(frame) == summary["jobs"]
    assert frame["backfilled"].sum() == summary["backfilled"]
    assert frame["wait"].mean() == pytest.approx(summary["avg_wait"])
    provenance = read_provenance(out)
    assert provenance["options"] == {
        "order": "FCFS",
        "threshold": None,
        "backfill": "SPF",
        "estimate": "clairvoyant",
        "correction": "request",
    }
    assert provenance["filter"] == "strict" and provenance["filter_counts"]["kept"] == summary["jobs"]
    assert provenance["input_sha256"] and provenance["code_version"]


def test_rerun_gives_identical_bytes(example, tmp_path):
    for name in ("a.parquet", "b.parquet"):
        assert simcore_cli("simulate", example, "--policy", "LQF", "-o", tmp_path / name).returncode == 0
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()


def test_filter_and_info(pwa_trace, tmp_path):
    out = tmp_path / "kth.parquet"
    done = simcore_cli("filter", pwa_trace("KTH-SP2"), "-o", out)
    assert done.returncode == 0, done.stderr
    assert len(pd.read_parquet(out)) == 27992
    info = simcore_cli("info", pwa_trace("KTH-SP2"), "--json")
    assert info.returncode == 0, info.stderr
    facts = json.loads(info.stdout)
    assert facts["machine_size"] == 100 and facts["jobs"] == 27992 and facts["job_lines"] == 28476
    assert facts["filter_counts"]["truncate"]["kept"] == 28475
    assert facts["users"] > 100 and facts["span_days"] > 300
    text = simcore_cli("info", pwa_trace("KTH-SP2"))
    assert "run_over_request" in text.stdout and "27,992" in text.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["--policy", "FIFO"], "invalid choice: 'FIFO'"),
        (["--threshold", "-5"], "must be a number of seconds >= 0"),
        (["--backfill", "sideways"], "invalid choice: 'sideways'"),
    ],
)
def test_bad_options(example, args, message):
    done = simcore_cli("simulate", example, *args)
    assert done.returncode == 2
    assert message in done.stderr


def test_malformed_trace_is_one_clear_line(write_swf, tmp_path):
    path = write_swf(HEADER + job_line(1, 0, 10, 2, 20) + "2 5 -1 x 2\n")
    out = tmp_path / "never.parquet"
    done = simcore_cli("simulate", path, "-o", out)
    assert done.returncode == 2
    assert done.stderr.strip() == f"simcore simulate: error: {path}, line 5: field 4 is not a finite number: 'x'"
    assert "Traceback" not in done.stderr
    assert not out.exists()


def test_missing_file(tmp_path):
    done = simcore_cli("info", tmp_path / "nope.swf")
    assert done.returncode == 2 and "No such file" in done.stderr


def test_prediction_commands_chain_and_rerun_identically(tmp_path):
    """predict-grid (in two chunks) -> predict-select -> predict-variants ->
    predict-tables on a small model workload, as the workflow chains them."""
    workload, variants = tmp_path / "w.parquet", tmp_path / "v.parquet"
    assert simcore_cli("model", "--jobs", 4000, "--machine-size", 64, "--seed", 3, "-o", workload).returncode == 0
    assert simcore_cli("resample", workload, "--variants", 2, "--weeks", 2, "-o", variants).returncode == 0
    grid_options = ["--trace", "m", "--learning-rates", 1, "--weightings", "large_area", "--chunks", 2]
    for chunk in range(2):
        done = simcore_cli(
            "predict-grid",
            workload,
            *grid_options,
            "--chunk",
            chunk,
            "--runs",
            tmp_path / f"{chunk}.runs.parquet",
            "--predictions",
            tmp_path / f"{chunk}.pred.parquet",
        )
        assert done.returncode == 0, done.stderr
    runs = pd.concat([pd.read_parquet(tmp_path / f"{chunk}.runs.parquet") for chunk in range(2)])
    assert len(runs) == 4 + (1 + 4) * 3 * 2 and not runs.duplicated(["predictor", "correction", "backfill"]).any()
    assert read_provenance(tmp_path / "0.runs.parquet")["chunks"] == 2
    predictions = pd.read_parquet(tmp_path / "0.pred.parquet")
    assert {"job_id", "run", "procs", "requested"} <= set(predictions.columns)
    selected = [tmp_path / "grid.parquet", tmp_path / "selection.csv"]
    done = simcore_cli(
        "predict-select",
        "--runs",
        tmp_path / "0.runs.parquet",
        tmp_path / "1.runs.parquet",
        "--grid",
        selected[0],
        "--selection",
        selected[1],
    )
    assert done.returncode == 0, done.stderr
    done = simcore_cli(
        "predict-variants",
        variants,
        "--trace",
        "m",
        "--select",
        "0:2",
        "--selection",
        selected[1],
        "--runs",
        tmp_path / "variant_runs.parquet",
    )
    assert done.returncode == 0, done.stderr
    assert set(pd.read_parquet(tmp_path / "variant_runs.parquet")["variant"]) == {0, 1}
    tables = [
        "predict-tables",
        "--grid",
        selected[0],
        "--selection",
        selected[1],
        "--variant-runs",
        tmp_path / "variant_runs.parquet",
        "--outdir",
        tmp_path / "tables",
        "--markdown",
        tmp_path / "section.md",
        "--rows",
        tmp_path / "rows.csv",
    ]
    assert simcore_cli(*tables).returncode == 0
    first = (tmp_path / "section.md").read_text()
    assert "Table 7" in first and (tmp_path / "tables" / "variants.csv").exists()
    # reruns give the same bytes
    done = simcore_cli(
        "predict-grid",
        workload,
        *grid_options,
        "--chunk",
        0,
        "--runs",
        tmp_path / "again.parquet",
        "--predictions",
        tmp_path / "again.pred.parquet",
    )
    assert (tmp_path / "again.parquet").read_bytes() == (tmp_path / "0.runs.parquet").read_bytes()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--chunk", "2", "--chunks", "2"], "chunk 2 is not in 0..1"),
        (["--learning-rates", "0"], "must be > 0"),
    ],
)
def test_prediction_grid_rejects_bad_options(tmp_path, args, message):
    workload = tmp_path / "w.parquet"
    assert simcore_cli("model", "--jobs", 300, "--machine-size", 16, "--seed", 1, "-o", workload).returncode == 0
    done = simcore_cli(
        "predict-grid",
        workload,
        "--trace",
        "m",
        *args,
        "--runs",
        tmp_path / "r.parquet",
        "--predictions",
        tmp_path / "p.parquet",
    )
    assert done.returncode == 2 and message in done.stderr
    assert not (tmp_path / "r.parquet").exists()


def test_simple_policies_commands_chain(tmp_path):
    workload, variants = tmp_path / "w.parquet", tmp_path / "v.parquet"
    assert simcore_cli("model", "--jobs", 3000, "--machine-size", 64, "--seed", 5, "-o", workload).returncode == 0
    assert simcore_cli("resample", workload, "--variants", 2, "--weeks", 2, "-o", variants).returncode == 0
    outputs = {kind: tmp_path / f"{kind}.parquet" for kind in ("runs", "weekly", "delayed")}
    done = simcore_cli(
        "simple-sweep",
        variants,
        "--trace-workload",
        workload,
        "--trace",
        "w",
        "--select",
        "0:2",
        *(f"--{kind}={path}" for kind, path in outputs.items()),
    )
    assert done.returncode == 0, done.stderr
    assert read_provenance(outputs["runs"])["threshold"] > 0
    done = simcore_cli(
        "simple-aggregate",
        *(f"--{kind}={path}" for kind, path in outputs.items()),
        "--traces",
        workload,
        "--outdir",
        tmp_path / "tables",
        "--markdown",
        tmp_path / "s.md",
        "--rows",
        tmp_path / "rows.csv",
    )
    assert done.returncode == 0, done.stderr
    assert pd.read_csv(tmp_path / "tables" / "premature.csv")["trace"].tolist() == ["w"]
    assert simcore_cli("simple-plot", "--tables", tmp_path / "tables", "--outdir", tmp_path / "plots").returncode == 0
    done = simcore_cli("simple-plot", "--tables", tmp_path / "tables", "--outdir", tmp_path / "plots", "--trace", "x")
    assert done.returncode == 2 and "no trace 'x'" in done.stderr


def test_dynamic_scheduling_commands_chain(tmp_path):
    workload = tmp_path / "w.parquet"
    assert simcore_cli("model", "--jobs", 3000, "--machine-size", 256, "--seed", 5, "-o", workload).returncode == 0
    functions = tmp_path / "functions.csv"
    pd.DataFrame(
        {
            "phi_p": ["sqrt"],
            "phi_q": ["id"],
            "phi_r": ["log"],
            "op1": ["*"],
            "op2": ["+"],
            "theta1": [1.0],
            "theta2": [1.0],
            "theta3": [100.0],
            "mae": [0.1],
            "simplified": ["sqrt(p)·q + 100·log10(r)"],
        }
    ).to_csv(functions, index=False)
    sweep = [
        "dynamic-sweep",
        workload,
        "--trace",
        "w",
        "--functions",
        functions,
        "--learned",
        1,
        "--days",
        2,
        "--policies",
        "FCFS",
        "UNICEF",
        "F2",
    ]
    for part in range(2):
        done = simcore_cli(*sweep, "--part", f"{part}/2", "-o", tmp_path / f"{part}.parquet")
        assert done.returncode == 0, done.stderr
    runs = pd.concat([pd.read_parquet(tmp_path / f"{part}.parquet") for part in range(2)])
    assert set(runs["policy"]) == {"FCFS", "UNICEF", "F2", "L1"}
    assert set(runs["published_as"]) == {"model-256"}  # a model: compared with the thesis's m = 256 rows
    assert read_provenance(tmp_path / "0.parquet")["formulas"]["L1"] == "(1·sqrt(p)) × (1·q) + (100·log10(r))"
    done = simcore_cli(*sweep, "--part", "0/2", "-o", tmp_path / "again.parquet")
    assert (tmp_path / "again.parquet").read_bytes() == (tmp_path / "0.parquet").read_bytes()
    done = simcore_cli(
        "dynamic-tables",
        tmp_path / "0.parquet",
        tmp_path / "1.parquet",
        "--functions",
        functions,
        "--outdir",
        tmp_path / "tables",
        "--markdown",
        tmp_path / "s.md",
        "--rows",
        tmp_path / "r.csv",
    )
    assert done.returncode == 0, done.stderr
    medians = pd.read_csv(tmp_path / "tables" / "medians.csv")
    assert medians["setting"].tolist() == ["actual", "estimates", "backfilling"]
    assert medians["sequences"].iloc[0] == runs["sequence"].nunique()
    assert set(pd.read_csv(tmp_path / "r.csv")["column"]) == {"FCFS", "UNICEF", "F2"}
    done = simcore_cli("plot-dynamic", tmp_path / "tables" / "runs.parquet", "--outdir", tmp_path / "plots")
    assert done.returncode == 0, done.stderr
    assert sorted(path.name for path in (tmp_path / "plots").iterdir()) == [
        f"{setting}.{ext}" for setting in ("actual", "backfilling", "estimates") for ext in ("pdf", "png")
    ]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--part", "2/2"], "--part must be K/N"),
        (["--part", "x"], "--part must be K/N"),
        (["--learned", "2"], "--learned needs --functions"),
        (["--policies", "F9"], "unknown policy 'F9'"),
    ],
)
def test_dynamic_sweep_rejects_bad_options(tmp_path, args, message):
    workload = tmp_path / "w.parquet"
    assert simcore_cli("model", "--jobs", 300, "--machine-size", 16, "--seed", 1, "-o", workload).returncode == 0
    done = simcore_cli("dynamic-sweep", workload, "--trace", "m", *args, "-o", tmp_path / "r.parquet")
    assert done.returncode == 2 and message in done.stderr
    assert not (tmp_path / "r.parquet").exists()


def test_a_trace_emptied_by_its_filter_is_one_clear_line(pwa_trace, tmp_path, capsys):
    trace = pwa_trace(NO_REQUESTED_TIMES)
    out = tmp_path / "never.parquet"
    for command in (["simulate", trace, "-o", out], ["filter", trace, "-o", out], ["info", trace]):
        assert main(list(map(str, command))) == 2 and not out.exists()
        assert capsys.readouterr().err == (
            f"simcore {command[0]}: error: {trace}: no job left after the strict filter "
            "(18,239 job lines; dropped: bad_run_time 173, no_requested_time 18,066)\n"
        )


def corrupt_page(raw: bytes) -> bytes:
    """The Parquet file with the bytes of its first data page inverted (header and footer intact)."""
    return raw[:4] + bytes(byte ^ 0xFF for byte in raw[4:200]) + raw[200:]


CORRUPTIONS = {
    "garbage bytes": lambda raw: b"not a Parquet file\n" * 20,
    "truncated file": lambda raw: raw[: len(raw) // 2],
    "corrupt page": corrupt_page,
}

# Each command that reads Parquet, with its arguments after the Parquet file it reads first.
PARQUET_COMMANDS = {
    "resample": lambda out: ["--variants", "1", "-o", out / "v.parquet"],
    "sweep": lambda out: [
        "--select",
        "0:1",
        "--trace",
        "t",
        "--runs",
        out / "r.parquet",
        "--weekly",
        out / "w.parquet",
    ],
    "learn": lambda out: [
        *("--select", "0:1", "--trace", "t", "--strategies", "{}"),
        *("--runs", out / "r.parquet", "--weekly", out / "w.parquet", "--choices", out / "c.parquet"),
    ],
    "predict-grid": lambda out: ["--trace", "t", "--runs", out / "r.parquet", "--predictions", out / "p.parquet"],
    "predict-variants": lambda out: [
        *("--trace", "t", "--select", "0:1", "--selection", out.parent / "selection.csv", "--runs", out / "r.parquet"),
    ],
    "trial-scores": lambda out: ["--tuples", "1", "--select", "0:1", "--trials", "2", "--output", out / "s.parquet"],
    "trial-spread": lambda out: ["--trials", "2", "--output", out / "spread.csv"],
    "dynamic-sweep": lambda out: ["--trace", "t", "-o", out / "r.parquet"],
    "coscheduling-run": lambda out: [
        "--trace",
        "t",
        "--experiment",
        "E2",
        "--loads",
        "0.5",
        "--output",
        out / "r.parquet",
    ],
    "elastic-run": lambda out: [
        *("--trace", "t", "--set", "1", "-o", out / "r.parquet"),
        *("--series", out / "s.parquet", "--pools", out / "p.parquet"),
    ],
    "rl-baselines": lambda out: ["--trace", "t", "-o", out / "r.parquet"],
    "fit-functions": lambda out: ["--output", out / "f.csv", "--markdown", out / "f.md", "--rows", out / "rows.csv"],
    "dynamic-tables": lambda out: ["--outdir", out, "--markdown", out / "s.md", "--rows", out / "rows.csv"],
    "coscheduling-tables": lambda out: ["--outdir", out, "--markdown", out / "s.md", "--rows", out / "rows.csv"],
    "elastic-tables": lambda out: ["--outdir", out, "--markdown", out / "s.md", "--rows", out / "rows.csv"],
    "rl-baselines-tables": lambda out: ["--outdir", out, "--markdown", out / "s.md", "--rows", out / "rows.csv"],
}


# The commands among them that read a variants file (one row group per variant), not a workload.
VARIANTS_READERS = {"sweep", "learn", "predict-variants", "simple-sweep"}


@pytest.fixture(scope="module")
def parquet_inputs(tmp_path_factory):
    """The bytes of a workload file and of a variants file holding it twice."""
    directory = tmp_path_factory.mktemp("parquet")
    path = directory / "w.parquet"
    assert simcore_cli("model", "--jobs", 2000, "--machine-size", 64, "--seed", 1, "-o", path).returncode == 0
    workload = read_workload(path)
    write_variants([(0, workload), (1, workload)], directory / "v.parquet", {"machine_size": 64, "weeks": 1})
    return {"workload": path.read_bytes(), "variants": (directory / "v.parquet").read_bytes()}


@pytest.mark.parametrize("corruption", sorted(CORRUPTIONS))
@pytest.mark.parametrize("command", sorted(PARQUET_COMMANDS))
def test_a_corrupt_parquet_input_is_one_line_naming_the_file(command, corruption, parquet_inputs, tmp_path, capsys):
    path, out = tmp_path / "input.parquet", tmp_path / "out"
    path.write_bytes(CORRUPTIONS[corruption](parquet_inputs["variants" if command in VARIANTS_READERS else "workload"]))
    (tmp_path / "selection.csv").write_text("trace\n")  # predict-variants' selection: no triple
    code = main([command, str(path), *map(str, PARQUET_COMMANDS[command](out))])
    err = capsys.readouterr().err
    assert code == 2
    assert (
        err.startswith(f"simcore {command}: error: {path}: not a readable Parquet file (") and err.count("\n") == 1
    ), err
    assert not out.exists()


@pytest.mark.parametrize("command", ["sweep", "predict-variants"])
def test_a_command_over_variants_logs_its_progress(command, parquet_inputs, tmp_path, capsys):
    path, out = tmp_path / "input.parquet", tmp_path / "out"
    path.write_bytes(parquet_inputs["variants"])
    (tmp_path / "selection.csv").write_text("trace\n")
    arguments = [str(argument).replace("0:1", "0:2") for argument in PARQUET_COMMANDS[command](out)]
    assert main([command, str(path), *arguments]) == 0
    assert "t variants 0:2: 2/2 (100 %), " in capsys.readouterr().err


def test_help_lists_every_command_once_by_layer_and_study_the_engine_first(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    titles = [line for line in text.splitlines() if line and not line.startswith(" ") and line.endswith(":")]
    assert titles[:3] == ["options:", "commands:", "the engine and workloads:"]
    studies = titles[3:-1]
    assert titles[-1] == "reporting:" and "the elastic study:" in studies and "the fixed policy study:" in studies
    assert studies == sorted(studies) and all(title.endswith(" study:") for title in studies)
    listed = [line.split()[0] for line in text.split("the engine and workloads:")[1].splitlines() if line[:2] == "  "]
    assert sorted(listed) == sorted(MODULE_OF) and listed[0] == "simulate"


@pytest.mark.parametrize("module", sorted(COMMAND_MODULES))
def test_the_command_table_names_each_modules_own_commands(module):
    """cli.py lists the commands without importing their modules: the list must be theirs, in their order."""
    assert COMMAND_MODULES[module] == tuple(importlib.import_module(module).COMMANDS)


def test_a_command_imports_its_own_module_alone():
    """`simcore info` must not pay for the studies' imports (gymnasium, scipy, matplotlib): in a fresh
    interpreter, no study module is loaded after it ran (the study packages' `__init__`, which only
    name their commands, are)."""
    probe = """
import sys
from simcore.cli import main
try:
    main(["info", "--help"])
except SystemExit:
    pass
print(sorted(name for name in sys.modules if name.startswith("simcore.studies.") and name.count(".") > 2
             or name == "gymnasium"))
"""
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert result.stdout.splitlines()[-1] == "[]"


# --- a Slurm accounting dump given to the SWF readers; --order ---------------------------------------------------


@pytest.mark.parametrize("compressed", [False, True])
@pytest.mark.parametrize("command", ["simulate", "filter", "info"])
def test_a_sacct_dump_given_as_a_trace_says_to_convert_it_first(tmp_path, capsys, command, compressed):
    text = (REPO / "tests" / "fixtures" / "sacct" / "slurm-accounting.sacct").read_bytes()
    dump = tmp_path / ("site.sacct.gz" if compressed else "site.sacct")
    dump.write_bytes(gzip.compress(text, mtime=0) if compressed else text)
    extra = ["-o", str(tmp_path / "w.parquet")] if command == "filter" else []
    assert main([command, str(dump), *extra]) == 2
    assert capsys.readouterr().err == (
        f"simcore {command}: error: {dump}: a Slurm accounting dump (sacct), not an SWF log: convert it first with "
        f"`simcore import-sacct {dump} -o {tmp_path / 'site.swf.gz'}`\n"
    )


def test_the_workflow_reads_a_gzip_dump_as_a_dump(tmp_path):
    (tmp_path / "d.gz").write_bytes(gzip.compress(b"jobid|jobidraw|STATE|submit\n1|1|COMPLETED|x\n"))
    (tmp_path / "t.swf.gz").write_bytes(gzip.compress((HEADER + job_line(1, 0, 10, 1, 20)).encode()))
    assert detect_format(tmp_path / "d.gz") == "sacct" and detect_format(tmp_path / "t.swf.gz") == "swf"


def test_order_is_the_same_option_as_policy(example):
    by_order = simcore_cli("simulate", example, "--order", "saf", "--json")
    by_policy = simcore_cli("simulate", example, "--policy", "SAF", "--json")
    assert by_order.returncode == 0, by_order.stderr
    summaries = [json.loads(done.stdout) for done in (by_order, by_policy)]
    for summary in summaries:
        summary.pop("kernel_seconds"), summary.pop("read_seconds")
    assert summaries[0] == summaries[1] and summaries[0]["order"] == "SAF"
    text = simcore_cli("simulate", "--help").stdout
    assert "--policy ORDER, --order ORDER" in text and "queue order, one of FCFS, LCFS, SPF" in text
    refused = simcore_cli("simulate", example, "--order", "FIFO")
    assert refused.returncode == 2 and "argument --policy/--order: invalid choice: 'FIFO'" in refused.stderr
