# cython: language_level=3
"""Slurm 22.05's fair share over an association tree (docs/slurm_mode.md §3.1): usage with its
decay, the Fair Tree factor (`fair_tree.c`) and the classic one (`priority_multifactor.c`).
FairShare (_slurm_fairshare.pyx) holds the tree, read and checked once; the event loop (_slurm.pyx)
calls the functions below on it.

Usage, effective usage and level fair share are C `long double`, as in Slurm; factors are doubles.
"""

from libc.float cimport DBL_MIN
from libc.math cimport INFINITY, pow
from libc.string cimport memcpy

from simcore.engine._placement cimport i64


cdef struct Associations:
    Py_ssize_t n
    Py_ssize_t users             # user associations (Slurm's g_user_assoc_count)
    Py_ssize_t* parent           # -1 for the root (index 0)
    i64* shares                  # RawShares
    i64* level_shares            # the sum of shares over the association's siblings
    unsigned char* user
    Py_ssize_t* child_offset     # the children of a are children[child_offset[a]:child_offset[a + 1]]
    Py_ssize_t* children         # in index order
    Py_ssize_t* ordered          # scratch: children sorted by level fair share
    Py_ssize_t* merge_scratch
    long double* raw             # usage_raw
    long double* level_fs
    long double* efctv           # classic: usage_efctv (accounts at each instant, users when needed)
    unsigned char* efctv_set
    double* classic_shares       # classic: the shares normalized down the tree
    double* factor               # Fair Tree: fs_factor, set at each instant
    double decay_factor          # 1 - 0.693 / half-life; 1 without decay
    double dampening
    bint fair_tree               # else the classic formula
    i64* resets                  # PriorityUsageResetPeriod's instants, sorted
    Py_ssize_t n_resets, next_reset
    bint started                 # the decay thread ran an instant
    i64 last                     # ... at `last`


cdef class FairShare:
    cdef Associations a
    cdef list arrays                 # the numpy arrays a's pointers point into


cdef inline void decay_usage(Associations* a, i64 elapsed) noexcept nogil:
    """_apply_decay: every association's usage times decay_factor ** elapsed."""
    cdef double d = pow(a.decay_factor, <double> elapsed)
    cdef Py_ssize_t k
    if d < DBL_MIN:
        d = DBL_MIN
    if d == 1.0:
        return
    for k in range(a.n):
        a.raw[k] *= d


cdef inline void reset_usage(Associations* a) noexcept nogil:
    cdef Py_ssize_t k
    for k in range(a.n):
        a.raw[k] = 0


cdef inline void add_usage(Associations* a, Py_ssize_t assoc, i64 elapsed, double cpus) noexcept nogil:
    """_apply_new_usage: a job's `elapsed` seconds on `cpus`, decayed as one slice, added to its
    association and every ancestor."""
    cdef double run_decay = <double> elapsed * pow(a.decay_factor, <double> elapsed)
    cdef double usage = run_decay * cpus
    while assoc >= 0:
        a.raw[assoc] += <long double> usage
        assoc = a.parent[assoc]


cdef inline bint ranks_before(Associations* a, Py_ssize_t x, Py_ssize_t y) noexcept nogil:
    """_cmp_level_fs: higher level fair share first, users before accounts; then index order (the
    stable sort)."""
    if a.level_fs[x] != a.level_fs[y]:
        return a.level_fs[x] > a.level_fs[y]
    if a.user[x] != a.user[y]:
        return a.user[x] != 0
    return x < y


cdef inline void sort_children(Associations* a, Py_ssize_t* items, Py_ssize_t size) noexcept nogil:
    """Bottom-up merge sort of items by ranks_before (a strict total order)."""
    cdef Py_ssize_t width = 1, lo, mid, hi, i, j, k
    cdef Py_ssize_t* buffer = a.merge_scratch
    while width < size:
        lo = 0
        while lo < size:
            mid = lo + width if lo + width < size else size
            hi = lo + 2 * width if lo + 2 * width < size else size
            i = lo
            j = mid
            k = lo
            while i < mid and j < hi:
                if ranks_before(a, items[j], items[i]):
                    buffer[k] = items[j]
                    j += 1
                else:
                    buffer[k] = items[i]
                    i += 1
                k += 1
            while i < mid:
                buffer[k] = items[i]
                i += 1
                k += 1
            while j < hi:
                buffer[k] = items[j]
                j += 1
                k += 1
            lo = hi
        memcpy(items, buffer, size * sizeof(Py_ssize_t))
        width *= 2


