from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.expectation_result_closest_item import ExpectationResultClosestItem


T = TypeVar("T", bound="ExpectationResult")


@_attrs_define
class ExpectationResult:
    """
    Attributes:
        index (int): The expectation's position in the request.
        operation_id (str):
        passed (bool):
        incomplete (bool): Whether its outcome depends on calls of its operation the journal dropped (then it did not
            pass). Without body and headers it is decided by the counts of every call, never incomplete.
        expected (str): The count wanted, in words. Example: exactly 1.
        matched (int): Journal entries that matched its operation, body and headers.
        matched_entries (list[int]): Their ids.
        closest (list[ExpectationResultClosestItem]): When it failed for want of a match, the entries of its operation
            that came closest, fewest differences first (at most 3).
        message (str):
    """

    index: int
    operation_id: str
    passed: bool
    incomplete: bool
    expected: str
    matched: int
    matched_entries: list[int]
    closest: list[ExpectationResultClosestItem]
    message: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        index = self.index

        operation_id = self.operation_id

        passed = self.passed

        incomplete = self.incomplete

        expected = self.expected

        matched = self.matched

        matched_entries = self.matched_entries

        closest = []
        for closest_item_data in self.closest:
            closest_item = closest_item_data.to_dict()
            closest.append(closest_item)

        message = self.message

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "index": index,
                "operationId": operation_id,
                "passed": passed,
                "incomplete": incomplete,
                "expected": expected,
                "matched": matched,
                "matchedEntries": matched_entries,
                "closest": closest,
                "message": message,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.expectation_result_closest_item import (
            ExpectationResultClosestItem,
        )

        d = dict(src_dict)
        index = d.pop("index")

        operation_id = d.pop("operationId")

        passed = d.pop("passed")

        incomplete = d.pop("incomplete")

        expected = d.pop("expected")

        matched = d.pop("matched")

        matched_entries = cast(list[int], d.pop("matchedEntries"))

        closest = []
        _closest = d.pop("closest")
        for closest_item_data in _closest:
            closest_item = ExpectationResultClosestItem.from_dict(closest_item_data)

            closest.append(closest_item)

        message = d.pop("message")

        expectation_result = cls(
            index=index,
            operation_id=operation_id,
            passed=passed,
            incomplete=incomplete,
            expected=expected,
            matched=matched,
            matched_entries=matched_entries,
            closest=closest,
            message=message,
        )

        expectation_result.additional_properties = d
        return expectation_result

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
