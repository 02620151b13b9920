# cython: language_level=3, boundscheck=False, wraparound=False
# cython: cdivision=True, initializedcheck=False
"""Trial scores of the thesis's chapter 3 (section 3.2.2, equation 3.3),
computed in C: for one tuple (S, Q), many random permutations of Q, each
simulated as list scheduling (no backfilling) with S first, in arrival order,
then Q in the permutation's order. Decisions: docs/semantics.md, "Trial
scores". Needs nothing from the engine, so it cimports nothing from it.
"""

import numpy as np

from libc.math cimport INFINITY
from libc.stdint cimport uint64_t


cdef inline uint64_t _splitmix64(uint64_t* state) noexcept nogil:
    state[0] += 0x9E3779B97F4A7C15ULL
    cdef uint64_t z = state[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline Py_ssize_t _below(uint64_t* state, Py_ssize_t n) noexcept nogil:
    """A uniform integer in [0, n), from the top 53 bits of the generator."""
    return <Py_ssize_t> ((_splitmix64(state) >> 11) * (1.0 / 9007199254740992.0) * n)


cdef void _list_schedule(Py_ssize_t n, const double* release, const double* run,
                         const long long* procs, const Py_ssize_t* priority,
                         long long m, double* start, double* end,
                         unsigned char* started) noexcept nogil:
    """List scheduling of n jobs on m processors: at every release or
    completion instant, released jobs are taken in `priority` order and
    started while they fit; the first that does not fit blocks the rest
    (no backfilling). started[k]: 0 waiting, 1 running, 2 done."""
    cdef Py_ssize_t k, j, done = 0
    cdef long long free_procs = m
    cdef double t = -INFINITY, next_t
    for k in range(n):
        started[k] = 0
    while done < n:
        # the next instant: the earliest pending release or running completion after t
        next_t = INFINITY
        for k in range(n):
            if not started[k]:
                if release[k] > t and release[k] < next_t:
                    next_t = release[k]
            elif started[k] == 1 and end[k] < next_t:
                next_t = end[k]
        if next_t == INFINITY:
            next_t = t
        t = next_t
        for k in range(n):
            if started[k] == 1 and end[k] <= t:
                started[k] = 2
                free_procs += procs[k]
        for k in range(n):
            j = priority[k]
            if started[j] or release[j] > t:
                continue
            if procs[j] > free_procs:
                break
            started[j] = 1
            start[j] = t
            end[j] = t + run[j]
            free_procs -= procs[j]
            done += 1


def trial_scores(release, run, procs, Py_ssize_t warm, long long machine_size,
                 Py_ssize_t trials, unsigned long long seed):
    """Scores of the jobs after the first `warm` (the set Q), equation 3.3:
    score(j) = sum of AVEbsld(Q) over the trials where j comes first in the
    permutation / sum of AVEbsld(Q) over all trials. Also returns how often
    each job came first. Jobs must be sorted by release; Q's jobs must fit
    the machine."""
    cdef const double[::1] r = np.ascontiguousarray(release, dtype=np.float64)
    cdef const double[::1] p = np.ascontiguousarray(run, dtype=np.float64)
    cdef const long long[::1] q = np.ascontiguousarray(procs, dtype=np.int64)
    cdef Py_ssize_t n = r.shape[0], nq = n - warm, k, i, tmp, _trial
    if p.shape[0] != n or q.shape[0] != n:
        raise ValueError("release, run and procs differ in length")
    if not 0 <= warm < n:
        raise ValueError(f"warm={warm}: need 0 <= warm < {n} jobs")
    if trials < 1:
        raise ValueError(f"trials={trials}: need at least one")
    for k in range(n):
        if q[k] < 1 or q[k] > machine_size:
            raise ValueError(f"job {k} needs {q[k]} processors, "
                             f"the machine has {machine_size}")
        if not p[k] >= 0:
            raise ValueError(f"job {k} has run time {p[k]}")
        if k and r[k] < r[k - 1]:
            raise ValueError("jobs must be sorted by release")
    priority_array = np.arange(n, dtype=np.intp)
    start_array, end_array = np.zeros(n), np.zeros(n)
    started_array = np.zeros(n, dtype=np.uint8)
    first_sum_array, first_count_array = np.zeros(nq), np.zeros(nq, dtype=np.int64)
    cdef Py_ssize_t[::1] priority = priority_array
    cdef double[::1] start = start_array, end = end_array, first_sum = first_sum_array
    cdef long long[::1] first_count = first_count_array
    cdef unsigned char[::1] started = started_array
    cdef uint64_t state = seed
    cdef double total = 0.0, bsld, flow
    with nogil:
        for _trial in range(trials):
            # Fisher-Yates shuffle of Q's priorities (positions warm..n-1)
            for i in range(n - 1, warm, -1):
                k = warm + _below(&state, i - warm + 1)
                tmp = priority[i]
                priority[i] = priority[k]
                priority[k] = tmp
            _list_schedule(n, &r[0], &p[0], &q[0], &priority[0], machine_size,
                           &start[0], &end[0], &started[0])
            bsld = 0.0
            for k in range(warm, n):
                flow = end[k] - r[k]
                bsld += max(flow / max(p[k], 10.0), 1.0)
            bsld /= nq
            total += bsld
            first_sum[priority[warm] - warm] += bsld
            first_count[priority[warm] - warm] += 1
    return first_sum_array / total, first_count_array
