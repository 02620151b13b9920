"""Hypothesis strategies for random workloads and simulation options.

Shared by the agreement tests (core vs reference) and the invariant tests.
"""

import math

from hypothesis import HealthCheck
from hypothesis import strategies as st
from reference_sim import ORDERS

import simcore

ESTIMATE_NAMES = ("request", "clairvoyant", "ave2")
CORRECTIONS = ("request", "incremental", "doubling")
BACKFILLS = ("none", "queue") + ORDERS

# Requested times: a small set including 1, and values large enough for
# several incremental corrections (C_1 = 60 s ... C_5 = 1 h).
REQUESTED = (1, 1, 2, 3, 5, 10, 10, 30, 61, 100, 400, 1000, 4000, 20000)
# Gaps between consecutive submit times: mostly 0 so that ties are common.
# Fractional gaps (0.1, 0.3, 7.7 are not exact binary fractions) make event
# instants inexact, so the order of floating-point operations matters.
SUBMIT_GAPS = (0, 0, 0, 0, 1, 1, 2, 3, 5, 10, 0.5, 100, 1000, 0.1, 0.3, 7.7)
MACHINE_SIZES = (1, 1, 2, 2, 3, 4, 5, 8, 16, 32, 64)
THRESHOLDS = (None, None, None, 0, 0.0, 0.5, 1, 3, 10, 100, 3600, 1e6)
USER_IDS = (0, 7, -1, 42)
# Coefficients of FUNCTION orders: signs, zero (divisions by zero, NaN keys),
# and magnitudes like the thesis's.
THETAS = (-2.0, -1.0, 0.0, 0.5, 1.0, 3.0, 870.0, 2.56e4, 6.86e6)
# The function of targeted cases that name the order FUNCTION without one.
TEST_FUNCTION = simcore.PriorityFunction(("sqrt", "id", "log", "*", "+"), (1.0, 1.0, 3.0))

