from enum import StrEnum


class AwaitResultEndedBy(StrEnum):
    DEADLINE = "deadline"
    MET = "met"
    QUIET = "quiet"
    UNMEETABLE = "unmeetable"

    def __str__(self) -> str:
        return str(self.value)
