# The per-job arrays of a simulation (simcore/engine/_core.pyx): what each job
# has become (state, estimate, start, end, ...). One table lists them,
# _core.pyx's PER_JOB: (name, dtype, value before submission, in results());
# allocation, the fill of unsubmitted jobs, a fork's copy and its borrowing
# run over the table, so an array is added by one row there (and a typed view
# below if the event loop reads it).
#
# The arrays are NumPy arrays (`owned`, a list in the table's order: their
# lifetime is Python's, so a fork can borrow a parent's that the parent then
# replaces), and PerJob holds C pointers into them for the hot loop.

from libc.string cimport memcpy

cdef enum:
    PER_JOB_MAX = 16        # rows of the table at most
    PER_JOB_WIDEST = 8      # bytes of its widest dtype


cdef struct PerJob:
    # typed views of the rows the event loop reads (_core.pyx's PER_JOB, in order)
    double* estimate
    double* initial_estimate
    double* estimated_end
    double* start
    double* end
    double* reservation
    signed char* state
    signed char* order_at_start
    unsigned char* backfilled
    int* corrections
    # every row: its data, item size and value before submission
    Py_ssize_t count
    char* data[PER_JOB_MAX]
    Py_ssize_t width[PER_JOB_MAX]
    char unset[PER_JOB_MAX][PER_JOB_WIDEST]


cdef inline list perjob_allocate(PerJob* p, tuple table, Py_ssize_t n):
    """New arrays of n jobs, one per row of the table, values unset (np.empty:
    a large one costs no page until written); p points into them. Returns them."""
    import numpy as np
    cdef Py_ssize_t k
    cdef char[::1] raw
    if len(table) > PER_JOB_MAX:
        raise ValueError(f"{len(table)} per-job arrays, at most {PER_JOB_MAX}")
    owned = []
    p.count = len(table)
    for k, (name, dtype, unset, in_results) in enumerate(table):
        # one element at least: an empty workload's pointers are not NULL
        values = np.empty(max(n, 1), dtype=dtype)
        if values.itemsize > PER_JOB_WIDEST:
            raise ValueError(f"per-job array {name}: {values.itemsize}-byte items, at most {PER_JOB_WIDEST}")
        owned.append(values)
        raw = values.view(np.uint8)
        p.data[k] = &raw[0]
        p.width[k] = values.itemsize
        raw = np.array([unset], dtype=dtype).view(np.uint8)
        memcpy(p.unset[k], &raw[0], p.width[k])
    p.estimate, p.initial_estimate = <double*> p.data[0], <double*> p.data[1]
    p.estimated_end, p.start, p.end = <double*> p.data[2], <double*> p.data[3], <double*> p.data[4]
    p.reservation = <double*> p.data[5]
    p.state, p.order_at_start = <signed char*> p.data[6], <signed char*> p.data[7]
    p.backfilled, p.corrections = <unsigned char*> p.data[8], <int*> p.data[9]
    return owned


cdef inline int perjob_fill(list owned, tuple table, Py_ssize_t first, Py_ssize_t stop) except -1:
    """Jobs [first, stop) as before their submission."""
    cdef Py_ssize_t k
    for k in range(len(table)):
        owned[k][first:stop] = table[k][2]
    return 0


cdef inline void perjob_unset(PerJob* p, Py_ssize_t j) noexcept nogil:
    """Job j as before its submission (one job of perjob_fill, in C)."""
    cdef Py_ssize_t k
    for k in range(p.count):
        memcpy(p.data[k] + j * p.width[k], p.unset[k], p.width[k])


cdef inline void perjob_copy(PerJob* target, const PerJob* source, Py_ssize_t first,
                             Py_ssize_t count) noexcept nogil:
    """Jobs [first, first + count) of source into target (same table)."""
    cdef Py_ssize_t k
    for k in range(source.count):
        memcpy(target.data[k] + first * source.width[k], source.data[k] + first * source.width[k],
               count * source.width[k])


cdef inline int perjob_take_borrowed(list owned, list borrowed) except -1:
    """Copy into `owned` the ranges a fork borrows: (arrays, first, stop) entries,
    final values in the arrays of the simulation it forked from."""
    cdef Py_ssize_t k
    for arrays, first, stop in borrowed:
        for k in range(len(owned)):
            owned[k][first:stop] = arrays[k][first:stop]
    return 0
