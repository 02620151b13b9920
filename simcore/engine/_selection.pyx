# cython: language_level=3, boundscheck=False, wraparound=False
# cython: cdivision=True, initializedcheck=False
"""Job selection's kernel (docs/job_selection.md): the default observation of
a pending decision, the final rewards and the vector env's step, over
simulations of the event loop (_core.pyx, driven through _core.pxd: its
selection mode runs to each decision, the agent's choice is its head).

`SelectionSettings` holds what an observation and a reward need, checked
once; `SelectionBatch` steps several simulations in one call, on several
OpenMP threads if asked. Only this module is compiled with OpenMP (setup.py):
the event loop is not.
"""

import numpy as np

from simcore.engine.actions import INVALID_ACTIONS, check_invalid_action
from simcore.engine.metrics import TAU

from libc.math cimport INFINITY, log1p
from libc.stdlib cimport free, malloc

from cython.parallel cimport prange

from simcore.engine._core cimport BACKFILL_NONE_CODE, BACKFILL_QUEUE_CODE, Simulation
from simcore.engine._waitlist cimport WAITING, WaitList
from simcore.engine._orders cimport check_order


# -- the decision mode of the event loop: the agent picks the head ----------
#
# A simulation driven this way runs to each instant where a job waits and no
# head is chosen; the chosen head starts as soon as it fits, and until then
# each instant backfills the other waiting jobs around its reservation (EASY,
# recomputed at each instant) unless the backfill is none. These functions
# drive the event loop's own steps (_core.pxd) and hold only the head.

cdef bint to_decision(Simulation sim) noexcept nogil:
    """Run until a head must be chosen (True: a job waits and none is chosen)
    or every job is done (False)."""
    cdef long long extra
    cdef double shadow
    while True:
        if sim.head >= 0:
            if sim.jobs.procs[sim.head] <= sim.free_procs:
                sim._start(sim.head, sim.now, False)
                sim.head = -1
                continue
            if sim.pass_open and not sim.head_passed and sim.backfill != BACKFILL_NONE_CODE:
                sim.head_passed = True
                shadow = sim._reserve(sim.head, &extra)
                sim._backfill_list(
                    &sim.lists[sim.queue_list if sim.backfill == BACKFILL_QUEUE_CODE else sim.backfill_list],
                    sim.head, sim.now, shadow, &extra)
        elif sim.n_waiting > 0:
            return True
        if sim._next_instant(INFINITY) == INFINITY:
            return False
        sim.pass_open = sim.free_procs > 0
        sim.passes += sim.pass_open
        sim.head_passed = False


cdef bint _next_decision(Simulation sim) except -1:
    """to_decision, then the predictor is free at the end."""
    cdef bint pending
    if sim.profile_walk:
        raise ValueError("job selection runs EASY (reservations 1) or no backfilling; "
                         f"this simulation has reservation depth {sim.depth}")
    with nogil:
        pending = to_decision(sim)
    if not pending:
        sim._release_predictor()
    return pending


cdef inline void choose(Simulation sim, Py_ssize_t j) noexcept nogil:
    sim.head = j
    sim.head_passed = False


cdef int _check_head(Simulation sim, Py_ssize_t j) except -1:
    """j may be chosen as the head: a decision is pending and j waits."""
    if sim.head >= 0 or sim.n_waiting == 0:
        raise RuntimeError("no decision is pending: call next_decision() first")
    if not sim._is_waiting(j):
        raise ValueError(f"job {j} is not waiting at t = {sim.now}")
    return 0


def next_decision(Simulation sim not None):
    """Run `sim` to the next instant where a head must be chosen; True if one
    must, False when every job is done."""
    return _next_decision(sim)


def choose_head(Simulation sim not None, Py_ssize_t j):
    """Waiting job j is `sim`'s head, at the pending decision."""
    _check_head(sim, j)
    choose(sim, j)


def waiting_jobs(Simulation sim not None, long long[::1] out):
    """Fill `out` with `sim`'s first waiting jobs in queue order; return how
    many there are in all (a window: out may be shorter)."""
    cdef WaitList* queue = &sim.lists[sim.queue_list]
    cdef Py_ssize_t i = 0, j, count = 0, size = out.shape[0]
    sim._prepare(queue, sim.now)
    while count < size and i < queue.size:
        j = queue.items[i].idx
        i += 1
        if sim.perjob.state[j] == WAITING:
            out[count] = j
            count += 1
    return sim.n_waiting


