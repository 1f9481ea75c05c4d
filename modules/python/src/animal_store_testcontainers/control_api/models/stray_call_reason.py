from enum import StrEnum


class StrayCallReason(StrEnum):
    AFTER_END = "after-end"
    NO_TEST = "no-test"
    OTHER_TEST = "other-test"

    def __str__(self) -> str:
        return str(self.value)
