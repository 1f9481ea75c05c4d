from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="CoverageReportSummary")


@_attrs_define
class CoverageReportSummary:
    """
    Attributes:
        calls (int): Calls counted, unmatched ones included.
        operations (int): Operations of the API.
        responses (int): Documented responses (a 400 counts once per code).
        exercised (int): Documented responses exercised at least once.
        reachable (int): Of the documented responses, those a client whose HTTP stack and JSON serializer work can cause
            (`reachable` true): what `complete` asks for.
        reachable_exercised (int): Of the reachable documented responses, those exercised at least once.
        unmatched (int):
        invalid (int):
        deprecated_calls (int):
        unstable_calls (int):
        unauthenticated_dropped (int): Requests without a valid API key that the journals of the namespaces in memory no
            longer hold (each keeps only the latest of them, apart from the others). They are counted here all the same.
        journal_dropped (int): Entries the journals dropped to stay within JOURNAL_SIZE and their bytes: counted here
            all the same, but no longer in GET /__admin/requests, and a verify that depends on them says it is incomplete.
        namespaces_deleted (int): With all=true, the namespaces deleted since the start (their calls still counted); 0
            for one namespace.
        namespaces_evicted (int): With all=true, the namespaces evicted past MAX_NAMESPACES since the start (each one
            logged; their calls still counted); 0 for one namespace.
    """

    calls: int
    operations: int
    responses: int
    exercised: int
    reachable: int
    reachable_exercised: int
    unmatched: int
    invalid: int
    deprecated_calls: int
    unstable_calls: int
    unauthenticated_dropped: int
    journal_dropped: int
    namespaces_deleted: int
    namespaces_evicted: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        calls = self.calls

        operations = self.operations

        responses = self.responses

        exercised = self.exercised

        reachable = self.reachable

        reachable_exercised = self.reachable_exercised

        unmatched = self.unmatched

        invalid = self.invalid

        deprecated_calls = self.deprecated_calls

        unstable_calls = self.unstable_calls

        unauthenticated_dropped = self.unauthenticated_dropped

        journal_dropped = self.journal_dropped

        namespaces_deleted = self.namespaces_deleted

        namespaces_evicted = self.namespaces_evicted

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "calls": calls,
                "operations": operations,
                "responses": responses,
                "exercised": exercised,
                "reachable": reachable,
                "reachableExercised": reachable_exercised,
                "unmatched": unmatched,
                "invalid": invalid,
                "deprecatedCalls": deprecated_calls,
                "unstableCalls": unstable_calls,
                "unauthenticatedDropped": unauthenticated_dropped,
                "journalDropped": journal_dropped,
                "namespacesDeleted": namespaces_deleted,
                "namespacesEvicted": namespaces_evicted,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        calls = d.pop("calls")

        operations = d.pop("operations")

        responses = d.pop("responses")

        exercised = d.pop("exercised")

        reachable = d.pop("reachable")

        reachable_exercised = d.pop("reachableExercised")

        unmatched = d.pop("unmatched")

        invalid = d.pop("invalid")

        deprecated_calls = d.pop("deprecatedCalls")

        unstable_calls = d.pop("unstableCalls")

        unauthenticated_dropped = d.pop("unauthenticatedDropped")

        journal_dropped = d.pop("journalDropped")

        namespaces_deleted = d.pop("namespacesDeleted")

        namespaces_evicted = d.pop("namespacesEvicted")

        coverage_report_summary = cls(
            calls=calls,
            operations=operations,
            responses=responses,
            exercised=exercised,
            reachable=reachable,
            reachable_exercised=reachable_exercised,
            unmatched=unmatched,
            invalid=invalid,
            deprecated_calls=deprecated_calls,
            unstable_calls=unstable_calls,
            unauthenticated_dropped=unauthenticated_dropped,
            journal_dropped=journal_dropped,
            namespaces_deleted=namespaces_deleted,
            namespaces_evicted=namespaces_evicted,
        )

        coverage_report_summary.additional_properties = d
        return coverage_report_summary

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
