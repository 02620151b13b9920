"""Responsive scheduling and elastic provisioning: SARSA with an echo-state-network Q-function (docs/elastic.md)."""
