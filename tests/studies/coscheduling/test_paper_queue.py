"""The ASA_X paper's §4.4 queue (simcore.studies.coscheduling.paper_queue): the 45 jobs in the paper's
order, each class's numbers from the Slurm column of Table 2 at the machine's size."""

import numpy as np
import pytest

from simcore.engine.workload import PER_JOB_FIELDS
from simcore.reporting.published import ASAX_TABLE2_WORKFLOWS, ASAX_WORKFLOWS
from simcore.studies.coscheduling.paper_queue import (
    NODE_MEMORY_PER_CORE_KB,
    PAPER_LOAD_LABELS,
    PAPER_QUEUE_SIZES,
    paper_queue,
    workflow_classes,
    workflow_run_times,
)

# §4.4, one set in submission order: Montage, BLAST and Statistics at 8..64 cores, Synthetic at 16..64.
ONE_SET_CLASSES = ["Montage"] * 4 + ["BLAST"] * 4 + ["Statistics"] * 4 + ["Synthetic"] * 3
ONE_SET_SIZES = [8, 16, 32, 64] * 3 + [16, 32, 64]


def slurm(cores: int, workflow: str) -> dict:
    """Table 2's Slurm cells of one workflow at one cluster size, by column."""
    columns = ("runtime h", "runtime sd %", "CPU util %", "CPU util sd", "mem util %", "mem util sd")
    return dict(zip(columns, ASAX_TABLE2_WORKFLOWS[("SPACE", PAPER_LOAD_LABELS[cores], workflow)]))


def test_the_constants():
    assert PAPER_QUEUE_SIZES == (64, 128, 256)
    assert PAPER_LOAD_LABELS == {64: "8x", 128: "4x", 256: "2x"}
    assert all(label == f"{512 // cores}x" for cores, label in PAPER_LOAD_LABELS.items())  # 512 cores requested
    assert NODE_MEMORY_PER_CORE_KB == 4041386  # 185 GB per 48-core node (§4.1), whole KB
    assert ASAX_WORKFLOWS == ("Montage", "BLAST", "Statistics", "Synthetic")


@pytest.mark.parametrize("cores", PAPER_QUEUE_SIZES)
def test_the_queue_is_three_sets_of_the_15_jobs_in_the_papers_order_at_time_zero(cores):
    queue = paper_queue(cores)
    assert len(queue) == 45 and queue.machine_size == cores
    assert np.array_equal(queue.job_id, np.arange(1, 46))
    assert np.array_equal(queue.submit, np.zeros(45))
    assert queue.procs.tolist() == ONE_SET_SIZES * 3
    assert workflow_classes(cores).tolist() == ONE_SET_CLASSES * 3
    assert queue.procs[:15].sum() == 472 and queue.procs.sum() == 1416  # not §4.4's "512 cores"
    # one user per workflow class, numbered in ASAX_WORKFLOWS order
    assert queue.user.tolist() == [ASAX_WORKFLOWS.index(name) + 1 for name in ONE_SET_CLASSES] * 3
    assert "ASA_X paper queue" in queue.source and f"cores={cores}" in queue.source
    assert "walltime_factor=2" in queue.source
    # the three sets are the same jobs
    for field in ("run", "requested", "procs", "efficiency", "memory", "user"):
        values = getattr(queue, field).reshape(3, 15)
        assert (values == values[0]).all(), field


