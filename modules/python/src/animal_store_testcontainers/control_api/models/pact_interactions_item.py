from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.pact_interactions_item_type import PactInteractionsItemType

if TYPE_CHECKING:
    from ..models.pact_interactions_item_provider_states_item import (
        PactInteractionsItemProviderStatesItem,
    )
    from ..models.pact_interactions_item_request import PactInteractionsItemRequest
    from ..models.pact_interactions_item_response import PactInteractionsItemResponse


T = TypeVar("T", bound="PactInteractionsItem")


@_attrs_define
class PactInteractionsItem:
    """
    Attributes:
        type_ (PactInteractionsItemType):
        description (str):
        provider_states (list[PactInteractionsItemProviderStatesItem]):
        request (PactInteractionsItemRequest):
        response (PactInteractionsItemResponse):
    """

    type_: PactInteractionsItemType
    description: str
    provider_states: list[PactInteractionsItemProviderStatesItem]
    request: PactInteractionsItemRequest
    response: PactInteractionsItemResponse
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        description = self.description

        provider_states = []
        for provider_states_item_data in self.provider_states:
            provider_states_item = provider_states_item_data.to_dict()
            provider_states.append(provider_states_item)

        request = self.request.to_dict()

        response = self.response.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "description": description,
                "providerStates": provider_states,
                "request": request,
                "response": response,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.pact_interactions_item_provider_states_item import (
            PactInteractionsItemProviderStatesItem,
        )
        from ..models.pact_interactions_item_request import PactInteractionsItemRequest
        from ..models.pact_interactions_item_response import (
            PactInteractionsItemResponse,
        )

        d = dict(src_dict)
        type_ = PactInteractionsItemType(d.pop("type"))

        description = d.pop("description")

        provider_states = []
        _provider_states = d.pop("providerStates")
        for provider_states_item_data in _provider_states:
            provider_states_item = PactInteractionsItemProviderStatesItem.from_dict(
                provider_states_item_data
            )

            provider_states.append(provider_states_item)

        request = PactInteractionsItemRequest.from_dict(d.pop("request"))

        response = PactInteractionsItemResponse.from_dict(d.pop("response"))

        pact_interactions_item = cls(
            type_=type_,
            description=description,
            provider_states=provider_states,
            request=request,
            response=response,
        )

        pact_interactions_item.additional_properties = d
        return pact_interactions_item

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
