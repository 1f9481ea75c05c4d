from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.difference_in import DifferenceIn
from ..types import UNSET, Unset

T = TypeVar("T", bound="Difference")


@_attrs_define
class Difference:
    """
    Attributes:
        in_ (DifferenceIn):
        pointer (str): A JSON Pointer into the body (empty for the whole body), or the header's name.
        expected (Any): The value expected there.
        message (str):  Example: createPet body /categoryId: expected 3, got "3".
        actual (Any | Unset): The value found there; absent when there was none.
    """

    in_: DifferenceIn
    pointer: str
    expected: Any
    message: str
    actual: Any | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        in_ = self.in_.value

        pointer = self.pointer

        expected = self.expected

        message = self.message

        actual = self.actual

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "in": in_,
                "pointer": pointer,
                "expected": expected,
                "message": message,
            }
        )
        if actual is not UNSET:
            field_dict["actual"] = actual

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        in_ = DifferenceIn(d.pop("in"))

        pointer = d.pop("pointer")

        expected = d.pop("expected")

        message = d.pop("message")

        actual = d.pop("actual", UNSET)

        difference = cls(
            in_=in_,
            pointer=pointer,
            expected=expected,
            message=message,
            actual=actual,
        )

        difference.additional_properties = d
        return difference

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
