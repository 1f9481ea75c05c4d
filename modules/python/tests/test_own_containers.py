"""Containers of their own: fixtures copied in, and bad settings failing fast with the sandbox's message."""

import json
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import docker
import pytest
import requests

from animal_store_testcontainers import AnimalStoreContainer, AnimalStoreImageMissingError, AnimalStoreStartError

# Far below the startup timeout these containers get: a failure within it comes from the exit.
STARTUP_TIMEOUT_S = 60
FAIL_FAST_BOUND_S = 20
# A missing image is reported once one pull is refused, not after a pull's retries.
MISSING_IMAGE_BOUND_S = 5


def test_fixtures_are_copied_into_the_container(
    tmp_path: Path, animal_store_image: str, docker_engine: docker.DockerClient
) -> None:
    fixtures = tmp_path / "my-pets.json"
    fixtures.write_text(
        json.dumps(
            [
                {"id": 1, "name": "Fixture Fox", "categoryId": 1, "status": "available"},
                {"id": 2, "name": "Fixture Finch", "categoryId": 2, "status": "sold"},
            ]
        )
    )
    with AnimalStoreContainer(animal_store_image).with_fixtures(fixtures).with_in_memory() as sandbox:
        listed = requests.get(
            f"{sandbox.get_base_url()}/pets", headers={"Authorization": f"Bearer {sandbox.get_api_key()}"}
        )
        assert listed.status_code == 200
        assert [pet["name"] for pet in listed.json()] == ["Fixture Fox", "Fixture Finch"]


def test_a_seed_count_of_zero_starts_with_no_pets(animal_store_image: str, docker_engine: object) -> None:
    with AnimalStoreContainer(animal_store_image).with_seed(1).with_seed_count(0).with_in_memory() as sandbox:
        listed = requests.get(
            f"{sandbox.get_base_url()}/pets", headers={"Authorization": f"Bearer {sandbox.get_api_key()}"}
        )
        assert listed.json() == []


@pytest.mark.parametrize(
    ("configure", "sandbox_message"),
    [
        pytest.param(
            lambda container, tmp_path: container.with_env("SEED", "abc"),
            r'SEED must be a whole number from 0 to 4294967295, got "abc"',
            id="SEED=abc",
        ),
        pytest.param(
            lambda container, tmp_path: container.with_seed_count(1_000_001),
            r'SEED_COUNT must be a whole number from 0 to 1000000, got "1000001"',
            id="SEED_COUNT=1000001",
        ),
        pytest.param(
            lambda container, tmp_path: container.with_api_key("same").with_admin_token("same"),
            r"ADMIN_TOKEN must differ from every API key",
            id="ADMIN_TOKEN=API_KEYS",
        ),
        pytest.param(
            lambda container, tmp_path: container.with_api_key("has space"),
            r"API_KEYS: key number 1 has characters a bearer token cannot carry",
            id="API_KEYS=has space",
        ),
        pytest.param(
            lambda container, tmp_path: container.with_fixtures(write_bad_fixtures(tmp_path)),
            r"Fixtures file /fixtures/bad-pets\.json is refused: .*categoryId",
            id="fixtures-refused",
        ),
    ],
)
def test_bad_settings_fail_fast_with_the_sandbox_message(
    configure: Callable[[AnimalStoreContainer, Path], AnimalStoreContainer],
    sandbox_message: str,
    tmp_path: Path,
    animal_store_image: str,
    docker_engine: docker.DockerClient,
) -> None:
    name = f"animal-store-fail-fast-{uuid.uuid4().hex[:8]}"
    container = configure(
        AnimalStoreContainer(animal_store_image, startup_timeout=STARTUP_TIMEOUT_S).with_name(name), tmp_path
    )

    started = time.monotonic()
    with pytest.raises(AnimalStoreStartError, match=sandbox_message) as failure:
        container.start()
    assert time.monotonic() - started < FAIL_FAST_BOUND_S
    assert failure.value.exit_code != 0
    assert docker_engine.containers.list(all=True, filters={"name": name}) == [], "start() removed its container"


def test_a_missing_image_fails_at_once_naming_it_and_how_to_get_it(docker_engine: docker.DockerClient) -> None:
    image = "animal-store-sandbox:9.9.9-mistyped"
    started = time.monotonic()
    with pytest.raises(AnimalStoreImageMissingError, match=r"animal-store-sandbox:9\.9\.9-mistyped") as failure:
        AnimalStoreContainer(image).start()
    assert time.monotonic() - started < MISSING_IMAGE_BOUND_S
    assert "npm run image" in str(failure.value) and "docker load" in str(failure.value)
    assert docker_engine.containers.list(all=True, filters={"ancestor": image}) == [], "nothing was created"


def write_bad_fixtures(directory: Path) -> Path:
    fixtures = directory / "bad-pets.json"
    fixtures.write_text(json.dumps([{"id": 1, "name": "Bad", "categoryId": "one"}]))
    return fixtures
