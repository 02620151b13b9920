"""A site's own logs as campaign traces (simcore.campaign.local_traces): the configuration's
`local_traces` checked key by key, the studies each joins, and the sha256 of the log in the
provenance of what is drawn from it (simcore.workloads.files.trace_lineage)."""

import copy
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from campaign.test_campaign_settings import CATALOGUE, CONFIG, registry

from simcore.campaign.layout import converted_trace, split_conversion
from simcore.campaign.local_traces import filter_options, import_options, joined, local_traces, log_file
from simcore.campaign.settings import RUN_ROOTS, Campaign
from simcore.campaign.studies import Study
from simcore.cli import main
from simcore.engine.swf import detect_format
from simcore.workloads.files import file_sha256, read_provenance, read_workload, write_parquet

SACCT_HEADER = "JobID|JobIDRaw|User|Group|Partition|Submit|Start|End|Timelimit|State|AllocCPUS|ReqCPUS|ReqMem\n"


DAY = 86400


def swf_text(*submits) -> str:
    """An SWF log of one-processor jobs submitted at `submits` (seconds)."""
    jobs = "".join(f"{n} {submit} 5 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n" for n, submit in enumerate(submits, 1))
    return "; MaxProcs: 8\n" + jobs


@pytest.fixture
def site_files(tmp_path, write_swf):
    # submits in weeks 0, 1 and 2: long enough to resample (one interior week)
    swf = write_swf(swf_text(0, 8 * DAY, 15 * DAY), "site.swf")
    dump = tmp_path / "site.sacct"
    dump.write_text(SACCT_HEADER)
    return swf, dump


def check(declared, site_studies=("own",)):
    return local_traces(declared, CATALOGUE, CONFIG["models"], site_studies)


def test_a_path_alone_is_a_local_trace_with_every_default(site_files):
    swf, dump = site_files
    entries = check({"site": str(swf), "slurm": {"path": str(dump), "machine_size": 64, "filter": "truncate"}})
    assert entries["site"] == {
        "path": str(swf),
        "format": "swf",
        "machine_size": None,
        "filter": None,
        "join": ["traces", "own"],
        "sacct": {},
        "slurm_conf": None,
        "slurm_assoc": None,
    }
    assert entries["slurm"]["format"] == "sacct" and entries["slurm"]["machine_size"] == 64
    assert joined(entries, "traces") == ["site", "slurm"]


def test_the_format_is_read_from_the_file(site_files, tmp_path):
    swf, dump = site_files
    assert detect_format(swf) == "swf" and detect_format(dump) == "sacct"
    gz = tmp_path / "x.swf.gz"
    gz.write_bytes(b"\x1f\x8b\x08\x00")
    assert detect_format(gz) == "swf"


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"path": "{swf}", "colour": 1}, "local_traces.site.colour: not a key of a local trace; known are path, "),
        ({"machine_size": 8}, "local_traces.site: needs `path`, the SWF file or sacct dump"),
        ({"path": "/nowhere/site.swf"}, "local_traces.site.path: /nowhere/site.swf is not a file"),
        ({"path": "{swf}", "format": "csv"}, "local_traces.site.format: 'csv', expected one of swf, sacct"),
        ({"path": "{swf}", "filter": "loose"}, "local_traces.site.filter: 'loose', expected one of strict, truncate"),
        (
            {"path": "{swf}", "machine_size": 0},
            "local_traces.site.machine_size: a positive number of processors, got 0",
        ),
        ({"path": "{swf}", "join": ["elastic"]}, "local_traces.site.join: 'elastic' is neither `traces` nor a study"),
        ({"path": "{swf}", "sacct": {"timezone": "UTC"}}, "local_traces.site.sacct: import options for a sacct dump"),
    ],
)
def test_a_bad_local_trace_is_refused_naming_its_key(site_files, entry, message):
    swf, _ = site_files
    entry = {key: value.format(swf=swf) if isinstance(value, str) else value for key, value in entry.items()}
    with pytest.raises(ValueError, match="config: " + message.replace("(", r"\(").replace("`", "`")):
        check({"site": entry})


TWIN = Path(__file__).resolve().parent.parent / "fixtures" / "slurm_twin"


def test_a_site_slurm_conf_and_association_tree_are_read_when_the_run_is_planned(site_files):
    _, dump = site_files
    fair = TWIN / "fair"
    entry = {"path": str(dump), "slurm_conf": str(fair / "slurm.conf"), "slurm_assoc": str(fair / "sshare.txt")}
    assert check({"site": entry})["site"]["slurm_assoc"] == str(fair / "sshare.txt")


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"slurm_conf": "/nowhere/slurm.conf"}, "local_traces.site.slurm_conf: /nowhere/slurm.conf is not a file"),
        ({"slurm_conf": "{fair}/slurm.conf"}, "local_traces.site.slurm_assoc: .*weighs fair share"),
        ({"slurm_assoc": "{fair}/sshare.txt"}, "local_traces.site.slurm_assoc: the association tree is for the Slurm"),
        ({"slurm_conf": "{fair}/sacct.txt"}, "local_traces.site.slurm_conf: .*sacct.txt:1: .* is not Key=Value"),
        (
            {"slurm_conf": "{fair}/slurm.conf", "slurm_assoc": "{fair}/slurm.conf"},
            "local_traces.site.slurm_assoc: .*slurm.conf",
        ),
    ],
)
def test_a_bad_site_slurm_entry_is_refused_naming_its_key(site_files, entry, message):
    _, dump = site_files
    entry = {"path": str(dump)} | {key: value.format(fair=TWIN / "fair") for key, value in entry.items()}
    with pytest.raises(ValueError, match="config: " + message):
        check({"site": entry})