def first_by_order(Simulation sim not None, int order, const long long[::1] jobs):
    """The position in `jobs` (waiting jobs) of the one queue order `order`
    puts first now (its key at this instant; ties: the earlier position)."""
    cdef WaitList by_order
    cdef Py_ssize_t i, best = -1
    cdef double key, best_key = INFINITY
    check_order(order, "queue order")
    for i in range(jobs.shape[0]):
        if not sim._is_waiting(jobs[i]):
            raise ValueError(f"job {jobs[i]} is not waiting at t = {sim.now}")
    sim._set_order(&by_order, order)
    for i in range(jobs.shape[0]):
        key = sim._key(&by_order, jobs[i], sim.now)
        if best < 0 or key < best_key:
            best, best_key = i, key
    return best


# The default observation's layout: JOB_FEATURES numbers per slot (filled,
# wait, requested time, processors, fits now, estimate), then the machine's:
# free processors, what the running jobs free within each horizon, the share
# of the episode's jobs done.
cpdef enum:
    JOB_FEATURES = 6


cpdef Py_ssize_t observation_size(Py_ssize_t window, Py_ssize_t n_horizons) noexcept nogil:
    """The default observation's length: `window` slots and `n_horizons` horizons."""
    return JOB_FEATURES * window + 1 + n_horizons + 1


# The final rewards of an episode: minus the mean over its jobs of the bounded
# slowdown, wait, turnaround or slowdown, or the utilisation. REWARDS, their
# names in code order, is the registry the environment takes its names from.
cpdef enum Reward:
    REWARD_BSLD
    REWARD_WAIT
    REWARD_TURNAROUND
    REWARD_SLOWDOWN
    REWARD_UTILISATION

# (in Cython `Reward` is the C type; its Python class is the module's global)
REWARDS = tuple(name.removeprefix("REWARD_").lower() for name in globals()["Reward"].__members__)


cdef struct Settings:
    Py_ssize_t window
    Py_ssize_t n_horizons
    const double* horizons
    double scale        # ln(1 + log_top / 60): the log scale's 1
    Reward reward
    double tau


cdef inline float _log_scale(double seconds, double scale) noexcept nogil:
    """min(1, ln(1 + x/60) / scale), 0 for x <= 0."""
    if seconds <= 0.0:
        return 0.0
    cdef double value = log1p(seconds / 60.0) / scale
    return <float> (value if value < 1.0 else 1.0)


cdef Py_ssize_t _observe(Simulation sim, const Settings* s, float* out,
                         long long* slots) noexcept nogil:
    """Write the pending decision's observation into out and the job of each
    slot (-1: empty) into slots; return how many slots are filled."""
    cdef WaitList* wl = &sim.lists[sim.queue_list]
    cdef Py_ssize_t i = 0, j, k, filled = 0, h
    cdef double m = <double> sim.machine_size
    cdef double freed
    sim._prepare(wl, sim.now)
    for i in range(observation_size(s.window, s.n_horizons)):
        out[i] = 0.0
    i = 0
    while filled < s.window and i < wl.size:
        j = wl.items[i].idx
        i += 1
        if sim.perjob.state[j] != WAITING:
            continue
        slots[filled] = j
        k = JOB_FEATURES * filled
        out[k] = 1.0
        out[k + 1] = _log_scale(sim.now - sim.jobs.submit[j], s.scale)
        out[k + 2] = _log_scale(sim.jobs.requested[j], s.scale)
        out[k + 3] = sim.jobs.procs[j] / m
        out[k + 4] = 1.0 if sim.jobs.procs[j] <= sim.free_procs else 0.0
        out[k + 5] = _log_scale(sim.perjob.estimate[j], s.scale)
        filled += 1
    for i in range(filled, s.window):
        slots[i] = -1
    k = JOB_FEATURES * s.window
    out[k] = sim.free_procs / m
    for h in range(s.n_horizons):
        freed = 0.0
        for i in range(sim.n_running):     # by estimated end: stop at the first beyond
            if sim.running[i].key - sim.now > s.horizons[h]:
                break
            freed += sim.jobs.procs[sim.running[i].idx]
        out[k + 1 + h] = freed / m
    out[k + 1 + s.n_horizons] = (<double> sim.n_done) / sim.n if sim.n else 1.0
    return filled


