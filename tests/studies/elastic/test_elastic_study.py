"""The elastic study's commands and report: study.py, report.py and the CLI of commands.py.

1. `simcore elastic-run` end to end on a small grid workload with groups (SWF field 13) and
   recorded waits: the three Parquet outputs, their provenance, the run names, the series and the
   pools, and a second run that writes the same bytes;
2. its error paths (exit status 2 and `simcore elastic-run: error: ...` on stderr, or argparse's
   own exit for --runs), with no output left behind;
3. a model workload without groups through `--vo-profile lpc-egee` and `--time-compression 5`;
4. `simcore elastic-tables` on a real-groups trace and a profiled one: runs, summary, speedups,
   the markdown section and the reproduction rows (the real-groups trace only);
5. `simcore plot-elastic`: the four figures of a trace as PNG and PDF.

The claims are tested in test_claims.py.
"""

import json
from dataclasses import replace
from functools import partial

import numpy as np
import pandas as pd
import pytest

from simcore.cli import main
from simcore.engine.workload import Workload
from simcore.reporting.published import ELASTIC_SPEEDUP, ELASTIC_TABLE_COLUMNS, ELASTIC_TABLES
from simcore.reporting.reproduction import REPRODUCTION_COLUMNS
from simcore.studies.elastic import study
from simcore.studies.elastic.jobsets import consecutive_sets, set_statistics
from simcore.studies.elastic.report import OURS, claims
from simcore.studies.elastic.rules import FIGURES
from simcore.studies.elastic.site import pool_levels
from simcore.studies.elastic.study import SUMMARISED
from simcore.workloads.files import read_provenance, read_workload, write_workload
from simcore.workloads.progress import progress
from simcore.workloads.vo_profiles import apply_vo_profile

# -- workloads ----------------------------------------------------------------------------------

SET_JOBS = 1600  # per set: 100 pre-training jobs, 1,500 online jobs (1,000 left out by the metrics)
PRE_TRAINING = 100
JOBS = 3300  # two sets of 1,600 and 100 jobs left over
GRID, MODEL = "GRID", "MODEL"
RUNS = {
    "RIG-EST-1": {"elastic": False, "model": "EST", "lambda": 1},
    "ELA-EST-1": {"elastic": True, "model": "EST", "lambda": 1},
}
LEARNERS = list(RUNS)
BASELINES = ["FCFS", "EDF", "FCFS P_max"]  # once per set
SAME_POOL = ["FCFS on the pool of ELA-EST-1", "EDF on the pool of ELA-EST-1"]  # per seed of the elastic run
NO_WAIT_PRE = 5  # set 1: a pre-training job without a recorded wait (NAT still runs)
NO_WAIT_ONLINE = SET_JOBS + 800  # set 2: an online job without a recorded wait (no NAT)


