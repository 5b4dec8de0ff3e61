"""The live feed's settings: the ``feed_*`` part of :class:`memexd.settings.Settings`
(``MEMEXD_FEED_*``), read once with the others."""

from __future__ import annotations

from dataclasses import dataclass

from memexd.settings import Settings

__all__ = ["FeedSettings"]


@dataclass(frozen=True, slots=True)
class FeedSettings:
    """How subscriptions read the log (docs/feed.md): a view of the
    ``feed_*`` settings, whose defaults and bounds live in ``Settings`` only."""

    #: events read ahead per subscription, waiting to be sent (memory bound)
    buffer: int
    #: how much further behind the head than at its closest a subscription may
    #: fall before it is closed as a slow consumer (log positions)
    max_lag: int
    #: how often the log's head is read when no write of this process woke the
    #: feed (writes by other processes are seen within this)
    poll_s: float
    #: seconds between server pings; a connection silent for two is closed
    heartbeat_s: float
    #: how long shutdown waits for subscriptions to complete
    drain_s: float
    #: subscriptions (and other operations) at once on one connection
    max_subscriptions: int

    @classmethod
    def of(cls, s: Settings) -> FeedSettings:
        return cls(s.feed_buffer, s.feed_max_lag, s.feed_poll_s, s.feed_heartbeat_s,
                   s.feed_drain_s, s.feed_max_subscriptions)  # fmt: skip
