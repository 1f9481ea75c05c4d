from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.journal_entry import JournalEntry


T = TypeVar("T", bound="JournalPage")


@_attrs_define
class JournalPage:
    """One page of the matching entries, oldest first.

    Attributes:
        count (int): How many entries match the filters, on every page (`after` and `limit` aside).
        entries (list[JournalEntry]):
        next_ (int | None): The `after` of the next page: the id of this page's last entry when more entries match after
            it; null on the last page (and when `limit` is 0).
        unauthenticated_dropped (int): Requests without a valid API key (a 401, or an unmatched path without a key)
            dropped from the journal since it was last cleared: the journal keeps the latest 100 of them apart from the
            other entries, which a flood of them therefore never pushes out.
    """

    count: int
    entries: list[JournalEntry]
    next_: int | None
    unauthenticated_dropped: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        count = self.count

        entries = []
        for entries_item_data in self.entries:
            entries_item = entries_item_data.to_dict()
            entries.append(entries_item)

        next_: int | None
        next_ = self.next_

        unauthenticated_dropped = self.unauthenticated_dropped

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "count": count,
                "entries": entries,
                "next": next_,
                "unauthenticatedDropped": unauthenticated_dropped,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.journal_entry import JournalEntry

        d = dict(src_dict)
        count = d.pop("count")

        entries = []
        _entries = d.pop("entries")
        for entries_item_data in _entries:
            entries_item = JournalEntry.from_dict(entries_item_data)

            entries.append(entries_item)

        def _parse_next_(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        next_ = _parse_next_(d.pop("next"))

        unauthenticated_dropped = d.pop("unauthenticatedDropped")

        journal_page = cls(
            count=count,
            entries=entries,
            next_=next_,
            unauthenticated_dropped=unauthenticated_dropped,
        )

        journal_page.additional_properties = d
        return journal_page

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
