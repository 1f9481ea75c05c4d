from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.parameter_coverage_values_item_kind import ParameterCoverageValuesItemKind

T = TypeVar("T", bound="ParameterCoverageValuesItem")


@_attrs_define
class ParameterCoverageValuesItem:
    """
    Attributes:
        value (None | str): null for the parameter left out.
        kind (ParameterCoverageValuesItemKind):
        label (str):  Example: default (20).
        calls (int):
    """

    value: None | str
    kind: ParameterCoverageValuesItemKind
    label: str
    calls: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        value: None | str
        value = self.value

        kind = self.kind.value

        label = self.label

        calls = self.calls

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "value": value,
                "kind": kind,
                "label": label,
                "calls": calls,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_value(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        value = _parse_value(d.pop("value"))

        kind = ParameterCoverageValuesItemKind(d.pop("kind"))

        label = d.pop("label")

        calls = d.pop("calls")

        parameter_coverage_values_item = cls(
            value=value,
            kind=kind,
            label=label,
            calls=calls,
        )

        parameter_coverage_values_item.additional_properties = d
        return parameter_coverage_values_item

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
