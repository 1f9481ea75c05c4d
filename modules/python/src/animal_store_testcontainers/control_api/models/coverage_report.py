from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.coverage_report_invalid import CoverageReportInvalid
    from ..models.coverage_report_summary import CoverageReportSummary
    from ..models.coverage_report_unmatched import CoverageReportUnmatched
    from ..models.deprecated_call import DeprecatedCall
    from ..models.operation_coverage import OperationCoverage
    from ..models.unstable_call import UnstableCall


T = TypeVar("T", bound="CoverageReport")


@_attrs_define
class CoverageReport:
    """What the calls made show of the contract's use. Every call is counted as it is answered, whatever the journal keeps:
    one namespace's since it was made, reset or its journal cleared; with all=true, the whole run's since the start,
    namespaces deleted or evicted included. Version 1 of this shape: fields may be added, none is removed or changes
    meaning without a new reportVersion.

        Attributes:
            report_version (Literal[1]):
            generated_at (datetime.datetime):
            namespace (None | str): The namespace reported on; null when the report spans every namespace.
            namespaces (list[str]): The namespaces in memory reported on (those deleted or evicted are counted, not named).
            summary (CoverageReportSummary):
            operations (list[OperationCoverage]):
            deprecated_calls (list[DeprecatedCall]): The deprecated operations called, with the sunset and replacement the
                spec names.
            deprecated_calls_message (str): The deprecated calls for people, as an assertion of none raises it: a heading
                and each operation called, one line each, with its sunset and replacement; a line saying none when none was
                called. Example: deprecated operations called (namespace checkout-test):
                - getPet (GET /v1/pets/{petId}): 2 calls, sunset 2030-12-05, use /v1/pets instead.
            unstable_calls (list[UnstableCall]): The experimental or beta operations called.
            unstable_calls_message (str): The experimental or beta calls for people, as an assertion of none raises it: a
                heading and each operation called, one line each, with its stability; a line saying none when none was called.
                Example: operations below stable called (namespace checkout-test):
                - createPet (POST /v1/pets, x-stability beta): 2 calls.
            unmatched (CoverageReportUnmatched): Requests no operation matched, by method, path and status: the first 100
                groups seen (summary.unmatched counts every such request).
            invalid (CoverageReportInvalid): Requests an operation refused because they broke the spec (400, 413, 415), not
                forced by a fault or Prefer: the first 100 are listed.
            complete (bool): Every reachable documented response of every operation exercised.
            message (str): The outcome for people, as an end-of-suite assertion raises it: when not complete, the message of
                each operation not complete, one line each. Example: createPet (POST /v1/pets), namespace checkout-test: never
                exercised 401, 400 invalid_body.
    """

    report_version: Literal[1]
    generated_at: datetime.datetime
    namespace: None | str
    namespaces: list[str]
    summary: CoverageReportSummary
    operations: list[OperationCoverage]
    deprecated_calls: list[DeprecatedCall]
    deprecated_calls_message: str
    unstable_calls: list[UnstableCall]
    unstable_calls_message: str
    unmatched: CoverageReportUnmatched
    invalid: CoverageReportInvalid
    complete: bool
    message: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        report_version = self.report_version

        generated_at = self.generated_at.isoformat()

        namespace: None | str
        namespace = self.namespace

        namespaces = self.namespaces

        summary = self.summary.to_dict()

        operations = []
        for operations_item_data in self.operations:
            operations_item = operations_item_data.to_dict()
            operations.append(operations_item)

        deprecated_calls = []
        for deprecated_calls_item_data in self.deprecated_calls:
            deprecated_calls_item = deprecated_calls_item_data.to_dict()
            deprecated_calls.append(deprecated_calls_item)

        deprecated_calls_message = self.deprecated_calls_message

        unstable_calls = []
        for unstable_calls_item_data in self.unstable_calls:
            unstable_calls_item = unstable_calls_item_data.to_dict()
            unstable_calls.append(unstable_calls_item)

        unstable_calls_message = self.unstable_calls_message

        unmatched = self.unmatched.to_dict()

        invalid = self.invalid.to_dict()

        complete = self.complete

        message = self.message

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "reportVersion": report_version,
                "generatedAt": generated_at,
                "namespace": namespace,
                "namespaces": namespaces,
                "summary": summary,
                "operations": operations,
                "deprecatedCalls": deprecated_calls,
                "deprecatedCallsMessage": deprecated_calls_message,
                "unstableCalls": unstable_calls,
                "unstableCallsMessage": unstable_calls_message,
                "unmatched": unmatched,
                "invalid": invalid,
                "complete": complete,
                "message": message,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.coverage_report_invalid import CoverageReportInvalid
        from ..models.coverage_report_summary import CoverageReportSummary
        from ..models.coverage_report_unmatched import CoverageReportUnmatched
        from ..models.deprecated_call import DeprecatedCall
        from ..models.operation_coverage import OperationCoverage
        from ..models.unstable_call import UnstableCall

        d = dict(src_dict)
        report_version = cast(Literal[1], d.pop("reportVersion"))
        if report_version != 1:
            raise ValueError(
                f"reportVersion must match const 1, got '{report_version}'"
            )

        generated_at = datetime.datetime.fromisoformat(d.pop("generatedAt"))

        def _parse_namespace(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        namespace = _parse_namespace(d.pop("namespace"))

        namespaces = cast(list[str], d.pop("namespaces"))

        summary = CoverageReportSummary.from_dict(d.pop("summary"))

        operations = []
        _operations = d.pop("operations")
        for operations_item_data in _operations:
            operations_item = OperationCoverage.from_dict(operations_item_data)

            operations.append(operations_item)

        deprecated_calls = []
        _deprecated_calls = d.pop("deprecatedCalls")
        for deprecated_calls_item_data in _deprecated_calls:
            deprecated_calls_item = DeprecatedCall.from_dict(deprecated_calls_item_data)

            deprecated_calls.append(deprecated_calls_item)

        deprecated_calls_message = d.pop("deprecatedCallsMessage")

        unstable_calls = []
        _unstable_calls = d.pop("unstableCalls")
        for unstable_calls_item_data in _unstable_calls:
            unstable_calls_item = UnstableCall.from_dict(unstable_calls_item_data)

            unstable_calls.append(unstable_calls_item)

        unstable_calls_message = d.pop("unstableCallsMessage")

        unmatched = CoverageReportUnmatched.from_dict(d.pop("unmatched"))

        invalid = CoverageReportInvalid.from_dict(d.pop("invalid"))

        complete = d.pop("complete")

        message = d.pop("message")

        coverage_report = cls(
            report_version=report_version,
            generated_at=generated_at,
            namespace=namespace,
            namespaces=namespaces,
            summary=summary,
            operations=operations,
            deprecated_calls=deprecated_calls,
            deprecated_calls_message=deprecated_calls_message,
            unstable_calls=unstable_calls,
            unstable_calls_message=unstable_calls_message,
            unmatched=unmatched,
            invalid=invalid,
            complete=complete,
            message=message,
        )

        coverage_report.additional_properties = d
        return coverage_report

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
