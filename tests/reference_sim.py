"""Independent, deliberately simple pure-Python reference simulator.

It implements ``docs/semantics.md``: its sections 2-6 (SEMANTICS §2-§6) with the
decisions that follow them, as plainly as possible and without any
regard for speed, so that randomized tests can check the fast core against it
job for job.  Standard library only; it does not import anything from the
project's core.

Structure (one loop over instants):

    t = min(pending submissions, completions of running jobs,
            expiries s_j + e_j of running jobs with end_j > s_j + e_j)
    apply completions at t (position order; reported to the predictor),
    apply expiries at t (position order; estimate corrected),
    apply submissions at t (position order; predicted, enqueued),
    run exactly one scheduling pass.

A zero-length job started by the pass at t completes at t, so the loop picks
the instant t again (completions, then a pass), exactly as docs/semantics.md
describes.

Reservation depth (RESERVATIONS.md section 1): the keyword ``reservations``
is D, an int >= 0 or "all".  D = 1 (the default) is EASY, the pass of
SEMANTICS section 4 (``easy_pass``), with any backfill order; D = 0 is its
variant ``backfill="none"``.  For D >= 2 (backfill "queue" only) the pass is
the walk of section 1 (``walk_pass``): every job in queue order gets the
earliest anchor its availability profile allows, starts if that anchor is
now, else takes one of the D reservations, else waits.  The walk is written
for every D >= 1; ``reference_simulate(..., walk=True)`` runs it with D = 1 too, so that
a test can check it gives exactly EASY.  Every run also reports
``reservations_made`` (reservations summed over passes; for EASY, one per
pass that computes a shadow time) and ``jobs_reserved`` (distinct jobs that
ever held one).

Multifactor priority (RESERVATIONS.md section 2): the order MULTIFACTOR has
the key -P_j, P_j = floor(W_age A_j + W_fs F_u + W_size Z_j).  Its parameters
are the keyword ``multifactor`` (a dict; the defaults when an order, the
backfill order or a switch names MULTIFACTOR and none is given).  Whenever
they are in force, whatever the current order, the loop computes the factors
after the submissions of an instant and before its pass (also when no
processor is free) at the first instant t >= due, with T = t, then sets due
to the next multiple of calc_period after t (calc_period 0: every instant);
usage is a plain sum over the jobs started before T.  Every waiting job gets
P_j at a computation; a job submitted in between gets it at its submission
instant from the last computation's T and factors (age 0).  A run also
reports ``fair_share`` (F_u of the last computation, users ascending),
``priority_computations`` and ``priority_boundary_cases`` (values of
W_age A + W_fs F + W_size Z within 1e-9 relative of an integer, where floor
may differ between implementations) and, among them, ``priority_inexact_cases``
(those that are not an integer exactly: an exact integer such as an age of 0
with a fair-share factor of 1 comes out the same in any implementation that
computes it exactly, a value a rounding away from one need not).
"""

import math
import numbers

ORDERS = (
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
    "WFP3",
    "UNICEF",
    "FUNCTION",
    "MULTIFACTOR",
)

ESTIMATES = ("request", "clairvoyant", "ave2")
CORRECTIONS = ("request", "incremental", "doubling")
BACKFILLS = ("none", "queue") + ORDERS

# Tsafrir et al. incremental corrections C_1..C_11, in seconds:
# 1 min, 5 min, 15 min, 30 min, 1 h, 2 h, 5 h, 10 h, 20 h, 50 h, 100 h.
INCREMENTS = (60.0, 300.0, 900.0, 1800.0, 3600.0, 7200.0, 18000.0, 36000.0, 72000.0, 180000.0, 360000.0)


def ieee_divide(a, b):
    """a / b as IEEE 754 has it (Python raises on a zero divisor)."""
    if b != 0.0:
        return a / b
    if a != a or a == 0.0:
        return math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


def function_value(function, r, e, q):
    """(θ1 φ1(e)) op1 (θ2 φ2(q)) op2 (θ3 φ3(r)), × and ÷ before +, the
    arguments floored at 1; `function` has .form and .theta."""

    def phi(name, x):
        x = max(x, 1.0)
        return {"id": x, "sqrt": math.sqrt(x), "log": math.log10(x), "inv": 1.0 / x}[name]

    def combine(a, b, op):
        return a + b if op == "+" else a * b if op == "*" else ieee_divide(a, b)

    phi1, phi2, phi3, op1, op2 = function.form
    a, b, c = (function.theta[k] * phi(name, x) for k, (name, x) in enumerate(((phi1, e), (phi2, q), (phi3, r))))
    if op1 == "+" and op2 != "+":
        return a + combine(b, c, op2)
    return combine(combine(a, b, op1), c, op2)


