from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ResponseCoverage")


@_attrs_define
class ResponseCoverage:
    """
    Attributes:
        status (str): The status as the spec writes it (`201`, `400`, `default`).
        code (None | str): For a 400, the Error code; null otherwise.
        label (str):  Example: 400 invalid_body.
        reachable (bool): false for a response only a request that is not HTTP, or a body that is not JSON, causes (`400
            malformed_json`, `400 bad_request`): a client whose HTTP stack and JSON serializer work never meets it, and the
            end-of-suite assertions do not ask for it.
        exercised (bool):
        calls (int):
        forced (int): Of the calls, those answered by a fault or a Prefer header.
    """

    status: str
    code: None | str
    label: str
    reachable: bool
    exercised: bool
    calls: int
    forced: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        status = self.status

        code: None | str
        code = self.code

        label = self.label

        reachable = self.reachable

        exercised = self.exercised

        calls = self.calls

        forced = self.forced

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "status": status,
                "code": code,
                "label": label,
                "reachable": reachable,
                "exercised": exercised,
                "calls": calls,
                "forced": forced,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        status = d.pop("status")

        def _parse_code(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        code = _parse_code(d.pop("code"))

        label = d.pop("label")

        reachable = d.pop("reachable")

        exercised = d.pop("exercised")

        calls = d.pop("calls")

        forced = d.pop("forced")

        response_coverage = cls(
            status=status,
            code=code,
            label=label,
            reachable=reachable,
            exercised=exercised,
            calls=calls,
            forced=forced,
        )

        response_coverage.additional_properties = d
        return response_coverage

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
