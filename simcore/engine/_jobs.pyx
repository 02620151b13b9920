# cython: language_level=3, boundscheck=False, wraparound=False
# cython: cdivision=True, initializedcheck=False
"""A workload's jobs as the event loop (_core.pyx) reads them: Jobs, validated once."""

from libc.math cimport isfinite
from libc.stdlib cimport free, malloc

from simcore.engine._checks cimport (
    check_lengths, check_machine_size, check_procs, check_submit, copy_doubles,
)


cdef class Jobs:
    """A workload's job arrays as the event loop reads them: validated once
    here, in O(n), and copied into memory this object owns, so that the hot
    loop can trust every value (no bounds checks) and the caller cannot change
    them under a running simulation. Simulations share one Jobs (job
    selection's episodes), each keeping it alive.

    run is the time a job actually runs, min(p_j, p~_j); user a dense index in
    [0, n_users). Raises ValueError naming the array and the position.
    """

    def __cinit__(self, const double[::1] submit, const double[::1] run,
                  const double[::1] requested, const long long[::1] procs,
                  const int[::1] user, int n_users, long long machine_size):
        cdef Py_ssize_t n = submit.shape[0], j
        check_lengths(n, (("run", run), ("requested", requested), ("procs", procs), ("user", user)))
        check_machine_size(machine_size)
        if n_users < 1:
            raise ValueError(f"n_users must be >= 1, got {n_users}")
        for j in range(n):
            check_submit(submit, j)
            if not (isfinite(run[j]) and run[j] >= 0.0):
                raise ValueError(f"job {j}: run time {run[j]} must be finite and >= 0")
            # an estimate is at most the request: a run beyond it would be
            # corrected at the same instant forever
            if not (isfinite(requested[j]) and requested[j] >= run[j]):
                raise ValueError(f"job {j}: requested time {requested[j]} must be finite "
                                 f"and >= its run time {run[j]}")
            check_procs(procs, j, machine_size)
            if not 0 <= user[j] < n_users:
                raise ValueError(f"job {j}: user index {user[j]} must be in [0, {n_users})")
        self.machine_size = machine_size
        self.arrays.n = n
        self.arrays.n_users = n_users
        cdef size_t count = n if n > 0 else 1
        self.arrays.submit = copy_doubles(submit)
        self.arrays.run = copy_doubles(run)
        self.arrays.requested = copy_doubles(requested)
        cdef long long* own_procs = <long long*> malloc(count * sizeof(long long))
        cdef int* own_user = <int*> malloc(count * sizeof(int))
        self.arrays.procs = own_procs
        self.arrays.user = own_user
        if own_procs == NULL or own_user == NULL:
            raise MemoryError()
        for j in range(n):
            own_procs[j] = procs[j]
            own_user[j] = user[j]

    def __dealloc__(self):
        free(<void*> self.arrays.submit)
        free(<void*> self.arrays.run)
        free(<void*> self.arrays.requested)
        free(<void*> self.arrays.procs)
        free(<void*> self.arrays.user)

    def __len__(self):
        return self.arrays.n
