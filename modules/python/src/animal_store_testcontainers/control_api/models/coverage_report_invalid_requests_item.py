from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="CoverageReportInvalidRequestsItem")


@_attrs_define
class CoverageReportInvalidRequestsItem:
    """
    Attributes:
        id (int):
        namespace (str):
        operation_id (str):
        method (str):
        path (str):
        status (int):
        code (str):
        message (str):
    """

    id: int
    namespace: str
    operation_id: str
    method: str
    path: str
    status: int
    code: str
    message: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        namespace = self.namespace

        operation_id = self.operation_id

        method = self.method

        path = self.path

        status = self.status

        code = self.code

        message = self.message

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "namespace": namespace,
                "operationId": operation_id,
                "method": method,
                "path": path,
                "status": status,
                "code": code,
                "message": message,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        namespace = d.pop("namespace")

        operation_id = d.pop("operationId")

        method = d.pop("method")

        path = d.pop("path")

        status = d.pop("status")

        code = d.pop("code")

        message = d.pop("message")

        coverage_report_invalid_requests_item = cls(
            id=id,
            namespace=namespace,
            operation_id=operation_id,
            method=method,
            path=path,
            status=status,
            code=code,
            message=message,
        )

        coverage_report_invalid_requests_item.additional_properties = d
        return coverage_report_invalid_requests_item

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
