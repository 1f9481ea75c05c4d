from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.stray_call import StrayCall


T = TypeVar("T", bound="StrayReport")


@_attrs_define
class StrayReport:
    """
    Attributes:
        count (int):
        strays (list[StrayCall]):
        message (str): The stray calls for people, as an assertion of none raises it: a heading naming their tests and
            each call, one line each; a line saying none when there is none. Example: stray calls (test checkout-test):
            - after-end: createPet (POST /v1/pets) answered 201, in namespace checkout-test, trace
            4bf92f3577b34da6a3ce929d0e0e4736.
    """

    count: int
    strays: list[StrayCall]
    message: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        count = self.count

        strays = []
        for strays_item_data in self.strays:
            strays_item = strays_item_data.to_dict()
            strays.append(strays_item)

        message = self.message

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "count": count,
                "strays": strays,
                "message": message,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.stray_call import StrayCall

        d = dict(src_dict)
        count = d.pop("count")

        strays = []
        _strays = d.pop("strays")
        for strays_item_data in _strays:
            strays_item = StrayCall.from_dict(strays_item_data)

            strays.append(strays_item)

        message = d.pop("message")

        stray_report = cls(
            count=count,
            strays=strays,
            message=message,
        )

        stray_report.additional_properties = d
        return stray_report

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
