from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.drift_report_operations_additional_property import (
        DriftReportOperationsAdditionalProperty,
    )


T = TypeVar("T", bound="DriftReportOperations")


@_attrs_define
class DriftReportOperations:
    """Per operationId, the requests compared and the differences found."""

    additional_properties: dict[str, DriftReportOperationsAdditionalProperty] = (
        _attrs_field(init=False, factory=dict)
    )

    def to_dict(self) -> dict[str, Any]:

        field_dict: dict[str, Any] = {}
        for prop_name, prop in self.additional_properties.items():
            field_dict[prop_name] = prop.to_dict()

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.drift_report_operations_additional_property import (
            DriftReportOperationsAdditionalProperty,
        )

        d = dict(src_dict)
        drift_report_operations = cls()

        additional_properties = {}
        for prop_name, prop_dict in d.items():
            additional_property = DriftReportOperationsAdditionalProperty.from_dict(
                prop_dict
            )

            additional_properties[prop_name] = additional_property

        drift_report_operations.additional_properties = additional_properties
        return drift_report_operations

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> DriftReportOperationsAdditionalProperty:
        return self.additional_properties[key]

    def __setitem__(
        self, key: str, value: DriftReportOperationsAdditionalProperty
    ) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
