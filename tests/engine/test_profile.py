"""The availability profile of reservation depth (simcore/engine/_profile.pxd), driven directly
against a brute-force one: one pass at t over random running jobs (estimated ends, processors)
and a random queue, each job started now if q processors are free on [t, t + e), else reserved at
the earliest instant from which they are free for e seconds (a conservative pass). The profile
answers fits-now from its staircase and the anchor from ends merged as the walk looks further;
the brute force recounts the free processors at every instant that matters.

The .pxd is inline C, so a small probe module that cimports it is compiled for the test (Cython
and a C compiler are what `setup.py build_ext` needs already)."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest
from conftest import REPO

PROBE = textwrap.dedent(
    """
    # cython: language_level=3
    from libc.stdlib cimport free, malloc
    from simcore.engine._profile cimport (
        Profile, profile_anchor, profile_fits_now, profile_free, profile_init, profile_open,
        profile_take, profile_take_started,
    )
    from simcore.engine._sorted cimport Entry, sorted_insert

    def conservative_pass(double t, long long free_now, list ends, list procs, list queue):
        '''ends: (estimated end, job) of the running jobs, sorted; procs: every job's
        processors (running ones, then the queue's); queue: (job, estimate). Returns
        (job, start) for each queued job, in queue order.'''
        cdef Py_ssize_t n = len(procs), n_ends = len(ends), k
        cdef Entry* entries = <Entry*> malloc((n + 1) * sizeof(Entry))
        cdef long long* q = <long long*> malloc((n + 1) * sizeof(long long))
        cdef Profile p
        for k in range(n):
            q[k] = procs[k]
        for k in range(n_ends):
            entries[k].key, entries[k].idx = ends[k]
        if not profile_init(&p, n):
            raise MemoryError()
        profile_open(&p, t, free_now, entries, &n_ends, q)
        decided = []
        for job, e in queue:
            if q[job] <= p.free[0] and profile_fits_now(&p, q[job], e):
                profile_take_started(&p, t + e, q[job])
                sorted_insert(entries, &n_ends, t + e, job)
                decided.append((job, t))
            else:
                k = profile_anchor(&p, q[job], e)
                decided.append((job, p.times[k]))
                profile_take(&p, k, p.times[k] + e, q[job])
        profile_free(&p)
        free(entries)
        free(q)
        return decided
    """
)


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    build = tmp_path_factory.mktemp("profile_probe")
    (build / "profile_probe.pyx").write_text(PROBE)
    setup = (
        "from setuptools import setup; from Cython.Build import cythonize; "
        f"setup(ext_modules=cythonize(['profile_probe.pyx'], include_path=[{str(REPO)!r}], quiet=True))"
    )
    done = subprocess.run(
        [sys.executable, "-c", setup, "build_ext", "--inplace"], cwd=build, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]  # Cython and setuptools are in the [test] extra
    sys.path.insert(0, str(build))
    try:
        import profile_probe
    finally:
        sys.path.remove(str(build))
    return profile_probe


def brute_force(t, free_now, ends, procs, queue):
    """The same pass over explicit intervals: free(τ) = free_now + the ends at or before τ - the
    taken intervals containing τ; a job starts at the first candidate instant (t, an end, the end
    of a taken interval) from which free >= q holds until it ends."""
    released = [(end, procs[job]) for end, job in ends]
    taken = []  # (begin, end, q)

    def free_at(instant):
        return (
            free_now
            + sum(q for end, q in released if end <= instant)
            - sum(q for begin, end, q in taken if begin <= instant < end)
        )

    decided = []
    for job, e in queue:
        q = procs[job]
        candidates = sorted({t, *(end for end, _ in released), *(end for _, end, _ in taken)})
        for begin in candidates:
            changes = [begin] + [x for x in candidates if begin < x < begin + e]
            if all(free_at(x) >= q for x in changes):
                break
        taken.append((begin, begin + e, q))
        decided.append((job, begin))
    return decided


def scenario(seed):
    rng = np.random.Generator(np.random.PCG64(seed))
    machine = int(rng.integers(2, 65))
    t = float(rng.choice([0.0, 1000.0]))
    ends, procs, used = [], [], 0
    for job in range(int(rng.integers(0, 12))):
        q = int(rng.integers(1, machine - used + 1)) if used < machine else 0
        if q == 0:
            break
        used += q
        ends.append((t + float(rng.choice([1.0, 5.0, 10.0, rng.integers(1, 200)])), job))
        procs.append(q)
    ends.sort()
    queue = []
    for job in range(len(procs), len(procs) + int(rng.integers(1, 25))):
        procs.append(int(rng.integers(1, machine + 1)))
        queue.append((job, float(rng.choice([1.0, 5.0, 10.0, rng.integers(1, 300)]))))
    return t, machine - used, ends, procs, queue


@pytest.mark.parametrize("seed", range(400))
def test_the_profile_decides_as_the_brute_force(probe, seed):
    t, free_now, ends, procs, queue = scenario(seed)
    assert probe.conservative_pass(t, free_now, ends, procs, queue) == brute_force(t, free_now, ends, procs, queue)


def test_hand_computed_pass(probe):
    # 4 processors, 1 free now; running: job 0 (2) until 10, job 1 (1) until 20.
    # job 2 (1 for 5 s) starts now: free is then 0 on [0, 5), 1 on [5, 10), 3 on [10, 20), 4 after;
    # job 3 (3 for 10 s) is reserved at 10, leaving 0 on [10, 20); job 4 (1 for 4 s) at 5.
    ends, procs = [(10.0, 0), (20.0, 1)], [2, 1, 1, 3, 1]
    queue = [(2, 5.0), (3, 10.0), (4, 4.0)]
    assert probe.conservative_pass(0.0, 1, ends, procs, queue) == [(2, 0.0), (3, 10.0), (4, 5.0)]
