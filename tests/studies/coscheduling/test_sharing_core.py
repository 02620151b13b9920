"""The C co-scheduling core against the pure-Python reference, and against the EASY kernel.

Thousands of small random workloads, every strategy, κ > 0, memory on and off, every loss,
K = 4 and 10, shared and per-donor scope, EASY and first fit, STATIC paired and on every job (CPU
quota and shares): starts, ends, pairs, quotas and the learner's weights must be identical (exact
float equality). Then the invariants of the sharing model on the core's own schedules, and SPACE =
EASY job for job on every real trace.
"""

from dataclasses import replace

import numpy as np
import pytest
from conftest import SIMULABLE_TRACES
from studies.coscheduling import reference_cosched
from studies.coscheduling.reference_cosched import simulate_reference

from simcore import read_swf, simulate
from simcore.engine.workload import Workload
from simcore.studies.coscheduling import _sharing
from simcore.studies.coscheduling.sharing import (
    STRATEGIES,
    SharingInputError,
    SharingRun,
    SharingSettings,
    simulate_sharing,
)

CASES = 3000
CAPACITY = 1000.0


def random_workload(rng: np.random.Generator) -> Workload:
    """A small workload with ties everywhere: few distinct submits, sizes, works and estimates."""
    n = int(rng.integers(1, 30))
    machine = int(rng.integers(1, 17))
    submit = np.sort(rng.choice([0.0, 0.0, 1.0, 2.5, 3.0, 7.0, 10.0, 20.0, 33.3], n))
    work = rng.choice([0.0, 1.0, 2.0, 5.0, 7.5, 10.0, 13.0, 40.0], n)
    estimate = np.maximum(1.0, work * rng.choice([1.0, 1.0, 1.5, 2.0, 3.7], n))
    procs = rng.integers(1, machine + 1, n)
    efficiency = rng.choice([0.0, 0.05, 0.2, 0.3, 0.5, 0.75, 0.9, 1.0, np.nan], n)
    memory = rng.choice([100.0, 250.0, 400.0, 500.0, 600.0, 900.0, np.nan], n)
    user = rng.integers(0, 4, n)
    return Workload.from_arrays(submit, work, estimate, procs, machine, user=user, efficiency=efficiency, memory=memory)


def random_settings(rng: np.random.Generator) -> SharingSettings:
    """Every strategy and option; the ablations (unprotected reservation, no fall-through, a frozen
    learner), the pressure interference, the experts' estimates and first fit in about a third of the
    cases each; ASAX with dynamic quotas and feedback at completion in half of its cases each, each loss
    in a third; STATIC on every job in half of its cases (constant interference), with a CPU quota or
    shares in half of those each."""
    strategy = str(rng.choice(STRATEGIES))
    every_job = strategy == "STATIC" and rng.random() < 0.5
    interference = str(rng.choice(["constant", "pressure", "pressure"]))
    return SharingSettings(
        strategy=strategy,
        levels=int(rng.choice([4, 10])),
        kappa=float(rng.choice([0.0, 0.1, 0.2, 0.6])),
        memory=bool(rng.random() < 0.5),
        memory_capacity=CAPACITY,
        loss=str(rng.choice(["degradation", "walltime", "host+guest"])),
        scope=str(rng.choice(["shared", "per-donor"])),
        efficiency="assume-cpu-bound",
        interference="constant" if every_job else interference,  # every-job has no pressure model
        protect_reservation=bool(rng.random() < 0.7),
        fall_through=bool(rng.random() < 0.7),
        learn=bool(rng.random() < 0.7),
        quotas="dynamic" if strategy == "ASAX" and rng.random() < 0.5 else "fixed",
        feedback="completion" if strategy == "ASAX" and rng.random() < 0.5 else "decision",
        features=str(rng.choice(["request", "clairvoyant", "ave2"])),
        guests=int(rng.choice([1, 1, 2, 3])),
        scheduler="first-fit" if rng.random() < 1 / 3 else "easy",
        static="every-job" if every_job else "paired",
        cpu_limit=("shares" if rng.random() < 0.5 else "quota") if every_job else "quota",
    )


def reference_of(workload: Workload, settings: SharingSettings, seed: int, state=None) -> dict:
    return simulate_reference(
        workload.submit,
        workload.run,
        workload.requested,
        workload.procs,
        workload.efficiency,
        workload.memory,
        workload.machine_size,
        strategy=settings.strategy,
        levels=settings.levels,
        kappa=settings.kappa,
        memory_capacity=settings.memory_capacity if settings.memory else None,
        loss=settings.loss,
        scope=settings.scope,
        seed=seed,
        learner_state=state,
        interference=settings.interference,
        protect_reservation=settings.protect_reservation,
        fall_through=settings.fall_through,
        learn=settings.learn,
        quotas=settings.quotas,
        feedback=settings.feedback,
        features=settings.features,
        user=workload.user,
        guests=settings.guests,
        scheduler=settings.scheduler,
        static=settings.static,
        cpu_limit=settings.cpu_limit,
    )


