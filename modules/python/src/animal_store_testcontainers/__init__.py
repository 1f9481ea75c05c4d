"""Testcontainers module for the Animal Store sandbox, with a client of its control API.

The control API's calls and models are in ``animal_store_testcontainers.control_api``, generated
from its spec (generate_control.py); :class:`ControlClient` gives them a namespace to act on.
"""

from animal_store_testcontainers.assertions import (
    assert_all_responses_exercised,
    assert_awaited,
    assert_no_deprecated_calls,
    assert_no_stray_calls,
    assert_verified,
)
from animal_store_testcontainers.container import (
    ANIMAL_STORE_PORT,
    DEFAULT_IMAGE,
    AnimalStoreContainer,
    AnimalStoreImageMissingError,
    AnimalStoreStartError,
    HealthWaitStrategy,
)
from animal_store_testcontainers.control import NAMESPACE_HEADER, AnimalStoreControlError, ControlClient

__all__ = [
    "ANIMAL_STORE_PORT",
    "DEFAULT_IMAGE",
    "NAMESPACE_HEADER",
    "AnimalStoreContainer",
    "AnimalStoreControlError",
    "AnimalStoreImageMissingError",
    "AnimalStoreStartError",
    "ControlClient",
    "HealthWaitStrategy",
    "assert_all_responses_exercised",
    "assert_awaited",
    "assert_no_deprecated_calls",
    "assert_no_stray_calls",
    "assert_verified",
]
