"""Settings are checked when they are given, before any container exists."""

import re
from pathlib import Path

import pytest

from animal_store_testcontainers import (
    DEFAULT_ADMIN_TOKEN,
    DEFAULT_API_KEY,
    AnimalStoreContainer,
)

# Constructing a DockerContainer already connects to the engine (to agree on the API version).
pytestmark = pytest.mark.usefixtures("docker_engine")


@pytest.fixture
def fixtures_file(tmp_path: Path) -> Path:
    path = tmp_path / "pets.json"
    path.write_text("[]")
    return path


def test_the_accessors_tell_what_the_sandbox_is_given() -> None:
    container = AnimalStoreContainer()
    assert container.get_api_key() == DEFAULT_API_KEY

    container.with_api_key("my-key").with_admin_token("my-admin.token=").with_seed(0).with_seed_count(5)
    assert (container.get_api_key(), container.get_admin_token()) == ("my-key", "my-admin.token=")
    assert {name: container.env[name] for name in ("API_KEYS", "ADMIN_TOKEN", "SEED", "SEED_COUNT")} == {
        "API_KEYS": "my-key",
        "ADMIN_TOKEN": "my-admin.token=",
        "SEED": "0",
        "SEED_COUNT": "5",
    }
    # A key set through the environment directly is still the one reported.
    assert AnimalStoreContainer().with_env("API_KEYS", " first , second").get_api_key() == "first"
    assert AnimalStoreContainer().with_in_memory().env["DATA_FILE"] == ":memory:"


def test_each_container_has_a_random_admin_token_of_its_own() -> None:
    # The published default would open nothing: the sandbox listens on every interface in the container.
    first, second = AnimalStoreContainer(), AnimalStoreContainer()
    assert re.fullmatch(r"[A-Za-z0-9_-]{32}", first.get_admin_token())
    assert first.get_admin_token() not in (DEFAULT_ADMIN_TOKEN, second.get_admin_token())
    assert first.env["ADMIN_TOKEN"] == first.get_admin_token()


@pytest.mark.parametrize("key", ["", "a,b", "has space", "ünïcode"])
def test_a_bad_api_key_is_refused(key: str) -> None:
    with pytest.raises(ValueError):
        AnimalStoreContainer().with_api_key(key)


@pytest.mark.parametrize("token", ["", "has space", "=leading", "a,b", DEFAULT_API_KEY])
def test_a_bad_admin_token_is_refused(token: str) -> None:
    with pytest.raises(ValueError):
        AnimalStoreContainer().with_admin_token(token)


def test_the_admin_token_must_differ_from_the_configured_key() -> None:
    with pytest.raises(ValueError, match="differ"):
        AnimalStoreContainer().with_api_key("shared").with_admin_token("shared")
    with pytest.raises(ValueError, match="differ"):
        AnimalStoreContainer().with_admin_token("shared").with_api_key("shared")


@pytest.mark.parametrize("seed", [1.5, True, "7"])
def test_a_seed_that_is_no_int_is_refused(seed: object) -> None:
    with pytest.raises(ValueError, match="seed must be an int"):
        AnimalStoreContainer().with_seed(seed)  # type: ignore[arg-type]


@pytest.mark.parametrize("count", [0, -3, 1_000_001])
def test_the_seed_count_range_is_the_sandboxs_rule(count: int) -> None:
    # No copy of the server's rule here: the sandbox takes 0, and refuses the others with its message.
    assert AnimalStoreContainer().with_seed_count(count).env["SEED_COUNT"] == str(count)


def test_fixtures_and_a_seed_exclude_each_other(fixtures_file: Path) -> None:
    with pytest.raises(ValueError, match="both choose the initial data"):
        AnimalStoreContainer().with_seed(3).with_fixtures(fixtures_file)
    with pytest.raises(ValueError, match="both choose the initial data"):
        AnimalStoreContainer().with_seed_count(3).with_fixtures(fixtures_file)
    with pytest.raises(ValueError, match="both choose the initial data"):
        AnimalStoreContainer().with_fixtures(fixtures_file).with_seed(3)
    with pytest.raises(ValueError, match="both choose the initial data"):
        AnimalStoreContainer().with_fixtures(fixtures_file).with_seed_count(3)


def test_a_missing_fixtures_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="does not exist"):
        AnimalStoreContainer().with_fixtures(tmp_path / "missing.json")
    with pytest.raises(ValueError, match="not a file"):
        AnimalStoreContainer().with_fixtures(tmp_path)


def test_the_fixtures_file_goes_to_the_fixtures_folder(fixtures_file: Path) -> None:
    assert AnimalStoreContainer().with_fixtures(fixtures_file).env["FIXTURES"] == "/fixtures/pets.json"
