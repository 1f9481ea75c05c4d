from enum import StrEnum


class NewFaultFault(StrEnum):
    CONNECTION_RESET = "connection-reset"
    EMPTY_RESPONSE = "empty-response"
    MALFORMED_BODY = "malformed-body"

    def __str__(self) -> str:
        return str(self.value)
