from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.stray_call_reason import StrayCallReason
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.entry_summary import EntrySummary


T = TypeVar("T", bound="StrayCall")


@_attrs_define
class StrayCall:
    """
    Attributes:
        reason (StrayCallReason): `no-test`: in trace mode (NAMESPACE_FROM_TRACE), a call with no namespace and no trace
            context, in the default namespace. `after-end`: a call into a namespace after its test ended (POST
            /__admin/namespaces/{name}/end, or its deletion). `other-test`: a call whose trace belongs to another
            namespace's test (the namespace that first journaled a call of that trace, or held one when its test ended).
        test (None | str): The namespace of the test that caused it, when its trace context tells.
        namespace (str): Where it was journaled.
        entry (EntrySummary):
        time (datetime.datetime):
        trace_id (str | Unset):
        parent_span_id (str | Unset): The span that sent it, from its `traceparent`.
    """

    reason: StrayCallReason
    test: None | str
    namespace: str
    entry: EntrySummary
    time: datetime.datetime
    trace_id: str | Unset = UNSET
    parent_span_id: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        reason = self.reason.value

        test: None | str
        test = self.test

        namespace = self.namespace

        entry = self.entry.to_dict()

        time = self.time.isoformat()

        trace_id = self.trace_id

        parent_span_id = self.parent_span_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "reason": reason,
                "test": test,
                "namespace": namespace,
                "entry": entry,
                "time": time,
            }
        )
        if trace_id is not UNSET:
            field_dict["traceId"] = trace_id
        if parent_span_id is not UNSET:
            field_dict["parentSpanId"] = parent_span_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.entry_summary import EntrySummary

        d = dict(src_dict)
        reason = StrayCallReason(d.pop("reason"))

        def _parse_test(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        test = _parse_test(d.pop("test"))

        namespace = d.pop("namespace")

        entry = EntrySummary.from_dict(d.pop("entry"))

        time = datetime.datetime.fromisoformat(d.pop("time"))

        trace_id = d.pop("traceId", UNSET)

        parent_span_id = d.pop("parentSpanId", UNSET)

        stray_call = cls(
            reason=reason,
            test=test,
            namespace=namespace,
            entry=entry,
            time=time,
            trace_id=trace_id,
            parent_span_id=parent_span_id,
        )

        stray_call.additional_properties = d
        return stray_call

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
