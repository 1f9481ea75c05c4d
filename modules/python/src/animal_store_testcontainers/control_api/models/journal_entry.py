from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.answered_error import AnsweredError
    from ..models.journal_entry_attempts_item import JournalEntryAttemptsItem
    from ..models.journal_entry_headers import JournalEntryHeaders
    from ..models.journal_entry_query import JournalEntryQuery


T = TypeVar("T", bound="JournalEntry")


@_attrs_define
class JournalEntry:
    """
    Attributes:
        id (int):
        time (datetime.datetime):
        namespace (str):
        method (str):
        path (str):
        query (JournalEntryQuery):
        headers (JournalEntryHeaders): Authorization (and any configured key anywhere) redacted.
        body (Any): The JSON body as sent (text when it is not JSON), null when there was none.
        status (int | None): Null when a fault closed the connection without an answer.
        duration_ms (float):
        operation_id (str): The operation matched, or `unmatched`.
        fault (None | str): The fault or Prefer that shaped the answer, if any.
        error (AnsweredError | None): The code and message of the Error body answered; null for any other answer.
        trace_id (str | Unset): The trace id of the request's W3C `traceparent` header; absent when it sent none, or
            none valid.
        attempts (list[JournalEntryAttemptsItem] | Unset): With `logicalCalls`, every attempt of this call, oldest first
            (this entry is the first): their ids, times and statuses.
    """

    id: int
    time: datetime.datetime
    namespace: str
    method: str
    path: str
    query: JournalEntryQuery
    headers: JournalEntryHeaders
    body: Any
    status: int | None
    duration_ms: float
    operation_id: str
    fault: None | str
    error: AnsweredError | None
    trace_id: str | Unset = UNSET
    attempts: list[JournalEntryAttemptsItem] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.answered_error import AnsweredError

        id = self.id

        time = self.time.isoformat()

        namespace = self.namespace

        method = self.method

        path = self.path

        query = self.query.to_dict()

        headers = self.headers.to_dict()

        body = self.body

        status: int | None
        status = self.status

        duration_ms = self.duration_ms

        operation_id = self.operation_id

        fault: None | str
        fault = self.fault

        error: dict[str, Any] | None
        if isinstance(self.error, AnsweredError):
            error = self.error.to_dict()
        else:
            error = self.error

        trace_id = self.trace_id

        attempts: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.attempts, Unset):
            attempts = []
            for attempts_item_data in self.attempts:
                attempts_item = attempts_item_data.to_dict()
                attempts.append(attempts_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "time": time,
                "namespace": namespace,
                "method": method,
                "path": path,
                "query": query,
                "headers": headers,
                "body": body,
                "status": status,
                "durationMs": duration_ms,
                "operationId": operation_id,
                "fault": fault,
                "error": error,
            }
        )
        if trace_id is not UNSET:
            field_dict["traceId"] = trace_id
        if attempts is not UNSET:
            field_dict["attempts"] = attempts

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.answered_error import AnsweredError
        from ..models.journal_entry_attempts_item import JournalEntryAttemptsItem
        from ..models.journal_entry_headers import JournalEntryHeaders
        from ..models.journal_entry_query import JournalEntryQuery

        d = dict(src_dict)
        id = d.pop("id")

        time = datetime.datetime.fromisoformat(d.pop("time"))

        namespace = d.pop("namespace")

        method = d.pop("method")

        path = d.pop("path")

        query = JournalEntryQuery.from_dict(d.pop("query"))

        headers = JournalEntryHeaders.from_dict(d.pop("headers"))

        body = d.pop("body")

        def _parse_status(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        status = _parse_status(d.pop("status"))

        duration_ms = d.pop("durationMs")

        operation_id = d.pop("operationId")

        def _parse_fault(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        fault = _parse_fault(d.pop("fault"))

        def _parse_error(data: object) -> AnsweredError | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_1 = AnsweredError.from_dict(data)

                return error_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AnsweredError | None, data)

        error = _parse_error(d.pop("error"))

        trace_id = d.pop("traceId", UNSET)

        _attempts = d.pop("attempts", UNSET)
        attempts: list[JournalEntryAttemptsItem] | Unset = UNSET
        if _attempts is not UNSET:
            attempts = []
            for attempts_item_data in _attempts:
                attempts_item = JournalEntryAttemptsItem.from_dict(attempts_item_data)

                attempts.append(attempts_item)

        journal_entry = cls(
            id=id,
            time=time,
            namespace=namespace,
            method=method,
            path=path,
            query=query,
            headers=headers,
            body=body,
            status=status,
            duration_ms=duration_ms,
            operation_id=operation_id,
            fault=fault,
            error=error,
            trace_id=trace_id,
            attempts=attempts,
        )

        journal_entry.additional_properties = d
        return journal_entry

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
