"""Independent, deliberately simple pure-Python reference of the co-scheduling simulator.

Written from ``docs/coscheduling.md`` (authoritative; checked against the project's specification)
and SEMANTICS §4 (the EASY pass) alone, without looking at the Cython core, so that the core can be
compared with it job for job and bit for bit.  Slow on purpose: every pass rescans every job.

Structure (one loop over instants):

    t = min(next submission, c_j of every running job)
    completions at t: while some running job has c_j == t, complete the one with the smallest
        position; its partner's rate goes back to 1 unless the partner's own c == t;
    submissions at t (position order);
    one pass: space phase (EASY, or first fit, on idle processors), then the co-allocation phase;
    with STATIC every-job: no co-allocation phase, and every running job's rate set after the pass.

Arithmetic choices where docs/coscheduling.md leaves the order of operations or a case open
(the Cython core must make the same ones to agree bit for bit):

1. Rates: ``rho = (1.0 - kappa) * cap`` with ``cap = 1.0 if u == 0.0 else min(1.0, share / u)``,
   ``share = 1.0 - f`` for the donor and ``f`` for the guest, ``f = k / K`` (STATIC: 0.5).
   An unknown (NaN) efficiency is replaced by 1.0 before anything else.
2. "Its rate changes" means ``new_rho != old_rho`` as floats.  A donor whose paired rate is exactly
   1.0, and a partner that is already at rate 1.0 when the other job of the pair completes, are not
   touched at all (R, tau, c, ê unchanged).  Otherwise, in this order:
   ``R = max(0.0, R - rho_old * (t - tau))``, ``tau = t``, ``rho = rho_new``, ``c = t + R / rho``,
   ``ê = t + (e - (W - R)) / rho``.  A start: ``R = W``, ``c = t + W / rho``, ``ê = t + e / rho``.
3. ``R_a(t) = max(0.0, R_a - (t - tau_a))`` (a candidate donor is at rate 1, so no product),
   ``ê'_a = t + (e_a - (W_a - R_a(t))) / rho'_a``, and ``ê'_a = ê_a`` when ``rho'_a == 1.0``.
   Guest bound end: ``t + e_b / ((1.0 - kappa) * f)``.
4. Completion test ``c_j == t`` exactly (t is the minimum of all c_j, so no c_j is below t).
5. Shadow time: the distinct release times in ascending order; T is the first at which
   ``free + (sum of all releases at times <= T)`` reaches ``q_h`` (integers, so no rounding).
   Release entries of 0 processors (``q_a == q_b``) are kept; they never change the result.
6. HEADROOM compares ``k / K <= 1.0 - u_a`` in float64 and tries k = K-1 down to 1.
7. Learner features: ``phase = (t - s_a) / e_a``; ``Hp = max(0.0, (s_a + e_a) - t) / R_a(t)``
   (H2 when ``R_a(t) == 0.0``); ``type`` = sequential iff ``u_a * q_a < 1.5``;
   ``mem = mem_a / M`` (0.0 when memory is off or mem_a is unknown).
8. Leaf masses: ``0.6`` on k*, ``0.3 / count`` on each level at distance 1, ``0.1 / count`` on each
   other level; ``k* = min(K - 1, math.floor(f* * K + 1e-9))``.  When no "other" level exists
   (only K <= 3) the 0.1 is simply not placed (the leaf then sums to 0.9; nothing renormalises).
9. Mixture ``p_k = 0.0 + α_0 p_0[k] + α_1 p_1[k] + α_2 p_2[k] + α_3 p_3[k]`` left to right;
   ``Z`` and ``C_k`` are running sums from 0.0 over the kept levels in index order (k = 0 first);
   the pick is the first kept k with ``u * Z < C_k``, else the last kept level.
10. Losses: ``ℓ = 0.0`` for k = 0 (the contract's ℓ(a_0) = 0); degradation
    ``min(1.0, 2.0 * (1.0 / rho - 1.0))``; walltime
    ``min(1.0, max(0.0, ((t - s_a) + R_a(t) / rho) - e_a) / e_a)``.
    Risks ``r_i = r_i + p_i[k] * ℓ`` (also for k = 0, adding 0.0), then the test ``max(r) > 1.0``.
11. Hedge round: ``gamma = math.sqrt(2 * math.log(4) / round)``,
    ``α_i = α_i * math.exp(-gamma * r_i)``, ``total = ((α_0 + α_1) + α_2) + α_3``,
    ``α_i = α_i / total``, risks reset to 0.0, ``round += 1``.
12. Per-donor scope: a donor's learner is created fresh (α = 1/4, r = 0, round 1) at its first case
    and kept for its later cases (also after a guest left and it hosts again).  ``learner_state``
    is ignored and returned unchanged as ``state``; ``alphas`` stays empty.
13. ``loss_sum`` is the running float sum of ℓ over cases in case order; ``histogram`` counts ASAX
    choices only (all zeros for STATIC and HEADROOM).
14. Candidate donors are all running jobs in no pair at the co-allocation phase: jobs the space phase
    started at this same instant, and a former guest whose donor has ended, included.  The walk
    recomputes the candidates for each waiting job (a donor paired earlier in the walk drops out).
15. Interference ``pressure``: ``kappa_ab = kappa * p * use`` (left to right), ``p = 1.0`` with memory
    off, else ``min(1.0, (mem_a + mem_b) / M)``; ``use = min(f, u_b)`` for the rates and ``f`` for the
    guest's bound end (its efficiency read as 1 while it waits).  ``constant``: ``kappa_ab = kappa``.
16. Ablations: unprotected reservation: L = 0 for every pair; no fall-through: a case decided a0 ends
    the guest's walk over the donors (a donor without an admissible level is still skipped); a frozen
    learner (learn off) skips the products ``α_i * exp(...)`` but still divides by their sum.
18. Dynamic quotas: after the reservation of a pass (none when no job is left waiting: T = inf,
    extra = 0), each pair in its guest's position order whose donor's state bins (3 x Hp bin + phase
    bin, Hp = slack / (R / rate)) differ from those its level was decided on is a case over the
    levels 1..K-1 whose re-quota cost is <= extra (the present level always); the cost counts the
    donor's own part (q_a - q_b) and the pair's part (q_b) each released by T before and not after.
    Feedback at completion: a decided level > 0 is held with (leaves, t, R_a(t)) and charged when the
    pair ends (before the survivor's rate changes) or is re-decided (before the new draw), with the
    donor's observed slowdown ``min(1, max(0, 2 (elapsed / progress - 1)))`` (0 when no time passed,
    1 when no work was done) or its walltime overrun at its present rate.
    Features: the experts read the estimate predicted at submission (request, clairvoyant run, or
    AVE2: the mean of the user's last two finished runs, the request before), clipped to
    [1, request]; users' finished runs are recorded at completion.
19. Several guests per donor (``guests`` > 1): a running job that is no guest hosts up to ``guests``
    guests at once, each on its own processors (the sum of their q at most q_a); a candidate needs
    that room. The donor runs at the slowest of its shared processors' rates (its guests' donor rates,
    1 with none), set at a pairing to ``min(new pair's, present)``; L counts its own part (q_a minus
    its guests') and each guest's part whose release moves past T; its allocation is its own part
    plus ``q_g (1 - f_g)`` for each guest in position order. A guest ending gives its processors back
    (the donor's rate becomes its other guests'); a donor ending leaves each guest alone, settled and
    processed in position order. ``guests = 1`` is the model above.
17. Allocation (processor-seconds of CPU quota): ``allocated += rate * (t - since)`` whenever a job's
    allocation rate changes: ``q`` at a start, ``float(q_a - q_b) + float(q_b) * (1.0 - f)`` for a donor
    and ``float(q_b) * f`` for a guest when they pair, ``q`` for the survivor of a pair, 0 at the end.
    ``busy_area += float(busy) * (t - previous instant)`` at each instant before its completions.
20. Base scheduler ``first-fit``: the space phase walks the whole queue in FCFS order and starts every
    job with ``q_j <= free`` (``free -= q_j``); then ``T = math.inf`` and ``extra = 0`` for the
    co-allocation phase and the dynamic quotas' re-decisions, so every L and every re-quota cost is 0
    (the same tests as with EASY, which T = inf makes false). ``easy`` is the pass above, unchanged.
21. STATIC ``every-job`` (docs §2b): no pairs, no walk, no re-decision. The space phase (EASY or first
    fit) runs on ``free = 2 m - Σ q_j`` half-processors, a running job releasing its ``q_j`` at ``ê_j``
    (the shadow time of 5. over these entries); a job starts at rate 1.0 (``ê = t + e``, ``c = t + W``),
    which is also what the later jobs of the same pass see, and backfilling tests SEMANTICS'
    ``t + e_j <= T``. After the pass, every running job in position order (those started in the pass,
    and one with no work left, included) gets ``rho_new`` through 2. (untouched when equal):
    ``kappa_t = kappa`` if ``Q = Σ q_j > m`` (integers) else ``0.0``; ``quota``:
    ``(1.0 - kappa_t) * (1.0 if u == 0.0 else min(1.0, 0.5 / u))``; ``shares``: the water level in
    (u, position) order, ``C = float(m)``, ``W = float(Q)``, ``if u * W <= C: C -= q * u; W -= q``
    else ``λ = C / W`` and this and every later job is capped: ``(1.0 - kappa_t) * (λ / u)``; an
    uncapped job ``(1.0 - kappa_t) * 1.0``. A rate change can leave ``c_j == t``: that job completes at a
    further instant at the same t. Allocation rate ``0.5 * float(q_j)`` from the start to the end (so
    ``A_j = 0.5 q_j (end - start)``); ``busy_area += 0.5 * float(Σ q_j) * (t - previous instant)``
    (the same bits as ``0.5 * (float(Σ q_j) * dt)``: halving is exact); quota column 0.5, donor -1.
22. Loss ``host+guest``: ``0.5 * (ℓ_a + ℓ_b)`` with ``ℓ_a = min(1.0, 2.0 * (1.0 / rho_a - 1.0))`` at
    the donor rate of 1. (``donor_rate(a, b, k / K)``, as the degradation loss) and ``ℓ_b`` likewise at
    the guest's rate ``guest_rate(a, b, k / K)`` with its own efficiency (pressure interference:
    ``use = min(f, u_b)``). Feedback at completion holds the guest's work left at the decision too
    (W_b for a guest about to start, ``max(0.0, R_b - rho_b (t - tau_b))`` at a re-decision) and
    charges ``0.5 * (ℓ_a + ℓ_b)``, each the observed slowdown of 18. over the same elapsed time with
    its own progress ``left - R(t)`` (``R(t)`` computed as in 3. with the job's present rate).
"""

