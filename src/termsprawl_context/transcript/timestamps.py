"""Record timestamps: RFC 3339 as Claude Code writes it, ordered as Go compares them."""

import re
from datetime import datetime, timedelta, timezone
from typing import Optional, Tuple

from termsprawl_context.model import decode_entry
from termsprawl_context.transcript.record import iter_records


# RFC 3339 with any number of fractional digits (Go's RFC3339Nano layout when parsing).
_RFC3339 = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:(Z)|([+-])(\d{2}):(\d{2}))\Z")
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def parse_timestamp(text: str) -> Optional[Tuple[datetime, int]]:
    """``(aware datetime, nanoseconds since the epoch: Go's order)`` of an RFC 3339 timestamp, or None."""
    match = _RFC3339.match(text)
    if match is None:
        return None
    year, month, day, hour, minute, second = (int(g) for g in match.group(1, 2, 3, 4, 5, 6))
    fraction = (match.group(7) or "")[:9].ljust(9, "0")
    try:
        if match.group(8):
            zone = timezone.utc
        else:
            hours, minutes = int(match.group(10)), int(match.group(11))
            if hours > 23 or minutes > 59:
                return None
            offset = timedelta(hours=hours, minutes=minutes)
            zone = timezone(-offset if match.group(9) == "-" else offset)
        moment = datetime(year, month, day, hour, minute, second, int(fraction) // 1000, tzinfo=zone)
    except ValueError:
        return None
    whole = moment.replace(microsecond=0) - _EPOCH
    nanos = (whole.days * 86400 + whole.seconds) * 10**9 + int(fraction)
    return moment, nanos


def start_time(path: str) -> Optional[datetime]:
    """The first record timestamp that parses, or None; RecordUnreadable when unreadable."""
    for line, record in iter_records(path):
        entry = decode_entry(record)
        if entry is not None and entry.timestamp:
            parsed = parse_timestamp(entry.timestamp)
            if parsed is not None:
                return parsed[0]
    return None
