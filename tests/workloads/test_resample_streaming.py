"""Variants streamed to Parquet one row group each (write_variants) and read back one row group
at a time (iter_variants, map_variants): the same data as the former in-memory path, one variant
in memory at a time, only the asked-for row groups read, nothing half-written, the same bytes."""

import gc
import weakref
from dataclasses import replace

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from demo_digests import parquet_digest

import simcore
from simcore.cli import main as simcore_main
from simcore.workloads.files import (
    iter_variants,
    map_variants,
    read_provenance,
    workload_provenance,
    write_parquet,
    write_variants,
    write_workload,
)
from simcore.workloads.resample import WEEK, resample, resample_variants, variant_seed


def random_log(seed: int, jobs: int = 3000, weeks: int = 9):
    """A log of `weeks` weeks, every field drawn, some efficiencies and memories unknown (NaN)."""
    rng = np.random.default_rng(seed)
    efficiency = rng.random(jobs)
    efficiency[rng.random(jobs) < 0.3] = np.nan
    memory = rng.uniform(1, 1e6, jobs)
    memory[rng.random(jobs) < 0.3] = np.nan
    workload = simcore.Workload.from_arrays(
        submit=rng.uniform(0, weeks * WEEK, jobs).round(),
        run=rng.integers(0, 5000, jobs),
        requested=rng.integers(1, 6000, jobs),
        procs=rng.integers(1, 65, jobs),
        machine_size=64,
        user=rng.integers(0, 25, jobs),
        job_id=rng.permutation(jobs) + 1,
        source=f"random log {seed}",
        efficiency=efficiency,
        memory=memory,
    )
    return replace(
        workload,
        group=rng.integers(-1, 4, jobs),
        recorded_wait=np.where(rng.random(jobs) < 0.2, np.nan, rng.uniform(0, 1e4, jobs)),
        source_sha256="0" * 64,
        filter_mode="strict",
        filter_counts={"lines": jobs, "kept": jobs},
    )


def provenance(workload, weeks=None) -> dict:
    return {**workload_provenance(workload), "command": "resample", "weeks": weeks}


def in_memory_file(variants: dict, path, provenance: dict) -> None:
    """The former write_variants: every variant in one DataFrame, written at once."""
    frames = [workload.to_frame().assign(variant=number) for number, workload in variants.items()]
    write_parquet(pd.concat(frames, ignore_index=True), path, provenance)


def in_memory_read(path, numbers=None) -> dict:
    """The former read_variants: the whole selection in one table, split by variant."""
    from simcore.workloads.files import _workload_from_frame

    stored = read_provenance(path)
    filters = [("variant", "in", list(numbers))] if numbers is not None else None
    frame = pq.read_table(path, filters=filters).to_pandas()
    return {
        int(number): _workload_from_frame(
            part.reset_index(drop=True), stored, f"{stored.get('input', path)} variant {number}"
        )
        for number, part in frame.groupby("variant", sort=True)
    }


def assert_same_workloads(left: dict, right: dict) -> None:
    assert list(left) == list(right)
    for number in left:
        a, b = left[number], right[number]
        pd.testing.assert_frame_equal(a.to_frame(), b.to_frame(), check_exact=True)
        assert (a.machine_size, a.source, a.source_sha256, a.filter_mode, a.filter_counts) == (
            b.machine_size,
            b.source,
            b.source_sha256,
            b.filter_mode,
            b.filter_counts,
        )


def write(workload, path, count=6, base_seed=0, method="user-weeks", weeks=None):
    write_variants(
        resample_variants(workload, count, base_seed, method, weeks),
        path,
        provenance(workload, weeks),
    )


