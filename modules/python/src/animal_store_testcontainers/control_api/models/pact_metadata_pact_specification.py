from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.pact_metadata_pact_specification_version import (
    PactMetadataPactSpecificationVersion,
)
from ..types import UNSET, Unset

T = TypeVar("T", bound="PactMetadataPactSpecification")


@_attrs_define
class PactMetadataPactSpecification:
    """
    Attributes:
        version (PactMetadataPactSpecificationVersion | Unset):
    """

    version: PactMetadataPactSpecificationVersion | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        version: str | Unset = UNSET
        if not isinstance(self.version, Unset):
            version = self.version.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if version is not UNSET:
            field_dict["version"] = version

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        _version = d.pop("version", UNSET)
        version: PactMetadataPactSpecificationVersion | Unset
        if isinstance(_version, Unset):
            version = UNSET
        else:
            version = PactMetadataPactSpecificationVersion(_version)

        pact_metadata_pact_specification = cls(
            version=version,
        )

        pact_metadata_pact_specification.additional_properties = d
        return pact_metadata_pact_specification

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
