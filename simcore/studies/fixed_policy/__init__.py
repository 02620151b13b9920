"""The fixed-policy study: the bandit paper's Table 2 (queue orders x thresholds x backfill variants)."""