@pytest.mark.parametrize(
    ("log_seed", "base_seed", "method", "weeks"),
    [(1, 0, "user-weeks", None), (2, 17, "weeks", None), (3, 5, "user-weeks", 20), (4, 100, "weeks", 3)],
)
def test_streamed_variants_read_back_as_the_in_memory_path(tmp_path, log_seed, base_seed, method, weeks):
    workload = random_log(log_seed)
    drawn = {i: resample(workload, variant_seed(base_seed, i), method, weeks)[0] for i in range(6)}
    assert dict(resample_variants(workload, 6, base_seed, method, weeks)).keys() == drawn.keys()

    streamed, old = tmp_path / "streamed.parquet", tmp_path / "old.parquet"
    write(workload, streamed, base_seed=base_seed, method=method, weeks=weeks)
    in_memory_file(drawn, old, provenance(workload, weeks))
    # the same rows and columns as the file written all at once
    pd.testing.assert_frame_equal(pq.read_table(streamed).to_pandas(), pq.read_table(old).to_pandas())
    assert pq.read_schema(streamed).names == pq.read_schema(old).names
    assert parquet_digest(streamed) == parquet_digest(old)  # the demo's pinned digests stay
    # and the same workloads read back, all of them or a subset
    for numbers in (None, [4, 1], range(2, 5), [5]):
        expected = in_memory_read(old, numbers)
        assert_same_workloads(dict(iter_variants(streamed, numbers)), expected)
    for number, variant in iter_variants(streamed):
        np.testing.assert_array_equal(variant.submit, drawn[number].submit)
        np.testing.assert_array_equal(variant.recorded_wait, drawn[number].recorded_wait)


def test_one_row_group_per_variant_numbered_in_the_metadata(tmp_path):
    workload, path = random_log(5), tmp_path / "v.parquet"
    write(workload, path, count=7, weeks=30)
    metadata = pq.ParquetFile(path).metadata
    assert metadata.num_row_groups == 7
    for group in range(7):
        variant_column = metadata.row_group(group).column(metadata.schema.names.index("variant"))
        assert variant_column.statistics.min == variant_column.statistics.max == group
        assert metadata.row_group(group).num_rows == len(resample(workload, group, weeks=30)[0])
    assert metadata.metadata[b"schedsweep.variant_row_groups"] == b"[0, 1, 2, 3, 4, 5, 6]"
    assert read_provenance(path)["weeks"] == 30  # the provenance stays in the schema


def test_a_variant_longer_than_a_default_row_group_stays_one_row_group(tmp_path):
    many = simcore.Workload.from_arrays(
        submit=np.repeat(np.arange(4) * WEEK + 10.0, 350_000),
        run=np.ones(1_400_000),
        requested=np.ones(1_400_000),
        procs=np.ones(1_400_000, dtype=np.int64),
        machine_size=1,
    )
    path = tmp_path / "v.parquet"
    write(many, path, count=1, weeks=3)  # the 2 interior weeks' 700,000 jobs, then one of them again
    metadata = pq.ParquetFile(path).metadata
    assert metadata.num_row_groups == 1 and metadata.row_group(0).num_rows == 1_050_000 > 1024 * 1024


@pytest.fixture
def row_groups_read(monkeypatch):
    """The row groups that ParquetFile.read_row_group is asked for, in order."""
    calls = []
    read_row_group = pq.ParquetFile.read_row_group

    def counting(self, group, *args, **kwargs):
        calls.append(group)
        return read_row_group(self, group, *args, **kwargs)

    monkeypatch.setattr(pq.ParquetFile, "read_row_group", counting)
    monkeypatch.setattr(pq, "read_table", lambda *args, **kwargs: pytest.fail("the whole file read"))
    return calls


def test_a_subset_reads_only_its_row_groups(tmp_path, row_groups_read):
    path = tmp_path / "v.parquet"
    write(random_log(6), path, count=8)
    assert [number for number, _ in iter_variants(path, [6, 2, 3])] == [2, 3, 6]
    assert row_groups_read == [2, 3, 6]

    row_groups_read.clear()
    frames, count = map_variants(path, "4:6", "T", lambda workload, weeks, number: [pd.DataFrame({"n": [number]})])
    assert count == 2 and frames[0].to_dict("list") == {"n": [4, 5], "trace": ["T", "T"], "variant": [4, 5]}
    assert row_groups_read == [4, 5]


