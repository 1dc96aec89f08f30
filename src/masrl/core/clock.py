"""Today's date and the current time, from one place.

masrl reads the clock for the dates it writes (``date_added``, a round's ``searched`` stamp, an
audit's default id) and for the checks that refuse a date in the future. Every such read goes
through :func:`today` or :func:`now`, so that ``MASRL_TODAY`` can set the clock for a whole run:

- unset or empty: the machine's clock, in UTC (so that the date written and the date a check compares
  it with are the same in every time zone);
- ``YYYY-MM-DD``: that day; :func:`now` is its noon, UTC;
- ``YYYY-MM-DDTHH:MM:SSZ``: that moment (UTC); :func:`today` is its date.

Tests and reproducible scripts set it so that what masrl writes is the same bytes on any day.
A value of another form is refused by name, not read as the machine's clock.
"""

from __future__ import annotations

import datetime
import os
import re

from .errors import UserError

#: The environment variable that sets the clock.
VARIABLE = "MASRL_TODAY"

_FORMS = re.compile(r"(?P<date>[0-9]{4}-[0-9]{2}-[0-9]{2})(?:T(?P<time>[0-9]{2}:[0-9]{2}:[0-9]{2})Z)?")


def _fixed() -> datetime.datetime | None:
    value = os.environ.get(VARIABLE, "").strip()
    if not value:
        return None
    match = _FORMS.fullmatch(value)
    try:
        if match is None:
            raise ValueError
        moment = datetime.datetime.fromisoformat(f"{match['date']}T{match['time'] or '12:00:00'}")
    except ValueError:
        raise UserError(f"{VARIABLE}={value!r} is not a date: give YYYY-MM-DD (e.g. 2026-06-30) or "
                        "YYYY-MM-DDTHH:MM:SSZ, or unset it to use the machine's clock") from None
    return moment.replace(tzinfo=datetime.timezone.utc)


def now() -> datetime.datetime:
    """The current moment, UTC (``MASRL_TODAY`` if set)."""
    fixed = _fixed()
    return fixed if fixed is not None else datetime.datetime.now(datetime.timezone.utc)


def today() -> datetime.date:
    """Today's date, UTC (``MASRL_TODAY`` if set): the same on every machine at the same moment."""
    return now().date()


def today_iso() -> str:
    """:func:`today` as ``YYYY-MM-DD``."""
    return today().isoformat()


def date_problem(value: object) -> str | None:
    """Why ``value`` is no date written ``YYYY-MM-DD``, or None: ``'2026-6-1' is not a date written YYYY-MM-DD``; a
    day of no month (``'2026-02-30' names no day of the calendar: February 2026 has 28 days``)."""
    import calendar

    text = value if isinstance(value, str) else ""
    match = re.fullmatch(r"([0-9]{4})-([0-9]{2})-([0-9]{2})", text)
    if match is None:
        return f"{value!r} is not a date written YYYY-MM-DD"
    year, month, day = (int(part) for part in match.groups())
    if not 1 <= month <= 12:
        return f"{value!r} names no day of the calendar: a month is 01 to 12"
    days = calendar.monthrange(max(year, 1), month)[1]
    if not 1 <= day <= days or year < 1:
        return (f"{value!r} names no day of the calendar: {calendar.month_name[month]} {year} has {days} days"
                if year >= 1 else f"{value!r} names no day of the calendar")
    return None
