"""The clock masrl writes dates with: one UTC date in every time zone, so that what ``masrl add``
writes on one machine is not a date in the future on another at the same moment."""

from __future__ import annotations

import datetime
import time

import pytest

from masrl.core import clock


@pytest.mark.parametrize("zone", ["Pacific/Kiritimati", "Pacific/Pago_Pago", "UTC"])
def test_today_is_the_utc_date_whatever_the_time_zone(zone, monkeypatch):
    """UTC+14 and UTC-11 are 25 hours apart: their local dates always differ, the UTC date is one."""
    monkeypatch.delenv(clock.VARIABLE)
    monkeypatch.setenv("TZ", zone)
    time.tzset()
    try:
        before = datetime.datetime.now(datetime.timezone.utc).date()
        today = clock.today()
        after = datetime.datetime.now(datetime.timezone.utc).date()
    finally:
        monkeypatch.undo()
        time.tzset()
    assert today in (before, after)
    assert clock.today_iso() == clock.today().isoformat()


def test_a_fixed_day_is_that_day_in_every_time_zone(monkeypatch):
    monkeypatch.setenv(clock.VARIABLE, "2026-12-06T23:30:00Z")
    monkeypatch.setenv("TZ", "Pacific/Kiritimati")
    time.tzset()
    try:
        assert (clock.today(), clock.now().isoformat()) == (datetime.date(2026, 12, 6), "2026-12-06T23:30:00+00:00")
    finally:
        monkeypatch.undo()
        time.tzset()


def test_a_shared_tree_is_made_on_the_suites_day_whichever_test_asks_first(request, monkeypatch):
    """A test on another day that asks first for a tree the suite shares does not make it on its own day (the
    tree's build cache would be keyed to that day's year, and every later test would find it useless)."""
    import os

    from trees import SUITE_DAY, made_once

    monkeypatch.setenv("MASRL_TODAY", "2026-06-30")
    days: list[str] = []
    made_once(request.config, "clock-probe", lambda root: days.append(os.environ["MASRL_TODAY"]) or root.mkdir(parents=True))
    assert days == [SUITE_DAY] and os.environ["MASRL_TODAY"] == "2026-06-30"
