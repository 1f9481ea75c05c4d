from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.drift_report_mode import DriftReportMode

if TYPE_CHECKING:
    from ..models.drift import Drift
    from ..models.drift_report_operations import DriftReportOperations


T = TypeVar("T", bound="DriftReport")


@_attrs_define
class DriftReport:
    """
    Attributes:
        namespace (str):
        upstream (None | str): The real API's base URL (never its key), or null without UPSTREAM.
        mode (DriftReportMode):
        compared (int): Requests sent to both and compared.
        skipped (int): Requests not compared: unsafe ones (POST without UPSTREAM_UNSAFE=on), ones the sandbox refused
            (never sent upstream), or past the bound of requests waiting for the upstream.
        count (int): Differences found (the list keeps the last 1000).
        operations (DriftReportOperations): Per operationId, the requests compared and the differences found.
        differences (list[Drift]):
    """

    namespace: str
    upstream: None | str
    mode: DriftReportMode
    compared: int
    skipped: int
    count: int
    operations: DriftReportOperations
    differences: list[Drift]

    def to_dict(self) -> dict[str, Any]:
        namespace = self.namespace

        upstream: None | str
        upstream = self.upstream

        mode = self.mode.value

        compared = self.compared

        skipped = self.skipped

        count = self.count

        operations = self.operations.to_dict()

        differences = []
        for differences_item_data in self.differences:
            differences_item = differences_item_data.to_dict()
            differences.append(differences_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "namespace": namespace,
                "upstream": upstream,
                "mode": mode,
                "compared": compared,
                "skipped": skipped,
                "count": count,
                "operations": operations,
                "differences": differences,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.drift import Drift
        from ..models.drift_report_operations import DriftReportOperations

        d = dict(src_dict)
        namespace = d.pop("namespace")

        def _parse_upstream(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        upstream = _parse_upstream(d.pop("upstream"))

        mode = DriftReportMode(d.pop("mode"))

        compared = d.pop("compared")

        skipped = d.pop("skipped")

        count = d.pop("count")

        operations = DriftReportOperations.from_dict(d.pop("operations"))

        differences = []
        _differences = d.pop("differences")
        for differences_item_data in _differences:
            differences_item = Drift.from_dict(differences_item_data)

            differences.append(differences_item)

        drift_report = cls(
            namespace=namespace,
            upstream=upstream,
            mode=mode,
            compared=compared,
            skipped=skipped,
            count=count,
            operations=operations,
            differences=differences,
        )

        return drift_report
