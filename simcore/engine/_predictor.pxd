# Declares the online running-time predictor interface (SEMANTICS §5), which
# the event loop (simcore/engine/_core.pyx) calls at C level: bind() when a
# simulation takes the predictor, predict() when a job is submitted, started()
# when it starts, learn() when it completes, fork() when the simulation forks. The core clips every prediction
# to [1, requested]. Also declares the four simple predictors, so that they
# can be subclassed elsewhere too; the regression predictor is in
# _regression.pyx.
#
# To add a predictor: docs/extending.md, "A predictor".

from simcore.engine._jobs cimport JobArrays


cdef class Predictor:
    cdef JobArrays jobs
    # The simulation driving this instance (its address), 0 when free: one
    # instance must not serve two simulations at the same time.
    cdef size_t owner

    # Attach to a workload and forget everything learned before.
    cdef int bind(self, JobArrays jobs) except -1
    # The running-time estimate of job j, submitted at t.
    cdef double predict(self, Py_ssize_t j, double t) noexcept nogil
    # Job j started at t.
    cdef void started(self, Py_ssize_t j, double t) noexcept nogil
    # Job j completed at t: its run time jobs.run[j] is known.
    cdef void learn(self, Py_ssize_t j, double t) noexcept nogil
    # A copy of everything learned so far, bound to the same jobs and free
    # (owner 0), for a forked simulation (Simulation.fork): a predictor with
    # state overrides it, as one set in __init__ must.
    cdef Predictor fork(self)


cdef class RequestPredictor(Predictor):
    pass


cdef class ClairvoyantPredictor(Predictor):
    pass


cdef class ArrayPredictor(Predictor):
    cdef const double[::1] values


cdef class Ave2Predictor(Predictor):
    cdef double[::1] last, before_last
    cdef int[::1] finished
