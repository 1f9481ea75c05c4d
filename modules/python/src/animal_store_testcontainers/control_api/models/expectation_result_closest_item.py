from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.difference import Difference
    from ..models.entry_summary import EntrySummary


T = TypeVar("T", bound="ExpectationResultClosestItem")


@_attrs_define
class ExpectationResultClosestItem:
    """
    Attributes:
        entry (EntrySummary):
        differences (list[Difference]):
    """

    entry: EntrySummary
    differences: list[Difference]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        entry = self.entry.to_dict()

        differences = []
        for differences_item_data in self.differences:
            differences_item = differences_item_data.to_dict()
            differences.append(differences_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "entry": entry,
                "differences": differences,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.difference import Difference
        from ..models.entry_summary import EntrySummary

        d = dict(src_dict)
        entry = EntrySummary.from_dict(d.pop("entry"))

        differences = []
        _differences = d.pop("differences")
        for differences_item_data in _differences:
            differences_item = Difference.from_dict(differences_item_data)

            differences.append(differences_item)

        expectation_result_closest_item = cls(
            entry=entry,
            differences=differences,
        )

        expectation_result_closest_item.additional_properties = d
        return expectation_result_closest_item

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
