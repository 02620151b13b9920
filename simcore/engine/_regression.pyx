# cython: language_level=3, boundscheck=False, wraparound=False
# cython: cdivision=True, initializedcheck=False
"""Online regression predictor (Gaussier et al., "Improving backfilling by
using machine learning to predict running times", section 4.2): the
asymmetric weighted losses, the NAG regressor and RegressionPredictor, a
Predictor (simcore/engine/_predictor.pxd) in its own module. Decisions are
recorded in docs/semantics.md, "Regression predictor".
"""

import numpy as np

from libc.math cimport NAN, isnan
from libc.math cimport cos as _cos, sin as _sin, log as _log, sqrt as _sqrt
from libc.math cimport fabs as _fabs

from simcore.engine._jobs cimport JobArrays
from simcore.engine._predictor cimport Predictor

cdef enum:
    REG_NFEAT = 20                                  # raw features (Table 2)
    REG_DIM = 1 + REG_NFEAT + REG_NFEAT * (REG_NFEAT + 1) // 2   # degree-2 basis

REGRESSION_BASES = ("squared", "linear")
REGRESSION_WEIGHTINGS = ("constant", "short_wide", "long_narrow", "small_area",
                         "large_area")
REGRESSION_FEATURES = (
    "requested", "last_run_1", "last_run_2", "last_run_3", "ave2_run", "ave3_run",
    "ave_all_run", "procs", "ave_hist_procs", "procs_over_ave_hist_procs",
    "ave_running_procs", "running_jobs", "longest_running_time", "sum_running_times",
    "occupied_procs", "break_time", "day_cos", "day_sin", "week_cos", "week_sin")
# Smallest weight gamma_j: Table 3's weights can be <= 0 for some (q, p).
cdef double _GAMMA_FLOOR = 1e-3
REGRESSION_GAMMA_FLOOR = _GAMMA_FLOOR

cdef double _reg_gamma(int weighting, double procs, double run) noexcept nogil:
    """Table 3 weight of a job with q = procs, p = run (both floored at 1)."""
    cdef double q = procs if procs > 1.0 else 1.0
    cdef double p = run if run > 1.0 else 1.0
    cdef double g
    if weighting == 0:
        g = 1.0
    elif weighting == 1:
        g = 5.0 + _log(q / p)
    elif weighting == 2:
        g = 5.0 + _log(p / q)
    elif weighting == 3:
        g = 11.0 + _log(1.0 / (q * p))
    else:
        g = _log(q * p)
    if not g >= _GAMMA_FLOOR:
        g = _GAMMA_FLOOR
    return g


cdef double _reg_loss(int under, int over, double gamma, double f, double y,
                      double* dloss) noexcept nogil:
    """gamma * L_over(f - y) if f >= y else gamma * L_under(y - f); basis 0 is
    squared, 1 linear. Stores d loss / d f in dloss."""
    cdef double z
    if f >= y:
        z = f - y
        if over == 0:
            dloss[0] = 2.0 * gamma * z
            return gamma * z * z
        dloss[0] = gamma
        return gamma * z
    z = y - f
    if under == 0:
        dloss[0] = -2.0 * gamma * z
        return gamma * z * z
    dloss[0] = -gamma
    return gamma * z


def loss_and_gradient(double prediction, double target, under="linear", over="squared",
                      weighting="large_area", double procs=1.0):
    """Test helper: (loss, d loss / d prediction) of the asymmetric weighted
    loss for a job of `procs` processors that ran `target` seconds."""
    cdef double d = 0.0
    u, o, w = _reg_codes(under, over, weighting)
    cdef double g = _reg_gamma(w, procs, target)
    cdef double loss = _reg_loss(u, o, g, prediction, target, &d)
    return loss, d


def losses(predictions, targets, procs, under="linear", over="squared",
           weighting="large_area"):
    """Per-job asymmetric weighted loss of `predictions` for jobs that ran
    `targets` seconds on `procs` processors (the E-Loss by default)."""
    cdef const double[::1] f = np.ascontiguousarray(predictions, dtype=np.float64)
    cdef const double[::1] y = np.ascontiguousarray(targets, dtype=np.float64)
    cdef const double[::1] q = np.ascontiguousarray(procs, dtype=np.float64)
    if not (f.shape[0] == y.shape[0] == q.shape[0]):
        raise ValueError("predictions, targets and procs differ in length")
    u, o, w = _reg_codes(under, over, weighting)
    out = np.empty(f.shape[0])
    cdef double[::1] loss = out
    cdef double d
    cdef Py_ssize_t i
    for i in range(f.shape[0]):
        loss[i] = _reg_loss(u, o, _reg_gamma(w, q[i], y[i]), f[i], y[i], &d)
    return out


