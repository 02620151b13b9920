"""Trace resampling: new workload variants built from the weeks of a log.

Semantics (section 8 of docs/semantics.md), with the points it leaves open decided:

Weeks
    Week ``w`` holds the jobs submitted in ``[w * WEEK, (w + 1) * WEEK)``,
    counted from submit = 0 in the log's own origin. A job's offset is its
    submit time minus the start of its week. The first and last weeks are the
    weeks of the earliest and of the latest submit (the first and last
    *non-empty* week indices, whatever their value: CEA-Curie starts near
    week 52). Both are dropped, as they are usually partial. The *interior*
    is every week index strictly between them, empty weeks included, so
    ``K = last - first - 1`` interior weeks; they are numbered 0..K-1 in
    time order. A log with no interior week (fewer than 3 week indices in
    its span) or no job in its interior is refused.

Methods
    ``user-weeks``: each user with at least one interior job gets an own
    random permutation ``pi_u`` of the K interior weeks; output week ``i``
    of user ``u`` holds the jobs ``u`` submitted in interior week
    ``pi_u(i)``, at ``i * WEEK + offset``. Users with no interior job (only
    in the dropped weeks) do not appear in the variant.
    ``weeks``: the same, with one permutation shared by all users, so the
    jobs of one source week stay together.
    ``artifact``: the bandit paper's published artifact's construction, job
    for job (simcore/workloads/artifact_resample.py): 100 one-week blocks,
    five from each of 20 per-user shuffles, each block starting with a job;
    seed ``i`` is the artifact's variant (``metaid``) ``i + 1``. Its length is
    always 100 weeks (``weeks`` may only say so) and the draw order below does
    not apply.
    The variant lasts K weeks, or ``weeks`` weeks when requested: then each
    user gets ``ceil(weeks / K)`` fresh permutations, concatenated and cut
    to length, so output week ``i`` uses repetition ``i // K``, position
    ``i % K``. A job appears once per repetition that keeps its week.

Draw order (reproducible bit for bit)
    ``rng = numpy.random.Generator(numpy.random.PCG64(seed))`` makes exactly
    one call, ``keys = rng.random((R, U, K))`` (C order), where R is the number
    of repetitions and U the number of users with interior jobs in ascending
    user id (U = 1 for ``weeks``). Permutation ``r`` of the user at rank
    ``u`` is ``numpy.argsort(keys[r, u], kind="stable")``. Repetitions are
    the outer axis, so the variant asked for ``n`` weeks is the first ``n``
    weeks of the variant asked for more weeks with the same seed.

Job ids
    A requested length beyond K repeats jobs, so the variant's jobs are always
    renumbered 1..n in their final order: by new submit time, ties by
    original job id, then by source position (a stable lexsort). The source
    job id of every variant job is returned alongside, aligned with the
    variant's arrays.

The variant keeps the log's machine size, header, filter mode and counts,
and ``source_sha256`` (the hash of the file it was drawn from); its
``source`` names the method, seed and length.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator
from dataclasses import replace

import numpy as np

from simcore.engine.workload import Workload
from simcore.workloads.artifact_resample import BLOCKS, WEEK, artifact_blocks

PERMUTED_WEEKS = ("user-weeks", "weeks")  # the methods of the draw order below
RESAMPLE_METHODS = (*PERMUTED_WEEKS, "artifact")
# The shortest log resampling takes: the weeks of its first and last submits are dropped, so its
# submits must touch at least this many week indices (one interior week between them).
MIN_RESAMPLE_WEEKS = 3


def week_span(first_submit: float, last_submit: float) -> tuple[int, int]:
    """The week indices (first, last) of the earliest and latest submit, counted from submit 0."""
    return int(first_submit // WEEK), int(last_submit // WEEK)


def too_short_to_resample(first_submit: float, last_submit: float) -> str | None:
    """Why a log whose submits run from `first_submit` to `last_submit` (seconds) cannot be
    resampled, in a phrase; None when it spans MIN_RESAMPLE_WEEKS week indices or more."""
    first, last = week_span(first_submit, last_submit)
    if last - first + 1 >= MIN_RESAMPLE_WEEKS:
        return None
    return (
        f"its submits span weeks {first}..{last}; resampling drops the first and last week and "
        f"needs at least {MIN_RESAMPLE_WEEKS} weeks"
    )


def variant_seed(base_seed: int, variant: int) -> int:
    """The seed of variant `variant` of a trace: ``base_seed + variant``."""
    base_seed, variant = operator.index(base_seed), operator.index(variant)
    if base_seed < 0 or variant < 0:
        raise ValueError(f"base seed and variant must be >= 0, got {base_seed} and {variant}")
    return base_seed + variant


def resample(
    workload: Workload, seed: int, method: str = "user-weeks", weeks: int | None = None
) -> tuple[Workload, np.ndarray]:
    """One resampled variant of `workload` and the source job id of each of its jobs.

    `weeks` is the variant's length in weeks (default: the log's interior).
    See the module docstring for the exact semantics and draw order.
    """
    if method not in RESAMPLE_METHODS:
        raise ValueError(f"unknown resampling method {method!r}; choose one of {', '.join(RESAMPLE_METHODS)}")
    seed = operator.index(seed)
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    if weeks is not None:
        weeks = operator.index(weeks)
        if weeks <= 0:
            raise ValueError(f"weeks must be a positive number of weeks, got {weeks}")
    if len(workload) == 0:
        raise ValueError(f"{workload.source}: cannot resample an empty workload")

    week, offset = np.divmod(workload.submit, WEEK)
    week = week.astype(np.int64)
    first, last = int(week.min()), int(week.max())
    n_interior = last - first - 1
    short = too_short_to_resample(workload.submit.min(), workload.submit.max())
    if short is not None:
        raise ValueError(f"{workload.source}: {short}")
    inside = np.flatnonzero((week > first) & (week < last))
    if len(inside) == 0:
        raise ValueError(
            f"{workload.source}: no job is submitted strictly between the first "
            f"week ({first}) and the last week ({last})"
        )
    if method == "artifact":
        if weeks not in (None, BLOCKS):
            raise ValueError(f"the artifact's variants last {BLOCKS} weeks, got weeks={weeks}")
        length = BLOCKS
        source, submit = artifact_blocks(week, offset, workload.user, metaid=seed + 1)
        if len(source) == 0:
            raise ValueError(
                f"{workload.source}: the artifact's construction keeps the weeks 2-6 of each shuffle after "
                f"trimming; the {n_interior} interior weeks of this log leave no job there"
            )
    else:
        length = n_interior if weeks is None else weeks
        source, submit = _permuted_weeks(workload.user, week, offset, inside, first, seed, method, length)
    source_ids = workload.job_id[source]
    order = np.lexsort((source, source_ids, submit))
    source = source[order]

    variant = replace(
        workload,
        job_id=np.arange(1, len(source) + 1, dtype=np.int64),
        submit=submit[order],
        run=workload.run[source],
        requested=workload.requested[source],
        procs=workload.procs[source],
        user=workload.user[source],
        efficiency=workload.efficiency[source],
        memory=workload.memory[source],
        group=workload.group[source],
        recorded_wait=workload.recorded_wait[source],
        source=f"{workload.source} resampled {method} seed={seed} weeks={length}",
        filter_counts=dict(workload.filter_counts),
        header=dict(workload.header),
    )
    return variant, source_ids[order]


def _permuted_weeks(user, week, offset, inside, first, seed, method, length):
    """(source job index, submit) of the `user-weeks` and `weeks` methods (the draw order above)."""
    n_interior = int(week.max()) - first - 1
    repetitions = -(-length // n_interior)
    source_week = week[inside] - (first + 1)
    if method == "weeks":
        n_users, user_rank = 1, np.zeros(len(inside), dtype=np.int64)
    else:
        users, user_rank = np.unique(user[inside], return_inverse=True)
        n_users = len(users)

    rng = np.random.Generator(np.random.PCG64(seed))
    keys = rng.random((repetitions, n_users, n_interior))
    permutation = np.argsort(keys, axis=-1, kind="stable")
    # position[r, u, s]: the output position within repetition r of source week s of user u
    position = np.empty_like(permutation)
    np.put_along_axis(position, permutation, np.arange(n_interior), axis=-1)

    repetition = np.arange(repetitions)[:, None]
    output_week = repetition * n_interior + position[:, user_rank, source_week]
    kept = output_week < length
    source = np.broadcast_to(inside, output_week.shape)[kept]
    output_week = output_week[kept]

    return source, output_week * float(WEEK) + offset[source]


def resample_variants(
    workload: Workload, count: int, base_seed: int, method: str = "user-weeks", weeks: int | None = None
) -> Iterator[tuple[int, Workload]]:
    """(number, variant) for variants 0..count-1 of `workload`, variant i drawn with seed
    ``variant_seed(base_seed, i)``, each made when asked for, so that one is in memory at a time."""
    for number in range(count):
        yield number, resample(workload, variant_seed(base_seed, number), method, weeks)[0]
