# cython: language_level=3, boundscheck=False, wraparound=False
# cython: cdivision=True, initializedcheck=False
"""The association tree of the Slurm mode's fair share (docs/slurm_mode.md §3.1), read and checked
once, and a replay of the decay thread over a given schedule (for checks against a real Slurm's
sshare and sprio)."""

import numpy as np

from simcore.engine._placement cimport i64
from simcore.engine._slurm_fairshare cimport (add_job_usage, begin_instant, classic_factor, end_instant)


cdef class FairShare:
    """The tree `associations` ({"parent", "shares", "user"}, the root first; None: no fair share)
    and the options' fair-share settings (§1)."""

    def __cinit__(self, associations, options):
        cdef Associations* a = &self.a
        cdef Py_ssize_t k, n, p
        cdef i64[::1] ints
        cdef Py_ssize_t[::1] indices
        cdef long double[::1] longs
        cdef double[::1] doubles
        cdef unsigned char[::1] flags
        half_life = options.get("priority_decay_half_life", 7 * 86400)
        a.decay_factor = 1.0 - 0.693 / half_life if half_life > 0 else 1.0
        a.dampening = options.get("fairshare_dampening", 1)
        a.fair_tree = bool(options.get("fair_tree", True))
        resets = np.ascontiguousarray(options.get("usage_resets", ()), dtype=np.int64)
        if a.dampening < 1 or half_life < 0 or np.any(np.diff(resets) < 0):
            raise ValueError(f"fair share: dampening {a.dampening}, half-life {half_life} s and usage resets "
                             "(need >= 1, >= 0 and sorted instants)")
        parent = np.ascontiguousarray(associations["parent"] if associations else [-1], dtype=np.intp)
        shares = np.ascontiguousarray(associations["shares"] if associations else [1], dtype=np.int64)
        user = np.ascontiguousarray(associations["user"] if associations else [False], dtype=np.uint8)
        n = parent.shape[0]
        if shares.shape[0] != n or user.shape[0] != n or parent[0] != -1:
            raise ValueError(f"associations: {n} parents, {shares.shape[0]} shares, {user.shape[0]} user flags "
                             "(need the root first, with parent -1, and one entry of each per association)")
        for k in range(1, n):
            if not 0 <= parent[k] < k:
                raise ValueError(f"association {k}: parent {parent[k]} (a parent comes before its children)")
            if user[parent[k]]:
                raise ValueError(f"association {k}: its parent {parent[k]} is a user association")
            if shares[k] < 0:
                raise ValueError(f"association {k}: {shares[k]} shares")
        if associations and not user.any():
            raise ValueError("associations: no user association")
        # the children of each association in index order, and the shares summed over siblings
        children = np.zeros(n, dtype=np.intp)     # n - 1 used; never empty
        children[: n - 1] = np.argsort(parent[1:], kind="stable") + 1
        child_offset = np.zeros(n + 1, dtype=np.intp)
        np.cumsum(np.bincount(parent[1:], minlength=n), out=child_offset[1:])
        sibling_shares = np.zeros(n, dtype=np.int64)
        np.add.at(sibling_shares, parent[1:], shares[1:])
        level_shares = np.zeros(n, dtype=np.int64)
        level_shares[1:] = sibling_shares[parent[1:]]
        # _normalize_assoc_shares_traditional: the product of shares / level shares upward
        classic_shares = np.ones(n, dtype=np.float64)
        for k in range(n):
            p = k
            while p > 0:
                classic_shares[k] = (classic_shares[k] * (float(shares[p]) / float(level_shares[p]))
                                     if level_shares[p] > 0 else 0.0)
                p = parent[p]
        raw = np.zeros(n, dtype=np.longdouble)
        level_fs = np.zeros(n, dtype=np.longdouble)
        efctv = np.zeros(n, dtype=np.longdouble)
        efctv_set = np.ones(n, dtype=np.uint8)       # 0 until the first instant, as Slurm creates it
        factor = np.zeros(n, dtype=np.float64)
        ordered = np.zeros(n, dtype=np.intp)
        scratch = np.zeros(n, dtype=np.intp)
        reset_times = np.zeros(resets.shape[0] + 1, dtype=np.int64)   # never empty
        reset_times[: resets.shape[0]] = resets
        self.arrays = [parent, shares, user, children, child_offset, level_shares, classic_shares, raw, level_fs,
                       efctv, efctv_set, factor, ordered, scratch, reset_times]
        a.n = n if associations else 0
        a.users = int(user.sum())
        indices = parent
        a.parent = &indices[0]
        ints = shares
        a.shares = &ints[0]
        flags = user
        a.user = &flags[0]
        indices = children
        a.children = &indices[0]
        indices = child_offset
        a.child_offset = &indices[0]
        ints = level_shares
        a.level_shares = &ints[0]
        doubles = classic_shares
        a.classic_shares = &doubles[0]
        longs = raw
        a.raw = &longs[0]
        longs = level_fs
        a.level_fs = &longs[0]
        longs = efctv
        a.efctv = &longs[0]
        flags = efctv_set
        a.efctv_set = &flags[0]
        doubles = factor
        a.factor = &doubles[0]
        indices = ordered
        a.ordered = &indices[0]
        indices = scratch
        a.merge_scratch = &indices[0]
        ints = reset_times
        a.resets = &ints[0]
        a.n_resets = resets.shape[0]
        a.next_reset = 0
        a.started = False
        a.last = 0

    def instant(self, i64 t, running_assoc, running_start, running_cpus):
        """The decay thread's instant t over the jobs running then (in Slurm's job order): their
        associations, starts and CPUs; the factors are computed anew (Fair Tree) or on demand."""
        cdef Py_ssize_t k
        begin_instant(&self.a, t)
        for k in range(len(running_assoc)):
            add_job_usage(&self.a, running_assoc[k], running_start[k], t, running_cpus[k])
        end_instant(&self.a, t)

    def job_end(self, Py_ssize_t assoc, i64 start, i64 t, double cpus):
        """A job's last slice at its end t (with AccountingStorageEnforce=limits)."""
        add_job_usage(&self.a, assoc, start, t, cpus)

    @property
    def usage(self):
        """Every association's raw usage (as doubles)."""
        return self.arrays[7].astype(np.float64)

    def factors(self):
        """Every user association's fair-share factor now (0 for accounts)."""
        cdef Py_ssize_t k
        found = np.zeros(self.a.n, dtype=np.float64)
        for k in range(self.a.n):
            if self.a.user[k]:
                found[k] = self.a.factor[k] if self.a.fair_tree else classic_factor(&self.a, k)
        return found
