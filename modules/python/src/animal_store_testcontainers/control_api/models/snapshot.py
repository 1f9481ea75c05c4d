from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="Snapshot")


@_attrs_define
class Snapshot:
    """
    Example:
        {'name': 'checkout-fixture', 'namespace': 'setup', 'pets': 100000, 'clock': None, 'createdAt':
            '2026-05-01T09:30:00.000Z', 'forks': []}

    Attributes:
        name (str):
        namespace (str): The namespace it was taken from.
        pets (int): How many pets it holds.
        clock (datetime.datetime | None): The namespace's clock when it was taken, where a namespace reset to it starts
            its clock (running at the real pace from there); null when that clock followed real time.
        created_at (datetime.datetime):
        forks (list[str]): The namespaces that start from it: reset to it and not reset to other data, replaced or
            deleted since (while there are any, it cannot be deleted).
    """

    name: str
    namespace: str
    pets: int
    clock: datetime.datetime | None
    created_at: datetime.datetime
    forks: list[str]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        namespace = self.namespace

        pets = self.pets

        clock: None | str
        if isinstance(self.clock, datetime.datetime):
            clock = self.clock.isoformat()
        else:
            clock = self.clock

        created_at = self.created_at.isoformat()

        forks = self.forks

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "namespace": namespace,
                "pets": pets,
                "clock": clock,
                "createdAt": created_at,
                "forks": forks,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        name = d.pop("name")

        namespace = d.pop("namespace")

        pets = d.pop("pets")

        def _parse_clock(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                clock_type_0 = datetime.datetime.fromisoformat(data)

                return clock_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        clock = _parse_clock(d.pop("clock"))

        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))

        forks = cast(list[str], d.pop("forks"))

        snapshot = cls(
            name=name,
            namespace=namespace,
            pets=pets,
            clock=clock,
            created_at=created_at,
            forks=forks,
        )

        snapshot.additional_properties = d
        return snapshot

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
