#!/usr/bin/env bash
# Regenerates this directory: the elastic study's section of the reproduction report for LPC-EGEE
# set 13 (the set closest to the paper's workload, docs/elastic.md §1.2), the paper's nine runs,
# 5 seeds, and its claims (claims.csv), whose outcomes tests/studies/elastic/test_claims.py pins by
# running these same commands. About 2 CPU minutes. Run from the repository's root, with
# ../shared/pwa beside it:
#     bash docs/results/elastic/regenerate.sh
set -euo pipefail
repo=$PWD
here=$repo/docs/results/elastic
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
simcore filter "$repo/../shared/pwa/LPC-EGEE-2004-1.2-cln.swf.gz" --filter truncate -o LPC-EGEE.parquet
simcore elastic-run LPC-EGEE.parquet --trace LPC-EGEE --set 13 --seeds 5 \
  -o runs-13.parquet --series series-13.parquet --pools pools-13.parquet
simcore elastic-tables runs-13.parquet --outdir tables --markdown report.md --rows reproduction.csv
cp report.md tables/claims.csv "$here/"
echo "$here: report.md, claims.csv"
