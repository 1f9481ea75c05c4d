from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.expectation import Expectation


T = TypeVar("T", bound="VerifyRequest")


@_attrs_define
class VerifyRequest:
    """
    Attributes:
        expectations (list[Expectation]):
        strict (bool | Unset): Every journal entry no expectation matched fails the verification. Default: False.
    """

    expectations: list[Expectation]
    strict: bool | Unset = False

    def to_dict(self) -> dict[str, Any]:
        expectations = []
        for expectations_item_data in self.expectations:
            expectations_item = expectations_item_data.to_dict()
            expectations.append(expectations_item)

        strict = self.strict

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "expectations": expectations,
            }
        )
        if strict is not UNSET:
            field_dict["strict"] = strict

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.expectation import Expectation

        d = dict(src_dict)
        expectations = []
        _expectations = d.pop("expectations")
        for expectations_item_data in _expectations:
            expectations_item = Expectation.from_dict(expectations_item_data)

            expectations.append(expectations_item)

        strict = d.pop("strict", UNSET)

        verify_request = cls(
            expectations=expectations,
            strict=strict,
        )

        return verify_request
