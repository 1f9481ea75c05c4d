from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.fault import Fault


T = TypeVar("T", bound="ListFaultsResponse200")


@_attrs_define
class ListFaultsResponse200:
    """
    Attributes:
        count (int):
        faults (list[Fault]):
    """

    count: int
    faults: list[Fault]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        count = self.count

        faults = []
        for faults_item_data in self.faults:
            faults_item = faults_item_data.to_dict()
            faults.append(faults_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "count": count,
                "faults": faults,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.fault import Fault

        d = dict(src_dict)
        count = d.pop("count")

        faults = []
        _faults = d.pop("faults")
        for faults_item_data in _faults:
            faults_item = Fault.from_dict(faults_item_data)

            faults.append(faults_item)

        list_faults_response_200 = cls(
            count=count,
            faults=faults,
        )

        list_faults_response_200.additional_properties = d
        return list_faults_response_200

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
