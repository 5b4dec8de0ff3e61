"""The live change feed: subscriptions driven by the event log (docs/feed.md).

- ``hub``: the process's view of the log's head, and the orderly end at shutdown;
- ``stream``: one subscription, reading the log after its position with the
  caller's grants and filter into a bounded buffer (slow consumers);
- ``transport``: the graphql-transport-ws connection (coded errors, heartbeats,
  close codes, draining);
- ``store``: local writes wake the feed; ``signals``: drain before uvicorn exits;
- ``settings``: ``MEMEXD_FEED_*``.
"""
