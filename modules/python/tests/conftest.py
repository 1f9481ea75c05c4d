"""Docker for the container tests: skipped without an engine, failed instead under REQUIRE_DOCKER=1.

The session's sandbox comes from the package's own pytest plugin; this file only adds the engine
check and the settings the tests rely on, by overriding ``animal_store_container``.
"""

import os
from collections.abc import Iterator

import docker
import pytest
import requests

from animal_store_testcontainers import AnimalStoreContainer

API_KEY = "python-module-key"
ADMIN_TOKEN = "python-module-admin"


def docker_unreachable_reason() -> str | None:
    try:
        client = docker.from_env(timeout=10)
        try:
            client.ping()
        finally:
            client.close()
    except (docker.errors.DockerException, requests.RequestException) as error:
        return f"no Docker engine is reachable ({type(error).__name__}: {error})"
    return None


@pytest.fixture(scope="session")
def docker_engine() -> Iterator[docker.DockerClient]:
    reason = docker_unreachable_reason()
    if reason is not None:
        if os.environ.get("REQUIRE_DOCKER") == "1":
            pytest.fail(f"REQUIRE_DOCKER=1 but {reason}")
        pytest.skip(reason)
    client = docker.from_env()
    yield client
    client.close()


@pytest.fixture(scope="session")
def animal_store_container(docker_engine: object, animal_store_container: AnimalStoreContainer) -> AnimalStoreContainer:
    # docker_engine first: it must skip before the plugin's fixture constructs a container.
    # The plugin's container (its image follows ANIMAL_STORE_IMAGE), with a key of our own.
    return animal_store_container.with_api_key(API_KEY).with_admin_token(ADMIN_TOKEN).with_in_memory()
