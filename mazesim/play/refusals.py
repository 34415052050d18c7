"""Refused requests of the recorder: one `PlayError` subclass per HTTP status it answers with."""

from mazesim.errors import PlayError

__all__ = ["PlayError", "BadRequest", "Forbidden", "Conflict", "StaleTab", "Unprocessable",
           "TooMany", "Unavailable"]


class BadRequest(PlayError):
    """Malformed request: bad participant id, missing or mistyped field, a number out of range."""


class Forbidden(PlayError):
    """Not allowed to enter: an id not on the list, a wrong token or dashboard key."""

    status = 403


class Conflict(PlayError):
    """A request that does not fit the participant's state: wrong maze, out-of-order number."""

    status = 409


class StaleTab(Conflict):
    """A request from a tab that was replaced by a newer one of the same participant."""

    code = "other-tab"


class Unprocessable(PlayError):
    """Well-formed but impossible: a move into a wall, a bump into an open cell, a bad answer."""

    status = 422


class TooMany(PlayError):
    """Too many at once: joins from one address, or new participants who have not started."""

    status = 429


class Unavailable(PlayError):
    """The results database failed; nothing more is accepted until the server is restarted."""

    status = 503
