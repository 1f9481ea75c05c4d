from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.coverage_report_invalid_requests_item import (
        CoverageReportInvalidRequestsItem,
    )


T = TypeVar("T", bound="CoverageReportInvalid")


@_attrs_define
class CoverageReportInvalid:
    """Requests an operation refused because they broke the spec (400, 413, 415), not forced by a fault or Prefer: the
    first 100 are listed.

        Attributes:
            count (int): All of them.
            requests (list[CoverageReportInvalidRequestsItem]): The latest 100.
    """

    count: int
    requests: list[CoverageReportInvalidRequestsItem]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        count = self.count

        requests = []
        for requests_item_data in self.requests:
            requests_item = requests_item_data.to_dict()
            requests.append(requests_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "count": count,
                "requests": requests,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.coverage_report_invalid_requests_item import (
            CoverageReportInvalidRequestsItem,
        )

        d = dict(src_dict)
        count = d.pop("count")

        requests = []
        _requests = d.pop("requests")
        for requests_item_data in _requests:
            requests_item = CoverageReportInvalidRequestsItem.from_dict(
                requests_item_data
            )

            requests.append(requests_item)

        coverage_report_invalid = cls(
            count=count,
            requests=requests,
        )

        coverage_report_invalid.additional_properties = d
        return coverage_report_invalid

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
