from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="DriftReportOperationsAdditionalProperty")


@_attrs_define
class DriftReportOperationsAdditionalProperty:
    """
    Attributes:
        compared (int):
        differences (int):
    """

    compared: int
    differences: int

    def to_dict(self) -> dict[str, Any]:
        compared = self.compared

        differences = self.differences

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "compared": compared,
                "differences": differences,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        compared = d.pop("compared")

        differences = d.pop("differences")

        drift_report_operations_additional_property = cls(
            compared=compared,
            differences=differences,
        )

        return drift_report_operations_additional_property