def assert_same(core, reference, label):
    np.testing.assert_array_equal(core.start, reference["start"], err_msg=f"{label}: starts")
    np.testing.assert_array_equal(core.end, reference["end"], err_msg=f"{label}: ends")
    np.testing.assert_array_equal(core.donor, reference["donor"], err_msg=f"{label}: donors")
    np.testing.assert_array_equal(core.quota, reference["quota"], err_msg=f"{label}: quotas")
    np.testing.assert_array_equal(core.allocated, reference["allocated"], err_msg=f"{label}: allocations")
    assert core.busy_area == reference["busy_area"], f"{label}: busy area"
    learner = reference["learner"]
    assert core.learner["cases"] == learner["cases"], label
    assert core.learner["loss_sum"] == learner["loss_sum"], label
    assert core.learner["histogram"].tolist() == list(learner["histogram"]), label
    assert core.learner["alphas"].tolist() == [list(alpha) for alpha in learner["alphas"]], label
    assert core.learner["state"] == learner["state"], label
    assert core.learner["redecisions"] == learner["redecisions"], label
    assert core.learner["quota_changes"] == learner["quota_changes"], label


@pytest.mark.parametrize("block", range(6))
def test_core_equals_reference_on_random_workloads(block):
    rng = np.random.default_rng(1000 + block)
    strategies_seen, pairs = set(), 0
    # runs with pairs of each variant, and of dynamic quotas those with a quota changed
    variants = dict.fromkeys(["pressure", "unprotected", "no fall-through", "frozen", "completion", "ave2"], 0)
    variants["quota changed"] = variants["two guests at once"] = 0
    variants["first-fit"] = variants["host+guest"] = variants["host+guest completion"] = 0
    # STATIC on every job has no pairs: its runs, those with more half-processors in use than processors
    # (κ applies), and with shares those whose threads want more than the machine (a water level)
    variants["every-job quota"] = variants["every-job shares"] = 0
    variants["every-job oversubscribed"] = variants["every-job water level"] = 0
    for case in range(CASES // 6):
        workload, settings = random_workload(rng), random_settings(rng)
        seed = int(rng.integers(0, 2**32))
        core = simulate_sharing(workload, settings, seed=seed)
        assert_same(core, reference_of(workload, settings, seed), f"block {block} case {case}: {settings}")
        strategies_seen.add(settings.strategy)
        paired = int((core.donor >= 0).sum())
        pairs += paired
        if settings.static == "every-job":
            variants["every-job " + settings.cpu_limit] += 1
            variants["every-job oversubscribed"] += processors_in_use(workload, core).max() > workload.machine_size
            variants["every-job water level"] += (
                settings.cpu_limit == "shares" and threads_wanted(workload, core).max() > workload.machine_size
            )
        if paired:
            variants["pressure"] += settings.interference == "pressure" and settings.kappa > 0
            variants["unprotected"] += not settings.protect_reservation
            variants["no fall-through"] += settings.strategy == "ASAX" and not settings.fall_through
            variants["frozen"] += settings.strategy == "ASAX" and not settings.learn
            variants["completion"] += settings.feedback == "completion"
            variants["ave2"] += settings.features == "ave2"
            variants["quota changed"] += core.learner["quota_changes"] > 0
            variants["two guests at once"] += hosted_at_once(core).max() > 1
            variants["first-fit"] += settings.scheduler == "first-fit"
            variants["host+guest"] += settings.strategy == "ASAX" and settings.loss == "host+guest"
            variants["host+guest completion"] += settings.loss == "host+guest" and settings.feedback == "completion"
    assert strategies_seen == set(STRATEGIES)
    assert pairs > 200  # the cases exercise sharing, not only EASY
    assert min(variants.values()) >= 10, variants  # and every variant with pairs


def test_warm_learner_state_is_carried_like_the_reference():
    rng = np.random.default_rng(7)
    settings = SharingSettings(strategy="ASAX", memory=False, efficiency="assume-cpu-bound")
    core_state = reference_state = None
    for window in range(40):
        workload = random_workload(rng)
        core = simulate_sharing(workload, settings, seed=window, learner_state=core_state)
        reference = reference_of(workload, settings, window, reference_state)
        assert_same(core, reference, f"window {window}")
        core_state, reference_state = core.learner["state"], reference["learner"]["state"]
    assert core_state["round"] > 1  # the weights did move across windows


def hosted_at_once(result) -> np.ndarray:
    """Per guest: how many guests its donor held when it started (itself included)."""
    guests = np.flatnonzero(result.donor >= 0)
    counts = []
    for b in guests:
        a = result.donor[b]
        others = guests[(result.donor[guests] == a)]
        counts.append(
            sum(result.start[g] <= result.start[b] < min(result.end[g], result.end[a]) or g == b for g in others)
        )
    return np.array(counts or [0])


def threads_wanted(workload, result) -> np.ndarray:
    """Per event of a run without pairs: the processors the running jobs' threads want, Σ q_j u_j
    (an unknown efficiency read as 1)."""
    efficiency = np.nan_to_num(np.asarray(workload.efficiency, dtype=float), nan=1.0)
    want = workload.procs * efficiency
    events = []
    for j in range(len(workload)):
        events += [(result.start[j], want[j]), (result.end[j], -want[j])]
    events.sort(key=lambda event: (event[0], event[1]))  # releases first at equal times
    return np.cumsum([change for _, change in events]) if events else np.zeros(1)


def processors_in_use(workload, result, with_times=False):
    """Per event: processors holding at least one job (guests sit on their donors') after it; with
    `with_times`, (event times, processors in use after each) for integrating over time."""
    events = []
    for j in range(len(workload)):
        if result.donor[j] >= 0:
            continue  # on its donor's processors while the donor runs; see below
        events += [(result.start[j], workload.procs[j]), (result.end[j], -workload.procs[j])]
    for j in np.flatnonzero(result.donor >= 0):
        donor_end = result.end[result.donor[j]]
        if result.end[j] > donor_end:  # the guest outlives its donor: it holds its own processors
            events += [(donor_end, workload.procs[j]), (result.end[j], -workload.procs[j])]
    events.sort(key=lambda event: (event[0], event[1]))  # releases first at equal times
    if with_times:
        return np.array([time for time, _ in events]), np.cumsum([change for _, change in events])
    return np.cumsum([change for _, change in events]) if events else np.zeros(1)


def test_invariants_of_the_core_schedules():
    rng = np.random.default_rng(99)
    for case in range(500):
        workload, settings = random_workload(rng), random_settings(rng)
        result = simulate_sharing(workload, settings, seed=case)
        guests = np.flatnonzero(result.donor >= 0)
        # with every-job: half-processors, two a processor
        capacity = workload.machine_size * (2 if settings.static == "every-job" else 1)
        assert (processors_in_use(workload, result) <= capacity).all(), case
        donors = result.donor[guests]
        for guest, donor in zip(guests, donors):
            assert workload.procs[guest] <= workload.procs[donor]
            # <= : a donor with no work left at the instant (W = 0) still hosts, then ends at once
            assert result.start[donor] <= result.start[guest] <= result.end[donor]
        # at most `guests` guests a donor at a time, on no more processors than the donor's
        for donor in np.unique(donors):
            hosted = guests[donors == donor]
            for b in hosted:
                during = [
                    g for g in hosted if result.start[g] <= result.start[b] < min(result.end[g], result.end[donor])
                ]
                assert len(during) <= settings.guests, case
                assert workload.procs[during].sum() <= workload.procs[donor], case
        assert (result.end - result.start >= workload.run * (1 - 1e-12)).all()  # rates never exceed 1
        if settings.strategy == "SPACE" or settings.static == "every-job":
            assert len(guests) == 0
        if settings.static == "every-job":
            assert (result.quota == 0.5).all(), case


def test_a_guest_never_delays_the_reservation():
    """With exact estimates every head starts by the shadow time it was first given, whatever
    the strategy (EASY, STATIC paired): the L <= extra rule keeps its processors free at T. Without it
    (the ablation), guests do delay some heads."""
    rng = np.random.default_rng(5)
    heads = delayed_unprotected = 0
    for case in range(600):
        workload = random_workload(rng)
        exact = np.maximum(workload.run, 1.0)
        workload = Workload.from_arrays(
            workload.submit,
            exact,
            exact,
            workload.procs,
            workload.machine_size,
            efficiency=workload.efficiency,
            memory=workload.memory,
        )
        # EASY (first fit reserves nothing) with pairs: on every job a rate set after the pass slows the
        # jobs released by T, and nothing protects the reservation from that (docs §2b)
        settings = replace(
            random_settings(rng), protect_reservation=True, scheduler="easy", static="paired", cpu_limit="quota"
        )
        result = simulate_sharing(workload, settings, seed=case)
        reserved = ~np.isnan(result.reservation)
        heads += int(reserved.sum())
        late = result.start[reserved] - result.reservation[reserved]
        assert (late <= 1e-9 * np.maximum(1.0, result.reservation[reserved])).all(), (case, settings)
        unprotected = simulate_sharing(workload, replace(settings, protect_reservation=False), seed=case)
        reserved = ~np.isnan(unprotected.reservation)
        delayed_unprotected += int((unprotected.start[reserved] > unprotected.reservation[reserved] + 1e-6).sum())
    assert heads > 300
    assert delayed_unprotected > 20


def test_busy_area_is_the_integral_of_the_processors_in_use():
    """busy_area (the denominator of the held-processor utilisation) against the processors holding
    a job integrated from the schedule alone, and against the jobs' allocations, which add up to it."""
    rng = np.random.default_rng(17)
    shared = 0
    for case in range(1500):
        workload, settings = random_workload(rng), random_settings(rng)
        result = simulate_sharing(workload, settings, seed=case)
        times, in_use = processors_in_use(workload, result, with_times=True)
        integral = float(np.sum(in_use[:-1] * np.diff(times))) if len(times) else 0.0
        if settings.static == "every-job":
            integral *= 0.5  # half-processors in use
        assert result.busy_area == pytest.approx(integral, rel=1e-12, abs=1e-9), (case, settings)
        assert result.allocated.sum() == pytest.approx(result.busy_area, rel=1e-12, abs=1e-9), (case, settings)
        used = result.efficiency * workload.procs * workload.run
        if settings.cpu_limit == "quota":  # shares: a job may use what the others leave idle
            assert (used <= result.allocated * (1 + 1e-12) + 1e-9).all()  # no job uses more than it is allocated
        shared += int((result.donor >= 0).any())
    assert shared > 300


@pytest.mark.slow
@pytest.mark.parametrize("name", SIMULABLE_TRACES)
def test_space_is_the_easy_kernel_on_every_real_trace(name, pwa_trace):
    workload = read_swf(pwa_trace(name), filter="truncate")
    easy = simulate(workload, order="FCFS", backfill="queue")
    space = simulate_sharing(workload, SharingSettings(strategy="SPACE", memory=False))
    np.testing.assert_array_equal(space.start, easy.start)
    np.testing.assert_array_equal(space.end, workload.submit * 0 + easy.start + workload.run)


def test_a_trace_without_cpu_times_is_an_error_for_sharing_strategies():
    workload = Workload.from_arrays([0, 1], [5, 5], [10, 10], [1, 1], 2, source="no-f6.swf")
    with pytest.raises(SharingInputError, match=r"no-f6.swf: strategy ASAX needs CPU efficiencies.*field 6"):
        simulate_sharing(workload, SharingSettings(strategy="ASAX", memory=False))
    assert len(simulate_sharing(workload, SharingSettings(strategy="SPACE", memory=False)).start) == 2
    run = simulate_sharing(workload, SharingSettings(strategy="ASAX", memory=False, efficiency="assume-cpu-bound"))
    assert not np.isnan(run.start).any()


@pytest.mark.parametrize(
    "options, message",
    [
        ({"strategy": "GREEDY"}, r"strategy 'GREEDY': choose one of SPACE, STATIC, ASAX, HEADROOM"),
        ({"levels": 2}, r"levels must be in \[4, 64\], got 2"),
        ({"kappa": 1.0}, r"kappa must be in \[0, 1\), got 1.0"),
        ({"loss": "regret"}, r"loss 'regret': choose one of degradation, walltime"),
        ({"scope": "global"}, r"scope 'global': choose one of shared, per-donor"),
        ({"memory_capacity": 0}, r"memory capacity must be positive, got 0"),
    ],
)
def test_bad_settings_are_named(options, message):
    with pytest.raises(SharingInputError, match=message):
        SharingSettings(**options)


def test_memory_on_needs_a_trace_with_memory():
    workload = Workload.from_arrays([0], [5], [10], [1], 1, efficiency=[0.5], source="no-memory.swf")
    with pytest.raises(SharingInputError, match=r"no-memory.swf: no job records its memory.*memory: off"):
        simulate_sharing(workload, SharingSettings(strategy="STATIC"))


@pytest.mark.parametrize(
    "state, message",
    [
        ({"alpha": [0.25] * 4, "risk": [0.0] * 4}, r"learner_state needs alpha, risk and round"),
        ({"alpha": [0.5, 0.5], "risk": [0.0] * 4, "round": 1}, r"4 values each"),
        ({"alpha": [0.4, 0.4, 0.1, 0.2], "risk": [0.0] * 4, "round": 1}, r"alpha must be positive and sum to 1"),
        ({"alpha": [0.25] * 4, "risk": [0.0] * 4, "round": 0}, r"round >= 1"),
    ],
)
def test_a_bad_learner_state_is_named(state, message):
    workload = Workload.from_arrays([0], [5], [10], [1], 1, efficiency=[0.5])
    with pytest.raises(SharingInputError, match=message):
        simulate_sharing(workload, SharingSettings(memory=False), learner_state=state)


ORIGINAL_HAPPINESS_LEVEL = reference_cosched.happiness_level
ORIGINAL_HEDGE_UPDATE = reference_cosched.hedge_update


def _hp_ignoring_the_rate(slack, remaining, rate=1.0):
    return ORIGINAL_HAPPINESS_LEVEL(slack, remaining)


def _hedge_ignoring_learn(state, leaves, chosen_level, loss, learn=True):
    return ORIGINAL_HEDGE_UPDATE(state, leaves, chosen_level, loss)


def _mid_bin_open_at_the_top(x):
    return 0 if x < 0.25 else (1 if x < 0.75 else 2)  # the contract's mid bin is [0.25, 0.75]


def _water_level_not_refilled(threads, machine_size):
    """cpu.shares as a plain proportional share m / Q: what the light jobs leave idle is not handed to
    the others."""
    width = float(sum(q for _, _, q in threads))
    if sum(q * u for u, _, q in threads) <= machine_size:
        return np.inf, set()
    level = machine_size / width
    return level, {position for u, position, _ in threads if u > level}


@pytest.mark.parametrize(
    "name, planted",
    [
        ("happiness_level", _hp_ignoring_the_rate),  # dynamic quotas read a paired donor's Hp over R / rate
        ("hedge_update", _hedge_ignoring_learn),  # a frozen learner still updates
        ("cpu_or_mem_level", _mid_bin_open_at_the_top),  # a boundary off: u = 0.75 read as high
        ("water_level", _water_level_not_refilled),  # STATIC every-job with shares: a wrong water level
    ],
)
def test_the_agreement_test_catches_a_planted_bug_in_the_reference(monkeypatch, name, planted):
    """The comparison is sharp enough: a small bug planted in the reference (the core unchanged)
    makes some of the random cases disagree."""
    monkeypatch.setattr(reference_cosched, name, planted)
    rng = np.random.default_rng(2024)
    caught = 0
    for _ in range(1500):
        workload, settings = random_workload(rng), random_settings(rng)
        seed = int(rng.integers(0, 2**32))
        try:
            assert_same(simulate_sharing(workload, settings, seed=seed), reference_of(workload, settings, seed), "")
        except AssertionError:
            caught += 1
    assert caught > 0


def test_runs_lend_their_buffers_to_the_next_and_stay_independent():
    """A finished run lends its per-job buffers to the next run on as many jobs (no new memory for a
    sweep's replays of one workload); the schedules do not depend on which buffers a run got, or on
    runs held open at the same time; a released run refuses to be read."""
    rng = np.random.default_rng(11)
    workload = random_workload(rng)
    while len(workload) < 10:
        workload = random_workload(rng)
    settings = [random_settings(rng) for _ in range(6)]
    alone = [simulate_sharing(workload, s, seed=case) for case, s in enumerate(settings)]
    lent = _sharing._SPARE["doubles"]
    again = simulate_sharing(workload, settings[0], seed=0)
    assert _sharing._SPARE["doubles"] is lent  # the same block, lent and given back
    # every run again, in reverse order and each with another run held open beside it
    for case in reversed(range(len(settings))):
        beside = SharingRun(workload, settings[(case + 1) % len(settings)], seed=99)
        run = SharingRun(workload, settings[case], seed=case)
        run.advance()
        result = run.result()
        for name in ("start", "end", "donor", "quota", "allocated"):
            np.testing.assert_array_equal(getattr(result, name), getattr(alone[case], name), err_msg=name)
        assert result.learner["state"] == alone[case].learner["state"]
        beside.advance()
        beside.result()
    np.testing.assert_array_equal(again.start, alone[0].start)
    assert run.core.released
    with pytest.raises(RuntimeError, match="released"):
        run.core.results()
    with pytest.raises(RuntimeError, match="released"):
        run.core.run()
    assert run.core.learner()["cases"] == alone[0].learner["cases"]  # the learner's log stays
