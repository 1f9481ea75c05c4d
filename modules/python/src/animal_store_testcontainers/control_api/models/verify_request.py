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
        no_other_calls (bool | Unset): Strict, and besides: each stray call of this namespace's test (GET
            /__admin/requests/strays, those whose `test` is this namespace, wherever they landed) fails the verification.
            Exact with tests in parallel, each in its own namespace: another test's calls are not this one's.
        logical_calls (bool | Unset): Counts the attempts of one call (same `Idempotency-Key`, or same `traceparent`, in
            one operation) as one call: the first attempt's, as `logicalCalls` on GET /__admin/requests shows it. Counts are
            then of the entries kept.
    """

    expectations: list[Expectation]
    strict: bool | Unset = False
    no_other_calls: bool | Unset = UNSET
    logical_calls: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        expectations = []
        for expectations_item_data in self.expectations:
            expectations_item = expectations_item_data.to_dict()
            expectations.append(expectations_item)

        strict = self.strict

        no_other_calls = self.no_other_calls

        logical_calls = self.logical_calls

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "expectations": expectations,
            }
        )
        if strict is not UNSET:
            field_dict["strict"] = strict
        if no_other_calls is not UNSET:
            field_dict["noOtherCalls"] = no_other_calls
        if logical_calls is not UNSET:
            field_dict["logicalCalls"] = logical_calls

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

        no_other_calls = d.pop("noOtherCalls", UNSET)

        logical_calls = d.pop("logicalCalls", UNSET)

        verify_request = cls(
            expectations=expectations,
            strict=strict,
            no_other_calls=no_other_calls,
            logical_calls=logical_calls,
        )

        return verify_request
