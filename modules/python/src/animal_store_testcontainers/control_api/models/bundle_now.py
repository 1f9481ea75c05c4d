from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.pet import Pet


T = TypeVar("T", bound="BundleNow")


@_attrs_define
class BundleNow:
    """
    Attributes:
        pets (list[Pet]):
    """

    pets: list[Pet]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        pets = []
        for pets_item_data in self.pets:
            pets_item = pets_item_data.to_dict()
            pets.append(pets_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "pets": pets,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.pet import Pet

        d = dict(src_dict)
        pets = []
        _pets = d.pop("pets")
        for pets_item_data in _pets:
            pets_item = Pet.from_dict(pets_item_data)

            pets.append(pets_item)

        bundle_now = cls(
            pets=pets,
        )

        bundle_now.additional_properties = d
        return bundle_now

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
