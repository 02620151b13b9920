"""The argparse types and argument groups the `simcore` commands share: output files refused at
once when they cannot be written, positive numbers, a study's chunk of variants. A policy's own
(order, threshold, backfill, reservation depth, MULTIFACTOR) are simcore.engine.policies's
add_policy_arguments."""

from __future__ import annotations

import argparse

from simcore.workloads.files import check_writable


def output_file(text: str) -> str:
    """argparse type of an output file: refused at once when it cannot be written, rather
    than after the work."""
    try:
        check_writable(text)
    except OSError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def table_file(text: str) -> str:
    """argparse type of a per-job table: a writable .parquet or .csv file."""
    if not text.endswith((".parquet", ".csv")):
        raise argparse.ArgumentTypeError(f"{text}: name a .parquet or a .csv file")
    return output_file(text)


def swf_file(text: str) -> str:
    """argparse type of an SWF output: a writable .swf or .swf.gz file."""
    if not text.endswith((".swf", ".swf.gz")):
        raise argparse.ArgumentTypeError(f"{text}: name a .swf or a .swf.gz file")
    return output_file(text)


def positive_float(text: str) -> float:
    """argparse type: a number > 0."""
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return value


def variant_range_arguments(parser) -> None:
    """A study's chunk of variants: the variants file, --select FIRST:STOP, --trace."""
    parser.add_argument("variants", metavar="VARIANTS.parquet")
    parser.add_argument("--select", required=True, metavar="FIRST:STOP", help="variant numbers, Python range")
    parser.add_argument("--trace", required=True, help="trace name written into the rows")
