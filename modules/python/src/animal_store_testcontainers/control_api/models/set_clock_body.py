from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="SetClockBody")


@_attrs_define
class SetClockBody:
    """
    Attributes:
        now (datetime.datetime): From 0000-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z, where the clock stops (it always
            answers RFC 3339); a leap second (23:59:60) is refused, as the clock, like POSIX time, has none.
    """

    now: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
        now = self.now.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "now": now,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        now = datetime.datetime.fromisoformat(d.pop("now"))

        set_clock_body = cls(
            now=now,
        )

        return set_clock_body
