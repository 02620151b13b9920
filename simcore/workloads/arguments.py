"""The argparse types the `simcore` commands share: output files and folders refused at once when
they cannot be written, positive numbers. A policy's own arguments (order, threshold, backfill,
reservation depth, MULTIFACTOR) are simcore.engine.policies's add_policy_arguments; a workflow
step's declaration, simcore.workloads.steps."""

from __future__ import annotations

import argparse
from pathlib import Path

from simcore.workloads.files import check_writable


def output_file(text: str) -> str:
    """argparse type of an output file: refused at once when it cannot be written, rather
    than after the work."""
    try:
        check_writable(text)
    except OSError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def output_folder(text: str) -> str:
    """argparse type of an output folder: refused at once when files cannot be written in it."""
    try:
        check_writable(Path(text) / "file")
    except OSError as error:
        raise argparse.ArgumentTypeError(f"{text}: cannot be written in ({error})") from None
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
