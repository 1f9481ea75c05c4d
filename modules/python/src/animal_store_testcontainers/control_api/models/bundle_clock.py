from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="BundleClock")


@_attrs_define
class BundleClock:
    """
    Attributes:
        now (datetime.datetime):
        real (bool):
        offset_ms (int): The sandbox's now minus real time (0 when it follows real time).
    """

    now: datetime.datetime
    real: bool
    offset_ms: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        now = self.now.isoformat()

        real = self.real

        offset_ms = self.offset_ms

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "now": now,
                "real": real,
                "offsetMs": offset_ms,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        now = datetime.datetime.fromisoformat(d.pop("now"))

        real = d.pop("real")

        offset_ms = d.pop("offsetMs")

        bundle_clock = cls(
            now=now,
            real=real,
            offset_ms=offset_ms,
        )

        bundle_clock.additional_properties = d
        return bundle_clock

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
