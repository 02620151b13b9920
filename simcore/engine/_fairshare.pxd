# A multifactor priority after Slurm's (the order MULTIFACTOR; docs/semantics.md,
# "Multifactor priority") for the event loop (simcore/engine/_core.pyx): the
# per-user decayed usage, the fair-share factors of the last computation and
# a job's priority from them. All inline, like _classes.pxd.
#
# Why the usage is kept this way: a computation every calc_period (300 s:
# 360,000 of them on a three-year trace) must cost O(1), not a pass over the
# users or the started jobs. Usage is held in units that grow as
# g(τ) = 2^((τ - origin) / H): a processor-second at τ weighs g(τ) / g(T) at
# T, so a user's decayed usage at T, times g(T), is
#     done_u + scale * (procs_u * g(T) - starts_u)
# with done_u the finished jobs' q * scale * (g(end) - g(start)), procs_u the
# running jobs' processors and starts_u their q * g(start), scale = H / ln 2.
# Shares are ratios of these, so g(T) never divides anything. The origin moves
# by whole half-lives before g overflows, scaling everything by an exact power
# of two. A user's usage at the last computation is saved before its first
# change after it (`saved_at`), so that a job submitted between computations
# gets its factor from that computation, as the contract says.

from libc.math cimport INFINITY, M_LN2, exp2, floor, isfinite, ldexp
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

# slurm.conf's Priority* parameters, named as simcore/engine/priority.py's Multifactor fields
# (the event loop is given that dataclass's mapping, which Cython converts to this struct).
cdef struct Multifactor:
    double weight_age, weight_fairshare, weight_job_size, max_age, decay_half_life, calc_period
    bint favor_small

# g(T) stays below 2^REBASE_HALF_LIVES: far from overflow, with room for sums.
cdef enum:
    REBASE_HALF_LIVES = 512


cdef struct FairShare:
    Multifactor params
    double machine_size, share       # share: 1 / users (one equal share each)
    int n_users
    double origin, scale
    double* done
    double* procs
    double* starts
    double done_total, procs_total, starts_total
    # the last computation: its count, instant, g, total usage; the next one's due instant
    long long computations
    double at, growth, usage_total, due
    long long* saved_at         # per user: the computation whose usage `saved` holds
    double* saved
    long long* factor_at        # per user: the computation `factor` is of (factor 1 at 0: none yet)
    double* factor


cdef inline int check_multifactor(Multifactor params) except -1:
    """The parameters' bounds (simcore/engine/priority.py's Multifactor checks them
    first, in the configuration's words)."""
    cdef double value
    for value in (params.weight_age, params.weight_fairshare, params.weight_job_size,
                  params.max_age, params.decay_half_life, params.calc_period):
        if not (isfinite(value) and value >= 0):
            raise ValueError(f"multifactor {params}: every parameter must be a finite number >= 0")
    if not (params.max_age > 0 and params.decay_half_life > 0):
        raise ValueError(f"multifactor {params}: max_age and decay_half_life must be > 0")
    return 0


cdef inline bint _allocate(FairShare* fs) noexcept nogil:
    """The per-user arrays (fs.n_users set); False: out of memory (free them with fairshare_free)."""
    cdef size_t doubles = fs.n_users * sizeof(double), counts = fs.n_users * sizeof(long long)
    fs.done = <double*> malloc(doubles)
    fs.procs = <double*> malloc(doubles)
    fs.starts = <double*> malloc(doubles)
    fs.saved = <double*> malloc(doubles)
    fs.saved_at = <long long*> malloc(counts)
    fs.factor_at = <long long*> malloc(counts)
    fs.factor = <double*> malloc(doubles)
    return not (fs.done == NULL or fs.procs == NULL or fs.starts == NULL or fs.saved == NULL
                or fs.saved_at == NULL or fs.factor_at == NULL or fs.factor == NULL)


cdef inline bint fairshare_init(FairShare* fs, Multifactor params, int n_users,
                                double machine_size) noexcept nogil:
    """Allocate and reset for n_users users. False: out of memory."""
    memset(fs, 0, sizeof(FairShare))
    fs.params = params
    fs.machine_size = machine_size
    fs.n_users = n_users
    fs.share = 1.0 / n_users
    fs.scale = fs.params.decay_half_life / M_LN2
    if not _allocate(fs):
        return False
    fairshare_reset(fs)
    return True


cdef inline void fairshare_reset(FairShare* fs) noexcept nogil:
    """No usage, no computation yet (the first instant computes)."""
    cdef size_t doubles = fs.n_users * sizeof(double), counts = fs.n_users * sizeof(long long)
    cdef int u
    memset(fs.done, 0, doubles)
    memset(fs.procs, 0, doubles)
    memset(fs.starts, 0, doubles)
    memset(fs.saved_at, 0, counts)
    memset(fs.factor_at, 0, counts)
    for u in range(fs.n_users):
        fs.factor[u] = 1.0      # of "computation 0": none yet
    fs.done_total = fs.procs_total = fs.starts_total = 0.0
    fs.origin = 0.0
    fs.computations = 0
    fs.at = -INFINITY
    fs.growth = fs.usage_total = 0.0
    fs.due = 0.0


