from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.coverage_report_unmatched_requests_item import (
        CoverageReportUnmatchedRequestsItem,
    )


T = TypeVar("T", bound="CoverageReportUnmatched")


@_attrs_define
class CoverageReportUnmatched:
    """Requests no operation matched, by method, path and status: the first 100 groups seen (summary.unmatched counts every
    such request).

        Attributes:
            count (int): The groups listed.
            requests (list[CoverageReportUnmatchedRequestsItem]):
    """

    count: int
    requests: list[CoverageReportUnmatchedRequestsItem]
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
        from ..models.coverage_report_unmatched_requests_item import (
            CoverageReportUnmatchedRequestsItem,
        )

        d = dict(src_dict)
        count = d.pop("count")

        requests = []
        _requests = d.pop("requests")
        for requests_item_data in _requests:
            requests_item = CoverageReportUnmatchedRequestsItem.from_dict(
                requests_item_data
            )

            requests.append(requests_item)

        coverage_report_unmatched = cls(
            count=count,
            requests=requests,
        )

        coverage_report_unmatched.additional_properties = d
        return coverage_report_unmatched

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
