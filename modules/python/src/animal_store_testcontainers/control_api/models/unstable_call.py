from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.stability import Stability

T = TypeVar("T", bound="UnstableCall")


@_attrs_define
class UnstableCall:
    """
    Attributes:
        operation_id (str):
        method (str):
        path (str):
        stability (Stability): The operation's x-stability in the spec; stable when it has none.
        calls (int):
    """

    operation_id: str
    method: str
    path: str
    stability: Stability
    calls: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        operation_id = self.operation_id

        method = self.method

        path = self.path

        stability = self.stability.value

        calls = self.calls

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "operationId": operation_id,
                "method": method,
                "path": path,
                "stability": stability,
                "calls": calls,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        operation_id = d.pop("operationId")

        method = d.pop("method")

        path = d.pop("path")

        stability = Stability(d.pop("stability"))

        calls = d.pop("calls")

        unstable_call = cls(
            operation_id=operation_id,
            method=method,
            path=path,
            stability=stability,
            calls=calls,
        )

        unstable_call.additional_properties = d
        return unstable_call

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
