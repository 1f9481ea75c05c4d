from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="DriftRequest")


@_attrs_define
class DriftRequest:
    """
    Attributes:
        method (str):
        target (str): Path and query below the base URL, e.g. /pets?limit=5.
    """

    method: str
    target: str

    def to_dict(self) -> dict[str, Any]:
        method = self.method

        target = self.target

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "method": method,
                "target": target,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        method = d.pop("method")

        target = d.pop("target")

        drift_request = cls(
            method=method,
            target=target,
        )

        return drift_request
