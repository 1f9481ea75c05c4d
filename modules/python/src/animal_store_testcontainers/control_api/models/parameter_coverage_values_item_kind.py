from enum import StrEnum


class ParameterCoverageValuesItemKind(StrEnum):
    DEFAULT = "default"
    ENUM = "enum"
    MAXIMUM = "maximum"
    MINIMUM = "minimum"
    OMITTED = "omitted"

    def __str__(self) -> str:
        return str(self.value)
