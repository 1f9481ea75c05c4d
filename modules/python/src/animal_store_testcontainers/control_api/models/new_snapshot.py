from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="NewSnapshot")


@_attrs_define
class NewSnapshot:
    """
    Attributes:
        name (str): The snapshot's name, by the rule of namespace names.
        namespace (str | Unset): The namespace to freeze; the default namespace when omitted.
    """

    name: str
    namespace: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        namespace = self.namespace

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
            }
        )
        if namespace is not UNSET:
            field_dict["namespace"] = namespace

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        name = d.pop("name")

        namespace = d.pop("namespace", UNSET)

        new_snapshot = cls(
            name=name,
            namespace=namespace,
        )

        return new_snapshot