cdef Py_ssize_t _clear(const Settings* s, float* out, long long* slots) noexcept nogil:
    """The observation after the end: zeros, every slot empty; returns -1."""
    cdef Py_ssize_t k
    for k in range(observation_size(s.window, s.n_horizons)):
        out[k] = 0.0
    for k in range(s.window):
        slots[k] = -1
    return -1


cdef double _episode_reward(Simulation sim, const Settings* s) noexcept nogil:
    """A finished episode's reward (the environment's episode_reward, there in
    numpy), summed in job order: it may differ from numpy's pairwise sum in
    the last bits."""
    cdef Py_ssize_t j
    cdef double total = 0.0, wait, flow, run, first = INFINITY, last = -INFINITY
    if sim.n == 0:
        return 0.0
    for j in range(sim.n):
        run = sim.jobs.run[j]
        wait = sim.perjob.start[j] - sim.jobs.submit[j]
        flow = wait + run
        if s.reward == REWARD_BSLD:
            total += max(flow / max(run, s.tau), 1.0)
        elif s.reward == REWARD_WAIT:
            total += wait
        elif s.reward == REWARD_TURNAROUND:
            total += flow
        elif s.reward == REWARD_SLOWDOWN:
            total += flow / max(run, 1e-9)
        else:
            total += sim.jobs.procs[j] * run
            first = min(first, sim.jobs.submit[j])
            last = max(last, sim.perjob.start[j] + run)
    if s.reward != REWARD_UTILISATION:
        return -total / sim.n
    return total / (sim.machine_size * (last - first)) if last > first else 0.0


cdef class SelectionSettings:
    """Job selection's default observation and final reward, checked once:
    `window` slots (the first waiting jobs in the simulation's queue order),
    the processors the running jobs free within each of `horizons` (seconds),
    times on a log scale that reaches 1 at `log_top` seconds, and the reward
    `reward` (one of REWARDS; τ = `tau` for the bounded slowdown)."""

    cdef Settings c
    cdef double[::1] horizons      # the copy c.horizons points into
    cdef readonly Py_ssize_t window, observation_size

    def __cinit__(self, Py_ssize_t window, horizons, double log_top, str reward="bsld",
                  double tau=TAU):
        if window < 1 or len(horizons) < 1:
            raise ValueError(f"an observation needs at least one slot and one horizon, "
                             f"got {window} slots and {len(horizons)} horizons")
        if not (log_top > 0.0 and tau > 0.0):
            raise ValueError(f"log_top and tau must be positive numbers of seconds, got {log_top} and {tau}")
        if reward not in REWARDS:
            raise ValueError(f"reward {reward!r}: choose one of {', '.join(REWARDS)}")
        self.horizons = np.array(horizons, dtype=np.float64)
        self.window = window
        self.observation_size = observation_size(window, len(horizons))
        self.c.window = window
        self.c.n_horizons = len(horizons)
        self.c.horizons = &self.horizons[0]
        self.c.scale = log1p(log_top / 60.0)
        self.c.reward = <Reward> <int> REWARDS.index(reward)
        self.c.tau = tau

    def advance_and_observe(self, Simulation simulation not None, float[::1] out,
                            long long[::1] slots):
        """Run `simulation` to its next decision (Simulation.next_decision)
        and write its observation into `out` and the job of each slot into
        `slots` (-1: empty); return how many slots are filled, or -1 when
        every job is done (then `out` is zeros and `slots` -1)."""
        if out.shape[0] != self.observation_size or slots.shape[0] != self.window:
            raise ValueError(f"an observation of {self.window} slots has {self.observation_size} "
                             f"values: got {out.shape[0]} values and {slots.shape[0]} slots")
        if not _next_decision(simulation):
            return _clear(&self.c, &out[0], &slots[0])
        return _observe(simulation, &self.c, &out[0], &slots[0])

    def rollout_rewards(self, Simulation simulation not None, const long long[::1] heads,
                        double[::1] out):
        """At `simulation`'s pending decision, for each waiting job of `heads`:
        the final reward of the episode in which that job is the head now and,
        at every later decision, the first waiting job in the queue order is
        (the order's rollout), on a fork (Simulation.fork), written to `out`.
        `simulation` itself is left as it was."""
        cdef Py_ssize_t i
        cdef Simulation fork
        if out.shape[0] != heads.shape[0]:
            raise ValueError(f"{heads.shape[0]} heads and {out.shape[0]} rewards")
        for i in range(heads.shape[0]):
            _check_head(simulation, heads[i])
        for i in range(heads.shape[0]):
            fork = simulation._fork()
            choose(fork, heads[i])
            with nogil:
                _finish_in_queue_order(fork)
            fork._materialize()
            out[i] = _episode_reward(fork, &self.c)


