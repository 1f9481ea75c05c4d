from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.list_namespaces_response_200_journal import (
        ListNamespacesResponse200Journal,
    )
    from ..models.list_namespaces_response_200_namespaces_item import (
        ListNamespacesResponse200NamespacesItem,
    )


T = TypeVar("T", bound="ListNamespacesResponse200")


@_attrs_define
class ListNamespacesResponse200:
    """
    Attributes:
        max_ (int): Namespaces kept at once (MAX_NAMESPACES).
        max_faults (int): Faults a namespace keeps armed at once.
        journal (ListNamespacesResponse200Journal): What the journals of every namespace hold together, and their
            bounds. Bytes are counted from what each entry holds: its path, query, headers and body, and 512 bytes for the
            entry itself.
        namespaces (list[ListNamespacesResponse200NamespacesItem]):
    """

    max_: int
    max_faults: int
    journal: ListNamespacesResponse200Journal
    namespaces: list[ListNamespacesResponse200NamespacesItem]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        max_ = self.max_

        max_faults = self.max_faults

        journal = self.journal.to_dict()

        namespaces = []
        for namespaces_item_data in self.namespaces:
            namespaces_item = namespaces_item_data.to_dict()
            namespaces.append(namespaces_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "max": max_,
                "maxFaults": max_faults,
                "journal": journal,
                "namespaces": namespaces,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.list_namespaces_response_200_journal import (
            ListNamespacesResponse200Journal,
        )
        from ..models.list_namespaces_response_200_namespaces_item import (
            ListNamespacesResponse200NamespacesItem,
        )

        d = dict(src_dict)
        max_ = d.pop("max")

        max_faults = d.pop("maxFaults")

        journal = ListNamespacesResponse200Journal.from_dict(d.pop("journal"))

        namespaces = []
        _namespaces = d.pop("namespaces")
        for namespaces_item_data in _namespaces:
            namespaces_item = ListNamespacesResponse200NamespacesItem.from_dict(
                namespaces_item_data
            )

            namespaces.append(namespaces_item)

        list_namespaces_response_200 = cls(
            max_=max_,
            max_faults=max_faults,
            journal=journal,
            namespaces=namespaces,
        )

        list_namespaces_response_200.additional_properties = d
        return list_namespaces_response_200

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
