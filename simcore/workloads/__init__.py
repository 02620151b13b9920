"""Workloads: the PWA catalogue and verified fetch, resampling, the synthetic
models (Lublin-Feitelson jobs, Tsafrir estimates), and Parquet files with
provenance. Imports the engine only."""
