from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.expectation import Expectation


T = TypeVar("T", bound="AwaitRequest")


@_attrs_define
class AwaitRequest:
    """
    Attributes:
        expectations (list[Expectation] | Unset): What the journal must hold; with none, the wait ends by `quietMs` or
            the deadline.
        strict (bool | Unset): As verify's; the wait itself ends on the expectations alone. Default: False.
        no_other_calls (bool | Unset): Strict, and besides: each stray call of this namespace's test (GET
            /__admin/requests/strays, those whose `test` is this namespace, wherever they landed) fails the verification.
            Exact with tests in parallel, each in its own namespace: another test's calls are not this one's.
        logical_calls (bool | Unset): Counts the attempts of one call (same `Idempotency-Key`, or same `traceparent`, in
            one operation) as one call: the first attempt's, as `logicalCalls` on GET /__admin/requests shows it. Counts are
            then of the entries kept.
        timeout_ms (int | Unset): The deadline, from the wait's start. Default: 10000.
        quiet_ms (int | Unset): Ends the wait once the namespace (the trace) has had no call for this long, counted from
            the wait's start or its latest call's end, whichever is later; the expectations met do not end it then (a
            `count` of 0 is met at once).
    """

    expectations: list[Expectation] | Unset = UNSET
    strict: bool | Unset = False
    no_other_calls: bool | Unset = UNSET
    logical_calls: bool | Unset = UNSET
    timeout_ms: int | Unset = 10000
    quiet_ms: int | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        expectations: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.expectations, Unset):
            expectations = []
            for expectations_item_data in self.expectations:
                expectations_item = expectations_item_data.to_dict()
                expectations.append(expectations_item)

        strict = self.strict

        no_other_calls = self.no_other_calls

        logical_calls = self.logical_calls

        timeout_ms = self.timeout_ms

        quiet_ms = self.quiet_ms

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if expectations is not UNSET:
            field_dict["expectations"] = expectations
        if strict is not UNSET:
            field_dict["strict"] = strict
        if no_other_calls is not UNSET:
            field_dict["noOtherCalls"] = no_other_calls
        if logical_calls is not UNSET:
            field_dict["logicalCalls"] = logical_calls
        if timeout_ms is not UNSET:
            field_dict["timeoutMs"] = timeout_ms
        if quiet_ms is not UNSET:
            field_dict["quietMs"] = quiet_ms

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.expectation import Expectation

        d = dict(src_dict)
        _expectations = d.pop("expectations", UNSET)
        expectations: list[Expectation] | Unset = UNSET
        if _expectations is not UNSET:
            expectations = []
            for expectations_item_data in _expectations:
                expectations_item = Expectation.from_dict(expectations_item_data)

                expectations.append(expectations_item)

        strict = d.pop("strict", UNSET)

        no_other_calls = d.pop("noOtherCalls", UNSET)

        logical_calls = d.pop("logicalCalls", UNSET)

        timeout_ms = d.pop("timeoutMs", UNSET)

        quiet_ms = d.pop("quietMs", UNSET)

        await_request = cls(
            expectations=expectations,
            strict=strict,
            no_other_calls=no_other_calls,
            logical_calls=logical_calls,
            timeout_ms=timeout_ms,
            quiet_ms=quiet_ms,
        )

        return await_request