import math

import numpy as np

STRATEGIES = ("SPACE", "STATIC", "ASAX", "HEADROOM")
LOSSES = ("degradation", "walltime", "host+guest")
SCOPES = ("shared", "per-donor")
SCHEDULERS = ("easy", "first-fit")
STATIC_MODES = ("paired", "every-job")
CPU_LIMITS = ("quota", "shares")
EXPERT_COUNT = 4  # CPU, MEM, TYPE, PHASE, in this order everywhere
STATIC_QUOTA = 0.5

# Suggested quotas f*, indexed [metric level][Hp level]; Hp levels H0, H1, H2.
CPU_OR_MEM_TABLE = ((0.25, 0.50, 0.75), (0.0, 0.25, 0.50), (0.0, 0.0, 0.25))  # low, mid, high
TYPE_TABLE = ((0.25, 0.50, 0.75), (0.0, 0.25, 0.50))  # sequential, parallel
PHASE_TABLE = ((0.0, 0.25, 0.50), (0.0, 0.25, 0.50), (0.0, 0.50, 0.75))  # early, middle, late


# ------------------------------------------------------ STATIC every-job ---


def water_level(threads, machine_size):
    """docs §2b.2, `cpu_limit: shares`: the water level of the running jobs' threads.

    `threads`: (u_j, position, q_j) of every running job. Returns (λ, capped positions); λ is math.inf
    and nobody is capped when the threads' demand fits on the machine. Decided arithmetic: the jobs in
    (u_j, position) order, C = float(m), W = float(Q); a job with u_j * W <= C gets u_j
    (C -= q_j * u_j, W -= q_j), the first one that does not sets λ = C / W, and it and every later job
    are capped at λ."""
    capacity = float(machine_size)
    width = float(sum(q for _, _, q in threads))
    ordered = sorted(threads)
    for i, (u_j, _, q_j) in enumerate(ordered):
        if u_j * width <= capacity:
            capacity -= q_j * u_j
            width -= q_j
        else:
            return capacity / width, {position for _, position, _ in ordered[i:]}
    return math.inf, set()


