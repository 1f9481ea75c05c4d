"""Testcontainers module for the Animal Store sandbox, with a typed client of its control API."""

from animal_store_testcontainers.container import (
    ANIMAL_STORE_PORT,
    DEFAULT_IMAGE,
    AnimalStoreContainer,
    AnimalStoreStartError,
    HealthWaitStrategy,
)
from animal_store_testcontainers.control import (
    DEFAULT_ADMIN_TOKEN,
    DEFAULT_API_KEY,
    NAMESPACE_HEADER,
    AnimalStoreControlError,
    Cleared,
    Clock,
    ControlClient,
    Fault,
    FaultList,
    JournalEntry,
    JournalPage,
    NamespaceInfo,
    NamespaceList,
    Pet,
    StateSummary,
)

__all__ = [
    "ANIMAL_STORE_PORT",
    "DEFAULT_ADMIN_TOKEN",
    "DEFAULT_API_KEY",
    "DEFAULT_IMAGE",
    "NAMESPACE_HEADER",
    "AnimalStoreContainer",
    "AnimalStoreControlError",
    "AnimalStoreStartError",
    "Cleared",
    "Clock",
    "ControlClient",
    "Fault",
    "FaultList",
    "HealthWaitStrategy",
    "JournalEntry",
    "JournalPage",
    "NamespaceInfo",
    "NamespaceList",
    "Pet",
    "StateSummary",
]