cdef void _finish_in_queue_order(Simulation sim) noexcept nogil:
    """Run to the end choosing, at each decision, the first waiting job in the
    queue order (the first slot of the observation)."""
    cdef WaitList* wl = &sim.lists[sim.queue_list]
    cdef Py_ssize_t i
    while to_decision(sim):
        sim._prepare(wl, sim.now)
        i = 0
        while sim.perjob.state[wl.items[i].idx] != WAITING:
            i += 1
        choose(sim, wl.items[i].idx)


cdef object _read_only(object array):
    view = array.view()
    view.flags.writeable = False
    return view


# What a step does with an action that is not a filled slot (INVALID_ACTIONS's
# order: simcore/engine/actions.py, docs/environments.md "Invalid actions").
cdef enum Invalid:
    INVALID_FIRST_VALID     # slot 0, the first valid one, is taken instead
    INVALID_SKIP            # the simulation does not move; reward -penalty
    INVALID_RAISE           # step returns the simulation's index, nothing changed


cdef class SelectionBatch:
    """Simulations of episodes (made with `episode_jobs`) stepped together by
    one call, on `threads` OpenMP threads (they are independent: the same
    results); the vector env's. Its arrays, one row per simulation (read-only
    views, rewritten by each step): `observations` (float32), `slots` (the job
    of each slot, -1: empty), `masks` (the filled slots; slot 0 alone once the
    simulation is done, a placeholder action), `filled` (the filled slots, -1:
    done), `rewards` (the episode's final reward at its end, -`invalid_penalty`
    for a skipped action, else 0) and `invalid_actions` (the actions of the
    current episode that were not a filled slot); `done`, how many
    simulations are done after the last step.

    `invalid_action` is what a step does with an action that is a slot of the
    window but not a filled one: ``"raise"`` (the default here) makes `step`
    return that simulation's index before anything changes; ``"first_valid"``
    takes slot 0 instead; ``"skip"`` leaves the simulation and its rows as they
    are, with reward -`invalid_penalty`. The last two count it in
    `invalid_actions`. Decided in C, without Python per simulation."""

    cdef list simulations
    cdef void** cores           # the simulations, for the threads without the GIL
    cdef long long* heads       # one step's chosen heads, -1: none
    cdef unsigned char* skips   # one step's skipped simulations (skip mode)
    cdef unsigned char* invalid  # one step's invalid actions, counted once the step is sure
    cdef SelectionSettings settings
    cdef int threads
    cdef Invalid invalid_mode
    cdef readonly double invalid_penalty
    cdef readonly Py_ssize_t done
    cdef float[:, ::1] out
    cdef long long[:, ::1] slot_jobs
    cdef unsigned char[:, ::1] mask_bytes
    cdef long long[::1] filled_slots
    cdef double[::1] reward_values
    cdef long long[::1] invalid_counts
    cdef readonly object observations, slots, masks, filled, rewards, invalid_actions

    def __cinit__(self, list simulations not None, SelectionSettings settings not None,
                  int threads=1, str invalid_action="raise", double invalid_penalty=0.0):
        cdef Py_ssize_t i, n = len(simulations)
        self.invalid_penalty = check_invalid_action(invalid_action, invalid_penalty)
        self.invalid_mode = <Invalid> <int> INVALID_ACTIONS.index(invalid_action)
        for simulation in simulations:
            if not isinstance(simulation, Simulation):
                raise TypeError(f"a SelectionBatch steps Simulations, got {simulation!r}")
        if len({id(simulation) for simulation in simulations}) < n:
            raise ValueError("a SelectionBatch got one Simulation twice (two threads must not step one)")
        if threads < 1:
            raise ValueError(f"threads must be >= 1, got {threads}")
        self.simulations = list(simulations)
        self.settings = settings
        self.threads = threads
        window = settings.window
        observations = np.zeros((n, settings.observation_size), dtype=np.float32)
        slots = np.full((n, window), -1, dtype=np.int64)
        masks = np.zeros((n, window), dtype=bool)
        filled = np.zeros(n, dtype=np.int64)
        rewards = np.zeros(n)
        invalid_actions = np.zeros(n, dtype=np.int64)
        self.out, self.slot_jobs, self.mask_bytes = observations, slots, masks.view(np.uint8)
        self.filled_slots, self.reward_values, self.invalid_counts = filled, rewards, invalid_actions
        self.observations, self.slots, self.masks = (_read_only(observations), _read_only(slots),
                                                     _read_only(masks))
        self.filled, self.rewards = _read_only(filled), _read_only(rewards)
        self.invalid_actions = _read_only(invalid_actions)
        self.cores = <void**> malloc((n if n > 0 else 1) * sizeof(void*))
        self.heads = <long long*> malloc((n if n > 0 else 1) * sizeof(long long))
        self.skips = <unsigned char*> malloc(n if n > 0 else 1)
        self.invalid = <unsigned char*> malloc(n if n > 0 else 1)
        if self.cores == NULL or self.heads == NULL or self.skips == NULL or self.invalid == NULL:
            raise MemoryError()
        for i in range(n):
            self.cores[i] = <void*> self.simulations[i]
            (<Simulation> self.simulations[i])._materialize()      # its rewards read every job

    def __dealloc__(self):
        free(self.cores)
        free(self.heads)
        free(self.skips)
        free(self.invalid)

    def step(self, const long long[::1] actions, const long long[::1] restarts):
        """Simulation i restarts on the episode at position restarts[i] when
        that is >= 0 (Simulation._restart), or else takes the job in slot
        actions[i] of its last observation as its head (ignored once it is
        done; an empty slot as `invalid_action` says); then each runs to its
        next decision and its rows are written. Returns -1, or the first
        simulation whose action is not a slot of the window (in any mode) or,
        with "raise", not a filled slot: nothing has changed then."""
        cdef Py_ssize_t i, n = len(self.simulations)
        cdef long long action, window = self.settings.window
        cdef Simulation simulation
        if actions.shape[0] != n or restarts.shape[0] != n:
            raise ValueError(f"{actions.shape[0]} actions and {restarts.shape[0]} restarts "
                             f"for {n} simulations")
        for i in range(n):      # what each simulation does, decided before anything changes
            action = actions[i]
            self.heads[i] = -1
            self.skips[i] = False
            self.invalid[i] = False
            if not 0 <= action < window:
                return i
            if restarts[i] >= 0 or self.filled_slots[i] < 0:
                continue
            if action >= self.filled_slots[i]:
                if self.invalid_mode == INVALID_RAISE:
                    return i
                self.invalid[i] = True
                if self.invalid_mode == INVALID_SKIP:
                    self.skips[i] = True
                    continue
                action = 0      # first valid: the window's first job
            self.heads[i] = self.slot_jobs[i, action]
        for i in range(n):      # the simulations may have been driven since the last step
            simulation = self.simulations[i]
            if restarts[i] >= 0:
                simulation._check_restart(restarts[i])
            elif self.heads[i] >= 0:
                _check_head(simulation, self.heads[i])
        for i in range(n):
            if restarts[i] >= 0:
                simulation = self.simulations[i]
                simulation._restart(restarts[i])
                self.invalid_counts[i] = 0
            else:
                self.invalid_counts[i] += self.invalid[i]
        with nogil:
            if self.threads > 1:
                for i in prange(n, num_threads=self.threads, schedule="dynamic"):
                    self._step_one(<Simulation> self.cores[i], i)
            else:
                for i in range(n):
                    self._step_one(<Simulation> self.cores[i], i)
        self.done = 0
        for i in range(n):
            self.done += self.filled_slots[i] < 0
        return -1

    cdef void _step_one(self, Simulation sim, Py_ssize_t i) noexcept nogil:
        """Simulation i's part of a step, its head (if any) in heads[i]."""
        cdef const Settings* s = &self.settings.c
        cdef Py_ssize_t k, filled
        cdef float* out = &self.out[i, 0]
        cdef long long* slots = &self.slot_jobs[i, 0]
        if self.skips[i]:       # skip: the same decision, its rows as they are
            self.reward_values[i] = -self.invalid_penalty
            return
        if self.heads[i] >= 0:
            choose(sim, self.heads[i])
        if to_decision(sim):
            filled = _observe(sim, s, out, slots)
        else:
            filled = _clear(s, out, slots)
        for k in range(s.window):
            self.mask_bytes[i, k] = k < filled
        self.mask_bytes[i, 0] = self.mask_bytes[i, 0] or filled < 0
        self.filled_slots[i] = filled
        self.reward_values[i] = _episode_reward(sim, s) if filled < 0 else 0.0