def every_job_rate(u_j, kappa_t, cpu_limit, level, capped):
    """ρ_j of docs §2b.2: quota (1 - κ_t)·min(1, 0.5 / u_j); shares (1 - κ_t)·(λ / u_j) when capped,
    else (1 - κ_t) (its threads get u_j: min(u_j, λ) / u_j = 1)."""
    if cpu_limit == "quota":
        return (1.0 - kappa_t) * (1.0 if u_j == 0.0 else min(1.0, STATIC_QUOTA / u_j))
    if capped:
        return (1.0 - kappa_t) * (level / u_j)
    return (1.0 - kappa_t) * 1.0


def observed_degradation(elapsed, progress):
    """Feedback at completion: the slowdown observed since the decision, min(1, max(0, 2 (elapsed /
    progress - 1))); 0 when no time passed, 1 when no work was done."""
    if elapsed <= 0.0:
        return 0.0
    if progress <= 0.0:
        return 1.0
    return min(1.0, max(0.0, 2.0 * (elapsed / progress - 1.0)))


# --------------------------------------------------------------- learner ---


def fresh_learner_state():
    return {"alpha": [1.0 / EXPERT_COUNT] * EXPERT_COUNT, "risk": [0.0] * EXPERT_COUNT, "round": 1}


def copy_learner_state(state):
    return {
        "alpha": [float(x) for x in state["alpha"]],
        "risk": [float(x) for x in state["risk"]],
        "round": int(state["round"]),
    }


def leaf_distribution(suggested_quota, levels):
    """p_i over the K levels: 0.6 on k*, 0.3 split over distance 1, 0.1 split over the rest."""
    k_star = min(levels - 1, math.floor(suggested_quota * levels + 1e-9))
    near = [k for k in range(levels) if abs(k - k_star) == 1]
    far = [k for k in range(levels) if abs(k - k_star) > 1]
    distribution = [0.0] * levels
    distribution[k_star] = 0.6
    for k in near:
        distribution[k] = 0.3 / len(near)
    for k in far:
        distribution[k] = 0.1 / len(far)
    return distribution


def cpu_or_mem_level(x):
    if x < 0.25:
        return 0
    if x <= 0.75:
        return 1
    return 2


def phase_level(phase):
    if phase < 0.25:
        return 0
    if phase < 0.75:
        return 1
    return 2


