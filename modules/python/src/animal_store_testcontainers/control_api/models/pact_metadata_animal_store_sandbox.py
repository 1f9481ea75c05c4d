from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="PactMetadataAnimalStoreSandbox")


@_attrs_define
class PactMetadataAnimalStoreSandbox:
    """
    Attributes:
        namespace (str):
        calls (int): The journal's entries read.
        interactions (int):
        excluded (int): Calls left out (a fault or Prefer, cut off, or a path the spec lacks).
        dropped (int): Calls the journal dropped (JOURNAL_SIZE), which no interaction shows.
        warning (str | Unset): Present when calls were dropped.
    """

    namespace: str
    calls: int
    interactions: int
    excluded: int
    dropped: int
    warning: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        namespace = self.namespace

        calls = self.calls

        interactions = self.interactions

        excluded = self.excluded

        dropped = self.dropped

        warning = self.warning

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "namespace": namespace,
                "calls": calls,
                "interactions": interactions,
                "excluded": excluded,
                "dropped": dropped,
            }
        )
        if warning is not UNSET:
            field_dict["warning"] = warning

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        namespace = d.pop("namespace")

        calls = d.pop("calls")

        interactions = d.pop("interactions")

        excluded = d.pop("excluded")

        dropped = d.pop("dropped")

        warning = d.pop("warning", UNSET)

        pact_metadata_animal_store_sandbox = cls(
            namespace=namespace,
            calls=calls,
            interactions=interactions,
            excluded=excluded,
            dropped=dropped,
            warning=warning,
        )

        pact_metadata_animal_store_sandbox.additional_properties = d
        return pact_metadata_animal_store_sandbox

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
