from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.new_fault_fault import NewFaultFault
from ..types import UNSET, Unset

T = TypeVar("T", bound="NewFault")


@_attrs_define
class NewFault:
    """
    Attributes:
        operation_id (str): An operationId of the Animal Store API, or `*` for calls of every operation.
        status (int | Unset): Answer with this status and the Error body.
        delay_ms (int | Unset): Wait this long before answering.
        fault (NewFaultFault | Unset): connection-reset closes the connection with a TCP reset; empty-response closes it
            without a byte of answer; malformed-body answers with a body that is not valid JSON.
        times (int | Unset): How many calls it acts on; every call when omitted.
        after (int | Unset): How many matching calls pass untouched first. Default: 0.
        probability (float | Unset): Seeded chaos: the chance that it acts on each call it is due on, drawn from `seed`
            and the call's number, so the same calls in the same order meet the same faults.
        seed (int | Unset): The seed of `probability`'s draws; one is chosen (and shown) when omitted.
    """

    operation_id: str
    status: int | Unset = UNSET
    delay_ms: int | Unset = UNSET
    fault: NewFaultFault | Unset = UNSET
    times: int | Unset = UNSET
    after: int | Unset = 0
    probability: float | Unset = UNSET
    seed: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        operation_id = self.operation_id

        status = self.status

        delay_ms = self.delay_ms

        fault: str | Unset = UNSET
        if not isinstance(self.fault, Unset):
            fault = self.fault.value

        times = self.times

        after = self.after

        probability = self.probability

        seed = self.seed

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "operationId": operation_id,
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

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        operation_id = d.pop("operationId")

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

        new_fault = cls(
            operation_id=operation_id,
            status=status,
            delay_ms=delay_ms,
            fault=fault,
            times=times,
            after=after,
            probability=probability,
            seed=seed,
        )

        new_fault.additional_properties = d
        return new_fault

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
