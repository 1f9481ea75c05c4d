from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.pact_interactions_item import PactInteractionsItem
    from ..models.pact_metadata import PactMetadata
    from ..models.pacticipant import Pacticipant


T = TypeVar("T", bound="Pact")


@_attrs_define
class Pact:
    """A Pact (specification V4, https://github.com/pact-foundation/pact-specification/tree/version-4).

    Attributes:
        consumer (Pacticipant):
        provider (Pacticipant):
        interactions (list[PactInteractionsItem]):
        metadata (PactMetadata):
    """

    consumer: Pacticipant
    provider: Pacticipant
    interactions: list[PactInteractionsItem]
    metadata: PactMetadata
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        consumer = self.consumer.to_dict()

        provider = self.provider.to_dict()

        interactions = []
        for interactions_item_data in self.interactions:
            interactions_item = interactions_item_data.to_dict()
            interactions.append(interactions_item)

        metadata = self.metadata.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "consumer": consumer,
                "provider": provider,
                "interactions": interactions,
                "metadata": metadata,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.pact_interactions_item import PactInteractionsItem
        from ..models.pact_metadata import PactMetadata
        from ..models.pacticipant import Pacticipant

        d = dict(src_dict)
        consumer = Pacticipant.from_dict(d.pop("consumer"))

        provider = Pacticipant.from_dict(d.pop("provider"))

        interactions = []
        _interactions = d.pop("interactions")
        for interactions_item_data in _interactions:
            interactions_item = PactInteractionsItem.from_dict(interactions_item_data)

            interactions.append(interactions_item)

        metadata = PactMetadata.from_dict(d.pop("metadata"))

        pact = cls(
            consumer=consumer,
            provider=provider,
            interactions=interactions,
            metadata=metadata,
        )

        pact.additional_properties = d
        return pact

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
