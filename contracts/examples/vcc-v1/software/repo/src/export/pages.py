"""Cursor pagination of exports (REQ-1, REQ-2, REQ-3)."""

import base64

PAGE_SIZE = 100


class BadCursor(ValueError):
    """A cursor that does not decode (REQ-3)."""


def encode(offset):
    return base64.urlsafe_b64encode(str(offset).encode()).decode()


def decode(cursor):
    try:
        return int(base64.urlsafe_b64decode(cursor.encode()).decode())
    except (ValueError, UnicodeDecodeError) as e:
        raise BadCursor(cursor) from e


def page(records, cursor=None):
    """One page of at most PAGE_SIZE records, and the next cursor or None."""
    start = 0 if cursor is None else decode(cursor)
    chunk = records[start:start + PAGE_SIZE]
    end = start + len(chunk)
    return chunk, (encode(end) if end < len(records) else None)
