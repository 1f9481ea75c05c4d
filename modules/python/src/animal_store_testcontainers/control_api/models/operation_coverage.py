from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.stability import Stability

if TYPE_CHECKING:
    from ..models.operation_coverage_undocumented_item import (
        OperationCoverageUndocumentedItem,
    )
    from ..models.parameter_coverage import ParameterCoverage
    from ..models.response_coverage import ResponseCoverage


T = TypeVar("T", bound="OperationCoverage")


@_attrs_define
class OperationCoverage:
    """
    Attributes:
        operation_id (str):
        method (str):
        path (str): The path with the API's base path, e.g. /v1/pets/{petId}.
        stability (Stability): The operation's x-stability in the spec; stable when it has none.
        deprecated (bool):
        sunset (datetime.datetime | None):
        replacement (None | str): The path to use instead (x-replacement), with the base path.
        calls (int):
        responses (list[ResponseCoverage]): Each documented response, in the spec's order; a 400 once per code the
            sandbox answers.
        undocumented (list[OperationCoverageUndocumentedItem]): Answers no documented response covers (a 400 on a bad
            parameter of listPets, a 410 after a sunset).
        unanswered (int): Calls a fault closed without an answer.
        parameters (list[ParameterCoverage]): The query parameters, with the values and bounds sent.
        complete (bool): Every reachable documented response of the operation exercised.
        message (str): One line for people naming the operation, the namespace reported on and the reachable documented
            responses never exercised: an assertion on some operations raises the lines of those not complete, joined as the
            report's `message` joins them. Example: createPet (POST /v1/pets), namespace checkout-test: never exercised 401,
            400 invalid_body.
    """

    operation_id: str
    method: str
    path: str
    stability: Stability
    deprecated: bool
    sunset: datetime.datetime | None
    replacement: None | str
    calls: int
    responses: list[ResponseCoverage]
    undocumented: list[OperationCoverageUndocumentedItem]
    unanswered: int
    parameters: list[ParameterCoverage]
    complete: bool
    message: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        operation_id = self.operation_id

        method = self.method

        path = self.path

        stability = self.stability.value

        deprecated = self.deprecated

        sunset: None | str
        if isinstance(self.sunset, datetime.datetime):
            sunset = self.sunset.isoformat()
        else:
            sunset = self.sunset

        replacement: None | str
        replacement = self.replacement

        calls = self.calls

        responses = []
        for responses_item_data in self.responses:
            responses_item = responses_item_data.to_dict()
            responses.append(responses_item)

        undocumented = []
        for undocumented_item_data in self.undocumented:
            undocumented_item = undocumented_item_data.to_dict()
            undocumented.append(undocumented_item)

        unanswered = self.unanswered

        parameters = []
        for parameters_item_data in self.parameters:
            parameters_item = parameters_item_data.to_dict()
            parameters.append(parameters_item)

        complete = self.complete

        message = self.message

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "operationId": operation_id,
                "method": method,
                "path": path,
                "stability": stability,
                "deprecated": deprecated,
                "sunset": sunset,
                "replacement": replacement,
                "calls": calls,
                "responses": responses,
                "undocumented": undocumented,
                "unanswered": unanswered,
                "parameters": parameters,
                "complete": complete,
                "message": message,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.operation_coverage_undocumented_item import (
            OperationCoverageUndocumentedItem,
        )
        from ..models.parameter_coverage import ParameterCoverage
        from ..models.response_coverage import ResponseCoverage

        d = dict(src_dict)
        operation_id = d.pop("operationId")

        method = d.pop("method")

        path = d.pop("path")

        stability = Stability(d.pop("stability"))

        deprecated = d.pop("deprecated")

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

        calls = d.pop("calls")

        responses = []
        _responses = d.pop("responses")
        for responses_item_data in _responses:
            responses_item = ResponseCoverage.from_dict(responses_item_data)

            responses.append(responses_item)

        undocumented = []
        _undocumented = d.pop("undocumented")
        for undocumented_item_data in _undocumented:
            undocumented_item = OperationCoverageUndocumentedItem.from_dict(
                undocumented_item_data
            )

            undocumented.append(undocumented_item)

        unanswered = d.pop("unanswered")

        parameters = []
        _parameters = d.pop("parameters")
        for parameters_item_data in _parameters:
            parameters_item = ParameterCoverage.from_dict(parameters_item_data)

            parameters.append(parameters_item)

        complete = d.pop("complete")

        message = d.pop("message")

        operation_coverage = cls(
            operation_id=operation_id,
            method=method,
            path=path,
            stability=stability,
            deprecated=deprecated,
            sunset=sunset,
            replacement=replacement,
            calls=calls,
            responses=responses,
            undocumented=undocumented,
            unanswered=unanswered,
            parameters=parameters,
            complete=complete,
            message=message,
        )

        operation_coverage.additional_properties = d
        return operation_coverage

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