def test_a_local_trace_cannot_take_a_catalogue_or_model_name(site_files):
    swf, _ = site_files
    with pytest.raises(ValueError, match="config: local_traces.A: A is already a catalogue trace"):
        check({"A": str(swf)})
    with pytest.raises(ValueError, match="config: local_traces.m1: m1 is already a model"):
        check({"m1": str(swf)})


def test_import_options_become_command_line_options():
    options = import_options({"timezone": "Europe/Paris", "partition": ["a b", "c"], "skip_bad_lines": True})
    assert options == "--timezone Europe/Paris --partition 'a b' --partition c --skip-bad-lines"


def site_registry():
    studies = registry()
    studies.register(
        Study("sites", rank=60, category="Sites", outputs=lambda root, chosen: [f"{root}/sites.md"], site_logs=True)
    )
    return studies


def site_campaign(local, only=None):
    config = copy.deepcopy(CONFIG)
    config["sites"] = {"traces": ["A"]}
    config["local_traces"] = local
    if only is not None:
        config["only"] = only
    return Campaign(config, CATALOGUE, site_registry())


def test_a_local_trace_joins_the_campaign_and_the_studies_taking_site_logs(site_files):
    swf, dump = site_files
    campaign = site_campaign({"site": str(swf), "slurm": {"path": str(dump), "join": ["sites"]}})
    chosen = campaign.settings(RUN_ROOTS["campaign"])
    assert chosen["traces"] == ["A", "B", "site"]
    assert chosen["sites"]["traces"] == ["A", "site", "slurm"]
    assert chosen["own"]["traces"] == ["B", "C"]  # a study that does not take site logs
    # the demo and the artifact configuration are fixed runs
    assert "site" not in campaign.settings(RUN_ROOTS["demo"])["traces"]
    assert "site" not in campaign.settings(RUN_ROOTS["artifact"])["traces"]


def test_only_a_local_trace_runs_every_study_it_joins_on_it_alone(site_files):
    swf, _ = site_files
    chosen = site_campaign({"site": str(swf)}, only="site").settings(RUN_ROOTS["campaign"])
    assert chosen["studies"] == {"fixed_policy": ["site"], "bandit": ["site"], "sites": ["site"]}
    assert set(chosen["skipped"]) == {"own", "learned_policies", "dynamic_scheduling"}


def test_a_log_too_short_to_resample_joins_only_the_studies_that_do_not_resample(tmp_path, write_swf):
    short = write_swf(swf_text(0, 240), "short.swf")  # 4 minutes: one week index
    dump = tmp_path / "short.sacct"
    dump.write_text(
        SACCT_HEADER + "1|1|u|g|p|2026-01-01T00:00:00|2026-01-01T00:00:05|2026-01-01T00:01:00|1|COMPLETED|1|1|1M\n"
    )
    for name, path, span in (("short", short, "4.0 min"), ("dump", dump, "0 s")):
        campaign = site_campaign({name: str(path)})
        chosen = campaign.settings(RUN_ROOTS["campaign"])
        assert name not in chosen["traces"] and chosen["sites"]["traces"] == ["A", name]
        why = f"{name} is too short: its submits span weeks 0..0; resampling drops the first and last week"
        assert all(why in note for note in chosen["notes"]) and len(chosen["notes"]) == 2  # fixed_policy, bandit
        assert {note.split(" runs without")[0] for note in chosen["notes"]} == {"fixed_policy", "bandit"}
        # `only` that trace: the studies that resample are skipped for that reason, the others run
        chosen = site_campaign({name: str(path)}, only=name).settings(RUN_ROOTS["campaign"])
        assert chosen["studies"] == {"sites": [name]}
        assert chosen["too_short"] == ["fixed_policy", "bandit"]
        assert chosen["skipped"]["fixed_policy"].startswith(why) and chosen["notes"] == []
        assert chosen["skipped"]["bandit"].endswith(f"({span} of submits)")
        announcement = site_campaign({name: str(path)}, only=name).announcement(RUN_ROOTS["campaign"])
        assert f"  skipped: fixed_policy: {why}" in announcement


def test_three_week_indices_are_long_enough_and_two_are_not(write_swf):
    week = 7 * DAY
    long_enough = site_campaign({"site": str(write_swf(swf_text(week - 1, week, 2 * week), "a.swf"))})
    assert "site" in long_enough.settings(RUN_ROOTS["campaign"])["traces"]
    too_short = site_campaign({"site": str(write_swf(swf_text(0, 2 * week - 1), "b.swf"))})
    assert "site" not in too_short.settings(RUN_ROOTS["campaign"])["traces"]