def happiness_level(slack, remaining, rate=1.0):
    """Hp = slack / (remaining / rate): the time left over the time needed; decided: H2 when no work
    remains."""
    if remaining == 0.0:
        return 2
    happiness = slack / (remaining / rate)
    if happiness < 1.0:
        return 0
    if happiness <= 1.1:
        return 1
    return 2


def expert_quotas(cpu, mem, sequential, phase, slack, remaining, rate=1.0):
    """f* of the four experts (CPU, MEM, TYPE, PHASE) for one donor state."""
    hp = happiness_level(slack, remaining, rate)
    return (
        CPU_OR_MEM_TABLE[cpu_or_mem_level(cpu)][hp],
        CPU_OR_MEM_TABLE[cpu_or_mem_level(mem)][hp],
        TYPE_TABLE[0 if sequential else 1][hp],
        PHASE_TABLE[phase_level(phase)][hp],
    )


def mixture(alpha, leaves, levels):
    """p_k = Σ_i α_i p_i[k], summed in expert order."""
    mixed = []
    for k in range(levels):
        total = 0.0
        for i in range(EXPERT_COUNT):
            total += alpha[i] * leaves[i][k]
        mixed.append(total)
    return mixed


def pick_level(mixed, kept_levels, draw):
    """Inverse CDF over the kept levels in index order, unnormalised: smallest k with u·Z < C_k."""
    normaliser = 0.0
    for k in kept_levels:
        normaliser += mixed[k]
    threshold = draw * normaliser
    cumulative = 0.0
    for k in kept_levels:
        cumulative += mixed[k]
        if threshold < cumulative:
            return k
    return kept_levels[-1]  # rounding left no level: the last kept one


def hedge_update(state, leaves, chosen_level, loss, learn=True):
    """Risk update; a Hedge round when some risk exceeds 1 (a frozen learner's α only renormalised).
    Returns True if a round happened."""
    risk = state["risk"]
    for i in range(EXPERT_COUNT):
        risk[i] = risk[i] + leaves[i][chosen_level] * loss
    if max(risk) > 1.0:
        gamma = math.sqrt(2 * math.log(4) / state["round"])
        alpha = state["alpha"]
        for i in range(EXPERT_COUNT):
            if learn:
                alpha[i] = alpha[i] * math.exp(-gamma * risk[i])
        total = 0.0
        for i in range(EXPERT_COUNT):
            total += alpha[i]
        for i in range(EXPERT_COUNT):
            alpha[i] = alpha[i] / total
        state["risk"] = [0.0] * EXPERT_COUNT
        state["round"] += 1
        return True
    return False


# ------------------------------------------------------------- simulator ---


def _check_inputs(
    submit,
    work,
    estimate,
    procs,
    efficiency,
    memory,
    machine_size,
    strategy,
    levels,
    kappa,
    loss,
    scope,
    learner_state,
    scheduler="easy",
    static="paired",
    cpu_limit="quota",
    interference="constant",
):
    n = len(submit)
    for name, seq in (
        ("work", work),
        ("estimate", estimate),
        ("procs", procs),
        ("efficiency", efficiency),
        ("memory", memory),
    ):
        if len(seq) != n:
            raise ValueError("length mismatch: submit has %d jobs, %s has %d" % (n, name, len(seq)))
    if int(machine_size) != machine_size or machine_size < 1:
        raise ValueError("machine_size must be a positive integer, got %r" % (machine_size,))
    for i in range(n):
        if int(procs[i]) != procs[i] or not 1 <= procs[i] <= machine_size:
            raise ValueError("procs[%d] = %r is outside [1, machine_size]" % (i, procs[i]))
        if not (0.0 <= work[i] <= estimate[i] and estimate[i] >= 1.0):
            raise ValueError("job %d needs 0 <= work <= estimate and estimate >= 1" % i)
        u = efficiency[i]
        if not (math.isnan(u) or 0.0 <= u <= 1.0):
            raise ValueError("efficiency[%d] = %r is outside [0, 1]" % (i, u))
        if i and submit[i] < submit[i - 1]:
            raise ValueError("jobs must be sorted by submit time")
    if strategy not in STRATEGIES:
        raise ValueError("unknown strategy %r" % (strategy,))
    if int(levels) != levels or levels < 2:
        raise ValueError("levels must be an integer >= 2, got %r" % (levels,))
    if not 0.0 <= kappa < 1.0:
        raise ValueError("kappa must be in [0, 1), got %r" % (kappa,))
    if loss not in LOSSES:
        raise ValueError("unknown loss %r" % (loss,))
    if scope not in SCOPES:
        raise ValueError("unknown scope %r" % (scope,))
    if learner_state is not None:
        if len(learner_state["alpha"]) != EXPERT_COUNT or len(learner_state["risk"]) != EXPERT_COUNT:
            raise ValueError("learner_state needs 4 weights and 4 risks")
    if scheduler not in SCHEDULERS:
        raise ValueError("unknown scheduler %r" % (scheduler,))
    if static not in STATIC_MODES:
        raise ValueError("unknown static %r" % (static,))
    if cpu_limit not in CPU_LIMITS:
        raise ValueError("unknown cpu_limit %r" % (cpu_limit,))
    if static == "every-job" and (strategy != "STATIC" or interference != "constant"):
        raise ValueError("static every-job is a STATIC setting with interference constant")
    if cpu_limit != "quota" and static != "every-job":
        raise ValueError("cpu_limit %r needs static every-job" % (cpu_limit,))


