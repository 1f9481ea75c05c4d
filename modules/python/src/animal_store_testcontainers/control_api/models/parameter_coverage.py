from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.parameter_coverage_others_item import ParameterCoverageOthersItem
    from ..models.parameter_coverage_values_item import ParameterCoverageValuesItem


T = TypeVar("T", bound="ParameterCoverage")


@_attrs_define
class ParameterCoverage:
    """
    Attributes:
        name (str):
        values (list[ParameterCoverageValuesItem]): The values worth trying (each enum value, the bounds, the default),
            sent or not.
        others (list[ParameterCoverageOthersItem]): Other values sent, valid or not; the first 20 distinct ones.
    """

    name: str
    values: list[ParameterCoverageValuesItem]
    others: list[ParameterCoverageOthersItem]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        values = []
        for values_item_data in self.values:
            values_item = values_item_data.to_dict()
            values.append(values_item)

        others = []
        for others_item_data in self.others:
            others_item = others_item_data.to_dict()
            others.append(others_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "values": values,
                "others": others,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.parameter_coverage_others_item import ParameterCoverageOthersItem
        from ..models.parameter_coverage_values_item import ParameterCoverageValuesItem

        d = dict(src_dict)
        name = d.pop("name")

        values = []
        _values = d.pop("values")
        for values_item_data in _values:
            values_item = ParameterCoverageValuesItem.from_dict(values_item_data)

            values.append(values_item)

        others = []
        _others = d.pop("others")
        for others_item_data in _others:
            others_item = ParameterCoverageOthersItem.from_dict(others_item_data)

            others.append(others_item)

        parameter_coverage = cls(
            name=name,
            values=values,
            others=others,
        )

        parameter_coverage.additional_properties = d
        return parameter_coverage

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
