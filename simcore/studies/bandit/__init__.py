"""The online policy-selection study: the bandit paper's learners and its Table 3."""
