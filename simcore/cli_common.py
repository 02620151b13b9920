"""Helpers shared by the `simcore` subcommand modules: argument types and
atomic writers of CSV and text outputs."""

from __future__ import annotations

import argparse

import pandas as pd

from simcore.output import atomic_write


def positive_float(text: str) -> float:
    """argparse type: a number > 0."""
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return value


def read_all(paths) -> pd.DataFrame:
    """The Parquet files concatenated."""
    return pd.concat([pd.read_parquet(path) for path in paths], ignore_index=True)


def write_csv(frame: pd.DataFrame, path) -> None:
    with atomic_write(path) as tmp:
        frame.to_csv(tmp, index=False)


def write_text(path, text: str) -> None:
    with atomic_write(path) as tmp:
        tmp.write_text(text)