def order_key(order, t, r, e, q, function=None, priority=None):
    """The key of `order` at instant t for a job with submit r, estimate e,
    processors q; NaN counts as +inf.  Exactly the floating-point
    expressions of the docs.  `priority`: the job's multifactor P_j (the
    key of MULTIFACTOR is -P_j)."""
    key = _raw_key(order, t, r, e, q, function, priority)
    return math.inf if key != key else key


def _raw_key(order, t, r, e, q, function, priority):
    if order == "FCFS":
        return r
    if order == "LCFS":
        return -r
    if order == "SPF":
        return e
    if order == "LPF":
        return -e
    if order == "SQF":
        return q
    if order == "LQF":
        return -q
    if order == "SEXP":
        return ((t - r) + e) / e
    if order == "LEXP":
        return -(((t - r) + e) / e)
    if order == "SRF":
        return e / q
    if order == "LRF":
        return -(e / q)
    if order == "SAF":
        return e * q
    if order == "LAF":
        return -(e * q)
    if order == "WFP3":
        ratio = (t - r) / e
        return -(ratio * ratio * ratio) * q
    if order == "UNICEF":
        return -(t - r) / (math.log2(max(q, 2.0)) * e)
    if order == "FUNCTION":
        return function_value(function, r, e, q)
    if order == "MULTIFACTOR":
        if priority is None:
            raise ValueError("the order MULTIFACTOR needs the job's priority")
        return -priority
    raise ValueError("unknown order %r" % (order,))


def clip_estimate(prediction, requested):
    """e = max(1, prediction clipped to [1, requested])."""
    return max(1.0, min(max(float(prediction), 1.0), requested))


def _check_inputs(
    submit, run, requested, procs, user, machine_size, order, threshold, backfill, estimate, correction, switches
):
    n = len(submit)
    for name, seq in (("run", run), ("requested", requested), ("procs", procs), ("user", user)):
        if len(seq) != n:
            raise ValueError("length mismatch: submit has %d jobs, %s has %d" % (n, name, len(seq)))
    if int(machine_size) != machine_size or machine_size < 1:
        raise ValueError("machine_size must be a positive integer, got %r" % (machine_size,))
    for i, q in enumerate(procs):
        if int(q) != q or not (1 <= q <= machine_size):
            raise ValueError("procs[%d] = %r is outside [1, machine_size=%d]" % (i, q, machine_size))
    for i in range(1, n):
        if float(submit[i]) < float(submit[i - 1]):
            raise ValueError("jobs must be sorted by submit time (submit[%d] < submit[%d])" % (i, i - 1))
    if order not in ORDERS:
        raise ValueError("unknown order %r (expected one of %s)" % (order, ", ".join(ORDERS)))
    if threshold is not None:
        if not (float(threshold) >= 0.0):
            raise ValueError("threshold must be None or >= 0, got %r" % (threshold,))
    if backfill not in BACKFILLS:
        raise ValueError("unknown backfill %r (expected 'none', 'queue' or an order name)" % (backfill,))
    if isinstance(estimate, str):
        if estimate not in ESTIMATES:
            raise ValueError(
                "unknown estimate %r (expected one of %s, or a "
                "sequence of predictions)" % (estimate, ", ".join(ESTIMATES))
            )
    else:
        if len(estimate) != n:
            raise ValueError("length mismatch: submit has %d jobs, estimate has %d predictions" % (n, len(estimate)))
    if correction not in CORRECTIONS:
        raise ValueError("unknown correction %r (expected one of %s)" % (correction, ", ".join(CORRECTIONS)))
    previous = None
    for pair in switches:
        if len(pair) != 2:
            raise ValueError("switches must be (time, order_name) pairs")
        when, name = pair
        if name not in ORDERS:
            raise ValueError("unknown order %r in switches" % (name,))
        if previous is not None and float(when) < previous:
            raise ValueError("switches must be sorted by time")
        previous = float(when)


