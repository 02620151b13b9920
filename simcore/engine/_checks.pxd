# What an event loop trusts of a workload's arrays, checked once when it copies them
# (simcore/engine/_jobs.pyx's Jobs, the co-scheduling loop's Sharing): one definition, so
# that both name a bad job in the same words. Inline: each module that cimports them
# compiles its own copy, and the per-job checks run inside the caller's one loop over
# the jobs (the first bad job is reported, whichever rule it breaks).

from libc.math cimport isfinite
from libc.stdlib cimport malloc


cdef inline int check_lengths(Py_ssize_t n, tuple named) except -1:
    """Every (name, array) of `named` has the n jobs of 'submit'."""
    for name, values in named:
        if values.shape[0] != n:
            raise ValueError(f"'{name}' has {values.shape[0]} jobs, 'submit' has {n}")
    return 0


cdef inline int check_machine_size(long long machine_size) except -1:
    if machine_size < 1:
        raise ValueError(f"machine size must be >= 1, got {machine_size}")
    return 0


cdef inline int check_submit(const double[::1] submit, Py_ssize_t j) except -1:
    """Job j's submit time: finite, and not before job j - 1's."""
    if not isfinite(submit[j]):
        raise ValueError(f"job {j}: submit time {submit[j]} is not finite")
    if j > 0 and submit[j] < submit[j - 1]:
        raise ValueError(f"job {j}: submit time {submit[j]} is before the previous "
                         f"job's {submit[j - 1]}; jobs must be sorted by submit time")
    return 0


cdef inline int check_procs(const long long[::1] procs, Py_ssize_t j,
                            long long machine_size) except -1:
    if not 1 <= procs[j] <= machine_size:
        raise ValueError(f"job {j}: processor request {procs[j]} must be in "
                         f"[1, {machine_size}] (the machine size)")
    return 0


cdef inline double* copy_doubles(const double[::1] values) except NULL:
    """A malloc'ed copy (at least one element, so that an empty workload is not NULL)."""
    cdef size_t count = values.shape[0] if values.shape[0] > 0 else 1
    cdef double* copy = <double*> malloc(count * sizeof(double))
    cdef Py_ssize_t j
    if copy == NULL:
        raise MemoryError()
    for j in range(values.shape[0]):
        copy[j] = values[j]
    return copy
