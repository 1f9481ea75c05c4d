from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.pet_status import PetStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="NewPet")


@_attrs_define
class NewPet:
    """
    Example:
        {'name': 'Rex', 'categoryId': 1, 'status': 'available'}

    Attributes:
        name (str): The animal's name.
        category_id (int): Identifier of the category the animal belongs to.
        status (PetStatus | Unset): Availability of the animal.
    """

    name: str
    category_id: int
    status: PetStatus | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        category_id = self.category_id

        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "categoryId": category_id,
            }
        )
        if status is not UNSET:
            field_dict["status"] = status

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        name = d.pop("name")

        category_id = d.pop("categoryId")

        _status = d.pop("status", UNSET)
        status: PetStatus | Unset
        if isinstance(_status, Unset):
            status = UNSET
        else:
            status = PetStatus(_status)

        new_pet = cls(
            name=name,
            category_id=category_id,
            status=status,
        )

        new_pet.additional_properties = d
        return new_pet

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
