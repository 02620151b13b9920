# The availability profile a pass with reservation depth >= 2 walks
# (docs/semantics.md, "Reservation depth"), for the event loop
# (simcore/engine/_core.pyx): free[k] processors on [times[k], times[k + 1]),
# the last segment unbounded, rebuilt at each pass. All inline, like
# _fairshare.pxd; tests/engine/test_profile.py drives it against a brute-force
# profile.
#
# Why it is kept this way: a pass must not cost O(running jobs) before its
# first start. The profile opens as [t, inf) alone; the running jobs' estimated
# ends (`ends`, sorted by (end, position), the event loop's running list) are
# merged one instant at a time as the walk looks further. Fits-now asks for
# the least free on [t, t + e): the staircase of the profile's prefix minima
# answers it, extended a segment at a time and cut back where a reservation
# changes the profile (levels fall only where a reservation begins).

from libc.stdlib cimport free, malloc
from libc.string cimport memmove

from simcore.engine._sorted cimport Entry


cdef struct Profile:
    double* times
    long long* free
    Py_ssize_t size
    # the least free on [t, stair_times[k + 1]) is stair_levels[k], from the
    # first stair_scanned segments
    double* stair_times
    long long* stair_levels
    Py_ssize_t stair_size, stair_scanned
    # ends[0..merged) are in the profile; *n_ends of them in all, each
    # job's processors in procs
    const Entry* ends
    const Py_ssize_t* n_ends
    const long long* procs
    Py_ssize_t merged


cdef inline bint profile_init(Profile* p, Py_ssize_t n) noexcept nogil:
    """Room for n jobs' segments (each start and each end splits at most one);
    False: out of memory (free with profile_free)."""
    cdef size_t segments = 2 * n + 2
    p.times = <double*> malloc(segments * sizeof(double))
    p.free = <long long*> malloc(segments * sizeof(long long))
    p.stair_times = <double*> malloc(segments * sizeof(double))
    p.stair_levels = <long long*> malloc(segments * sizeof(long long))
    p.size = p.stair_size = p.stair_scanned = p.merged = 0
    return not (p.times == NULL or p.free == NULL or p.stair_times == NULL or p.stair_levels == NULL)


cdef inline void profile_free(Profile* p) noexcept nogil:
    free(p.times)
    free(p.free)
    free(p.stair_times)
    free(p.stair_levels)
    p.times = p.stair_times = NULL
    p.free = p.stair_levels = NULL


cdef inline void profile_open(Profile* p, double t, long long free_now, const Entry* ends,
                              const Py_ssize_t* n_ends, const long long* procs) noexcept nogil:
    """The profile of a pass at t: free_now processors from t on, the running
    jobs' ends (ends, *n_ends of them; procs by position) not merged yet."""
    p.times[0] = t
    p.free[0] = free_now
    p.size = 1
    p.merged = 0
    p.stair_size = p.stair_scanned = 0
    p.ends, p.n_ends, p.procs = ends, n_ends, procs


cdef inline void _merge_next_end(Profile* p) noexcept nogil:
    """Add the running jobs of the next unmerged estimated end as the new last
    segment (every unmerged end is after the last segment's start)."""
    cdef Py_ssize_t last = p.size
    cdef double at = p.ends[p.merged].key
    p.times[last] = at
    p.free[last] = p.free[last - 1]
    p.size += 1
    while p.merged < p.n_ends[0] and p.ends[p.merged].key == at:
        p.free[last] += p.procs[p.ends[p.merged].idx]
        p.merged += 1


cdef inline Py_ssize_t profile_anchor(Profile* p, long long q, double e) noexcept nogil:
    """The segment of the earliest start after the profile's start from which
    q processors are free for e seconds (the caller knows the job does not fit
    at the start). Free processors only grow after the last segment's start,
    so the profile is merged until that segment has q; then the answer exists."""
    cdef Py_ssize_t k = 1, later
    cdef double begin
    while p.free[p.size - 1] < q:
        _merge_next_end(p)
    while True:
        if p.free[k] < q:
            k += 1
            continue
        begin = p.times[k]
        later = k + 1
        while later < p.size and p.times[later] < begin + e and p.free[later] >= q:
            later += 1
        if later == p.size or p.times[later] >= begin + e:
            return k
        k = later + 1       # segment `later` is short of processors


cdef inline bint profile_fits_now(Profile* p, long long q, double e) noexcept nogil:
    """Whether q processors (at most those free now) are free on [t, t + e):
    the first level of the staircase below q must begin at t + e or later.
    Unmerged ends only add processors after the last segment."""
    cdef double stop = p.times[0] + e
    cdef Py_ssize_t k = 0, segment
    while True:
        while k < p.stair_size:
            if p.stair_levels[k] < q:
                return p.stair_times[k] >= stop
            k += 1
        # the staircase is known up to here: extend it by one segment
        segment = p.stair_scanned
        if segment == p.size or p.times[segment] >= stop:
            return True
        p.stair_scanned += 1
        if p.stair_size == 0 or p.free[segment] < p.stair_levels[p.stair_size - 1]:
            p.stair_times[p.stair_size] = p.times[segment]
            p.stair_levels[p.stair_size] = p.free[segment]
            p.stair_size += 1


cdef inline Py_ssize_t _split(Profile* p, Py_ssize_t low, double at) noexcept nogil:
    """The segment that starts at `at` (>= segment low's start), split from
    the one containing it if needed."""
    cdef Py_ssize_t high = p.size, middle, moved
    while high - low > 1:
        middle = (low + high) >> 1
        if p.times[middle] <= at:
            low = middle
        else:
            high = middle
    if p.times[low] == at:
        return low
    moved = p.size - low - 1
    memmove(&p.times[low + 2], &p.times[low + 1], moved * sizeof(double))
    memmove(&p.free[low + 2], &p.free[low + 1], moved * sizeof(long long))
    p.times[low + 1] = at
    p.free[low + 1] = p.free[low]
    p.size += 1
    return low + 1


cdef inline void profile_take(Profile* p, Py_ssize_t first, double stop, long long q) noexcept nogil:
    """q processors fewer from segment first's start to stop (a reservation),
    the ends up to stop merged first (they come after every segment: first
    stays); the staircase from there on is forgotten."""
    cdef Py_ssize_t last, k
    while p.merged < p.n_ends[0] and p.ends[p.merged].key <= stop:
        _merge_next_end(p)
    last = _split(p, first, stop)
    for k in range(first, last):
        p.free[k] -= q
    while p.stair_size > 0 and p.stair_times[p.stair_size - 1] >= p.times[first]:
        p.stair_size -= 1
    p.stair_scanned = min(p.stair_scanned, first)


cdef inline void profile_take_started(Profile* p, double stop, long long q) noexcept nogil:
    """q processors fewer on [t, stop) for a job started now, whose end the
    caller inserts among the ends right after: an end after the last segment's
    start is left unmerged (q fewer everywhere, q back when merged)."""
    cdef Py_ssize_t k
    if stop <= p.times[p.size - 1]:
        profile_take(p, 0, stop, q)
        p.merged += 1       # its end lands before every unmerged end
        return
    for k in range(p.size):
        p.free[k] -= q
    p.stair_size = p.stair_scanned = 0
