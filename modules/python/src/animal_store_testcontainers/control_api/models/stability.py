from enum import StrEnum


class Stability(StrEnum):
    BETA = "beta"
    EXPERIMENTAL = "experimental"
    STABLE = "stable"

    def __str__(self) -> str:
        return str(self.value)