COMMON = dict(
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# ------------------------------------------------------------ strategies ---
#
# Drawing every field of every job separately makes Hypothesis spend ~25 ms
# per 40-job example on generation alone, so each job is one integer draw
# decoded digit by digit (mixed radix) into its fields.  Shrinking an integer
# towards 0 shrinks every field towards the first, simplest entry of its table
# (gap 0, requested 1, run 0, procs = m, first user), so Hypothesis still
# minimizes failing examples well.

JOB_CODES = st.integers(min_value=0, max_value=2**62)
RUN_KINDS = ("zero", "equal", "less", "greater", "frac", "arbitrary")
OVERRUNS = (0.5, 1, 7, 1000, 10**6)
FRACTIONS = (0.25, 0.5, 1.5, 2.5)
FIXED_PREDICTIONS = (0.0, 0.25, 0.999, 1.0, 1.5, 2.5, 7.25, 1e9, 0.1, 0.3, 1.1, 2.2, 3.3)


class Digits:
    """Mixed-radix decoder of one drawn integer."""

    def __init__(self, code):
        self.code = code

    def take(self, base):
        self.code, digit = divmod(self.code, base)
        return digit

    def pick(self, table):
        return table[self.take(len(table))]


def decode_job(code, t, m, users):
    d = Digits(code)
    t = t + d.pick(SUBMIT_GAPS)
    req = d.pick(REQUESTED)
    kind = d.pick(RUN_KINDS)
    if kind == "zero":
        run = 0.0
    elif kind == "equal":
        run = float(req)
    elif kind == "less":
        run = float(d.take(req + 1))
    elif kind == "greater":
        run = float(req + d.pick(OVERRUNS))
    elif kind == "frac":
        run = d.pick(FRACTIONS) * req
    else:  # an arbitrary double in [0, req)
        run = d.take(2**40) / 2**40 * req
    size_kind = d.take(3)
    procs = (m, 1, 1 + d.take(m))[size_kind]
    user = d.pick(users)
    return t, run, float(req), procs, user


def decode_prediction(code, req):
    d = Digits(code)
    kind = d.take(3)
    if kind == 0:
        return d.pick(FIXED_PREDICTIONS)
    if kind == 1:
        return d.pick((req - 0.5, req, req + 0.5, 1.5 * req, req / 3.0))
    # an arbitrary double in [0, 5000): exercises fractional event instants
    return d.take(2**40) / 2**40 * 5000.0


@st.composite
def workloads(draw, min_jobs=1, max_jobs=40, max_machine=64):
    """(submit, run, requested, procs, user, m), submit sorted."""
    n = draw(st.integers(min_jobs, max_jobs))
    m = draw(st.one_of(st.sampled_from(MACHINE_SIZES), st.integers(1, max_machine)))
    users = USER_IDS[: draw(st.integers(1, 4))]
    codes = draw(st.lists(JOB_CODES, min_size=n, max_size=n))
    t = float(draw(st.sampled_from((0, 3, 1000, 12345.678))))
    submit, run, requested, procs, user = [], [], [], [], []
    for code in codes:
        t, p, req, q, u = decode_job(code, t, m, users)
        submit.append(t)
        run.append(p)
        requested.append(req)
        procs.append(q)
        user.append(u)
    return submit, run, requested, procs, user, m


@st.composite
def options(draw, requested):
    estimate = draw(st.sampled_from(ESTIMATE_NAMES + ("list",)))
    if estimate == "list":
        codes = draw(st.lists(JOB_CODES, min_size=len(requested), max_size=len(requested)))
        estimate = [decode_prediction(c, req) for c, req in zip(codes, requested)]
    drawn = dict(
        order=draw(st.sampled_from(ORDERS)),
        threshold=draw(st.sampled_from(THRESHOLDS)),
        backfill=draw(st.sampled_from(BACKFILLS)),
        estimate=estimate,
        correction=draw(st.sampled_from(CORRECTIONS)),
    )
    if "FUNCTION" in (drawn["order"], drawn["backfill"]):
        drawn["function"] = draw(priority_functions())
    return drawn


def with_function(opts):
    """`opts` with TEST_FUNCTION added when FUNCTION is its order or backfill
    and no function is given."""
    if "FUNCTION" in (opts.get("order"), opts.get("backfill")) and "function" not in opts:
        return {**opts, "function": TEST_FUNCTION}
    return opts


@st.composite
def priority_functions(draw):
    bases = st.sampled_from(("id", "sqrt", "log", "inv"))
    operators = st.sampled_from(("+", "*", "/"))
    form = (draw(bases), draw(bases), draw(bases), draw(operators), draw(operators))
    return simcore.PriorityFunction(form, draw(st.lists(st.sampled_from(THETAS), min_size=3, max_size=3)))


@st.composite
def cases(draw, max_jobs=40, max_machine=64):
    wl = draw(workloads(max_jobs=max_jobs, max_machine=max_machine))
    return wl, draw(options(wl[2]))


def make_workload(submit, run, requested, procs, user, m):
    return simcore.Workload.from_arrays(submit, run, requested, procs, m, user=user)


@st.composite
def order_switches(draw, horizon: float, instants=(), max_size=6):
    """Sorted (time, order) switches within [0, horizon], with event instants,
    whole seconds, and the edge values -1, 0 and infinity among the times."""
    kinds = [
        st.integers(0, int(horizon)).map(float),
        st.floats(min_value=0.0, max_value=float(horizon), allow_nan=False),
        st.sampled_from((0.0, -1.0, math.inf)),
    ]
    if len(instants):
        kinds.insert(0, st.sampled_from(list(instants)))
    times = sorted(draw(st.lists(st.one_of(*kinds), min_size=1, max_size=max_size)))
    named = [order for order in ORDERS if order != "FUNCTION"]  # a switch carries no function
    names = draw(st.lists(st.sampled_from(named), min_size=len(times), max_size=len(times)))
    return list(zip(times, names))


def run_with_switches(workload, opts, switches):
    """The core's per-job results with the queue order switched at each (time, order); a switch to
    MULTIFACTOR needs its parameters from the start (the reference's defaults)."""
    if any(name == "MULTIFACTOR" for _, name in switches):
        opts = {"multifactor": {}, **opts}
    sim = simcore.Simulation(workload, **opts)
    for when, name in switches:
        sim.run_until(when)
        sim.set_order(name)
    return sim.finish().jobs
