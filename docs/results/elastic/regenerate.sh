#!/usr/bin/env bash
# Regenerates this directory: the elastic study's section of the reproduction report for LPC-EGEE
# set 13 (the set closest to the paper's workload, docs/elastic.md §1.2), the paper's nine runs,
# 5 seeds, and the claim outcomes that tests/studies/elastic/test_claims.py pins. About 2 CPU
# minutes. Run from the repository's root, with ../shared/pwa beside it:
#     bash docs/results/elastic/regenerate.sh
set -euo pipefail
here=docs/results/elastic
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
simcore filter ../shared/pwa/LPC-EGEE-2004-1.2-cln.swf.gz --filter truncate -o "$work/LPC-EGEE.parquet"
(cd "$work" && simcore elastic-run LPC-EGEE.parquet --trace LPC-EGEE --set 13 --seeds 5 \
  -o runs-13.parquet --series series-13.parquet --pools pools-13.parquet)
(cd "$work" && simcore elastic-tables runs-13.parquet --outdir tables --markdown report.md --rows reproduction.csv)
cp "$work/tables/runs.parquet" "$work/tables/job_sets.csv" "$work/report.md" "$here/"
python3 -c "
import json, pandas as pd
from simcore.studies.elastic.report import claims
from simcore.studies.elastic.study import speedups
runs = pd.read_parquet('$here/runs.parquet')
gains = speedups(runs).merge(runs[['jobset', 'trace']].drop_duplicates(), on='jobset')
checked = claims(runs, gains)
json.dump(dict(zip(checked['claim'], checked['holds'].tolist())), open('$here/claims.json', 'w'), indent=1, ensure_ascii=False)
"
echo "$here: runs.parquet, job_sets.csv, report.md, claims.json"
