from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.drift_kind import DriftKind

if TYPE_CHECKING:
    from ..models.drift_request import DriftRequest


T = TypeVar("T", bound="Drift")


@_attrs_define
class Drift:
    """
    Attributes:
        operation_id (str):
        request (DriftRequest):
        pointer (str): A JSON pointer into the answer: /status, /headers/<name>, /body/...; empty when the upstream gave
            no answer.
        kind (DriftKind):
        sandbox (Any): The sandbox's value (absent when it has none).
        upstream (Any): The upstream's value, or why it gave none.
        time (datetime.datetime):
    """

    operation_id: str
    request: DriftRequest
    pointer: str
    kind: DriftKind
    sandbox: Any
    upstream: Any
    time: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
        operation_id = self.operation_id

        request = self.request.to_dict()

        pointer = self.pointer

        kind = self.kind.value

        sandbox = self.sandbox

        upstream = self.upstream

        time = self.time.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "operationId": operation_id,
                "request": request,
                "pointer": pointer,
                "kind": kind,
                "sandbox": sandbox,
                "upstream": upstream,
                "time": time,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.drift_request import DriftRequest

        d = dict(src_dict)
        operation_id = d.pop("operationId")

        request = DriftRequest.from_dict(d.pop("request"))

        pointer = d.pop("pointer")

        kind = DriftKind(d.pop("kind"))

        sandbox = d.pop("sandbox")

        upstream = d.pop("upstream")

        time = datetime.datetime.fromisoformat(d.pop("time"))

        drift = cls(
            operation_id=operation_id,
            request=request,
            pointer=pointer,
            kind=kind,
            sandbox=sandbox,
            upstream=upstream,
            time=time,
        )

        return drift