def test_variants_are_read_one_at_a_time(tmp_path):
    path = tmp_path / "v.parquet"
    write(random_log(7), path, count=4)
    previous = None
    for _, workload in iter_variants(path):
        gc.collect()
        assert previous is None or previous() is None, "the previous variant is still in memory"
        previous = weakref.ref(workload)
        del workload


def test_variants_are_written_one_at_a_time(tmp_path):
    workload, drawn, alive = random_log(8), [], []

    def variants():
        for number in range(4):
            gc.collect()
            alive.append(sum(ref() is not None for ref in drawn))
            variant = resample(workload, number)[0]
            drawn.append(weakref.ref(variant))
            yield number, variant
            del variant

    write_variants(variants(), tmp_path / "v.parquet", provenance(workload))
    assert alive == [0, 0, 0, 0]  # no earlier variant survives to the drawing of the next


def test_an_empty_variant_has_no_rows_as_before(tmp_path):
    # Weeks 0, 1 and 3: interior weeks 1 (one job) and 2 (empty); seed 6, one week: no job.
    workload = simcore.Workload.from_arrays(
        [0, WEEK + 5, 3 * WEEK], [1, 1, 1], [2, 2, 2], [1, 1, 1], machine_size=4, user=[1, 1, 1]
    )
    assert len(resample(workload, 6, weeks=1)[0]) == 0
    streamed, old = tmp_path / "streamed.parquet", tmp_path / "old.parquet"
    write(workload, streamed, count=8, base_seed=0, weeks=1)
    in_memory_file({i: resample(workload, i, weeks=1)[0] for i in range(8)}, old, provenance(workload, 1))
    stored = dict(iter_variants(streamed))
    assert 6 not in stored and len(stored) == pq.ParquetFile(streamed).metadata.num_row_groups
    assert_same_workloads(stored, in_memory_read(old))


def test_a_failure_leaves_no_file_behind(tmp_path):
    workload, path = random_log(9), tmp_path / "v.parquet"

    def failing():
        yield from resample_variants(workload, 3, 0)
        raise RuntimeError("drawing variant 3 failed")

    with pytest.raises(RuntimeError, match="variant 3 failed"):
        write_variants(failing(), path, provenance(workload))
    assert list(tmp_path.iterdir()) == []

    write(workload, path, count=2)
    before = path.read_bytes()
    with pytest.raises(ValueError, match="unknown resampling method"):
        write(workload, path, method="days")
    assert path.read_bytes() == before and list(tmp_path.iterdir()) == [path]
    with pytest.raises(ValueError, match="no variants to write"):
        write(workload, tmp_path / "none.parquet", count=0)
    assert list(tmp_path.iterdir()) == [path]


def test_the_same_configuration_gives_the_same_bytes(tmp_path):
    workload = random_log(10)
    write_workload(workload, tmp_path / "w.parquet")
    for name in ("a", "b"):
        arguments = ["resample", str(tmp_path / "w.parquet"), "--variants", "5", "--base-seed", "3"]
        assert simcore_main([*arguments, "--weeks", "12", "--output", str(tmp_path / f"{name}.parquet")]) == 0
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()
    assert pq.ParquetFile(tmp_path / "a.parquet").metadata.num_row_groups == 5
    # and the variants are those of the seeds base + i
    for number, variant in iter_variants(tmp_path / "a.parquet"):
        np.testing.assert_array_equal(variant.submit, resample(workload, 3 + number, weeks=12)[0].submit)


def test_a_file_without_row_groups_per_variant_is_refused(tmp_path):
    path = tmp_path / "old.parquet"
    in_memory_file({0: random_log(11)}, path, provenance(random_log(11)))
    with pytest.raises(ValueError, match="no row group per variant.*rerun `simcore resample`"):
        next(iter_variants(path))