cdef inline void fair_tree_level(Associations* a, Py_ssize_t parent, bint parent_tied,
                                 Py_ssize_t* rank, Py_ssize_t* rnt) noexcept nogil:
    """_calc_tree_fs on parent's children: level fair share, sorted, users ranked, accounts recursed
    (sibling accounts are never merged in 22.05: _count_tied_accounts counts only users after an
    account, and those sort before it)."""
    cdef Py_ssize_t first = a.child_offset[parent], last = a.child_offset[parent + 1], k, c
    cdef Py_ssize_t* items = a.ordered + first
    cdef long double share, used, previous = 0
    cdef bint tied
    for k in range(first, last):
        c = a.children[k]
        a.ordered[k] = c
        share = <double> a.shares[c] / <double> a.level_shares[c] if a.level_shares[c] > 0 else 0.0
        used = a.raw[c] / a.raw[parent] if a.raw[parent] != 0 else 0
        if share == 0:
            a.level_fs[c] = 0
        elif used == 0:
            a.level_fs[c] = INFINITY
        else:
            a.level_fs[c] = share / used
    sort_children(a, items, last - first)
    for k in range(last - first):
        c = items[k]
        tied = parent_tied if k == 0 else a.level_fs[c] == previous
        if a.user[c]:
            if not tied:
                rank[0] = rnt[0]
            a.factor[c] = <double> rank[0] / <double> a.users
            rnt[0] -= 1
        else:
            fair_tree_level(a, c, tied, rank, rnt)
        previous = a.level_fs[c]


cdef inline void fair_tree_factors(Associations* a) noexcept nogil:
    """_apply_priority_fs: every user association's Fair Tree factor."""
    cdef Py_ssize_t rank = a.users, rnt = a.users
    fair_tree_level(a, 0, False, &rank, &rnt)


cdef inline long double usage_norm(Associations* a, Py_ssize_t assoc) noexcept nogil:
    """set_assoc_usage_norm: the share of the root's usage, at most 1."""
    cdef long double norm
    if a.raw[0] == 0:
        return 0
    norm = a.raw[assoc] / a.raw[0]
    return norm if norm <= 1 else 1


cdef inline void classic_effective_usage(Associations* a, Py_ssize_t assoc) noexcept nogil:
    """_set_assoc_usage_efctv (classic): the usage share, pulled toward the parent's by the share."""
    cdef long double norm = usage_norm(a, assoc)
    cdef Py_ssize_t parent = a.parent[assoc]
    if parent == 0:
        a.efctv[assoc] = norm
    elif a.level_shares[assoc] == 0:
        a.efctv[assoc] = a.efctv[parent]
    else:
        a.efctv[assoc] = norm + (a.efctv[parent] - norm) * (a.shares[assoc] / <long double> a.level_shares[assoc])
    a.efctv_set[assoc] = 1


cdef inline void classic_accounts(Associations* a) noexcept nogil:
    """_set_children_usage_efctv: accounts' effective usage top-down; users' is unset."""
    cdef Py_ssize_t k
    for k in range(1, a.n):          # parents come before their children
        if a.user[k]:
            a.efctv_set[k] = 0
        else:
            classic_effective_usage(a, k)


cdef inline double classic_factor(Associations* a, Py_ssize_t assoc) noexcept nogil:
    """priority_p_calc_fs_factor: 2 ** -(usage_efctv / shares_norm / dampening), the user's effective
    usage computed now if unset."""
    if not a.efctv_set[assoc]:
        classic_effective_usage(a, assoc)
    if a.classic_shares[assoc] <= 0:
        return 0.0
    return pow(2.0, <double> -((a.efctv[assoc] / <long double> a.classic_shares[assoc]) / a.dampening))


cdef inline bint begin_instant(Associations* a, i64 t) noexcept nogil:
    """Steps 1-3 of the decay thread's instant t (§3.1): a reset due, the classic accounts'
    effective usage, the decay since the last instant. True at the first instant."""
    cdef bint first = not a.started
    if a.n == 0:
        return first
    if a.next_reset < a.n_resets and a.resets[a.next_reset] <= t:
        reset_usage(a)
        a.next_reset += 1
    if not a.fair_tree:
        classic_accounts(a)
    if not first and t > a.last:
        decay_usage(a, t - a.last)
    return first


cdef inline void add_job_usage(Associations* a, Py_ssize_t assoc, i64 start, i64 t, double cpus) noexcept nogil:
    """A running job's usage from the last instant (or its start) to t."""
    cdef i64 since = start
    if a.started and a.last > since:
        since = a.last
    add_usage(a, assoc, t - since if t > since else 0, cpus)


cdef inline void end_instant(Associations* a, i64 t) noexcept nogil:
    """Fair Tree's factors anew, and t is the last instant."""
    if a.n > 0 and a.fair_tree:
        fair_tree_factors(a)
    a.started = True
    a.last = t