def arrays(seed: int, gap: float, jobs: int = JOBS, procs=None, source: str = "traces/GRID-2006.swf") -> Workload:
    """Serial jobs arriving in bursts (100 jobs every `gap` / 14 s, then 100 every `gap` s), half of
    them interactive (30-800 s), half batch (1,000-3,000 s)."""
    rng = np.random.default_rng(seed)
    gaps = rng.exponential(np.where((np.arange(jobs) // 100) % 2 == 0, gap / 14, gap))
    interactive = rng.random(jobs) < 0.5
    run = np.where(interactive, rng.uniform(30, 800, jobs), rng.uniform(1000, 3000, jobs)).round()
    procs = np.ones(jobs, dtype=int) if procs is None else procs
    return Workload.from_arrays(np.cumsum(gaps).round(), run, run + 100, procs, 64, source=source)


def grid_workload() -> Workload:
    """Groups 1 to 8 (7 and 8 are both "rest") and a recorded wait for every job but two."""
    workload = arrays(3, 110.0)
    rng = np.random.default_rng(4)
    waits = rng.exponential(300.0, JOBS).round()
    waits[[NO_WAIT_PRE, NO_WAIT_ONLINE]] = np.nan
    return replace(workload, group=rng.integers(1, 9, JOBS), recorded_wait=waits)


def model_workload() -> Workload:
    """A model trace: parallel jobs too, no group and no recorded wait, 5 times less loaded."""
    procs = np.random.default_rng(6).integers(1, 9, JOBS)
    return arrays(5, 550.0, procs=procs, source="traces/MODEL-1.swf")


def run_argv(workload, outdir, trace=GRID, set_number="1", runs=RUNS, seeds="2", *extra) -> list[str]:
    return [
        "elastic-run",
        str(workload),
        "--trace",
        trace,
        "--set",
        set_number,
        "--set-jobs",
        str(SET_JOBS),
        "--pre-training",
        str(PRE_TRAINING),
        "--runs",
        runs if isinstance(runs, str) else json.dumps(runs),
        "--seeds",
        seeds,
        *extra,
        "-o",
        str(outdir / "runs.parquet"),
        "--series",
        str(outdir / "series.parquet"),
        "--pools",
        str(outdir / "pools.parquet"),
    ]


OUTPUTS = ("runs", "series", "pools")
pytestmark = pytest.mark.xdist_group("elastic-study")  # one worker runs the commands of `cli` once


def outputs(outdir) -> dict:
    return {name: outdir / f"{name}.parquet" for name in OUTPUTS}


@pytest.fixture(scope="module")
def cli(tmp_path_factory):
    """The grid workload's sets 1 (twice) and 2, the profiled model workload's set 1, the tables of
    set 1, set 2 and the model, and the figures of set 1."""
    directory = tmp_path_factory.mktemp("elastic_cli")
    grid, model = directory / "grid.parquet", directory / "model.parquet"
    write_workload(grid_workload(), grid, {"command": "test"})
    write_workload(model_workload(), model, {"command": "test"})
    dirs = {name: directory / name for name in ("set1", "again", "set2", "model", "tables", "figures")}
    codes = {
        "set1": main(run_argv(grid, dirs["set1"])),
        "again": main(run_argv(grid, dirs["again"])),
        "set2": main(run_argv(grid, dirs["set2"], GRID, "2")),
        "model": main(
            run_argv(
                model,
                dirs["model"],
                MODEL,
                "1",
                RUNS,
                "1",
                "--vo-profile",
                "lpc-egee",
                "--profile-seed",
                "4",
                "--time-compression",
                "5",
            )
        ),
    }
    tables = dirs["tables"]
    inputs = [str(outputs(dirs[name])["runs"]) for name in ("set1", "set2", "model")]
    codes["tables"] = main(
        [
            "elastic-tables",
            *inputs,
            "--outdir",
            str(tables),
            "--markdown",
            str(directory / "section.md"),
            "--rows",
            str(directory / "rows.csv"),
        ]
    )
    set1 = outputs(dirs["set1"])
    codes["plot"] = main(
        [
            "plot-elastic",
            "--runs",
            str(tables / "runs.parquet"),
            "--series",
            str(set1["series"]),
            "--pools",
            str(set1["pools"]),
            "--trace",
            GRID,
            "--outdir",
            str(dirs["figures"]),
        ]
    )
    return {
        "codes": codes,
        "grid_file": grid,
        "model_file": model,
        "inputs": inputs,
        "markdown": directory / "section.md",
        "rows": directory / "rows.csv",
        **{name: outputs(dirs[name]) for name in ("set1", "again", "set2", "model")},
        "tables": dirs["tables"],
        "figures": dirs["figures"],
    }


# -- 1. elastic-run end to end -------------------------------------------------------------------


def test_run_writes_three_files_with_provenance(cli):
    assert cli["codes"]["set1"] == 0
    provenances = [read_provenance(path) for path in cli["set1"].values()]
    assert provenances[0] == provenances[1] == provenances[2]
    provenance = provenances[0]
    assert provenance["command"] == "elastic-run"
    assert provenance["workload"] == str(cli["grid_file"])
    assert (provenance["set"], provenance["set_jobs"], provenance["pre_training"]) == ("1", SET_JOBS, PRE_TRAINING)
    assert provenance["seeds"] == 2
    defaults = {
        "model": "EST",
        "lam": 1.0,
        "utilisation": "interval",
        "pre_training_pool": "explore",
        "pool_request": "headroom",
    }
    assert provenance["runs"] == {
        "RIG-EST-1": {"elastic": False, **defaults},
        "ELA-EST-1": {"elastic": True, **defaults},
    }
    assert provenance["monitoring"] == "remove"
    assert provenance["vo_source"] == "the trace's groups"
    assert provenance["time_compression"] == 1.0
    assert provenance["code_version"]
    # the job set as the study cuts it
    (jobs,) = consecutive_sets(read_workload(cli["grid_file"]), GRID, SET_JOBS, 1, PRE_TRAINING)
    assert (provenance["rigid_pool_rule"], provenance["rigid_pool"]) == ("site", jobs.site_pool)
    assert provenance["load_pool"] == jobs.load_pool != jobs.site_pool
    assert provenance["groups"] == list(jobs.groups) and len(jobs.groups) == 6
    np.testing.assert_allclose(provenance["shares"], jobs.shares)
    assert provenance["set_statistics"] == set_statistics(jobs)
    assert provenance["set_statistics"]["online_jobs"] == SET_JOBS - PRE_TRAINING


def test_run_rows_are_the_learners_per_seed_and_the_baselines_once(cli):
    runs = pd.read_parquet(cli["set1"]["runs"])
    assert runs.columns[0] == "trace" and set(runs["trace"]) == {GRID}
    assert set(runs["jobset"]) == {f"{GRID} set 1"}
    names = [*(name for name in LEARNERS for _ in range(2)), *BASELINES, *SAME_POOL, *SAME_POOL, "NAT"]
    assert list(runs["run"]) == names
    assert list(runs["seed"]) == [0, 1, 0, 1] + [0] * 3 + [0, 0, 1, 1] + [0]
    assert list(runs["kind"]) == ["RIG", "RIG", "ELA", "ELA"] + ["baseline"] * 8
    assert list(runs["matches"]) == [""] * 7 + ["ELA-EST-1"] * 4 + [""]
    assert list(runs["elastic"]) == [False, False, True, True] + [None] * 8
    assert set(runs.loc[runs["kind"] != "baseline", "reward_utilisation"]) == {"interval"}
    provenance = read_provenance(cli["set1"]["runs"])
    rigid_pool, load_pool = provenance["rigid_pool"], provenance["load_pool"]
    assert set(runs["rigid_pool"]) == {rigid_pool} and set(runs["load_pool"]) == {load_pool}
    assert (runs["jobs"] == 1500 - 1000).all()
    # FCFS and EDF on the rounded average pool of the elastic run of the same seed
    elastic = runs[runs["run"] == "ELA-EST-1"].set_index("seed")["mean_pool"]
    for name in SAME_POOL:
        fixed = runs[runs["run"] == name].set_index("seed")["mean_pool"]
        assert fixed.tolist() == pytest.approx([max(1, round(elastic[seed])) for seed in fixed.index], rel=1e-12)
    pools = runs.groupby("run")["mean_pool"].mean()
    assert pools["FCFS P_max"] == pytest.approx(pool_levels(load_pool)[-1], rel=1e-12)  # the elastic levels' top
    # core-hours: the pool's area from the first online submission to the last completion
    nat = runs["run"] == "NAT"
    assert (runs.loc[~nat, "core_hours"] > 0).all() and runs.loc[nat, "core_hours"].isna().all()
    assert pools[["FCFS", "EDF", "RIG-EST-1"]].tolist() == pytest.approx([rigid_pool] * 3, rel=1e-12)
    assert pools["ELA-EST-1"] != pytest.approx(rigid_pool)
    # NAT's pool is the site's own, not ours; the seeds differ
    assert np.isnan(pools["NAT"])
    rigid = runs[runs["run"] == "RIG-EST-1"]
    assert rigid["W_interactive_mean"].iloc[0] != rigid["W_interactive_mean"].iloc[1]


def test_without_a_recorded_wait_for_one_online_job_there_is_no_nat(cli):
    assert cli["codes"]["set2"] == 0
    runs = pd.read_parquet(cli["set2"]["runs"])
    assert set(runs["jobset"]) == {f"{GRID} set 2"}
    assert list(runs["run"]) == [*(name for name in LEARNERS for _ in range(2)), *BASELINES, *SAME_POOL, *SAME_POOL]
    assert "NAT" not in set(pd.read_parquet(cli["set2"]["series"])["run"])


def test_series_one_row_per_online_job_and_run_seed_0(cli):
    series = pd.read_parquet(cli["set1"]["series"])
    runs = pd.read_parquet(cli["set1"]["runs"])
    assert series.columns[0] == "trace" and set(series["trace"]) == {GRID}
    assert list(series["run"].unique()) == [*LEARNERS, *BASELINES, *SAME_POOL, "NAT"]
    online = np.arange(PRE_TRAINING, SET_JOBS)
    for name, part in series.groupby("run", sort=False):
        np.testing.assert_array_equal(part["job"], online)
        np.testing.assert_array_equal(part["counted"], (online >= PRE_TRAINING + 500) & (online < SET_JOBS - 500))
        np.testing.assert_allclose(part["wait"], part["start"] - part["submit"])
        assert (part["wait"] >= 0).all()
        # the seed-0 row's metrics are the series' counted jobs
        row = runs[(runs["run"] == name) & (runs["seed"] == 0)].iloc[0]
        counted = part[part["counted"]]
        assert counted.loc[counted["interactive"], "W"].mean() == pytest.approx(row["W_interactive_mean"], rel=1e-12)
        assert counted.loc[~counted["interactive"], "W"].mean() == pytest.approx(row["W_batch_mean"], rel=1e-12)
    (jobs,) = consecutive_sets(read_workload(cli["grid_file"]), GRID, SET_JOBS, 1, PRE_TRAINING)
    nat = series[series["run"] == "NAT"]
    np.testing.assert_allclose(nat["wait"], jobs.recorded_wait[online])


def test_pools_of_the_learner_runs_seed_0(cli):
    pools = pd.read_parquet(cli["set1"]["pools"])
    provenance = read_provenance(cli["set1"]["pools"])
    assert pools.columns[0] == "trace" and list(pools["run"].unique()) == LEARNERS
    assert set(pools.loc[pools["run"] == "RIG-EST-1", "pool"]) == {provenance["rigid_pool"]}  # the site's cores
    elastic = pools[pools["run"] == "ELA-EST-1"]
    # the elastic pool starts from the load-matched pool and moves among its levels
    assert len(elastic) > 1 and elastic["pool"].iloc[0] == provenance["load_pool"]
    assert set(elastic["pool"].iloc[1:]) <= set(pool_levels(provenance["load_pool"]))
    assert elastic["time"].is_monotonic_increasing


def test_run_twice_gives_the_same_files(cli):
    assert cli["codes"]["again"] == 0
    for name in OUTPUTS:
        first, second = cli["set1"][name], cli["again"][name]
        pd.testing.assert_frame_equal(pd.read_parquet(first), pd.read_parquet(second))
        assert read_provenance(first) == read_provenance(second)
        assert first.read_bytes() == second.read_bytes()  # nothing time-dependent is embedded


# -- 2. errors -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def grid_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("elastic_errors") / "grid.parquet"
    write_workload(grid_workload(), path)
    return path


def run_cli(capsys, workload, outdir, *extra, set_number="1", runs=RUNS, seeds="1", set_jobs=SET_JOBS):
    argv = run_argv(workload, outdir, GRID, set_number, runs, seeds, *extra)
    argv[argv.index("--set-jobs") + 1] = str(set_jobs)
    code = main(argv)
    return code, capsys.readouterr().err


def assert_nothing_written(outdir) -> None:
    assert not any(path.exists() for path in outputs(outdir).values())
    assert not outdir.exists() or not any(outdir.iterdir())  # no temporary file either


def test_a_workload_without_groups_is_named(capsys, tmp_path):
    path = tmp_path / "nogroups.parquet"
    write_workload(replace(grid_workload(), group=np.full(JOBS, -1)), path)
    code, err = run_cli(capsys, path, tmp_path / "out")
    assert code == 2
    assert err.startswith(f"simcore elastic-run: error: {path}: traces/GRID-2006.swf: no job records its group")
    assert "field 13" in err
    assert_nothing_written(tmp_path / "out")


def test_a_workload_without_serial_jobs_is_named(capsys, tmp_path):
    path = tmp_path / "parallel.parquet"
    write_workload(replace(grid_workload(), procs=np.full(JOBS, 2)), path)
    code, err = run_cli(capsys, path, tmp_path / "out")
    assert code == 2
    assert err.startswith(f"simcore elastic-run: error: {path}: traces/GRID-2006.swf: no serial job (q = 1)")
    assert_nothing_written(tmp_path / "out")


def test_set_beyond_the_sets_names_the_file_and_the_count(capsys, grid_file, tmp_path):
    code, err = run_cli(capsys, grid_file, tmp_path / "out", set_number="99")
    assert (code, err) == (
        2,
        f"simcore elastic-run: error: {grid_file}: {GRID} has 2 sets of {SET_JOBS} serial jobs, no set 99\n",
    )
    assert_nothing_written(tmp_path / "out")


@pytest.mark.parametrize("set_number", ["0", "-1", "abc"])
def test_set_not_a_set_number(capsys, grid_file, tmp_path, set_number):
    code, err = run_cli(capsys, grid_file, tmp_path / "out", set_number=set_number)
    expected = f"{grid_file}: --set must be a set number (from 1) or all, got {set_number!r}"
    assert (code, err) == (2, f"simcore elastic-run: error: {expected}\n")
    assert_nothing_written(tmp_path / "out")


@pytest.mark.parametrize("option", ["--seeds", "--pre-training", "--set-jobs"])
@pytest.mark.parametrize("value", ["0", "-5"])
def test_counts_below_one_are_argument_errors(capsys, grid_file, tmp_path, option, value):
    argv = run_argv(grid_file, tmp_path / "out", GRID, "1", {"RIG-EST-1": RUNS["RIG-EST-1"]}, "1")
    argv[argv.index(option) + 1] = value
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert f"simcore elastic-run: error: argument {option}: must be >= 1, got {value}" in capsys.readouterr().err
    assert_nothing_written(tmp_path / "out")


@pytest.mark.parametrize(
    "options, message",
    [
        (
            {"elastic": False, "model": "EST"},
            "run 'X' needs the keys elastic, model, lambda (optional: utilisation, pre_training_pool, pool_request)",
        ),
        ({"elastic": False, "model": "EST", "lambda": 1, "seed": 3}, "run 'X' needs the keys"),
        ({"elastic": False, "model": "SARSA", "lambda": 1}, "run 'X': model 'SARSA': choose one of ORA, EST"),
        ({"elastic": True, "model": "ORA", "lambda": 1.5}, "run 'X': lambda 1.5: must be in [0, 1]"),
        ({"elastic": True, "model": "EST", "lambda": -0.1}, "run 'X': lambda -0.1: must be in [0, 1]"),
        (
            {"elastic": True, "model": "EST", "lambda": 1, "utilisation": "mean"},
            "run 'X': utilisation 'mean': choose one of interval, cumulative",
        ),
        (
            {"elastic": True, "model": "EST", "lambda": 1, "pre_training_pool": "EDF"},
            "run 'X': pre_training_pool 'EDF': choose one of explore, rigid",
        ),
    ],
    ids=["missing key", "extra key", "model", "lambda above 1", "lambda below 0", "utilisation", "pre-training pool"],
)
def test_bad_runs_are_argument_errors(capsys, grid_file, tmp_path, options, message):
    # an argparse type error: argparse prints the usage and the error and exits with 2
    with pytest.raises(SystemExit) as exit_info:
        run_cli(capsys, grid_file, tmp_path / "out", runs={"X": options})
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert f"simcore elastic-run: error: argument --runs: {message}" in err
    assert_nothing_written(tmp_path / "out")


@pytest.mark.parametrize(
    "runs",
    [
        "[]",
        "{}",
        json.dumps({"X": {"elastic": "false", "model": "EST", "lambda": 1}}),
        json.dumps({"X": {"elastic": False, "model": "EST", "lambda": "1"}}),
        json.dumps({"X": [False, "EST", 1]}),
    ],
    ids=["a list, not an object", "no run", "elastic a string", "lambda a string", "a run as a list"],
)
def test_runs_of_the_wrong_json_types_are_argument_errors(capsys, grid_file, tmp_path, runs):
    with pytest.raises(SystemExit) as exit_info:
        run_cli(capsys, grid_file, tmp_path / "out", runs=runs)
    assert exit_info.value.code == 2
    assert "simcore elastic-run: error: argument --runs" in capsys.readouterr().err
    assert_nothing_written(tmp_path / "out")


def test_a_set_of_not_more_than_1000_online_jobs_is_an_error(capsys, grid_file, tmp_path):
    runs = {"RIG-EST-1": RUNS["RIG-EST-1"]}
    code, err = run_cli(capsys, grid_file, tmp_path / "out", runs=runs, set_jobs=PRE_TRAINING + 1000)
    assert (code, err) == (
        2,
        f"simcore elastic-run: error: {grid_file}: {GRID} set 1: 1000 online jobs, not more than the 1000 left out\n",
    )
    assert_nothing_written(tmp_path / "out")
    # one more online job is enough
    code, err = run_cli(capsys, grid_file, tmp_path / "out", runs=runs, set_jobs=PRE_TRAINING + 1001)
    assert (code, [line.split(", ")[0] for line in err.splitlines()]) == (
        0,
        [f"{GRID} set 1 learner runs: 1/1 (100 %)", f"{GRID} set 1 baselines: 2/2 (100 %)"],  # progress only
    )
    assert (pd.read_parquet(outputs(tmp_path / "out")["runs"])["jobs"] == 1).all()


def test_run_logs_its_progress_per_learner_run_then_per_baseline(capsys, grid_file, tmp_path, monkeypatch):
    """A line on stderr after each learner run (a setting and a seed) and each baseline, named by
    the job set, with the time left but on the last line of each."""
    monkeypatch.setattr(study, "progress", partial(progress, every=0))  # a line after every run
    code, err = run_cli(capsys, grid_file, tmp_path / "out", seeds="2", set_jobs=PRE_TRAINING + 1001)
    assert code == 0
    lines = err.splitlines()
    expected = [f"{GRID} set 1 learner runs: {done}/4 ({25 * done} %)" for done in range(1, 5)]
    expected += [f"{GRID} set 1 baselines: {done}/7 ({round(100 * done / 7)} %)" for done in range(1, 8)]
    assert [line.split(", ")[0] for line in lines] == expected
    assert [line.endswith("elapsed") for line in lines] == [False] * 3 + [True] + [False] * 6 + [True]
    assert all(line.endswith(" left") for line in lines if not line.endswith("elapsed"))
    assert len(pd.read_parquet(outputs(tmp_path / "out")["runs"])) == 4 + 7 + 1  # and NAT


# -- 3. a VO profile and compressed submissions --------------------------------------------------


def test_a_vo_profile_and_time_compression_on_a_model_workload(cli):
    assert cli["codes"]["model"] == 0
    workload = read_workload(cli["model_file"])
    assert np.all(workload.group < 0) and np.any(workload.procs > 1)  # no groups, parallel jobs too
    provenance = read_provenance(cli["model"]["runs"])
    assert provenance["vo_source"] == (
        "the fitted lpc-egee VO profile (seed 4; docs/elastic.md), submissions compressed 5 times"
    )
    assert provenance["time_compression"] == 5.0 and provenance["seeds"] == 1
    profiled = apply_vo_profile(workload, "lpc-egee", 4)
    (plain,) = consecutive_sets(profiled, MODEL, SET_JOBS, 1, PRE_TRAINING)
    (compressed,) = consecutive_sets(replace(profiled, submit=profiled.submit / 5), MODEL, SET_JOBS, 1, PRE_TRAINING)
    assert provenance["load_pool"] == compressed.load_pool
    assert abs(compressed.load_pool - 5 * plain.load_pool) <= 3 and plain.load_pool >= 3
    assert provenance["groups"] == list(compressed.groups)
    # the series' submissions are the profile's divided by 5; no recorded waits, so no NAT
    series = pd.read_parquet(cli["model"]["series"])
    rig = series[series["run"] == "RIG-EST-1"]
    np.testing.assert_allclose(rig["submit"], plain.submit[PRE_TRAINING:] / 5)
    runs = pd.read_parquet(cli["model"]["runs"])
    assert list(runs["run"]) == [*LEARNERS, *BASELINES, *SAME_POOL]
    assert set(runs["load_pool"]) == {compressed.load_pool} and set(runs["rigid_pool"]) == {compressed.site_pool}


# -- 4. elastic-tables ---------------------------------------------------------------------------


def all_runs(cli) -> pd.DataFrame:
    return pd.concat([pd.read_parquet(path) for path in cli["inputs"]], ignore_index=True)


def test_tables_runs_and_summary(cli):
    assert cli["codes"]["tables"] == 0
    tables = cli["tables"]
    runs = all_runs(cli)
    pd.testing.assert_frame_equal(pd.read_parquet(tables / "runs.parquet"), runs)
    provenance = read_provenance(tables / "runs.parquet")
    assert provenance["command"] == "elastic-tables" and provenance["runs"] == cli["inputs"]
    summary = pd.read_csv(tables / "summary.csv")
    grid_names = [*LEARNERS, *BASELINES, *SAME_POOL, "NAT"]
    assert list(zip(summary["trace"], summary["run"])) == [
        *((GRID, name) for name in grid_names),
        *((MODEL, name) for name in [*LEARNERS, *BASELINES, *SAME_POOL]),
    ]
    # seeds x sets: the learners and their same-pool baselines 2 x 2 on GRID, 1 x 1 on MODEL; the other
    # baselines once per set; NAT in set 1 only
    assert summary["runs"].tolist() == [4, 4, 2, 2, 2, 4, 4, 1] + [1] * 7
    for metric in SUMMARISED:
        for stat in ("mean", "std", "p10", "p90"):
            assert f"{metric}_{stat}" in summary
    for (trace, name), row in summary.set_index(["trace", "run"]).iterrows():
        values = runs.loc[(runs["trace"] == trace) & (runs["run"] == name), "W_interactive_mean"]
        assert row["W_interactive_mean_mean"] == pytest.approx(values.mean(), rel=1e-12)
        assert row["W_interactive_mean_std"] == pytest.approx(values.std(ddof=0), rel=1e-12, abs=1e-15)
        assert row["W_interactive_mean_p10"] == pytest.approx(values.quantile(0.1), rel=1e-12)
        assert row["W_interactive_mean_p90"] == pytest.approx(values.quantile(0.9), rel=1e-12)


def test_tables_speedups(cli):
    speedups = pd.read_csv(cli["tables"] / "speedups.csv")
    runs = all_runs(cli)
    assert set(speedups.columns) == {"jobset", "seed", "run", "delay", "delay_rigid", "speedup", "trace"}
    assert len(speedups) == 2 * 2 + 1 and set(speedups["run"]) == {"ELA-EST-1"}
    assert speedups.groupby("trace").size().to_dict() == {GRID: 4, MODEL: 1}
    delay = runs.set_index(["jobset", "seed", "run"])["delay_interactive_mean"]
    for row in speedups.itertuples(index=False):
        elastic, rigid = delay[(row.jobset, row.seed, "ELA-EST-1")], delay[(row.jobset, row.seed, "RIG-EST-1")]
        assert (row.delay, row.delay_rigid) == (elastic, rigid)
        if rigid > 0:
            assert row.speedup == pytest.approx(1 - elastic / rigid, rel=1e-12)
        else:  # no delay to speed up
            assert np.isnan(row.speedup)


def test_tables_markdown(cli):
    text = cli["markdown"].read_text()
    assert text.startswith("## Responsive scheduling and elastic provisioning")
    grid, model = text.index(f"### {GRID}\n"), text.index(f"### {MODEL}\n")
    claims_at = text.index("### The paper's claims")
    assert grid < model < claims_at
    provenances = [read_provenance(cli[name]["runs"]) for name in ("set1", "set2")]
    rigid, load = ({p[key] for p in provenances} for key in ("rigid_pool", "load_pool"))
    assert (
        f"2 job set(s) ({GRID} set 1, {GRID} set 2), 2 seed(s), rigid pool {rigid.pop()} (the site's "
        f"{provenances[0]['rigid_pool']} cores), elastic levels from the load-matched pool "
        f"{', '.join(str(p['load_pool']) for p in provenances)}; VOs from the trace's groups." in text[grid:model]
    )
    assert not rigid  # one site: one rigid pool
    assert (
        "VOs from the fitted lpc-egee VO profile (seed 4; docs/elastic.md), submissions compressed 5 times."
        in text[model:claims_at]
    )
    assert "| NAT | 1 |" in text[grid:model] and "| NAT |" not in text[model:claims_at]
    assert f"(paper {ELASTIC_SPEEDUP['ELA-EST-1']:.0f} %)" in text[grid:model]
    table = text[claims_at:]
    assert "| trace | claim | the paper | outcome | our numbers | why it does not hold |" in table
    checked = claims(all_runs(cli), pd.read_csv(cli["tables"] / "speedups.csv"))
    for row in checked.itertuples(index=False):  # every claim of every trace, as computed
        reason = "" if pd.isna(row.reason) else row.reason
        assert f"| {row.trace} | {row.claim} | {row.paper} | {row.outcome} | {row.numbers} | {reason} |" in table
    assert set(checked.loc[checked["trace"] == GRID, "claim"]) > set(checked.loc[checked["trace"] == MODEL, "claim"])
    assert not any("NAT" in claim for claim in checked.loc[checked["trace"] == MODEL, "claim"])  # no NAT on a model
    # the job sets beside LAL's workload
    assert "| LAL (the paper) | 9,500 |" in text
    sets = pd.read_csv(cli["tables"] / "job_sets.csv")
    assert list(sets["jobset"]) == [f"{GRID} set 1", f"{GRID} set 2", f"{MODEL} set 1"]


def test_the_lal_shaped_model_runs_on_its_81_cores_and_is_not_a_reproduction_row(tmp_path):
    """`simcore model --model lal` through the study: the rigid pool is the model's 81 cores, its VOs
    are named as drawn, and its rows stay out of the comparison with the paper's tables."""
    model = tmp_path / "lal.parquet"
    assert (
        main(["model", "--model", "lal", "--jobs", "1600", "--machine-size", "81", "--seed", "3", "-o", str(model)])
        == 0
    )
    runs = json.dumps({"RIG-EST-1": {"elastic": False, "model": "EST", "lambda": 1.0}})
    files = outputs(tmp_path / "out")
    command = ["elastic-run", str(model), "--trace", "lal-81", "--set", "all", "--pre-training", "100"]
    written = ["-o", str(files["runs"]), "--series", str(files["series"]), "--pools", str(files["pools"])]
    assert main([*command, "--seeds", "1", "--runs", runs, *written]) == 0
    provenance = read_provenance(files["runs"])
    assert provenance["vo_source"] == "the lal model's groups (seed 3)"
    assert provenance["rigid_pool"] == 81 and set(pd.read_parquet(files["runs"])["rigid_pool"]) == {81}
    rows = tmp_path / "rows.csv"
    tables = [
        "elastic-tables",
        str(files["runs"]),
        "--outdir",
        str(tmp_path / "t"),
        "--markdown",
        str(tmp_path / "r.md"),
    ]
    assert main([*tables, "--rows", str(rows)]) == 0
    assert pd.read_csv(rows).empty


def test_tables_rows_of_the_real_groups_trace_only(cli):
    rows = pd.read_csv(cli["rows"])
    runs = all_runs(cli)
    assert list(rows.columns) == REPRODUCTION_COLUMNS
    assert set(rows["paper"]) == {"elastic-2009"}
    assert all(row.startswith(f"{GRID} ") for row in rows["row"])
    # RIG-EST-1, ELA-EST-1 and NAT: each published column, and ELA-EST-1's speedup
    cells = rows[rows["column"] != "speedup %"]
    assert list(dict.fromkeys(cells["row"])) == [f"{GRID} {name}" for name in ("RIG-EST-1", "ELA-EST-1", "NAT")]
    assert len(cells) == 3 * len(ELASTIC_TABLE_COLUMNS)
    for row in cells.itertuples(index=False):
        name = row.row.removeprefix(f"{GRID} ")
        assert row.table == ("Tables 4-5" if name.startswith("ELA") else "Tables 2-3")
        assert row.published == ELASTIC_TABLES[name][ELASTIC_TABLE_COLUMNS.index(row.column)]
        ours = runs.loc[(runs["trace"] == GRID) & (runs["run"] == name), OURS[row.column]].mean()
        assert row.ours == pytest.approx(ours, rel=1e-12)
        assert row.difference == pytest.approx(ours - row.published, rel=1e-9, abs=1e-9)
    (speedup,) = rows[rows["column"] == "speedup %"].itertuples(index=False)
    assert (speedup.table, speedup.row, speedup.published) == ("Table 5", f"{GRID} ELA-EST-1", 64.0)
    gains = pd.read_csv(cli["tables"] / "speedups.csv")
    ours = gains[gains["trace"] == GRID]
    assert speedup.ours == pytest.approx(100 * (1 - ours["delay"].mean() / ours["delay_rigid"].mean()), rel=1e-12)


# -- 5. plot-elastic -----------------------------------------------------------------------------


def test_plot_writes_the_four_figures(cli):
    assert cli["codes"]["plot"] == 0
    expected = {f"{GRID}.{name}.{ext}" for name in FIGURES for ext in ("png", "pdf")}
    files = {path.name: path for path in cli["figures"].iterdir()}
    assert set(files) == expected and len(files) == 8
    assert all(path.stat().st_size > 1000 for path in files.values())
    for name in FIGURES:
        assert files[f"{GRID}.{name}.png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert files[f"{GRID}.{name}.pdf"].read_bytes()[:5] == b"%PDF-"