@pytest.mark.parametrize("cores", PAPER_QUEUE_SIZES)
@pytest.mark.parametrize("workflow", ASAX_WORKFLOWS)
def test_each_class_has_table_2s_slurm_mean_and_relative_sd_and_the_wider_job_runs_shorter(cores, workflow):
    queue, classes, published = paper_queue(cores), workflow_classes(cores), slurm(cores, workflow)
    run = queue.run[classes == workflow]
    assert len(run) == (9 if workflow == "Synthetic" else 12)
    assert run.mean() == pytest.approx(published["runtime h"] * 3600, rel=1e-12)
    assert run.std() / run.mean() == pytest.approx(published["runtime sd %"] / 100, rel=1e-12)  # population sd
    one_set = run[: len(run) // 3]
    assert (np.diff(one_set) < 0).all() and (one_set > 0).all()  # sizes ascend within a set


@pytest.mark.parametrize("cores", PAPER_QUEUE_SIZES)
def test_efficiency_and_memory_per_processor_are_table_2s_slurm_utilisations(cores):
    queue, classes = paper_queue(cores), workflow_classes(cores)
    for workflow in ASAX_WORKFLOWS:
        published, jobs = slurm(cores, workflow), classes == workflow
        assert (queue.efficiency[jobs] == published["CPU util %"] / 100).all()
        assert (queue.memory[jobs] == round(published["mem util %"] / 100 * NODE_MEMORY_PER_CORE_KB)).all()
        assert queue.memory[jobs] / NODE_MEMORY_PER_CORE_KB == pytest.approx(published["mem util %"] / 100, abs=1e-6)


def test_the_sizes_change_the_numbers_as_table_2_does():
    """The same jobs, but each size reads its own column: Montage's u falls from 0.45 to 0.21."""
    montage = {cores: paper_queue(cores).efficiency[0] for cores in PAPER_QUEUE_SIZES}
    assert montage == {64: 0.45, 128: 0.33, 256: 0.21}
    synthetic_hours = {cores: paper_queue(cores).run[12:15].mean() / 3600 for cores in PAPER_QUEUE_SIZES}
    assert synthetic_hours == pytest.approx({64: 0.49, 128: 0.50, 256: 0.48})


@pytest.mark.parametrize("factor", [1.0, 1.5, 2.0, 10.0])
def test_the_request_is_the_walltime_factor_times_the_run_which_it_does_not_change(factor):
    queue = paper_queue(128, walltime_factor=factor)
    assert np.array_equal(queue.requested, factor * queue.run)
    assert np.array_equal(queue.run, paper_queue(128).run)
    assert f"walltime_factor={factor:g}" in queue.source


def test_the_default_walltime_factor_is_two():
    queue = paper_queue(64)
    assert np.array_equal(queue.requested, 2.0 * queue.run)


def test_fewer_or_more_sets_repeat_the_same_15_jobs():
    one, five = paper_queue(256, sets=1), paper_queue(256, sets=5)
    assert len(one) == 15 and len(five) == 75 and len(workflow_classes(256, sets=5)) == 75
    assert np.array_equal(five.run, np.tile(one.run, 5)) and np.array_equal(five.procs, np.tile(one.procs, 5))


def test_the_queue_is_deterministic():
    first, again = paper_queue(64), paper_queue(64)
    for field in PER_JOB_FIELDS:
        assert np.array_equal(getattr(first, field), getattr(again, field), equal_nan=True), field
    assert first.source == again.source


def test_run_times_are_the_mean_scaled_by_the_standardised_narrowness():
    run = workflow_run_times(1000.0, 0.1, [16, 32, 64])
    z = np.sqrt(1.5)  # -log2 sizes -4, -5, -6: mean -5, population sd sqrt(2/3)
    assert run == pytest.approx([1000 * (1 + 0.1 * z), 1000.0, 1000 * (1 - 0.1 * z)])
    with pytest.raises(ValueError, match="gives a run time <= 0"):
        workflow_run_times(1000.0, 0.9, [16, 32, 64])


@pytest.mark.parametrize("cores", [32, 100, 512, 64.0, True, "64"])
def test_another_size_is_refused_naming_the_papers(cores):
    with pytest.raises(ValueError, match=r"runs on 64, 128 or 256 cores only, got"):
        paper_queue(cores)
    with pytest.raises(ValueError, match=r"runs on 64, 128 or 256 cores only"):
        workflow_classes(cores)


@pytest.mark.parametrize("factor", [0.99, 0.0, -2.0, float("nan"), float("inf")])
def test_a_walltime_factor_below_one_or_not_finite_is_refused(factor):
    with pytest.raises(ValueError, match="walltime_factor must be finite and >= 1"):
        paper_queue(64, walltime_factor=factor)


@pytest.mark.parametrize("sets", [0, -1, 1.5, True])
def test_fewer_than_one_set_is_refused(sets):
    with pytest.raises(ValueError, match="at least one set"):
        paper_queue(64, sets=sets)
    with pytest.raises(ValueError, match="at least one set"):
        workflow_classes(64, sets=sets)
