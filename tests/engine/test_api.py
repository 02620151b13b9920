"""The Python API: validation errors, segments, subsets, predictors, results."""

import numpy as np
import pandas as pd
import pytest

import simcore
from simcore.workloads.files import read_provenance, write_parquet


def small_workload(**overrides):
    arrays = dict(
        submit=[0, 0, 5, 7],
        run=[10, 4, 3, 8],
        requested=[20, 4, 6, 8],
        procs=[2, 3, 1, 4],
        machine_size=4,
        user=[1, 2, 1, 1],
    )
    arrays.update(overrides)
    return simcore.Workload.from_arrays(**arrays)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"order": "FIFO"}, "unknown queue order 'FIFO'"),
        ({"backfill": "sideways"}, "unknown backfill variant 'sideways'"),
        ({"threshold": -1}, "threshold must be a finite number of seconds >= 0"),
        ({"threshold": float("nan")}, "threshold must be a finite number"),
        ({"estimate": "psychic"}, "unknown estimate 'psychic'"),
        ({"estimate": [1.0, 2.0]}, r"estimate array has shape \(2,\), expected \(4,\)"),
        ({"estimate": [1.0, np.inf, 2.0, 3.0]}, "non-finite value at job position 1"),
        ({"correction": "magic"}, "unknown correction 'magic'"),
    ],
)
def test_bad_options_are_clear_errors(options, message):
    with pytest.raises(ValueError, match=message):
        simcore.simulate(small_workload(), **options)


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"procs": [2, 3, 1, 5]}, r"job 4: processor request must be in \[1, 4\]"),
        ({"procs": [0, 3, 1, 4]}, r"job 1: processor request must be in \[1, 4\]"),
        ({"requested": [20, 0, 6, 8]}, "job 2: requested time must be finite and >= 1"),
        ({"run": [10, -4, 3, 8]}, "job 2: run time must be finite and >= 0"),
        ({"machine_size": 0}, "machine size must be positive"),
        ({"user": [1, 2]}, r"'user' has shape \(2,\), expected \(4,\)"),
    ],
)
def test_bad_workloads_name_the_job(overrides, message):
    with pytest.raises(simcore.WorkloadError, match=message):
        small_workload(**overrides)


def test_run_is_capped_at_the_request():
    workload = small_workload(run=[30, 4, 3, 8])
    assert workload.run.tolist() == [20, 4, 3, 8]


def test_hand_computed_easy_schedule():
    # m = 4. t=0: job1 (q=2) starts; job2 (q=3) blocks, shadow T = 20 (job1's
    # request), extra = 4 - 3 = 1. t=5: job3 (q=1, e=6, ends 11 <= 20) backfills.
    # t=7: job4 (q=4) queues behind job2. t=8: job3 done. t=10: job1 done,
    # job2 starts (ends 14); t=14: job4 starts.
    result = simcore.simulate(small_workload())
    assert result.start.tolist() == [0, 10, 5, 14]
    assert result.jobs["backfilled"].tolist() == [False, False, True, False]
    assert result.jobs["reservation"][1] == 20.0
    summary = result.summary()
    assert summary["avg_wait"] == pytest.approx((0 + 10 + 0 + 7) / 4)
    assert summary["max_wait"] == 10
    assert summary["backfilled"] == 1
    assert summary["utilization"] == pytest.approx((2 * 10 + 3 * 4 + 1 * 3 + 4 * 8) / (4 * 22))


def test_segments_switch_the_order_at_the_next_pass():
    # Two jobs wait behind a full machine until t=10; the order in force at
    # that pass decides which one goes first.
    workload = simcore.Workload.from_arrays(
        submit=[0, 1, 2], run=[10, 5, 1], requested=[10, 5, 1], procs=[2, 2, 2], machine_size=2
    )
    sim = simcore.Simulation(workload, order="FCFS")
    assert sim.run_until(10.0) is False
    sim.set_order("SPF")
    result = sim.finish()
    assert result.start.tolist() == [0, 11, 10]
    assert [simcore.ORDERS[code] for code in result.jobs["order_at_start"]] == ["FCFS", "SPF", "SPF"]
    assert simcore.simulate(workload, order="FCFS").start.tolist() == [0, 10, 15]


