from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.pact_metadata_animal_store_sandbox import (
        PactMetadataAnimalStoreSandbox,
    )
    from ..models.pact_metadata_pact_specification import PactMetadataPactSpecification


T = TypeVar("T", bound="PactMetadata")


@_attrs_define
class PactMetadata:
    """
    Attributes:
        pact_specification (PactMetadataPactSpecification):
        animal_store_sandbox (PactMetadataAnimalStoreSandbox):
    """

    pact_specification: PactMetadataPactSpecification
    animal_store_sandbox: PactMetadataAnimalStoreSandbox
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        pact_specification = self.pact_specification.to_dict()

        animal_store_sandbox = self.animal_store_sandbox.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "pactSpecification": pact_specification,
                "animal-store-sandbox": animal_store_sandbox,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.pact_metadata_animal_store_sandbox import (
            PactMetadataAnimalStoreSandbox,
        )
        from ..models.pact_metadata_pact_specification import (
            PactMetadataPactSpecification,
        )

        d = dict(src_dict)
        pact_specification = PactMetadataPactSpecification.from_dict(
            d.pop("pactSpecification")
        )

        animal_store_sandbox = PactMetadataAnimalStoreSandbox.from_dict(
            d.pop("animal-store-sandbox")
        )

        pact_metadata = cls(
            pact_specification=pact_specification,
            animal_store_sandbox=animal_store_sandbox,
        )

        pact_metadata.additional_properties = d
        return pact_metadata

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
