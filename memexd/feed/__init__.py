"""The live change feed: subscriptions driven by the event log."""
