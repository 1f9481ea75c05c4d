from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.journal_entry import JournalEntry


T = TypeVar("T", bound="BundleJournal")


@_attrs_define
class BundleJournal:
    """
    Attributes:
        dropped (int): Entries the namespace's journal dropped since it was last cleared.
        entries (list[JournalEntry]):
    """

    dropped: int
    entries: list[JournalEntry]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        dropped = self.dropped

        entries = []
        for entries_item_data in self.entries:
            entries_item = entries_item_data.to_dict()
            entries.append(entries_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "dropped": dropped,
                "entries": entries,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.journal_entry import JournalEntry

        d = dict(src_dict)
        dropped = d.pop("dropped")

        entries = []
        _entries = d.pop("entries")
        for entries_item_data in _entries:
            entries_item = JournalEntry.from_dict(entries_item_data)

            entries.append(entries_item)

        bundle_journal = cls(
            dropped=dropped,
            entries=entries,
        )

        bundle_journal.additional_properties = d
        return bundle_journal

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
