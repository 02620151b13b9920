"""Co-scheduling: CPU-quota sharing with the ASA_X learner (docs/coscheduling.md)."""
