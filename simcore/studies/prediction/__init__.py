"""The running-time prediction study: predictors, corrections and backfill variants."""
