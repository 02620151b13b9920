"""The bandit paper's published artifact's resampling (obps/obps, branch `valentin`, with its
`ocst` tools at freuk/ocst@df04de6), reproduced job for job: the `artifact` method of
simcore.workloads.resample.

Variant m (1-based: the artifact's `metaid`) is 100 one-week blocks, five from each of 20
shuffles of the filtered log (the artifact filters with `strong_filter`, our `strict`):

1. Shuffle s = 1..20 seeds OCaml 4's `Random` with 10000 m + s. Weeks are counted from submit 0;
   a and b are the weeks of the earliest and latest submit. Every user id from the smallest to
   the largest, in ascending order (ids without a job included), draws a permutation P_u of the
   interior weeks a+1..b-1, with the artifact's list extraction (each draw takes element i of
   the remaining list, which then becomes its reversed prefix before i followed by its suffix,
   and the picks are prepended). A job of user u in interior week w moves to week
   P_u[w-a-1] at the same offset; the jobs of weeks a and b are dropped.
2. The shuffled log loses its first and last non-empty weeks (the artifact's trimmer); of what
   is left, with a'' its first week, weeks a''+2 .. a''+6 are kept, one block each.
3. Block k (k = 0..99: shuffle outer, week inner) is shifted so that its earliest submit is
   exactly k weeks: the gap before a week's first job and the week's day-of-week phase go.
   Nothing is cut; a block's jobs may run into the next one.

The job content (submit, run, processors, requested time) equals the artifact's for KTH-SP2's
variants 1, 37 and 60 (tests/workloads/test_artifact_resample.py, against digests of the
artifact's own output, built from its sources). What is not the artifact's: its job ids and the
order of jobs submitted at the same second (OCaml hash-table order; here by submit, then source
position), and the user and group, which the artifact zeroes and which are kept here.
"""

from __future__ import annotations

import hashlib

import numpy as np

WEEK = 604800
SHUFFLES = 20
WEEKS_PER_SHUFFLE = 5
BLOCKS = SHUFFLES * WEEKS_PER_SHUFFLE
_MASK = 0x3FFFFFFF  # OCaml 4's Random works on 30-bit integers


class OCaml4Random:
    """OCaml 4.x's stdlib `Random` (a lagged-Fibonacci generator seeded through MD5), as
    `Random.init seed` leaves it: `int(n)` is `Random.int n`."""

    def __init__(self, seed: int):
        state = list(range(55))
        accumulator = b"x"
        for i in range(110):
            accumulator = hashlib.md5(accumulator + str(seed).encode()).digest()
            state[i % 55] = (state[i % 55] ^ int.from_bytes(accumulator[:4], "little")) & _MASK
        self.state, self.index = state, 0

    def bits(self) -> int:
        self.index = (self.index + 1) % 55
        current = self.state[self.index]
        drawn = (self.state[(self.index + 24) % 55] + (current ^ ((current >> 25) & 31))) & _MASK
        self.state[self.index] = drawn
        return drawn

    def int(self, bound: int) -> int:
        while True:
            drawn = self.bits()
            value = drawn % bound
            if drawn - value <= _MASK - bound + 1:
                return value


def artifact_permutation(rng: OCaml4Random, items: list) -> list:
    """The artifact's random permutation of `items` (its extraction, reversed prefixes and all)."""
    remaining, picked = list(items), []
    while remaining:
        i = rng.int(len(remaining))
        picked.append(remaining[i])
        remaining = remaining[:i][::-1] + remaining[i + 1 :]
    return picked[::-1]


def artifact_blocks(week: np.ndarray, offset: np.ndarray, user: np.ndarray, metaid: int):
    """(source job index, submit) of variant `metaid`'s jobs, unsorted: the construction above on
    the jobs' weeks, offsets within their week and users."""
    first, last = int(week.min()), int(week.max())
    interior = list(range(first + 1, last))
    inside = np.flatnonzero((week > first) & (week < last))
    lowest = int(user.min())
    users = int(user.max()) - lowest + 1
    sources, submits = [], []
    block = 0
    for shuffle in range(1, SHUFFLES + 1):
        rng = OCaml4Random(10000 * metaid + shuffle)
        moved_to = np.array([artifact_permutation(rng, interior) for _ in range(users)], dtype=np.int64)
        new_week = moved_to[user[inside] - lowest, week[inside] - first - 1]
        trimmed = (new_week > new_week.min()) & (new_week < new_week.max())
        start = new_week[trimmed].min() if trimmed.any() else 0
        for kept_week in range(start + 2, start + 2 + WEEKS_PER_SHUFFLE):
            chosen = np.flatnonzero(trimmed & (new_week == kept_week))
            if len(chosen):
                submit = kept_week * WEEK + offset[inside[chosen]]
                sources.append(inside[chosen])
                submits.append(submit - submit.min() + block * WEEK)
            block += 1
    if not sources:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    return np.concatenate(sources), np.concatenate(submits).astype(float)
