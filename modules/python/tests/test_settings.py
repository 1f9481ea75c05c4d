"""Settings go to the container's environment as given: the sandbox, not the module, judges them."""

from pathlib import Path

import pytest

from animal_store_testcontainers import AnimalStoreContainer

# Constructing a DockerContainer already connects to the engine (to agree on the API version).
pytestmark = pytest.mark.usefixtures("docker_engine")


def test_the_accessors_tell_what_the_sandbox_is_given(tmp_path: Path) -> None:
    container = AnimalStoreContainer().with_api_key("my-key").with_admin_token("my-admin.token=")
    container.with_seed(0).with_seed_count(0).with_in_memory().with_fixtures(tmp_path / "pets.json")
    assert (container.get_api_key(), container.get_admin_token()) == ("my-key", "my-admin.token=")
    assert {name: container.env[name] for name in ("API_KEYS", "ADMIN_TOKEN", "SEED", "SEED_COUNT")} == {
        "API_KEYS": "my-key",
        "ADMIN_TOKEN": "my-admin.token=",
        "SEED": "0",
        "SEED_COUNT": "0",
    }
    assert (container.env["DATA_FILE"], container.env["FIXTURES"]) == (":memory:", "/fixtures/pets.json")


def test_each_container_has_a_random_key_and_admin_token_of_its_own() -> None:
    # The published defaults would open nothing: the sandbox listens on every interface in the container.
    first, second = AnimalStoreContainer(), AnimalStoreContainer()
    assert len({first.get_api_key(), first.get_admin_token(), second.get_api_key(), second.get_admin_token()}) == 4
    assert (first.env["API_KEYS"], first.env["ADMIN_TOKEN"]) == (first.get_api_key(), first.get_admin_token())
