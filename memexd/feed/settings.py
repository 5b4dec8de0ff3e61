"""The live feed's settings, read once like every other (``MEMEXD_FEED_*``).

Kept beside the feed until they join :class:`memexd.settings.Settings`; a
bad value fails at start-up with one line naming the variable, as there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import Field, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from memexd.errors import SettingsError

__all__ = ["FeedSettings", "load_feed_settings"]

Seconds = Annotated[float, Field(gt=0, le=3600)]


class FeedSettings(BaseSettings):
    """How subscriptions read the log (docs/feed.md)."""

    model_config = SettingsConfigDict(
        env_prefix="MEMEXD_FEED_", env_file=".env", extra="ignore", frozen=True
    )

    #: events read ahead per subscription, waiting to be sent (memory bound)
    buffer: int = Field(500, ge=2, le=100_000)
    #: how much further behind the head than at its closest a subscription may
    #: fall before it is closed as a slow consumer (log positions)
    max_lag: int = Field(100_000, ge=1)
    #: how often the log's head is read when no write of this process woke the
    #: feed (writes by other processes are seen within this)
    poll_s: Seconds = 0.1
    #: seconds between server pings; a connection silent for two is closed
    heartbeat_s: Seconds = 15.0
    #: how long shutdown waits for subscriptions to complete
    drain_s: Seconds = 5.0
    #: subscriptions (and other operations) at once on one connection
    max_subscriptions: int = Field(100, ge=1, le=10_000)


def load_feed_settings(env_file: Path | None = Path(".env")) -> FeedSettings:
    try:
        return FeedSettings(_env_file=env_file)
    except ValidationError as exc:
        first = exc.errors()[0]
        name = str(first["loc"][0]) if first["loc"] else "feed"
        message = str(first["msg"]).removeprefix("Value error, ")
        raise SettingsError(f"MEMEXD_FEED_{name.upper()}: {message}") from None
