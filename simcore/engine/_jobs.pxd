# Declares JobArrays, the workload as the event loop (simcore/engine/_core.pyx)
# holds it and hands it to a predictor's bind(): C pointers into the arrays of
# a Jobs (_jobs.pyx: the workload validated and copied once), valid while
# that Jobs lives. A module that
# reads jobs at C level (a predictor in its own file, see _predictor.pxd) gets
# the type with
#
#     from simcore.engine._jobs cimport JobArrays
#
# Declared here rather than in _predictor.pxd so that the event loop and the
# predictors share one definition without depending on each other.

cdef struct JobArrays:
    Py_ssize_t n
    const double* submit
    const double* run          # time actually spent: min(p_j, p~_j)
    const double* requested
    const long long* procs
    const int* user            # dense user index in [0, n_users)
    int n_users


# A workload's arrays, validated once and owned (_jobs.pyx); simulations share one.
cdef class Jobs:
    cdef JobArrays arrays
    cdef readonly long long machine_size