MULTIFACTOR_DEFAULTS = {
    "weight_age": 1000,
    "weight_fairshare": 1000,
    "weight_job_size": 1000,
    "max_age": 604800.0,
    "decay_half_life": 604800.0,
    "calc_period": 300.0,
    "favor_small": False,
}


def multifactor_parameters(multifactor):
    """The parameters of RESERVATIONS.md section 2: `multifactor` (a dict,
    any subset of MULTIFACTOR_DEFAULTS's keys) over the defaults, numbers as
    floats.  ValueError naming the key for an unknown key or a bad value
    (numbers must be finite; a bool is not a number)."""
    if not isinstance(multifactor, dict):
        raise ValueError("multifactor must be a dict, got %r" % (multifactor,))
    for key in multifactor:
        if key not in MULTIFACTOR_DEFAULTS:
            raise ValueError(
                "unknown multifactor key %r (expected some of %s)" % (key, ", ".join(MULTIFACTOR_DEFAULTS))
            )
    params = {**MULTIFACTOR_DEFAULTS, **multifactor}
    for key, value in params.items():
        if key == "favor_small":
            if not isinstance(value, bool):
                raise ValueError("multifactor.favor_small must be a bool, got %r" % (value,))
            continue
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
            raise ValueError("multifactor.%s must be a finite number, got %r" % (key, value))
        if key in ("max_age", "decay_half_life"):
            if not value > 0:
                raise ValueError("multifactor.%s must be > 0, got %r" % (key, value))
        elif not value >= 0:
            raise ValueError("multifactor.%s must be >= 0, got %r" % (key, value))
        params[key] = float(value)
    return params


def reservation_depth(reservations):
    """D as a number (math.inf for "all"); ValueError naming `reservations`
    for anything but an int >= 0 or "all" (a bool is not a depth)."""
    if isinstance(reservations, str) and reservations == "all":
        return math.inf
    if isinstance(reservations, numbers.Integral) and not isinstance(reservations, bool) and reservations >= 0:
        return int(reservations)
    raise ValueError("reservations must be an int >= 0 or 'all', got %r" % (reservations,))


