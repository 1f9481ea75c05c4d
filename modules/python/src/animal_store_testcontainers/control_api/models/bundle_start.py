from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.bundle_start_source_type_0 import BundleStartSourceType0
    from ..models.pet import Pet


T = TypeVar("T", bound="BundleStart")


@_attrs_define
class BundleStart:
    """
    Attributes:
        source (BundleStartSourceType0 | None): Where the pets came from: {kind: seed, seed, count}, {kind: fixtures,
            sha256} or {kind: snapshot, name}.
        pets (list[Pet]):
    """

    source: BundleStartSourceType0 | None
    pets: list[Pet]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.bundle_start_source_type_0 import BundleStartSourceType0

        source: dict[str, Any] | None
        if isinstance(self.source, BundleStartSourceType0):
            source = self.source.to_dict()
        else:
            source = self.source

        pets = []
        for pets_item_data in self.pets:
            pets_item = pets_item_data.to_dict()
            pets.append(pets_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "source": source,
                "pets": pets,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.bundle_start_source_type_0 import BundleStartSourceType0
        from ..models.pet import Pet

        d = dict(src_dict)

        def _parse_source(data: object) -> BundleStartSourceType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                source_type_0 = BundleStartSourceType0.from_dict(data)

                return source_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(BundleStartSourceType0 | None, data)

        source = _parse_source(d.pop("source"))

        pets = []
        _pets = d.pop("pets")
        for pets_item_data in _pets:
            pets_item = Pet.from_dict(pets_item_data)

            pets.append(pets_item)

        bundle_start = cls(
            source=source,
            pets=pets,
        )

        bundle_start.additional_properties = d
        return bundle_start

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
