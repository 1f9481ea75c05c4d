from enum import StrEnum


class DriftReportMode(StrEnum):
    COMPARE = "compare"
    OFF = "off"
    PASSTHROUGH = "passthrough"
    RECORD = "record"

    def __str__(self) -> str:
        return str(self.value)