def test_a_log_that_cannot_be_read_at_planning_joins_and_its_conversion_says_why(tmp_path):
    dump = tmp_path / "odd.sacct"
    dump.write_text("JobIDRaw|State|Submit\n")  # no job: no span to judge
    chosen = site_campaign({"odd": str(dump)}).settings(RUN_ROOTS["campaign"])
    assert "odd" in chosen["traces"] and chosen["notes"] == []


def test_only_knows_local_trace_names(site_files):
    swf, _ = site_files
    with pytest.raises(ValueError, match=r"config: only: unknown traces or models \['elsewhere'\]"):
        site_campaign({"site": str(swf)}, only="elsewhere")


def test_site_logs_need_traces_of_their_own():
    with pytest.raises(ValueError, match="study x: site_logs needs traces of its own"):
        Study("x", rank=1, category="", outputs=lambda root, chosen: [], traces="campaign", site_logs=True)


def test_the_logs_sha256_follows_every_output_drawn_from_it(site_files, tmp_path):
    swf, dump = site_files
    workload_path = tmp_path / "site.parquet"
    # a converted sacct dump: the dump is the workload's input, with its sha256
    assert main(["filter", str(swf), "--source", str(dump), "-o", str(workload_path)]) == 0
    provenance = read_provenance(workload_path)
    assert provenance["input"] == str(dump) and provenance["input_sha256"] == file_sha256(dump)
    assert provenance["converted_from"] == {"path": str(swf), "sha256": file_sha256(swf)}
    assert read_workload(workload_path).source_sha256 == file_sha256(dump)
    lineage = {str(dump): file_sha256(dump)}
    assert provenance["traces"] == lineage
    # two levels down: a run of the workload, then a table of the runs
    runs = tmp_path / "runs.parquet"
    write_parquet(pd.DataFrame({"x": [1]}), runs, {"workload": str(workload_path)})
    table = tmp_path / "table.parquet"
    write_parquet(pd.DataFrame({"x": [1]}), table, {"inputs": [str(runs), str(tmp_path / "gone.parquet")]})
    assert read_provenance(runs)["traces"] == lineage == read_provenance(table)["traces"]


def test_generated_workloads_record_no_lineage(tmp_path):
    path = tmp_path / "model.parquet"
    assert main(["model", "--jobs", "300", "--machine-size", "16", "--seed", "1", "-o", str(path)]) == 0
    assert "traces" not in read_provenance(path)
    assert np.isnan(read_workload(path).recorded_wait).all()


def test_a_relative_path_is_found_in_the_working_directory_then_beside_the_workflow(site_files, tmp_path, monkeypatch):
    swf, _ = site_files
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    entries = local_traces({"site": swf.name}, CATALOGUE, {}, (), search=[swf.parent])
    assert entries["site"]["path"] == str(swf)
    (elsewhere / swf.name).write_text(swf.read_text())  # the working directory's own comes first
    assert local_traces({"site": swf.name}, CATALOGUE, {}, (), search=[swf.parent])["site"]["path"] == swf.name


def test_each_trace_is_filtered_from_its_log_with_its_own_options(site_files):
    swf, dump = site_files
    entries = check({"site": str(swf), "slurm dump": {"path": str(dump), "machine_size": 64, "filter": "truncate"}})
    # a local SWF file where it lies; a dump converted below resources/traces/, like a fetched trace
    assert log_file("site", entries) == str(swf)
    assert log_file("slurm dump", entries) == "resources/traces/slurm dump.swf.gz"
    assert log_file("A", entries) == "resources/traces/A.swf.gz"
    section = {"filter": "strict", "machine_size": {"A": 80}}
    assert filter_options("A", section, entries) == "--filter strict --machine-size 80"
    assert filter_options("site", section, entries) == "--filter strict"  # the header's size
    # its own filter and size, and the dump as the workload's source
    assert filter_options("slurm dump", section, entries) == f"--filter truncate --machine-size 64 --source {dump}"
    assert filter_options("slurm dump", {"filter": "strict", "machine_size": {"slurm dump": 8}}, entries).startswith(
        "--filter truncate --machine-size 8 "
    )
    # a converted trace is its log under the named filter mode, with the log's size and source
    assert log_file("site+batsim", entries) == str(swf)
    assert log_file("A+batsim", entries) == "resources/traces/A.swf.gz"
    assert filter_options("A+batsim", section, entries) == "--filter batsim --machine-size 80"
    assert filter_options("slurm dump+strict", section, entries) == f"--filter strict --machine-size 64 --source {dump}"


def test_only_a_filter_mode_after_the_mark_names_a_conversion():
    assert split_conversion("KTH-SP2+batsim") == ("KTH-SP2", "batsim")
    assert split_conversion("lab+2") == ("lab+2", None)  # a local trace's own name
    assert split_conversion(converted_trace("a+b", "truncate")) == ("a+b", "truncate")