def _reg_codes(under, over, weighting):
    if under not in REGRESSION_BASES:
        raise ValueError(
            f"under={under!r}: choose one of {', '.join(REGRESSION_BASES)}")
    if over not in REGRESSION_BASES:
        raise ValueError(f"over={over!r}: choose one of {', '.join(REGRESSION_BASES)}")
    if weighting not in REGRESSION_WEIGHTINGS:
        raise ValueError(f"weighting={weighting!r}: choose one of "
                         f"{', '.join(REGRESSION_WEIGHTINGS)}")
    return (REGRESSION_BASES.index(under), REGRESSION_BASES.index(over),
            REGRESSION_WEIGHTINGS.index(weighting))


def _reg_positive(name, value):
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name}={value!r}: expected a number") from None
    if not (v == v and v < float("inf")):
        raise ValueError(f"{name}={value!r}: expected a finite number")
    return v


cdef class NAGRegressor:
    """Linear model w . x trained online by Normalized Adaptive Gradient
    (Ross, Mineiro and Langford 2013, algorithm NAG) on the asymmetric
    weighted loss, with L2 regularization l2/2 * sum_i (w_i s_i)^2 taken in
    NAG's normalized coordinates (so the method stays scale invariant)."""

    cdef double[::1] w, s, G
    cdef double N, eta, l2
    cdef long long t
    cdef int under, over, weighting
    cdef readonly Py_ssize_t dim

    def __init__(self, Py_ssize_t dim, under="linear", over="squared",
                 weighting="large_area", l2=1e-6, learning_rate=1.0):
        if dim < 1:
            raise ValueError(f"dim={dim!r}: expected a positive integer")
        self.under, self.over, self.weighting = _reg_codes(under, over, weighting)
        self.l2 = _reg_positive("l2", l2)
        if self.l2 < 0:
            raise ValueError(f"l2={l2!r}: expected a number >= 0")
        self.eta = _reg_positive("learning_rate", learning_rate)
        if not self.eta > 0:
            raise ValueError(f"learning_rate={learning_rate!r}: expected a number > 0")
        self.dim = dim
        self.reset()

    cdef NAGRegressor copy(self):
        """The same model, trained as far (a forked simulation's predictor)."""
        cdef NAGRegressor twin = NAGRegressor.__new__(NAGRegressor)
        twin.w, twin.s, twin.G = self.w.copy(), self.s.copy(), self.G.copy()
        twin.N, twin.eta, twin.l2, twin.t = self.N, self.eta, self.l2, self.t
        twin.under, twin.over, twin.weighting, twin.dim = self.under, self.over, self.weighting, self.dim
        return twin

    cpdef reset(self):
        self.w = np.zeros(self.dim)
        self.s = np.zeros(self.dim)
        self.G = np.zeros(self.dim)
        self.N = 0.0
        self.t = 0

    cdef double _predict(self, const double* x) noexcept nogil:
        cdef double f = 0.0
        cdef Py_ssize_t i
        for i in range(self.dim):
            f += self.w[i] * x[i]
        return f

    cdef void _step(self, const double* x, double y, double gamma) noexcept nogil:
        cdef Py_ssize_t i
        cdef double ax, f, dloss = 0.0, g, n_add = 0.0, rate
        for i in range(self.dim):
            ax = _fabs(x[i])
            if ax > self.s[i]:
                self.w[i] = self.w[i] * self.s[i] / ax
                self.s[i] = ax
            if self.s[i] > 0:
                n_add += (x[i] / self.s[i]) * (x[i] / self.s[i])
        self.N += n_add
        self.t += 1
        if self.N <= 0:
            return
        f = self._predict(x)
        _reg_loss(self.under, self.over, gamma, f, y, &dloss)
        rate = self.eta * _sqrt(<double> self.t / self.N)
        for i in range(self.dim):
            if self.s[i] == 0:
                continue
            g = dloss * x[i] + self.l2 * self.s[i] * self.s[i] * self.w[i]
            self.G[i] += g * g
            if self.G[i] > 0:
                self.w[i] -= rate * g / (self.s[i] * _sqrt(self.G[i]))

    def predict(self, x):
        cdef const double[::1] v = np.ascontiguousarray(x, dtype=np.float64)
        if v.shape[0] != self.dim:
            raise ValueError(f"expected {self.dim} values, got {v.shape[0]}")
        return self._predict(&v[0])

    def fit_step(self, x, double y, double procs=1.0):
        """One NAG step on (x, y) with the weight gamma of a job of `procs`
        processors that ran y seconds."""
        cdef const double[::1] v = np.ascontiguousarray(x, dtype=np.float64)
        if v.shape[0] != self.dim:
            raise ValueError(f"expected {self.dim} values, got {v.shape[0]}")
        self._step(&v[0], y, _reg_gamma(self.weighting, procs, y))

    @property
    def weights(self):
        return np.asarray(self.w).copy()