def reference_simulate(
    submit,
    run,
    requested,
    procs,
    user,
    machine_size,
    order="FCFS",
    threshold=None,
    backfill="queue",
    estimate="request",
    correction="request",
    switches=(),
    function=None,
    reservations=1,
    walk=False,
    multifactor=None,
):
    """The schedule of docs/semantics.md with reservation depth D =
    `reservations` (RESERVATIONS.md section 1): D = 1 is EASY (the pass of
    SEMANTICS section 4, any backfill order), D = 0 the variant "none"
    (backfill "queue" or "none"), D >= 2 or "all" the walk of section 1
    (backfill "queue" only).  `walk`: every pass by the walk, for D = 1 too
    (backfill "queue", D >= 1), so that the tests can check that it agrees
    with the EASY pass.  `multifactor`: the parameters of the order
    MULTIFACTOR (RESERVATIONS.md section 2; see `multifactor_parameters`),
    defaulted when an order uses it and None is given."""
    depth = reservation_depth(reservations)
    if walk and depth == 0:
        raise ValueError("the walk needs reservations >= 1 (D = 0 is the variant backfill='none')")
    if walk and backfill != "queue":
        raise ValueError("the walk backfills in queue order: backfill must be 'queue', got %r" % (backfill,))
    if depth == 0:
        if backfill not in ("queue", "none"):
            raise ValueError(
                "reservations=0 is the variant backfill='none': backfill must be 'queue' or 'none', got %r"
                % (backfill,)
            )
        backfill = "none"
    elif depth >= 2 and backfill != "queue":
        raise ValueError(
            "reservations=%r backfills in queue order only: backfill must be 'queue', got %r" % (reservations, backfill)
        )
    walk = walk or depth >= 2  # each pass is `walk_pass` (with `depth` reservations), else `easy_pass`
    _check_inputs(
        submit, run, requested, procs, user, machine_size, order, threshold, backfill, estimate, correction, switches
    )
    if function is None and "FUNCTION" in (order, backfill):
        raise ValueError("the order FUNCTION needs a function")
    if multifactor is None and "MULTIFACTOR" in (order, backfill) + tuple(name for _, name in switches):
        multifactor = {}  # the defaults
    mf = None if multifactor is None else multifactor_parameters(multifactor)
    n = len(submit)
    m = int(machine_size)
    r = [float(x) for x in submit]
    req = [float(x) for x in requested]
    length = [min(float(run[i]), req[i]) for i in range(n)]  # time actually run
    q = [int(x) for x in procs]
    theta = None if threshold is None else float(threshold)
    switches = [(float(when), name) for when, name in switches]

    # per-job state
    e = [None] * n  # current estimate (set at submission)
    e_initial = [None] * n  # estimate at submission
    start = [None] * n
    end = [None] * n
    backfilled = [False] * n
    corrections = [0] * n
    order_at_start = [None] * n
    reservation = [math.nan] * n  # first shadow time / anchor the job was reserved at
    reserved = [False] * n
    reservations_made = 0  # summed over passes

    # multifactor priority (RESERVATIONS.md section 2), when `mf` is not None
    priority = [None] * n  # P_j, set at each computation (and at submission in between)
    users = [] if mf is None else sorted(set(user))  # N_users: the whole workload's
    fair_share = {u: 1.0 for u in users}  # F_u of the last computation
    last_T = None  # T of the last computation
    next_computation = 0.0  # "due": the next computation is at the first instant >= it
    priority_computations = 0
    priority_boundary_cases = 0
    priority_inexact_cases = 0

    queued = []  # submitted, not started (positions)
    running = []  # started, completion not yet applied
    completed = 0
    next_submit = 0  # position of the next job to submit
    history = {}  # ave2: user -> finished run times, completion order

    def predict(j):
        if estimate == "request":
            return max(1.0, req[j])
        if estimate == "clairvoyant":
            return max(1.0, length[j])
        if estimate == "ave2":
            past = history.get(user[j], [])
            if len(past) >= 2:
                prediction = (past[-2] + past[-1]) / 2
            else:
                prediction = req[j]
            return clip_estimate(prediction, req[j])
        return clip_estimate(estimate[j], req[j])

    def order_in_force(t):
        current = order
        for when, name in switches:
            if t >= when:
                current = name
        return current

    def expiry_time(j):
        """s_j + e_j if the job is still running then, else None."""
        due = start[j] + e[j]
        if end[j] > due:
            return due
        return None

    def start_job(j, t, current_order, is_backfill):
        start[j] = t
        end[j] = t + length[j]
        backfilled[j] = is_backfill
        order_at_start[j] = current_order
        queued.remove(j)
        running.append(j)

    def shadow(h, free):
        """SEMANTICS section 4 step 2: the earliest estimated end T of a running
        job such that free + procs of all running jobs with estimated end <= T
        reaches q_h; extra = that sum - q_h."""
        estimated_ends = sorted(set(start[j] + e[j] for j in running))
        for T in estimated_ends:
            available = free
            for j in running:
                if start[j] + e[j] <= T:
                    available += q[j]
            if available >= q[h]:
                return T, available - q[h]
        raise AssertionError("no shadow time: the head cannot fit even on an empty machine")

    def record_reservation(j, when):
        nonlocal reservations_made
        reservations_made += 1
        if not reserved[j]:
            reserved[j] = True
            reservation[j] = when

    def compute_factors(T):
        """RESERVATIONS.md section 2: every user's fair-share factor F_u at
        time T, from the decayed usage of the jobs started before T (a plain
        sum over them); T becomes the last computation's T."""
        nonlocal last_T, priority_computations
        H = mf["decay_half_life"]
        usage = {u: 0.0 for u in users}
        for i in range(n):  # position order
            if start[i] is not None and start[i] < T:
                decayed = 2.0 ** (-(T - min(T, start[i] + length[i])) / H) - 2.0 ** (-(T - start[i]) / H)
                usage[user[i]] += q[i] * (H / math.log(2)) * decayed
        total = 0.0
        for u in users:  # ascending user order
            total += usage[u]
        share = 1.0 / len(users)  # S_u, one equal share per user of the workload
        for u in users:
            normalized = 0.0 if total == 0.0 else usage[u] / total
            fair_share[u] = 2.0 ** (-(normalized / share))
        last_T = T
        priority_computations += 1

    def evaluate_priority(j):
        """P_j with the last computation's T and factors (before any
        computation: A = 0, F = 1); counts a value within rounding of an
        integer as a floor-boundary case."""
        nonlocal priority_boundary_cases, priority_inexact_cases
        if last_T is None:
            A, F = 0.0, 1.0
        else:
            A = min(1.0, max(0.0, last_T - r[j]) / mf["max_age"])
            F = fair_share[user[j]]
        if mf["favor_small"]:
            Z = 1.0 - (q[j] - 1) / m
        else:
            Z = q[j] / m
        x = mf["weight_age"] * A + mf["weight_fairshare"] * F + mf["weight_job_size"] * Z
        if abs(x - round(x)) <= 1e-9 * max(1.0, abs(x)):
            priority_boundary_cases += 1
            priority_inexact_cases += x != round(x)
        priority[j] = math.floor(x)

    def scheduling_pass(t):
        current_order = order_in_force(t)
        free = m - sum(q[j] for j in running)
        if free == 0:
            # docs/semantics.md: with free == 0 a pass cannot start anything
            # and skipping it changes nothing; so no reservation is recorded
            # (for every depth: the walk rebuilds its reservations every pass).
            return
        ordered = sorted(
            queued, key=lambda j: (order_key(current_order, t, r[j], e[j], q[j], function, priority[j]), j)
        )
        if theta is not None:
            old = sorted(j for j in ordered if t - r[j] > theta)
            young = [j for j in ordered if not (t - r[j] > theta)]
            ordered = old + young
        if walk:
            walk_pass(t, current_order, ordered)
        else:
            easy_pass(t, current_order, ordered, free)

    def easy_pass(t, current_order, ordered, free):
        """SEMANTICS section 4 (D = 1, any backfill order; "none" is D = 0)."""
        # step 1: start jobs in queue order while they fit
        i = 0
        while i < len(ordered) and q[ordered[i]] <= free:
            start_job(ordered[i], t, current_order, False)
            free -= q[ordered[i]]
            i += 1
        if i == len(ordered):
            return
        h = ordered[i]
        if backfill == "none":
            return  # step 4: pure list scheduling, stop at h

        # step 2: the single reservation
        T, extra = shadow(h, free)
        record_reservation(h, T)

        # step 3: backfill the jobs after h
        candidates = ordered[i + 1 :]
        if backfill != "queue":
            candidates = sorted(
                candidates, key=lambda j: (order_key(backfill, t, r[j], e[j], q[j], function, priority[j]), j)
            )
        for j in candidates:
            if q[j] <= free and (t + e[j] <= T or q[j] <= extra):
                start_job(j, t, current_order, True)
                free -= q[j]
                if t + e[j] > T:
                    extra -= q[j]

    def profile(t, held):
        """The availability profile at t (RESERVATIONS.md section 1) as steps
        [(tau_0 = t, free_0), (tau_1, free_1), ...]: free(tau) = free_k for
        tau_k <= tau < tau_k+1, and the last free_k from the last tau_k on.
        `held` lists this pass's reservations (a, a + e, q), all with a > t;
        the jobs the pass started are in `running` already.  Every running
        job has s + e > t (expiries come before the pass; e >= 1)."""
        free_now = m
        change = {}  # instant -> change of free there
        for i in running:
            free_now -= q[i]
            due = start[i] + e[i]
            assert due > t, "a running job's estimated end is not after the pass"
            change[due] = change.get(due, 0) + q[i]
        for a, b, qq in held:
            change[a] = change.get(a, 0) - qq
            change[b] = change.get(b, 0) + qq
        steps = [(t, free_now)]
        for tau in sorted(change):
            steps.append((tau, steps[-1][1] + change[tau]))
        return steps

    def fits_from(steps, k, qj, ej):
        """free >= qj on all of [tau_k, tau_k + ej) (half-open: a step that
        begins exactly at tau_k + ej does not matter)."""
        until = steps[k][0] + ej
        for tau, f in steps[k:]:
            if tau >= until:
                return True
            if f < qj:
                return False
        return True

    def anchor(steps, qj, ej):
        """The earliest tau >= t with free >= qj on [tau, tau + ej).  Only t
        and the instants where free increases can be that earliest tau."""
        for k, (tau, f) in enumerate(steps):
            if k > 0 and f <= steps[k - 1][1]:
                continue  # not t, and free does not increase here
            if fits_from(steps, k, qj, ej):
                return tau
        raise AssertionError("no anchor: the job cannot fit even on an empty machine")

    def walk_pass(t, current_order, ordered):
        """RESERVATIONS.md section 1: one walk of the sorted queue with at
        most `depth` reservations (math.inf for "all")."""
        held = []  # this pass's reservations: (a, a + e, q)
        for j in ordered:
            free_now = m - sum(q[i] for i in running)  # the pass's starts are running
            if free_now == 0 and held:
                break  # nothing else can start now, and reservations end with the pass
            a = anchor(profile(t, held), q[j], e[j])
            if a == t:
                start_job(j, t, current_order, len(held) > 0)  # after the first reservation: backfilled
            elif len(held) < depth:
                held.append((a, a + e[j], q[j]))
                record_reservation(j, a)
            # else: the job waits, and the walk goes on

    while completed < n:
        instants = []
        if next_submit < n:
            instants.append(r[next_submit])
        for j in running:
            instants.append(end[j])
            due = expiry_time(j)
            if due is not None:
                instants.append(due)
        t = min(instants)

        # 1. completions at t, in position order (learned by the predictor)
        for j in sorted(running):
            if end[j] <= t:
                running.remove(j)
                completed += 1
                history.setdefault(user[j], []).append(length[j])

        # 2. expiries at t, in position order
        for j in sorted(running):
            due = expiry_time(j)
            if due is not None and due <= t:
                corrections[j] += 1
                k = corrections[j]
                if correction == "request":
                    e[j] = req[j]
                elif correction == "incremental":
                    if k <= len(INCREMENTS):
                        e[j] = min(req[j], e_initial[j] + INCREMENTS[k - 1])
                    else:
                        e[j] = req[j]
                else:  # doubling
                    elapsed = t - start[j]
                    e[j] = min(req[j], 2 * elapsed)

        # 3. submissions at t, in position order (predicted as applied)
        submitted = []
        while next_submit < n and r[next_submit] <= t:
            j = next_submit
            e[j] = predict(j)
            e_initial[j] = e[j]
            queued.append(j)
            submitted.append(j)
            next_submit += 1

        # 3b. multifactor priorities, before the pass (and before its early
        # return when no processor is free): at the first instant >=
        # next_computation, every waiting job's P_j from new factors; else
        # the jobs just submitted get theirs from the last computation's.
        if mf is not None:
            if t >= next_computation:
                compute_factors(t)
                for j in queued:
                    evaluate_priority(j)
                period = mf["calc_period"]
                next_computation = t if period == 0.0 else period * (math.floor(t / period) + 1)
            else:
                for j in submitted:
                    evaluate_priority(j)

        # 4. exactly one scheduling pass
        scheduling_pass(t)

    return {
        "start": start,
        "end": end,
        "backfilled": backfilled,
        "corrections": corrections,
        "order_at_start": order_at_start,
        "reservation": reservation,
        "reservations_made": reservations_made,
        "jobs_reserved": sum(reserved),
        "fair_share": [] if mf is None else [fair_share[u] for u in users],
        "priority_computations": priority_computations,
        "priority_boundary_cases": priority_boundary_cases,
        "priority_inexact_cases": priority_inexact_cases,
    }


