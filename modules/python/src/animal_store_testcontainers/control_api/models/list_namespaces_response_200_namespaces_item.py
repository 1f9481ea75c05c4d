from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ListNamespacesResponse200NamespacesItem")


@_attrs_define
class ListNamespacesResponse200NamespacesItem:
    """
    Attributes:
        name (str):
        requests (int): Requests its journal holds.
        journal_bytes (int): Bytes its journal holds.
        faults (int):
    """

    name: str
    requests: int
    journal_bytes: int
    faults: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        requests = self.requests

        journal_bytes = self.journal_bytes

        faults = self.faults

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "requests": requests,
                "journalBytes": journal_bytes,
                "faults": faults,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        name = d.pop("name")

        requests = d.pop("requests")

        journal_bytes = d.pop("journalBytes")

        faults = d.pop("faults")

        list_namespaces_response_200_namespaces_item = cls(
            name=name,
            requests=requests,
            journal_bytes=journal_bytes,
            faults=faults,
        )

        list_namespaces_response_200_namespaces_item.additional_properties = d
        return list_namespaces_response_200_namespaces_item

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
