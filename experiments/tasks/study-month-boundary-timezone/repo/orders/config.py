"""The shop's settings."""

from __future__ import annotations

from datetime import timedelta, timezone

# Shop time: Berlin in summer. The books close at midnight shop time, not UTC.
SHOP_TIMEZONE = timezone(timedelta(hours=2), "CEST")
