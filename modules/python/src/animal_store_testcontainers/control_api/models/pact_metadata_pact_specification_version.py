from enum import StrEnum


class PactMetadataPactSpecificationVersion(StrEnum):
    VALUE_0 = "4.0"

    def __str__(self) -> str:
        return str(self.value)
