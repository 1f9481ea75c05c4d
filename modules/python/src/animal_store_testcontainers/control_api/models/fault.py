from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.new_fault_fault import NewFaultFault
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.fault_hit import FaultHit
    from ..models.fault_seen_by import FaultSeenBy


T = TypeVar("T", bound="Fault")


@_attrs_define
class Fault:
    """
    Attributes:
        operation_id (str): An operationId of the Animal Store API, or `*` for calls of every operation.
        id (int):
        seen (int): Matching calls so far.
        fired (int): Calls it has acted on.
        status (int | Unset): Answer with this status and the Error body.
        delay_ms (int | Unset): Wait this long before answering.
        fault (NewFaultFault | Unset): connection-reset closes the connection with a TCP reset; empty-response closes it
            without a byte of answer; malformed-body answers with a body that is not valid JSON.
        times (int | Unset): How many calls it acts on; every call when omitted.
        after (int | Unset): How many matching calls pass untouched first. Default: 0.
        probability (float | Unset): Seeded chaos: the chance that it acts on each call it is due on, drawn from `seed`
            and the call's number, so the same calls in the same order meet the same faults.
        seed (int | Unset): The seed of `probability`'s draws; one is chosen (and shown) when omitted.
        hits (list[FaultHit] | Unset): The calls it acted on (the first 1000).
        seen_by (FaultSeenBy | Unset): For a fault on every operation (`*`), the calls of each operation it saw.
    """

    operation_id: str
    id: int
    seen: int
    fired: int
    status: int | Unset = UNSET
    delay_ms: int | Unset = UNSET
    fault: NewFaultFault | Unset = UNSET
    times: int | Unset = UNSET
    after: int | Unset = 0
    probability: float | Unset = UNSET
    seed: int | Unset = UNSET
    hits: list[FaultHit] | Unset = UNSET
    seen_by: FaultSeenBy | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        operation_id = self.operation_id

        id = self.id

        seen = self.seen

        fired = self.fired

        status = self.status

        delay_ms = self.delay_ms

        fault: str | Unset = UNSET
        if not isinstance(self.fault, Unset):
            fault = self.fault.value

        times = self.times

        after = self.after

        probability = self.probability

        seed = self.seed

        hits: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.hits, Unset):
            hits = []
            for hits_item_data in self.hits:
                hits_item = hits_item_data.to_dict()
                hits.append(hits_item)

        seen_by: dict[str, Any] | Unset = UNSET
        if not isinstance(self.seen_by, Unset):
            seen_by = self.seen_by.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "operationId": operation_id,
                "id": id,
                "seen": seen,
                "fired": fired,
            }
        )
        if status is not UNSET:
            field_dict["status"] = status
        if delay_ms is not UNSET:
            field_dict["delayMs"] = delay_ms
        if fault is not UNSET:
            field_dict["fault"] = fault
        if times is not UNSET:
            field_dict["times"] = times
        if after is not UNSET:
            field_dict["after"] = after
        if probability is not UNSET:
            field_dict["probability"] = probability
        if seed is not UNSET:
            field_dict["seed"] = seed
        if hits is not UNSET:
            field_dict["hits"] = hits
        if seen_by is not UNSET:
            field_dict["seenBy"] = seen_by

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.fault_hit import FaultHit
        from ..models.fault_seen_by import FaultSeenBy

        d = dict(src_dict)
        operation_id = d.pop("operationId")

        id = d.pop("id")

        seen = d.pop("seen")

        fired = d.pop("fired")

        status = d.pop("status", UNSET)

        delay_ms = d.pop("delayMs", UNSET)

        _fault = d.pop("fault", UNSET)
        fault: NewFaultFault | Unset
        if isinstance(_fault, Unset):
            fault = UNSET
        else:
            fault = NewFaultFault(_fault)

        times = d.pop("times", UNSET)

        after = d.pop("after", UNSET)

        probability = d.pop("probability", UNSET)

        seed = d.pop("seed", UNSET)

        _hits = d.pop("hits", UNSET)
        hits: list[FaultHit] | Unset = UNSET
        if _hits is not UNSET:
            hits = []
            for hits_item_data in _hits:
                hits_item = FaultHit.from_dict(hits_item_data)

                hits.append(hits_item)

        _seen_by = d.pop("seenBy", UNSET)
        seen_by: FaultSeenBy | Unset
        if isinstance(_seen_by, Unset):
            seen_by = UNSET
        else:
            seen_by = FaultSeenBy.from_dict(_seen_by)

        fault = cls(
            operation_id=operation_id,
            id=id,
            seen=seen,
            fired=fired,
            status=status,
            delay_ms=delay_ms,
            fault=fault,
            times=times,
            after=after,
            probability=probability,
            seed=seed,
            hits=hits,
            seen_by=seen_by,
        )

        fault.additional_properties = d
        return fault

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
