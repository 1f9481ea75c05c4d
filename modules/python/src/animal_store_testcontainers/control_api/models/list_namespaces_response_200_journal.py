from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ListNamespacesResponse200Journal")


@_attrs_define
class ListNamespacesResponse200Journal:
    """What the journals of every namespace hold together, and their bounds. Bytes are counted from what each entry holds:
    its path, query, headers and body, and 512 bytes for the entry itself.

        Attributes:
            bytes_ (int):
            max_bytes (int): JOURNAL_TOTAL_BYTES.
            max_bytes_per_namespace (int): JOURNAL_BYTES.
            max_requests_per_namespace (int): JOURNAL_SIZE.
    """

    bytes_: int
    max_bytes: int
    max_bytes_per_namespace: int
    max_requests_per_namespace: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bytes_ = self.bytes_

        max_bytes = self.max_bytes

        max_bytes_per_namespace = self.max_bytes_per_namespace

        max_requests_per_namespace = self.max_requests_per_namespace

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "bytes": bytes_,
                "maxBytes": max_bytes,
                "maxBytesPerNamespace": max_bytes_per_namespace,
                "maxRequestsPerNamespace": max_requests_per_namespace,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        bytes_ = d.pop("bytes")

        max_bytes = d.pop("maxBytes")

        max_bytes_per_namespace = d.pop("maxBytesPerNamespace")

        max_requests_per_namespace = d.pop("maxRequestsPerNamespace")

        list_namespaces_response_200_journal = cls(
            bytes_=bytes_,
            max_bytes=max_bytes,
            max_bytes_per_namespace=max_bytes_per_namespace,
            max_requests_per_namespace=max_requests_per_namespace,
        )

        list_namespaces_response_200_journal.additional_properties = d
        return list_namespaces_response_200_journal

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