def simulate_reference(
    submit,
    work,
    estimate,
    procs,
    efficiency,
    memory,
    machine_size,
    *,
    strategy,
    levels=10,
    kappa=0.0,
    memory_capacity=None,
    loss="degradation",
    scope="shared",
    seed=0,
    learner_state=None,
    interference="constant",
    protect_reservation=True,
    fall_through=True,
    learn=True,
    quotas="fixed",
    feedback="decision",
    features="request",
    user=None,
    guests=1,
    scheduler="easy",
    static="paired",
    cpu_limit="quota",
):
    submit = [float(x) for x in submit]
    work = [float(x) for x in work]
    estimate = [float(x) for x in estimate]
    procs = [int(x) for x in procs]
    efficiency = [float(x) for x in efficiency]
    memory = [float(x) for x in memory]
    kappa = float(kappa)
    _check_inputs(
        submit,
        work,
        estimate,
        procs,
        efficiency,
        memory,
        machine_size,
        strategy,
        levels,
        kappa,
        loss,
        scope,
        learner_state,
        scheduler,
        static,
        cpu_limit,
        interference,
    )
    n = len(submit)
    m = int(machine_size)
    K = int(levels)
    u = [1.0 if math.isnan(x) else x for x in efficiency]  # unknown efficiency = CPU-bound
    memory_on = memory_capacity is not None
    M = float(memory_capacity) if memory_on else math.nan
    generator = np.random.Generator(np.random.PCG64(seed))
    every_job = static == "every-job"  # docs §2b: no pairs; 2m half-processors, q_j of them per job
    capacity = 2 * m if every_job else m

    # results
    start = [math.nan] * n
    end = [math.nan] * n
    donor_position = [-1] * n
    guest_quota = [math.nan] * n
    seen_estimate = list(estimate)  # what the experts read of each job: set at its submission
    users = [0] * n if user is None else [int(x) for x in user]
    finished_runs = {}  # ave2: per user, the runs of its finished jobs in completion order
    level = [0] * n  # a paired guest's present level
    decided_bins = [0] * n  # the donor's state bins its level was decided on
    held = {}  # feedback at completion: guest -> (level, leaves, since, donor's work left)
    redecisions = quota_changes = 0
    allocated = [0.0] * n
    allocation_rate = [0.0] * n
    allocation_since = [0.0] * n

    # state of running jobs (valid while the job runs)
    remaining = [0.0] * n  # R_j
    rate = [1.0] * n  # rho_j
    last_update = [0.0] * n  # tau_j
    completion = [0.0] * n  # c_j
    estimated_end = [0.0] * n  # ê_j
    guests_of = [[] for _ in range(n)]  # for a donor: its guests now (each on its own processors)
    quota_now = [math.nan] * n  # a paired guest's present quota
    current_donor = [-1] * n  # for a guest still paired: its donor now, else -1

    running = set()
    waiting = []  # submitted, not started; kept in position order = FCFS order

    # learner
    initial_state = fresh_learner_state() if learner_state is None else copy_learner_state(learner_state)
    shared_learner = copy_learner_state(initial_state)
    donor_learners = {}
    alphas_after_rounds = []
    case_count = 0
    loss_sum = 0.0
    histogram = [0] * K

    def pair_interference(a, b, use):
        if interference == "constant":
            return kappa
        pressure = 1.0 if not memory_on else min(1.0, (memory[a] + memory[b]) / M)
        return kappa * pressure * use

    def paired_rate(a, b, share, efficiency_value, f, guest_use=None):
        cap = 1.0 if efficiency_value == 0.0 else min(1.0, share / efficiency_value)
        return (1.0 - pair_interference(a, b, min(f, u[b]) if guest_use is None else guest_use)) * cap

    def donor_rate(a, b, f):
        return paired_rate(a, b, 1.0 - f, u[a], f)

    def guest_rate(a, b, f):
        return paired_rate(a, b, f, u[b], f)

    def allocate(j, t, processors):
        allocated[j] += allocation_rate[j] * (t - allocation_since[j])
        allocation_since[j] = t
        allocation_rate[j] = processors

    def begin(j, t, rho):
        start[j] = t
        remaining[j] = work[j]
        rate[j] = rho
        last_update[j] = t
        completion[j] = t + work[j] / rho
        estimated_end[j] = t + estimate[j] / rho
        running.add(j)
        waiting.remove(j)
        if every_job:
            guest_quota[j] = STATIC_QUOTA  # docs §2b.4: the quota column is 0.5 for every job
            allocate(j, t, STATIC_QUOTA * float(procs[j]))  # half of each of its processors
        else:
            allocate(j, t, float(procs[j]))

    def change_rate(j, t, new_rho):
        if new_rho == rate[j]:
            return  # docs §2.5: touched only when the rate changes
        remaining[j] = max(0.0, remaining[j] - rate[j] * (t - last_update[j]))
        last_update[j] = t
        rate[j] = new_rho
        completion[j] = t + remaining[j] / new_rho
        estimated_end[j] = t + (estimate[j] - (work[j] - remaining[j])) / new_rho

    def complete(j, t):
        running.remove(j)
        end[j] = t
        allocate(j, t, 0.0)
        finished_runs.setdefault(users[j], []).append(work[j])
        a = current_donor[j]
        if a >= 0:
            # a guest ends: its processors return to its donor, which runs at its other guests' rate
            settle(a, j, t)
            guests_of[a].remove(j)
            current_donor[j] = -1
            if completion[a] != t:
                change_rate(a, t, donor_rate_now(a))
            allocate(a, t, donor_allocation(a))
            return
        # a donor ends: each guest keeps its own processors, alone at rate 1
        for g in sorted(guests_of[j]):
            settle(j, g, t)
            current_donor[g] = -1
            if completion[g] != t:
                change_rate(g, t, 1.0)
            allocate(g, t, float(procs[g]))
        guests_of[j] = []

    def donor_rate_now(a, changed=-1, f=None):
        """The slowest of donor a's shared processors over its guests (1 with none), guest `changed` at f."""
        slowest = 1.0
        for g in sorted(guests_of[a]):
            rho = donor_rate(a, g, f if g == changed else quota_now[g])
            if rho < slowest:
                slowest = rho
        return slowest

    def donor_allocation(a):
        processors = float(procs[a] - sum(procs[g] for g in guests_of[a]))
        for g in sorted(guests_of[a]):
            processors += float(procs[g]) * (1.0 - quota_now[g])
        return processors

    def busy_processors():
        # a paired guest sits on its donor's processors; with every-job: the half-processors in use
        return sum(procs[j] for j in running if current_donor[j] < 0)

    def set_every_job_rates(t):
        """docs §2b.2: at the end of the instant, every running job's rate, in position order, through
        §2.5 (a job whose rate does not change is not touched)."""
        jobs = sorted(running)
        kappa_t = kappa if sum(procs[j] for j in jobs) > m else 0.0
        if cpu_limit == "shares":
            level, capped = water_level([(u[j], j, procs[j]) for j in jobs], m)
        else:
            level, capped = math.inf, set()
        for j in jobs:
            change_rate(j, t, every_job_rate(u[j], kappa_t, cpu_limit, level, j in capped))

    def shadow(head, free):
        """SEMANTICS §4 step 2 with the co-scheduling release entries of docs §3."""
        releases = []
        for j in running:
            if current_donor[j] >= 0:
                continue  # a paired guest is released through its donor's entries
            releases.append((estimated_end[j], procs[j] - sum(procs[g] for g in guests_of[j])))
            for g in guests_of[j]:
                releases.append((max(estimated_end[j], estimated_end[g]), procs[g]))
        for T in sorted({when for when, _ in releases}):
            available = free + sum(count for when, count in releases if when <= T)
            if available >= procs[head]:
                return T, available - procs[head]
        raise AssertionError("no shadow time: the head cannot fit even on an empty machine")

    def remaining_now(a, t):
        return max(0.0, remaining[a] - rate[a] * (t - last_update[a]))

    def predicted(j):
        """The estimate the experts read of job j, at its submission: clipped to [1, request]."""
        if features == "request":
            e = estimate[j]
        elif features == "clairvoyant":
            e = work[j]
        else:  # ave2: the mean of the user's last two finished runs; the request before two finished
            runs = finished_runs.get(users[j], [])
            e = estimate[j] if len(runs) < 2 else (runs[-1] + runs[-2]) / 2.0
        e = min(e, estimate[j])
        return max(e, 1.0)

    def state_bins(a, t):
        """3 x the Hp bin + the phase bin of donor a at t, from the estimate the experts read."""
        R = remaining_now(a, t)
        hp = happiness_level(max(0.0, start[a] + seen_estimate[a] - t), R, rate[a])
        return 3 * hp + phase_level((t - start[a]) / seen_estimate[a])

    def reservation_cost(a, b, f, t, T):
        """L of docs §3 for the pair (a, b, f); the waiting guest's efficiency is read as 1. A donor
        runs at its slowest processor's rate: the new pair's or its present one."""
        bound_rate = min(paired_rate(a, b, 1.0 - f, u[a], f, guest_use=f), rate[a])
        new_estimated_end = end_at_rate(a, t, bound_rate)  # decided: untouched at its present rate
        if not protect_reservation or estimated_end[a] > T:
            cost = 0
        elif new_estimated_end > T:
            # its own processors (the new guest's among them), and its guests' whose release moves past T
            cost = procs[a] - sum(procs[g] for g in guests_of[a])
            for g in guests_of[a]:
                if max(estimated_end[a], estimated_end[g]) <= T < max(new_estimated_end, estimated_end[g]):
                    cost += procs[g]
        elif t + estimate[b] / ((1.0 - pair_interference(a, b, f)) * f) > T:
            cost = procs[b]
        else:
            cost = 0
        return cost

    def memory_fits(a, b):
        if not memory_on:
            return True
        if math.isnan(memory[a]) or math.isnan(memory[b]):
            return False  # a job of unknown memory never shares
        return memory[a] + memory[b] <= M

    def learner_of(a):
        return shared_learner if scope == "shared" else donor_learners.setdefault(a, fresh_learner_state())

    def charge(a, leaves, chosen, case_loss):
        nonlocal loss_sum
        state = learner_of(a)
        if hedge_update(state, leaves, chosen, case_loss, learn) and scope == "shared":
            alphas_after_rounds.append(list(state["alpha"]))
        loss_sum += case_loss

    def asax_case(a, b, t, levels_kept):
        """One learner case; returns the chosen level (0 = do not pair). `levels_kept`: level 0 and
        the admissible levels (a re-decision keeps no level 0)."""
        nonlocal case_count
        state = learner_of(a)
        R_now = remaining_now(a, t)
        mem_feature = 0.0 if (not memory_on or math.isnan(memory[a])) else memory[a] / M
        quotas = expert_quotas(
            cpu=u[a],
            mem=mem_feature,
            sequential=u[a] * procs[a] < 1.5,
            phase=(t - start[a]) / seen_estimate[a],
            slack=max(0.0, start[a] + seen_estimate[a] - t),
            remaining=R_now,
            rate=rate[a],
        )
        leaves = [leaf_distribution(quota, K) for quota in quotas]
        mixed = mixture(state["alpha"], leaves, K)
        draw = generator.random()
        chosen = pick_level(mixed, levels_kept, draw)
        case_count += 1
        histogram[chosen] += 1
        if feedback == "completion":
            if chosen > 0:
                # a new guest has not started yet: its work left is all of it
                guest_left = remaining_now(b, t) if b in running else work[b]
                held[b] = (chosen, leaves, t, R_now, guest_left)
            return chosen
        if chosen == 0:
            case_loss = 0.0
        else:
            rho = donor_rate(a, b, chosen / K)
            if loss == "degradation":
                case_loss = min(1.0, 2.0 * (1.0 / rho - 1.0))
            elif loss == "host+guest":
                # the guest's rate at the level with its own efficiency (§2.3)
                guest_rho = guest_rate(a, b, chosen / K)
                host_loss = min(1.0, 2.0 * (1.0 / rho - 1.0))
                guest_loss = min(1.0, 2.0 * (1.0 / guest_rho - 1.0))
                case_loss = 0.5 * (host_loss + guest_loss)
            else:
                overrun = (t - start[a]) + R_now / rho - estimate[a]
                case_loss = min(1.0, max(0.0, overrun) / estimate[a])
        charge(a, leaves, chosen, case_loss)
        return chosen

    def settle(a, b, t):
        """Feedback at completion: the held decision of guest b charged with its donor's observed loss."""
        if b not in held:
            return
        chosen, leaves, since, left, guest_left = held.pop(b)
        if loss == "degradation":
            case_loss = observed_degradation(t - since, left - remaining_now(a, t))
        elif loss == "host+guest":
            host_loss = observed_degradation(t - since, left - remaining_now(a, t))
            guest_loss = observed_degradation(t - since, guest_left - remaining_now(b, t))
            case_loss = 0.5 * (host_loss + guest_loss)
        else:
            late = (t - start[a]) + remaining_now(a, t) / rate[a] - estimate[a]
            case_loss = min(1.0, max(0.0, late) / estimate[a])
        charge(a, leaves, chosen, case_loss)

    def end_at_rate(j, t, new_rate):
        if new_rate == rate[j]:
            return estimated_end[j]
        return t + (estimate[j] - (work[j] - remaining_now(j, t))) / new_rate

    def requota_cost(a, b, k, t, T):
        """Processors the reservation loses if pair (a, b) moves to level k."""
        if not protect_reservation:
            return 0
        f = k / K
        donor_end = end_at_rate(a, t, donor_rate_now(a, b, f))
        lost = 0
        if estimated_end[a] <= T < donor_end:
            lost += procs[a] - sum(procs[g] for g in guests_of[a])
        for g in guests_of[a]:
            guest_end = end_at_rate(b, t, guest_rate(a, b, f)) if g == b else estimated_end[g]
            if max(estimated_end[a], estimated_end[g]) <= T < max(donor_end, guest_end):
                lost += procs[g]
        return lost

    def redecide(t, T, extra):
        """Dynamic quotas: the pairs whose donor's state bins changed are cases again (levels >= 1)."""
        nonlocal redecisions, quota_changes
        for b in sorted(j for j in running if current_donor[j] >= 0):
            a = current_donor[b]
            bins = state_bins(a, t)
            if bins == decided_bins[b]:
                continue
            decided_bins[b] = bins
            present = level[b]
            admissible = [k for k in range(1, K) if k == present or requota_cost(a, b, k, t, T) <= extra]
            settle(a, b, t)
            chosen = asax_case(a, b, t, admissible)
            redecisions += 1
            if chosen != present:
                extra -= requota_cost(a, b, chosen, t, T)
                f = chosen / K
                change_rate(a, t, donor_rate_now(a, b, f))
                change_rate(b, t, guest_rate(a, b, f))
                quota_now[b] = f
                level[b] = chosen
                allocate(a, t, donor_allocation(a))
                allocate(b, t, float(procs[b]) * f)
                quota_changes += 1
        return extra

    def choose_quota(a, b, t, T, extra):
        """The strategy's quota for donor a and guest b; None: try the next donor; 0.0: ASAX decided a0."""
        if strategy == "STATIC":
            cost = reservation_cost(a, b, STATIC_QUOTA, t, T)
            return STATIC_QUOTA if cost <= extra else None
        if strategy == "HEADROOM":
            for k in range(K - 1, 0, -1):
                f = k / K
                if f <= 1.0 - u[a] and reservation_cost(a, b, f, t, T) <= extra:
                    return f
            return None
        # ASAX
        admissible_levels = [k for k in range(1, K) if reservation_cost(a, b, k / K, t, T) <= extra]
        if not admissible_levels:
            return None  # decided: no case, no draw
        chosen = asax_case(a, b, t, [0] + admissible_levels)
        return 0.0 if chosen == 0 else chosen / K

    def co_allocation_phase(t, T, extra):
        for b in list(waiting):
            donors = sorted(
                (start[a], a)
                for a in running
                if current_donor[a] < 0
                and len(guests_of[a]) < guests
                and procs[a] - sum(procs[g] for g in guests_of[a]) >= procs[b]
                and memory_fits(a, b)
            )
            for _, a in donors:
                f = choose_quota(a, b, t, T, extra)
                if f is None:
                    continue
                if f == 0.0:
                    if fall_through:
                        continue
                    break
                extra -= reservation_cost(a, b, f, t, T)
                change_rate(a, t, min(donor_rate(a, b, f), rate[a]))
                begin(b, t, guest_rate(a, b, f))
                guests_of[a].append(b)
                current_donor[b] = a
                quota_now[b] = f
                allocate(a, t, donor_allocation(a))
                allocate(b, t, float(procs[b]) * f)
                level[b] = math.floor(f * K + 0.5)
                if quotas == "dynamic":
                    decided_bins[b] = state_bins(a, t)
                donor_position[b] = a
                guest_quota[b] = f
                break

    def scheduling_pass(t):
        if not waiting:
            if quotas == "dynamic":
                redecide(t, math.inf, 0)  # no reservation to keep
            return
        free = capacity - busy_processors()
        queue = list(waiting)
        if scheduler == "first-fit":
            # docs §3, base scheduler: every waiting job that fits, in FCFS order; nothing reserved
            for j in queue:
                if procs[j] <= free:
                    begin(j, t, 1.0)
                    free -= procs[j]
            T, extra = math.inf, 0
        elif free > 0:
            # SEMANTICS §4 step 1: start in queue order while the job fits
            i = 0
            while i < len(queue) and procs[queue[i]] <= free:
                begin(queue[i], t, 1.0)
                free -= procs[queue[i]]
                i += 1
            if i == len(queue):
                if quotas == "dynamic":
                    redecide(t, math.inf, 0)
                return
            head = queue[i]
            T, extra = shadow(head, free)
            # step 3: backfill in queue order
            for j in queue[i + 1 :]:
                if procs[j] <= free and (t + estimate[j] <= T or procs[j] <= extra):
                    begin(j, t, 1.0)
                    free -= procs[j]
                    if t + estimate[j] > T:
                        extra -= procs[j]
        else:
            # decided: nothing starts, but the reservation of the first waiting job is still computed
            head = queue[0]
            T, extra = shadow(head, free)
        if every_job:
            return  # docs §2b: no pairs, no walk
        if quotas == "dynamic":
            extra = redecide(t, T, extra)
        if strategy != "SPACE":
            co_allocation_phase(t, T, extra)

    next_submission = 0
    finished = 0
    busy_area = 0.0
    previous = None
    while finished < n:
        instants = [completion[j] for j in running]
        if next_submission < n:
            instants.append(submit[next_submission])
        t = min(instants)
        if previous is not None:
            if every_job:
                busy_area += STATIC_QUOTA * float(busy_processors()) * (t - previous)  # half-processors
            else:
                busy_area += float(busy_processors()) * (t - previous)
        previous = t
        while True:
            due = [j for j in running if completion[j] == t]
            if not due:
                break
            complete(min(due), t)
            finished += 1
        while next_submission < n and submit[next_submission] <= t:
            seen_estimate[next_submission] = predicted(next_submission)
            waiting.append(next_submission)
            next_submission += 1
        scheduling_pass(t)
        if every_job:
            set_every_job_rates(t)

    final_state = copy_learner_state(shared_learner if scope == "shared" else initial_state)
    return {
        "start": np.array(start, dtype=np.float64),
        "end": np.array(end, dtype=np.float64),
        "donor": np.array(donor_position, dtype=np.int64),
        "quota": np.array(guest_quota, dtype=np.float64),
        "allocated": np.array(allocated, dtype=np.float64),
        "busy_area": busy_area,
        "learner": {
            "alphas": alphas_after_rounds,
            "cases": case_count,
            "loss_sum": loss_sum,
            "histogram": histogram,
            "state": final_state,
            "redecisions": redecisions,
            "quota_changes": quota_changes,
        },
    }
