"""slurm.conf as Slurm 22.05 reads it (simcore.workloads.slurm_conf): time strings, hostlists,
nodes, partitions, SelectTypeParameters, SchedulerParameters and the Priority* settings with
Slurm's defaults, and errors that name the line."""

from __future__ import annotations

import json

import pytest

from simcore.workloads.slurm_conf import (
    PRIORITY_DEFAULTS,
    SCHEDULER_DEFAULTS,
    SlurmConfError,
    expand_hostlist,
    read_slurm_conf,
    time_minutes_in_seconds,
    time_seconds,
)

# A configuration like the CI's test clusters: many small nodes, two overlapping partitions,
# memory as a consumable, multifactor priority with fair share.
SITE = """\
# a comment line
ClusterName=twin
SlurmctldHost=vm(127.0.0.1)
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,bf_window=60,bf_continue,\\
default_queue_depth=50,some_unmodelled_option=3
selecttype=select/cons_tres
SelectTypeParameters=CR_Core_Memory
PriorityType=priority/multifactor
PriorityWeightAge=1000   # trailing comment
PriorityWeightJobSize=1000
PriorityWeightFairshare=10000
PriorityMaxAge=0:30
PriorityCalcPeriod=1
PriorityDecayHalfLife=1-0
PriorityFlags=SMALL_RELATIVE_TO_TIME
NodeName=DEFAULT RealMemory=2000
NodeName=n[01-16] CPUs=2 Port=[17001-17016]
NodeName=big Sockets=2 CoresPerSocket=8 ThreadsPerCore=2 RealMemory=64000 Weight=10
PartitionName=DEFAULT MaxTime=INFINITE State=UP
PartitionName=all Nodes=ALL Default=YES
PartitionName=short Nodes=n[01-08],big MaxTime=30 DefaultTime=5 OverSubscribe=EXCLUSIVE
"""


@pytest.fixture
def site(tmp_path):
    path = tmp_path / "slurm.conf"
    path.write_text(SITE)
    return read_slurm_conf(path)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("5", 300),  # minutes
        ("5:30", 330),  # minutes:seconds
        ("1:00:00", 3600),  # hours:minutes:seconds
        ("7-0", 7 * 86400),  # days-hours
        ("1-2:3", 86400 + 2 * 3600 + 180),
        ("1-2:3:4", 86400 + 2 * 3600 + 180 + 4),
        ("INFINITE", None),
        ("unlimited", None),
        ("-1", None),
    ],
)
def test_time_strings_read_as_slurm_reads_them(text, seconds):
    assert time_seconds(text) == seconds


def test_minute_settings_round_up_to_whole_minutes():
    assert time_minutes_in_seconds("0:30") == 60
    assert time_minutes_in_seconds("2:01") == 180
    assert time_minutes_in_seconds("7-0") == 7 * 86400
    with pytest.raises(ValueError, match="not a Slurm time"):
        time_seconds("5m")


def test_hostlists_expand_in_order_with_their_padding():
    assert expand_hostlist("node[01-03,7],gpu1") == ["node01", "node02", "node03", "node7", "gpu1"]
    assert expand_hostlist("r[1-2]n[1-2]") == ["r1n1", "r1n2", "r2n1", "r2n2"]
    assert expand_hostlist("vm") == ["vm"]
    with pytest.raises(ValueError, match="unbalanced"):
        expand_hostlist("n[1-2")
    with pytest.raises(ValueError, match="runs backwards"):
        expand_hostlist("n[3-1]")


def test_nodes_in_file_order_with_defaults_and_counted_cpus(site):
    assert list(site.nodes)[:3] == ["n01", "n02", "n03"] and len(site.nodes) == 17
    assert (site.nodes["n16"].cpus, site.nodes["n16"].memory_mb, site.nodes["n16"].weight) == (2, 2000, 1)
    big = site.nodes["big"]
    assert (big.cpus, big.memory_mb, big.weight) == (32, 64000, 10)  # 2 sockets x 8 cores x 2 threads


def test_partitions_their_nodes_limits_and_sharing(site):
    everything, short = site.partitions["all"], site.partitions["short"]
    assert everything.nodes == tuple(site.nodes) and everything.default and everything.max_time is None
    assert short.nodes == (*(f"n{k:02d}" for k in range(1, 9)), "big")
    assert (short.max_time, short.default_time, short.exclusive, short.default) == (1800, 300, True, False)
    assert site.default_partition() is everything