cdef void _reg_basis(const double* x, double* phi) noexcept nogil:
    """Degree-2 basis (1, x_1..x_n, x_k x_i for k <= i)."""
    cdef int k, i, m = 1 + REG_NFEAT
    phi[0] = 1.0
    for k in range(REG_NFEAT):
        phi[1 + k] = x[k]
    for k in range(REG_NFEAT):
        for i in range(k, REG_NFEAT):
            phi[m] = x[k] * x[i]
            m += 1


cdef class RegressionPredictor(Predictor):
    """`regression`: l2-regularized degree-2 polynomial model of the Table 2
    features that the core can supply, trained online by NAG at each job
    completion with an asymmetric weighted loss (default: the paper's E-Loss,
    equation (3): linear under-prediction, squared over-prediction, weight
    log(q p))."""

    cdef NAGRegressor model
    cdef double[::1] feat           # REG_NFEAT features per job, set at submission
    cdef double[::1] last1, last2, last3, sum_run, sum_procs, last_completion
    cdef long long[::1] n_finished, n_submitted
    # Each user's running jobs, a doubly linked list in start order (starts
    # come in time order, so appending keeps it sorted: the head started first).
    cdef Py_ssize_t[::1] run_head, run_tail, run_next, run_prev
    cdef long long[::1] n_running
    cdef double[::1] run_start, running_procs, running_starts
    cdef double phi[REG_DIM]

    def __init__(self, under="linear", over="squared", weighting="large_area",
                 l2=1e-6, learning_rate=1.0):
        self.model = NAGRegressor(REG_DIM, under, over, weighting, l2, learning_rate)
        self.feat = np.zeros(0)

    def __repr__(self):
        m = self.model
        return (f"RegressionPredictor(under={REGRESSION_BASES[m.under]!r}, "
                f"over={REGRESSION_BASES[m.over]!r}, "
                f"weighting={REGRESSION_WEIGHTINGS[m.weighting]!r}, l2={m.l2!r}, "
                f"learning_rate={m.eta!r})")

    cdef int bind(self, JobArrays jobs) except -1:
        cdef Py_ssize_t nu = jobs.n_users if jobs.n_users > 0 else 1
        self.jobs = jobs
        self.model.reset()
        self.feat = np.zeros(jobs.n * REG_NFEAT)
        self.last1 = np.zeros(nu)
        self.last2 = np.zeros(nu)
        self.last3 = np.zeros(nu)
        self.sum_run = np.zeros(nu)
        self.sum_procs = np.zeros(nu)
        self.last_completion = np.full(nu, NAN)
        self.n_finished = np.zeros(nu, dtype=np.int64)
        self.n_submitted = np.zeros(nu, dtype=np.int64)
        self.run_head = np.full(nu, -1, dtype=np.intp)
        self.run_tail = np.full(nu, -1, dtype=np.intp)
        self.run_next = np.full(jobs.n, -1, dtype=np.intp)
        self.run_prev = np.full(jobs.n, -1, dtype=np.intp)
        self.run_start = np.zeros(jobs.n)
        self.n_running = np.zeros(nu, dtype=np.int64)
        self.running_procs = np.zeros(nu)
        self.running_starts = np.zeros(nu)
        return 0

    cdef void _features(self, Py_ssize_t j, double t, double* x) noexcept nogil:
        cdef int u = self.jobs.user[j]
        cdef long long nf = self.n_finished[u]
        cdef long long nr = self.n_running[u]
        cdef double q = <double> self.jobs.procs[j]
        cdef double r = self.jobs.submit[j]
        cdef double hist_q, ph
        x[0] = self.jobs.requested[j]
        x[1] = self.last1[u]
        x[2] = self.last2[u]
        x[3] = self.last3[u]
        if nf >= 2:
            x[4] = (self.last1[u] + self.last2[u]) / 2.0
        else:
            x[4] = self.last1[u]
        if nf >= 3:
            x[5] = (self.last1[u] + self.last2[u] + self.last3[u]) / 3.0
        else:
            x[5] = x[4]
        x[6] = self.sum_run[u] / nf if nf > 0 else 0.0
        x[7] = q
        hist_q = (self.sum_procs[u] / self.n_submitted[u] if self.n_submitted[u] > 0
                  else q)
        x[8] = hist_q
        x[9] = q / hist_q if hist_q > 0 else 1.0
        # the user's jobs running at t (started before this submission)
        x[10] = self.running_procs[u] / nr if nr > 0 else 0.0
        x[11] = <double> nr
        x[12] = t - self.run_start[self.run_head[u]] if nr > 0 else 0.0
        x[13] = nr * t - self.running_starts[u] if nr > 0 else 0.0
        x[14] = self.running_procs[u]
        x[15] = (t - self.last_completion[u] if not isnan(self.last_completion[u])
                 else 0.0)
        ph = 2.0 * 3.141592653589793 * ((r % 86400.0) / 86400.0)
        x[16] = _cos(ph)
        x[17] = _sin(ph)
        ph = 2.0 * 3.141592653589793 * ((r % 604800.0) / 604800.0)
        x[18] = _cos(ph)
        x[19] = _sin(ph)

    cdef double predict(self, Py_ssize_t j, double t) noexcept nogil:
        cdef double* x = &self.feat[j * REG_NFEAT]
        cdef int u = self.jobs.user[j]
        self._features(j, t, x)
        self.n_submitted[u] += 1
        self.sum_procs[u] += <double> self.jobs.procs[j]
        _reg_basis(x, self.phi)
        return self.model._predict(self.phi)

    cdef void started(self, Py_ssize_t j, double t) noexcept nogil:
        cdef int u = self.jobs.user[j]
        self.run_start[j] = t
        self.run_prev[j] = self.run_tail[u]
        self.run_next[j] = -1
        if self.run_tail[u] >= 0:
            self.run_next[self.run_tail[u]] = j
        else:
            self.run_head[u] = j
        self.run_tail[u] = j
        self.n_running[u] += 1
        self.running_procs[u] += <double> self.jobs.procs[j]
        self.running_starts[u] += t

    cdef void learn(self, Py_ssize_t j, double t) noexcept nogil:
        cdef int u = self.jobs.user[j]
        cdef double p = self.jobs.run[j]
        _reg_basis(&self.feat[j * REG_NFEAT], self.phi)
        self.model._step(self.phi, p,
                         _reg_gamma(self.model.weighting,
                                    <double> self.jobs.procs[j], p))
        self.last3[u] = self.last2[u]
        self.last2[u] = self.last1[u]
        self.last1[u] = p
        self.sum_run[u] += p
        self.n_finished[u] += 1
        self.last_completion[u] = t
        # leave the running list
        if self.run_prev[j] >= 0:
            self.run_next[self.run_prev[j]] = self.run_next[j]
        else:
            self.run_head[u] = self.run_next[j]
        if self.run_next[j] >= 0:
            self.run_prev[self.run_next[j]] = self.run_prev[j]
        else:
            self.run_tail[u] = self.run_prev[j]
        self.n_running[u] -= 1
        self.running_procs[u] -= <double> self.jobs.procs[j]
        self.running_starts[u] -= self.run_start[j]

    cdef Predictor fork(self):
        """Every array copied: the features and running lists are per job, so
        this fork costs O(jobs), unlike the other predictors'."""
        cdef RegressionPredictor twin = RegressionPredictor.__new__(RegressionPredictor)
        twin.jobs = self.jobs
        twin.model = self.model.copy()
        # np.array copies a buffer with memcpy; a memoryview's copy() goes element by element
        twin.feat = np.array(self.feat)
        twin.last1, twin.last2, twin.last3 = np.array(self.last1), np.array(self.last2), np.array(self.last3)
        twin.sum_run, twin.sum_procs = np.array(self.sum_run), np.array(self.sum_procs)
        twin.last_completion = np.array(self.last_completion)
        twin.n_finished, twin.n_submitted = np.array(self.n_finished), np.array(self.n_submitted)
        twin.run_head, twin.run_tail = np.array(self.run_head), np.array(self.run_tail)
        twin.run_next, twin.run_prev = np.array(self.run_next), np.array(self.run_prev)
        twin.n_running, twin.run_start = np.array(self.n_running), np.array(self.run_start)
        twin.running_procs, twin.running_starts = np.array(self.running_procs), np.array(self.running_starts)
        return twin

    # -- Python-visible helpers for tests -----------------------------------

    def fit_step(self, features, double target, double procs=1.0):
        """One NAG step on a raw feature vector (REG_NFEAT values)."""
        cdef const double[::1] v = np.ascontiguousarray(features, dtype=np.float64)
        if v.shape[0] != REG_NFEAT:
            raise ValueError(f"expected {REG_NFEAT} features, got {v.shape[0]}")
        _reg_basis(&v[0], self.phi)
        self.model._step(self.phi, target,
                         _reg_gamma(self.model.weighting, procs, target))

    def predict_features(self, features):
        """The model's (unclipped) output for a raw feature vector."""
        cdef const double[::1] v = np.ascontiguousarray(features, dtype=np.float64)
        if v.shape[0] != REG_NFEAT:
            raise ValueError(f"expected {REG_NFEAT} features, got {v.shape[0]}")
        _reg_basis(&v[0], self.phi)
        return self.model._predict(self.phi)

    @property
    def features(self):
        """Features computed at submission of the bound workload, one row per job."""
        return np.asarray(self.feat).reshape(-1, REG_NFEAT).copy()