def test_subset_on_an_empty_machine_equals_a_fresh_simulation():
    workload = small_workload()
    subset = workload.take([3, 1])
    assert subset.job_id.tolist() == [2, 4]
    assert simcore.simulate(subset).start.tolist() == [0, 7]


@pytest.mark.parametrize("threshold, backfill", [(None, "queue"), (3600.0, "SPF"), (0.0, "none")])
def test_simulate_orders_shares_the_jobs_and_equals_simulate(threshold, backfill):
    rng = np.random.default_rng(7)
    n = 60
    workload = simcore.Workload.from_arrays(
        submit=np.sort(rng.integers(0, 20000, n)).astype(float),
        run=rng.integers(1, 5000, n).astype(float),
        requested=rng.integers(5000, 9000, n).astype(float),
        procs=rng.integers(1, 9, n),
        machine_size=8,
        user=rng.integers(0, 5, n),
    )
    orders = simcore.BANDIT_ORDERS
    shared = simcore.engine.simulation.simulate_orders(
        workload, orders, simcore.Policy(threshold=threshold, backfill=backfill)
    )
    for order, result in zip(orders, shared, strict=True):
        alone = simcore.simulate(workload, order=order, threshold=threshold, backfill=backfill)
        np.testing.assert_array_equal(result.start, alone.start)
        assert result.options == alone.options


def test_ave2_and_incremental_correction_by_hand():
    # One user, m = 1. Jobs 1 and 2 run 100 and 200 s (requests 1000): they
    # use the request. Job 3 (submitted at 400, after both finished) is
    # predicted (100 + 200) / 2 = 150, runs 400: expiries at 150 (+60 -> 210)
    # and 210 (+300 -> 450 >= 400, no more).
    workload = simcore.Workload.from_arrays(
        submit=[0, 0, 400], run=[100, 200, 400], requested=[1000, 1000, 1000], procs=[1, 1, 1], machine_size=1
    )
    result = simcore.simulate(workload, estimate="ave2", correction="incremental")
    assert result.jobs["initial_estimate"].tolist() == [1000, 1000, 150]
    assert result.jobs["corrections"].tolist() == [0, 0, 2]
    doubling = simcore.simulate(workload, estimate="ave2", correction="doubling")
    assert doubling.jobs["corrections"].tolist() == [0, 0, 2]  # 150 -> 300 -> 600


def test_to_frame_and_parquet_provenance(tmp_path):
    result = simcore.simulate(small_workload(), order="SAF", threshold=100)
    frame = result.to_frame()
    assert list(frame.columns[:9]) == ["job_id", "submit", "start", "end", "wait", "run", "procs", "requested", "user"]
    assert frame["order_at_start"].tolist() == ["SAF"] * 4
    path = tmp_path / "out" / "jobs.parquet"
    write_parquet(frame, path, {"options": result.options})
    assert read_provenance(path)["options"]["threshold"] == 100
    assert read_provenance(path)["code_version"].startswith(simcore.__version__)
    pd.testing.assert_frame_equal(pd.read_parquet(path), frame)
    assert [p.name for p in path.parent.iterdir()] == ["jobs.parquet"]  # no temporary left


def test_failed_write_leaves_nothing(tmp_path, monkeypatch):
    def crash_mid_write(table, where):
        with open(where, "wb") as half_written:
            half_written.write(b"PAR1")
        raise OSError("disk full")

    monkeypatch.setattr("simcore.workloads.files.pq.write_table", crash_mid_write)
    with pytest.raises(OSError, match="disk full"):
        write_parquet(pd.DataFrame({"x": [1]}), tmp_path / "jobs.parquet", {})
    assert list(tmp_path.iterdir()) == []


def test_registries_list_the_orders_and_predictors():
    assert simcore.BANDIT_ORDERS == (
        "FCFS",
        "LCFS",
        "SPF",
        "LPF",
        "SQF",
        "LQF",
        "SEXP",
        "LEXP",
        "SRF",
        "LRF",
        "SAF",
        "LAF",
    )
    assert simcore.ORDERS == simcore.BANDIT_ORDERS + ("WFP3", "UNICEF", "FUNCTION", "MULTIFACTOR")
    assert set(simcore.ORDER_MEANINGS) == set(simcore.ORDERS)
    assert set(simcore.PREDICTORS) == {"request", "clairvoyant", "ave2", "regression"}
