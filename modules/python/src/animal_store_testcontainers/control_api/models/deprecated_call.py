from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="DeprecatedCall")


@_attrs_define
class DeprecatedCall:
    """
    Attributes:
        operation_id (str):
        method (str):
        path (str):
        calls (int):
        sunset (datetime.datetime | None):
        replacement (None | str):
    """

    operation_id: str
    method: str
    path: str
    calls: int
    sunset: datetime.datetime | None
    replacement: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        operation_id = self.operation_id

        method = self.method

        path = self.path

        calls = self.calls

        sunset: None | str
        if isinstance(self.sunset, datetime.datetime):
            sunset = self.sunset.isoformat()
        else:
            sunset = self.sunset

        replacement: None | str
        replacement = self.replacement

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "operationId": operation_id,
                "method": method,
                "path": path,
                "calls": calls,
                "sunset": sunset,
                "replacement": replacement,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        operation_id = d.pop("operationId")

        method = d.pop("method")

        path = d.pop("path")

        calls = d.pop("calls")

        def _parse_sunset(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                sunset_type_0 = datetime.datetime.fromisoformat(data)

                return sunset_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        sunset = _parse_sunset(d.pop("sunset"))

        def _parse_replacement(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        replacement = _parse_replacement(d.pop("replacement"))

        deprecated_call = cls(
            operation_id=operation_id,
            method=method,
            path=path,
            calls=calls,
            sunset=sunset,
            replacement=replacement,
        )

        deprecated_call.additional_properties = d
        return deprecated_call

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