def test_selection_scheduler_and_priority_settings(site):
    assert (site.select_type, site.consumable, site.memory_consumable) == ("select/cons_tres", "CR_Core", True)
    assert site.backfill
    assert site.scheduler == {
        **SCHEDULER_DEFAULTS,
        "bf_interval": 1,
        "bf_window": 3600,
        "bf_continue": True,
        "default_queue_depth": 50,
    }
    assert site.priority == {
        **PRIORITY_DEFAULTS,
        "type": "priority/multifactor",
        "weight_age": 1000,
        "weight_job_size": 1000,
        "weight_fairshare": 10000,
        "max_age": 60,
        "calc_period": 60,
        "decay_half_life": 86400,
        "flags": ("SMALL_RELATIVE_TO_TIME",),
        "small_relative_to_time": True,
    }
    assert "PriorityWeightAge" in site.keys_used and "ClusterName" not in site.keys_used


@pytest.mark.parametrize(
    ("parameters", "counted"),
    [
        ("CR_CPU", ("CR_CPU", False)),
        ("CR_Socket_Memory", ("CR_Socket", True)),
        ("CR_Core,CR_Memory", ("CR_Core", True)),  # the items add up
        ("CR_LLN,cr_core", ("CR_Core", False)),  # parameters not modelled are passed over
    ],
)
def test_select_type_parameters_add_up(tmp_path, parameters, counted):
    path = tmp_path / "slurm.conf"
    path.write_text(f"NodeName=a CPUs=1\nPartitionName=p Nodes=a\nSelectTypeParameters={parameters}\n")
    conf = read_slurm_conf(path)
    assert (conf.consumable, conf.memory_consumable) == counted


def test_an_empty_configuration_gets_slurms_defaults(tmp_path):
    path = tmp_path / "slurm.conf"
    path.write_text("NodeName=one CPUs=32\nPartitionName=p Nodes=one\n")
    conf = read_slurm_conf(path)
    assert conf.scheduler == SCHEDULER_DEFAULTS and conf.priority == PRIORITY_DEFAULTS
    # Slurm 22.05: select/linear (whole nodes) unless named; cons_tres counts CR_Core_Memory by default
    assert (conf.select_type, conf.consumable, conf.memory_consumable) == ("select/linear", "CR_Core", True)
    assert conf.scheduler_type == "sched/backfill"
    assert conf.priority["fair_tree"] and conf.default_partition().name == "p"
    path.write_text("NodeName=one CPUs=32\nPartitionName=p Nodes=one\nPriorityFlags=NO_FAIR_TREE\n")
    assert not read_slurm_conf(path).priority["fair_tree"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("NodeName=a CPUs=x\nPartitionName=p Nodes=a\n", r"slurm.conf:1: 'x' is not an integer"),
        ("NodeName=a CPUs=1\nPartitionName=p Nodes=b\n", r"slurm.conf:2: partition p names nodes .*'b'"),
        ("NodeName=a CPUs=1\nPartitionName=p Nodes=a\nPriorityMaxAge=soon\n", r"slurm.conf:3: PriorityMaxAge"),
        ("NodeName=a CPUs=1\n", "no PartitionName line"),
        ("NodeName=a CPUs=1\nNodeName=a CPUs=2\nPartitionName=p Nodes=a\n", "node a is defined twice"),
        ("Include other.conf\nNodeName=a CPUs=1\nPartitionName=p Nodes=a\n", "slurm.conf:1: Include"),
        ("NodeName=a CPUs=1\nPartitionName=p Nodes=a\nSchedulerParameters=bf_interval=0\n", "at least 1 s"),
        ("NodeName=a CPUs=1\nPartitionName=p Nodes=a\nSelectTypeParameters=CR_Memory\n", "slurm.conf:3: .*name one of"),
    ],
)
def test_a_bad_value_names_the_file_and_line(tmp_path, text, message):
    path = tmp_path / "slurm.conf"
    path.write_text(text)
    with pytest.raises(SlurmConfError, match=message):
        read_slurm_conf(path)


def test_the_command_prints_what_it_read(site, capsys):
    from simcore.cli import main

    assert main(["slurm-conf", site.path]) == 0
    printed = capsys.readouterr().out
    assert "17: 16 x 2 CPUs 2,000 MB, 1 x 32 CPUs 64,000 MB" in printed
    assert "partition     short: 9 nodes, 48 CPUs, MaxTime 1,800 s exclusive" in printed
    assert main(["slurm-conf", site.path, "--json"]) == 0
    read = json.loads(capsys.readouterr().out)
    assert read["scheduler"]["bf_interval"] == 1 and read["nodes"]["big"]["cpus"] == 32
