from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.bundle_clock import BundleClock
    from ..models.bundle_journal import BundleJournal
    from ..models.bundle_now import BundleNow
    from ..models.bundle_sandbox import BundleSandbox
    from ..models.bundle_settings import BundleSettings
    from ..models.bundle_start import BundleStart
    from ..models.fault import Fault


T = TypeVar("T", bound="Bundle")


@_attrs_define
class Bundle:
    """A bundle, as docs/bundle.md describes it; a reader refuses a `version` it does not know.

    Attributes:
        format_ (Literal['animal-store-sandbox.bundle']):
        version (int):
        created_at (datetime.datetime):
        sandbox (BundleSandbox):
        namespace (str):
        trace_id (None | str):
        settings (BundleSettings): The settings that shape answers, by variable name, as text a start reads back.
        start (BundleStart):
        now (BundleNow):
        clock (BundleClock):
        faults (list[Fault]):
        journal (BundleJournal):
    """

    format_: Literal["animal-store-sandbox.bundle"]
    version: int
    created_at: datetime.datetime
    sandbox: BundleSandbox
    namespace: str
    trace_id: None | str
    settings: BundleSettings
    start: BundleStart
    now: BundleNow
    clock: BundleClock
    faults: list[Fault]
    journal: BundleJournal
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        format_ = self.format_

        version = self.version

        created_at = self.created_at.isoformat()

        sandbox = self.sandbox.to_dict()

        namespace = self.namespace

        trace_id: None | str
        trace_id = self.trace_id

        settings = self.settings.to_dict()

        start = self.start.to_dict()

        now = self.now.to_dict()

        clock = self.clock.to_dict()

        faults = []
        for faults_item_data in self.faults:
            faults_item = faults_item_data.to_dict()
            faults.append(faults_item)

        journal = self.journal.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "format": format_,
                "version": version,
                "createdAt": created_at,
                "sandbox": sandbox,
                "namespace": namespace,
                "traceId": trace_id,
                "settings": settings,
                "start": start,
                "now": now,
                "clock": clock,
                "faults": faults,
                "journal": journal,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.bundle_clock import BundleClock
        from ..models.bundle_journal import BundleJournal
        from ..models.bundle_now import BundleNow
        from ..models.bundle_sandbox import BundleSandbox
        from ..models.bundle_settings import BundleSettings
        from ..models.bundle_start import BundleStart
        from ..models.fault import Fault

        d = dict(src_dict)
        format_ = cast(Literal["animal-store-sandbox.bundle"], d.pop("format"))
        if format_ != "animal-store-sandbox.bundle":
            raise ValueError(
                f"format must match const 'animal-store-sandbox.bundle', got '{format_}'"
            )

        version = d.pop("version")

        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))

        sandbox = BundleSandbox.from_dict(d.pop("sandbox"))

        namespace = d.pop("namespace")

        def _parse_trace_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        trace_id = _parse_trace_id(d.pop("traceId"))

        settings = BundleSettings.from_dict(d.pop("settings"))

        start = BundleStart.from_dict(d.pop("start"))

        now = BundleNow.from_dict(d.pop("now"))

        clock = BundleClock.from_dict(d.pop("clock"))

        faults = []
        _faults = d.pop("faults")
        for faults_item_data in _faults:
            faults_item = Fault.from_dict(faults_item_data)

            faults.append(faults_item)

        journal = BundleJournal.from_dict(d.pop("journal"))

        bundle = cls(
            format_=format_,
            version=version,
            created_at=created_at,
            sandbox=sandbox,
            namespace=namespace,
            trace_id=trace_id,
            settings=settings,
            start=start,
            now=now,
            clock=clock,
            faults=faults,
            journal=journal,
        )

        bundle.additional_properties = d
        return bundle

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