def reference_metrics(submit, run, requested, procs, start, machine_size, tau=10.0):
    """docs/semantics.md "Metrics", summed in position order."""
    n = len(submit)
    for name, seq in (("run", run), ("requested", requested), ("procs", procs), ("start", start)):
        if len(seq) != n:
            raise ValueError("length mismatch: submit has %d jobs, %s has %d" % (n, name, len(seq)))
    if n == 0:
        raise ValueError("metrics of an empty workload are undefined")
    tau = float(tau)
    total_wait = 0.0
    max_wait = -math.inf
    total_bsld = 0.0
    total_ppbsld = 0.0
    total_flow = 0.0
    area = 0.0
    last_end = -math.inf
    first_submit = math.inf
    for i in range(n):
        r = float(submit[i])
        p = min(float(run[i]), float(requested[i]))
        qq = procs[i]
        s = float(start[i])
        wait = s - r
        total_wait += wait
        max_wait = max(max_wait, wait)
        total_bsld += max((wait + p) / max(p, tau), 1.0)
        total_ppbsld += max((wait + p) / (qq * max(p, tau)), 1.0)
        total_flow += wait + p
        area += qq * p
        last_end = max(last_end, s + p)
        first_submit = min(first_submit, r)
    span = last_end - first_submit
    utilization = 0.0 if span == 0 else area / (machine_size * span)
    return {
        "mean_wait": total_wait / n,
        "max_wait": max_wait,
        "avg_bsld": total_bsld / n,
        "avg_ppbsld": total_ppbsld / n,
        "mean_flow": total_flow / n,
        "utilization": utilization,
    }
