from enum import StrEnum


class PactInteractionsItemType(StrEnum):
    SYNCHRONOUSHTTP = "Synchronous/HTTP"

    def __str__(self) -> str:
        return str(self.value)
