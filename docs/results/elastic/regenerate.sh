#!/usr/bin/env bash
# Regenerates this directory: the elastic study's section of the reproduction report for LPC-EGEE
# set 12 (under the paper's rule, the rigid runs on the site's own 140 cores, the set closest to the
# paper: its load-matched pool is 121 cores and its recorded schedule's interactive W 0.614, the
# paper's NAT 0.628; docs/elastic.md §12), the paper's nine runs and the level-encoded pair (the
# ablation of docs/elastic.md §4), 5 seeds, and its claims (claims.csv), whose outcomes
# tests/studies/elastic/test_claims.py pins by running these same commands. About 2 CPU minutes.
# Run from the repository's root, with ../shared/pwa beside it:
#     bash docs/results/elastic/regenerate.sh
set -euo pipefail
repo=$PWD
here=$repo/docs/results/elastic
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
simcore filter "$repo/../shared/pwa/LPC-EGEE-2004-1.2-cln.swf.gz" --filter truncate -o LPC-EGEE.parquet
simcore elastic-run LPC-EGEE.parquet --trace LPC-EGEE --set 12 --seeds 5 \
  --runs '{"RIG-ORA-0.5": {"elastic": false, "model": "ORA", "lambda": 0.5}, "RIG-ORA-1": {"elastic": false, "model": "ORA", "lambda": 1.0}, "RIG-EST-0.5": {"elastic": false, "model": "EST", "lambda": 0.5}, "RIG-EST-1": {"elastic": false, "model": "EST", "lambda": 1.0}, "ELA-ORA-0.5": {"elastic": true, "model": "ORA", "lambda": 0.5}, "ELA-ORA-1": {"elastic": true, "model": "ORA", "lambda": 1.0}, "ELA-EST-0.5": {"elastic": true, "model": "EST", "lambda": 0.5}, "ELA-EST-1": {"elastic": true, "model": "EST", "lambda": 1.0}, "ELA-EST-0.1": {"elastic": true, "model": "EST", "lambda": 0.1}, "ELA-EST-0.1-level": {"elastic": true, "model": "EST", "lambda": 0.1, "pool_request": "level"}, "ELA-EST-1-level": {"elastic": true, "model": "EST", "lambda": 1.0, "pool_request": "level"}}' \
  -o runs-12.parquet --series series-12.parquet --pools pools-12.parquet
simcore elastic-tables runs-12.parquet --outdir tables --markdown report.md --rows reproduction.csv
cp report.md tables/claims.csv "$here/"
echo "$here: report.md, claims.csv"
