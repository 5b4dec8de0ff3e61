"""GraphQL enums of the contract."""

from __future__ import annotations

from enum import Enum

import strawberry

__all__ = ["DecayInterval", "DecayType", "Direction", "SortField", "SortOrder"]


@strawberry.enum
class Direction(Enum):
    FROM = "FROM"
    TO = "TO"
    BOTH = "BOTH"


@strawberry.enum
class SortField(Enum):
    AUTHORITY = "authority"
    CONVICTION = "conviction"
    IMPORTANCE = "importance"
    RECENCY = "recency"


@strawberry.enum
class SortOrder(Enum):
    ASC = "ASC"
    DESC = "DESC"


@strawberry.enum
class DecayInterval(Enum):
    HOUR = "HOUR"
    DAY = "DAY"
    WEEK = "WEEK"


@strawberry.enum
class DecayType(Enum):
    EXPONENTIAL = "EXPONENTIAL"
    LINEAR = "LINEAR"
    STEP = "STEP"
