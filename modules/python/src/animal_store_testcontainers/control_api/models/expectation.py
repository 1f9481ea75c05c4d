from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.expectation_headers import ExpectationHeaders


T = TypeVar("T", bound="Expectation")


@_attrs_define
class Expectation:
    """At least one call when none of count, min and max is given; count excludes min and max.

    Attributes:
        operation_id (str): An operationId of the API, or `unmatched`.
        count (int | Unset): Exactly this many matching calls (0 asserts none).
        min_ (int | Unset):
        max_ (int | Unset):
        body (Any | Unset): A JSON value the request body must contain (objects as subsets).
        headers (ExpectationHeaders | Unset): Request headers the call must carry, names in any case, values exact.
    """

    operation_id: str
    count: int | Unset = UNSET
    min_: int | Unset = UNSET
    max_: int | Unset = UNSET
    body: Any | Unset = UNSET
    headers: ExpectationHeaders | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        operation_id = self.operation_id

        count = self.count

        min_ = self.min_

        max_ = self.max_

        body = self.body

        headers: dict[str, Any] | Unset = UNSET
        if not isinstance(self.headers, Unset):
            headers = self.headers.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "operationId": operation_id,
            }
        )
        if count is not UNSET:
            field_dict["count"] = count
        if min_ is not UNSET:
            field_dict["min"] = min_
        if max_ is not UNSET:
            field_dict["max"] = max_
        if body is not UNSET:
            field_dict["body"] = body
        if headers is not UNSET:
            field_dict["headers"] = headers

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.expectation_headers import ExpectationHeaders

        d = dict(src_dict)
        operation_id = d.pop("operationId")

        count = d.pop("count", UNSET)

        min_ = d.pop("min", UNSET)

        max_ = d.pop("max", UNSET)

        body = d.pop("body", UNSET)

        _headers = d.pop("headers", UNSET)
        headers: ExpectationHeaders | Unset
        if isinstance(_headers, Unset):
            headers = UNSET
        else:
            headers = ExpectationHeaders.from_dict(_headers)

        expectation = cls(
            operation_id=operation_id,
            count=count,
            min_=min_,
            max_=max_,
            body=body,
            headers=headers,
        )

        return expectation
