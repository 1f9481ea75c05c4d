from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="ResetBody")


@_attrs_define
class ResetBody:
    """
    Attributes:
        seed (int | Unset): Generate the pets from this seed.
        count (int | Unset): How many pets to generate (default 60).
        snapshot (str | Unset): Start from this snapshot's pets and clock instead (not with `seed` or `count`): the
            namespace shares the snapshot's pets until it changes them, and no change of it reaches the snapshot or another
            namespace.
    """

    seed: int | Unset = UNSET
    count: int | Unset = UNSET
    snapshot: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        seed = self.seed

        count = self.count

        snapshot = self.snapshot

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if seed is not UNSET:
            field_dict["seed"] = seed
        if count is not UNSET:
            field_dict["count"] = count
        if snapshot is not UNSET:
            field_dict["snapshot"] = snapshot

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        seed = d.pop("seed", UNSET)

        count = d.pop("count", UNSET)

        snapshot = d.pop("snapshot", UNSET)

        reset_body = cls(
            seed=seed,
            count=count,
            snapshot=snapshot,
        )

        return reset_body
