# cython: language_level=3, boundscheck=False, wraparound=False
# cython: cdivision=True, initializedcheck=False
"""Online running-time predictors (SEMANTICS §5): the base class and the
simple ones. The interface, and how to add a predictor in its own file, is in
_predictor.pxd; register a predictor by name in simcore/engine/predictors.py.
"""

import numpy as np


cdef class Predictor:
    """Base class: predicts the requested time (the `request` estimate)."""

    cdef int bind(self, JobArrays jobs) except -1:
        """Attach to a workload and forget everything learned before."""
        self.jobs = jobs
        return 0

    cdef double predict(self, Py_ssize_t j, double t) noexcept nogil:
        return self.jobs.requested[j]

    cdef void started(self, Py_ssize_t j, double t) noexcept nogil:
        pass

    cdef void learn(self, Py_ssize_t j, double t) noexcept nogil:
        pass

    cdef Predictor fork(self):
        """Nothing learned: a new instance of the same class on the same jobs."""
        cdef Predictor copy = type(self).__new__(type(self))
        copy.jobs = self.jobs
        return copy


cdef class RequestPredictor(Predictor):
    """`request`: the user's requested time."""
    pass


cdef class ClairvoyantPredictor(Predictor):
    """`clairvoyant`: the actual run time."""

    cdef double predict(self, Py_ssize_t j, double t) noexcept nogil:
        return self.jobs.run[j]


cdef class ArrayPredictor(Predictor):
    """A caller-supplied prediction per job (clipped by the core; NaN reads as
    the request). The values are copied: changing the caller's array later
    does not change a simulation's estimates."""

    def __init__(self, values):
        self.values = np.array(values, dtype=np.float64, order="C")

    cdef int bind(self, JobArrays jobs) except -1:
        if self.values.shape[0] != jobs.n:
            raise ValueError(
                f"estimate array has {self.values.shape[0]} values for {jobs.n} jobs")
        self.jobs = jobs
        return 0

    cdef double predict(self, Py_ssize_t j, double t) noexcept nogil:
        return self.values[j]

    cdef Predictor fork(self):
        cdef ArrayPredictor copy = ArrayPredictor.__new__(ArrayPredictor)
        copy.jobs = self.jobs
        copy.values = self.values      # never written: shared
        return copy


cdef class Ave2Predictor(Predictor):
    """`ave2` (Tsafrir et al.): mean of the user's last two finished run
    times; the request until two of the user's jobs have finished."""

    cdef int bind(self, JobArrays jobs) except -1:
        self.jobs = jobs
        self.last = np.zeros(jobs.n_users, dtype=np.float64)
        self.before_last = np.zeros(jobs.n_users, dtype=np.float64)
        self.finished = np.zeros(jobs.n_users, dtype=np.intc)
        return 0

    cdef double predict(self, Py_ssize_t j, double t) noexcept nogil:
        cdef int u = self.jobs.user[j]
        if self.finished[u] < 2:
            return self.jobs.requested[j]
        return (self.last[u] + self.before_last[u]) / 2.0

    cdef void learn(self, Py_ssize_t j, double t) noexcept nogil:
        cdef int u = self.jobs.user[j]
        self.before_last[u] = self.last[u]
        self.last[u] = self.jobs.run[j]
        self.finished[u] += 1

    cdef Predictor fork(self):
        cdef Ave2Predictor copy = Ave2Predictor.__new__(Ave2Predictor)
        copy.jobs = self.jobs
        copy.last = self.last.copy()
        copy.before_last = self.before_last.copy()
        copy.finished = self.finished.copy()
        return copy