cdef inline void fairshare_free(FairShare* fs) noexcept nogil:
    free(fs.done)
    free(fs.procs)
    free(fs.starts)
    free(fs.saved)
    free(fs.saved_at)
    free(fs.factor_at)
    free(fs.factor)
    memset(fs, 0, sizeof(FairShare))


cdef inline bint fairshare_copy(FairShare* target, const FairShare* source) noexcept nogil:
    """target (not allocated) becomes an independent copy of source; False: out of memory."""
    cdef size_t doubles = source.n_users * sizeof(double), counts = source.n_users * sizeof(long long)
    target[0] = source[0]
    if not _allocate(target):
        return False
    memcpy(target.done, source.done, doubles)
    memcpy(target.procs, source.procs, doubles)
    memcpy(target.starts, source.starts, doubles)
    memcpy(target.saved, source.saved, doubles)
    memcpy(target.saved_at, source.saved_at, counts)
    memcpy(target.factor_at, source.factor_at, counts)
    memcpy(target.factor, source.factor, doubles)
    return True


cdef inline double _usage_now(const FairShare* fs, int u) noexcept nogil:
    """User u's decayed usage at the last computation, times its g, from the current sums."""
    return fs.done[u] + fs.scale * (fs.procs[u] * fs.growth - fs.starts[u])


cdef inline void _save_usage(FairShare* fs, int u) noexcept nogil:
    # before u's first change since the last computation: what it computed
    if fs.saved_at[u] != fs.computations:
        fs.saved[u] = _usage_now(fs, u)
        fs.saved_at[u] = fs.computations


cdef inline void fairshare_started(FairShare* fs, int u, long long q, double start) noexcept nogil:
    cdef double weight = q * exp2((start - fs.origin) / fs.params.decay_half_life)
    _save_usage(fs, u)
    fs.procs[u] += q
    fs.starts[u] += weight
    fs.procs_total += q
    fs.starts_total += weight


cdef inline void fairshare_completed(FairShare* fs, int u, long long q, double start,
                                     double end) noexcept nogil:
    cdef double began = q * exp2((start - fs.origin) / fs.params.decay_half_life)
    cdef double used = fs.scale * (q * exp2((end - fs.origin) / fs.params.decay_half_life) - began)
    _save_usage(fs, u)
    fs.procs[u] -= q
    fs.starts[u] -= began
    fs.done[u] += used
    fs.procs_total -= q
    fs.starts_total -= began
    fs.done_total += used


cdef inline void fairshare_compute(FairShare* fs, double t) noexcept nogil:
    """The computation at instant t (t >= due): every factor from now on is t's."""
    cdef double half_lives = (t - fs.origin) / fs.params.decay_half_life, shrink
    cdef int u
    if half_lives > REBASE_HALF_LIVES:
        half_lives = floor(half_lives)
        shrink = ldexp(1.0, -<int> half_lives)
        for u in range(fs.n_users):
            fs.done[u] *= shrink
            fs.starts[u] *= shrink
        fs.done_total *= shrink
        fs.starts_total *= shrink
        fs.origin += half_lives * fs.params.decay_half_life
    fs.computations += 1
    fs.at = t
    fs.growth = exp2((t - fs.origin) / fs.params.decay_half_life)
    fs.usage_total = fs.done_total + fs.scale * (fs.procs_total * fs.growth - fs.starts_total)
    if fs.params.calc_period > 0.0:
        fs.due = fs.params.calc_period * (floor(t / fs.params.calc_period) + 1.0)
    else:
        fs.due = t


cdef inline double fairshare_factor(FairShare* fs, int u) noexcept nogil:
    """F_u = 2^(-Û_u / S_u) of the last computation (1 before the first)."""
    cdef double usage
    if fs.factor_at[u] != fs.computations:
        usage = fs.saved[u] if fs.saved_at[u] == fs.computations else _usage_now(fs, u)
        fs.factor[u] = exp2(-(usage / fs.usage_total) / fs.share) if fs.usage_total > 0.0 else 1.0
        fs.factor_at[u] = fs.computations
    return fs.factor[u]


cdef inline double fairshare_priority(FairShare* fs, double submit, long long q,
                                      int u) noexcept nogil:
    """P_j = floor(W_age A_j + W_fs F_u + W_size Z_j) with the last computation's T and F."""
    cdef double age = fs.at - submit, size
    age = min(1.0, max(0.0, age) / fs.params.max_age)
    if fs.params.favor_small:
        size = 1.0 - (q - 1) / fs.machine_size
    else:
        size = q / fs.machine_size
    return floor(fs.params.weight_age * age + fs.params.weight_fairshare * fairshare_factor(fs, u)
                 + fs.params.weight_job_size * size)
