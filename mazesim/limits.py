"""Ceilings on every size and count a user can ask for, checked before any work starts.

Each limit is named once here; the readers and validators that enforce it name the limit in
their message. They are set so that honest research use never meets them and hostile or
mistyped input cannot hang the program or take gigabytes.
"""

__all__ = ["MAX_FILE_BYTES", "MAX_VISION_RADIUS"]

MAX_FILE_BYTES = 64 << 20
"""Largest input file read (64 MiB): a 5,000 x 5,000 maze is 25 MB of text."""

MAX_VISION_RADIUS = 10_000
"""Largest window half-width or isovist radius (a window wider than any maze sees it all)."""
