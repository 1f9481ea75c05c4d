from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.entry_summary import EntrySummary
    from ..models.expectation_result import ExpectationResult
    from ..models.stray_call import StrayCall


T = TypeVar("T", bound="VerifyResult")


@_attrs_define
class VerifyResult:
    """
    Attributes:
        namespace (str):
        passed (bool): False when it failed, and when it is incomplete.
        incomplete (bool): The answer depends on entries the journal dropped (JOURNAL_SIZE, or its bytes) since the
            namespace was made, reset or its journal cleared: then it did not pass, and the message says which expectations
            could not be decided. An expectation without body or headers is decided by the counts of every call, so it is
            never incomplete; a count, a max or strict mode is incomplete when entries were dropped.
        journal_dropped (int): Entries of this namespace the journal dropped since it was made, reset or cleared.
        strict (bool):
        checked (int): Journal entries read.
        expectations (list[ExpectationResult]):
        unexpected (list[EntrySummary]): In strict mode, the entries no expectation matched.
        message (str): The outcome for people, one line per failed expectation or unexpected call.
        strays (list[StrayCall] | Unset): With `noOtherCalls`, the stray calls of this namespace's test.
    """

    namespace: str
    passed: bool
    incomplete: bool
    journal_dropped: int
    strict: bool
    checked: int
    expectations: list[ExpectationResult]
    unexpected: list[EntrySummary]
    message: str
    strays: list[StrayCall] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        namespace = self.namespace

        passed = self.passed

        incomplete = self.incomplete

        journal_dropped = self.journal_dropped

        strict = self.strict

        checked = self.checked

        expectations = []
        for expectations_item_data in self.expectations:
            expectations_item = expectations_item_data.to_dict()
            expectations.append(expectations_item)

        unexpected = []
        for unexpected_item_data in self.unexpected:
            unexpected_item = unexpected_item_data.to_dict()
            unexpected.append(unexpected_item)

        message = self.message

        strays: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.strays, Unset):
            strays = []
            for strays_item_data in self.strays:
                strays_item = strays_item_data.to_dict()
                strays.append(strays_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "namespace": namespace,
                "passed": passed,
                "incomplete": incomplete,
                "journalDropped": journal_dropped,
                "strict": strict,
                "checked": checked,
                "expectations": expectations,
                "unexpected": unexpected,
                "message": message,
            }
        )
        if strays is not UNSET:
            field_dict["strays"] = strays

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.entry_summary import EntrySummary
        from ..models.expectation_result import ExpectationResult
        from ..models.stray_call import StrayCall

        d = dict(src_dict)
        namespace = d.pop("namespace")

        passed = d.pop("passed")

        incomplete = d.pop("incomplete")

        journal_dropped = d.pop("journalDropped")

        strict = d.pop("strict")

        checked = d.pop("checked")

        expectations = []
        _expectations = d.pop("expectations")
        for expectations_item_data in _expectations:
            expectations_item = ExpectationResult.from_dict(expectations_item_data)

            expectations.append(expectations_item)

        unexpected = []
        _unexpected = d.pop("unexpected")
        for unexpected_item_data in _unexpected:
            unexpected_item = EntrySummary.from_dict(unexpected_item_data)

            unexpected.append(unexpected_item)

        message = d.pop("message")

        _strays = d.pop("strays", UNSET)
        strays: list[StrayCall] | Unset = UNSET
        if _strays is not UNSET:
            strays = []
            for strays_item_data in _strays:
                strays_item = StrayCall.from_dict(strays_item_data)

                strays.append(strays_item)

        verify_result = cls(
            namespace=namespace,
            passed=passed,
            incomplete=incomplete,
            journal_dropped=journal_dropped,
            strict=strict,
            checked=checked,
            expectations=expectations,
            unexpected=unexpected,
            message=message,
            strays=strays,
        )

        verify_result.additional_properties = d
        return verify_result

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
