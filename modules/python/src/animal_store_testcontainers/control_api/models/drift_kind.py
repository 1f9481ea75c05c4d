from enum import StrEnum


class DriftKind(StrEnum):
    HEADER = "header"
    MISSING_IN_SANDBOX = "missing-in-sandbox"
    MISSING_UPSTREAM = "missing-upstream"
    STATUS = "status"
    TYPE = "type"
    UNREADABLE_UPSTREAM = "unreadable-upstream"
    UPSTREAM_TIMEOUT = "upstream-timeout"
    UPSTREAM_UNREACHABLE = "upstream-unreachable"
    VALUE = "value"

    def __str__(self) -> str:
        return str(self.value)
