"""The container: its start and health wait, its settings, and the starts that fail."""

import json
import re
import socket
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import docker
import pytest
import requests

from animal_store_testcontainers import (
    AnimalStoreContainer,
    AnimalStoreImageMissingError,
    AnimalStoreStartError,
    HealthWaitStrategy,
)
from animal_store_testcontainers.control_api.api.state import export_pets

FIXTURES = [
    {"id": 1, "name": "Fixture Fox", "categoryId": 1, "status": "available"},
    {"id": 2, "name": "Fixture Finch", "categoryId": 2, "status": "sold"},
]


def write_fixtures(directory: Path, name: str, pets: list[dict[str, object]]) -> Path:
    path = directory / name
    path.write_text(json.dumps(pets))
    return path


def test_start_waits_for_health_over_http(animal_store: AnimalStoreContainer) -> None:
    assert isinstance(animal_store._wait_strategy, HealthWaitStrategy)
    assert re.fullmatch(r"http://[^/]+:\d+/v1", animal_store.get_base_url())
    assert requests.get(f"{animal_store.get_origin()}/healthz").status_code == 200


def test_another_container_holding_the_ports_number_on_ipv6_is_not_dialled(
    docker_engine: docker.DockerClient, animal_store_image: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An engine may publish the sandbox's port under another number on IPv6 (moby/moby#42442)
    while another container holds the IPv4 binding's number on IPv6. Where localhost is ::1 first,
    the module's URLs still reach its own sandbox."""
    try:
        with socket.create_server(("::", 0), family=socket.AF_INET6, dualstack_ipv6=True) as probe:
            port = probe.getsockname()[1]  # free on both families
    except OSError as error:
        pytest.skip(f"no IPv6: {error}")
    other = docker_engine.containers.run(
        animal_store_image,
        detach=True,
        environment={"API_KEYS": "other-key", "DATA_FILE": ":memory:"},
        ports={"4010/tcp": ("::", port)},
    )
    try:
        container = AnimalStoreContainer(animal_store_image).with_in_memory()
        container.ports["4010"] = [("0.0.0.0", port), ("::", None)]  # type: ignore[assignment]  # docker's form
        with container:
            real_getaddrinfo = socket.getaddrinfo

            def ipv6_first(host: Any, *args: Any, **kwargs: Any) -> Any:
                found = real_getaddrinfo(host, *args, **kwargs)
                if host != "localhost":
                    return found
                ipv6 = real_getaddrinfo("::1", *args, **kwargs)
                return ipv6 + [address for address in found if address[0] != socket.AF_INET6]

            monkeypatch.setattr(socket, "getaddrinfo", ipv6_first)
            headers = {"Authorization": f"Bearer {container.get_api_key()}"}
            answer = requests.get(f"{container.get_base_url()}/pets", headers=headers, timeout=10)
            assert answer.status_code == 200, f"GET {container.get_base_url()}/pets (the other sandbox answers 401)"
    finally:
        other.remove(force=True)


@pytest.mark.usefixtures("docker_engine")
def test_settings_go_to_the_environment_as_given(tmp_path: Path) -> None:
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

    # Without them, a key and a token of this container's own: the published defaults open nothing.
    first, second = AnimalStoreContainer(), AnimalStoreContainer()
    assert len({first.get_api_key(), first.get_admin_token(), second.get_api_key(), second.get_admin_token()}) == 4


@pytest.mark.parametrize(
    ("configure", "pets"),
    [
        pytest.param(
            lambda c, tmp: c.with_fixtures(write_fixtures(tmp, "my-pets.json", FIXTURES)), FIXTURES, id="fixtures"
        ),
        pytest.param(lambda c, tmp: c.with_seed(1).with_seed_count(0), [], id="seed-count-0"),
    ],
)
def test_the_sandbox_starts_with_its_settings(
    configure: Callable[[AnimalStoreContainer, Path], AnimalStoreContainer],
    pets: list[dict[str, object]],
    tmp_path: Path,
    animal_store_image: str,
    docker_engine: object,
) -> None:
    with configure(AnimalStoreContainer(animal_store_image).with_in_memory(), tmp_path) as sandbox:
        assert [pet.to_dict() for pet in export_pets.sync(client=sandbox.get_control_client().api)] == pets


def test_a_refused_setting_fails_the_start_with_the_sandbox_line(
    animal_store_image: str, docker_engine: docker.DockerClient
) -> None:
    """The sandbox judges every setting, the fixtures too (its own tests hold each rule): one refused
    setting stands for all, and start() fails at its exit."""
    name = f"animal-store-fail-fast-{uuid.uuid4().hex[:8]}"
    container = AnimalStoreContainer(animal_store_image, startup_timeout=60).with_name(name).with_seed_count(1_000_001)
    refused = 'SEED_COUNT must be a whole number from 0 to 1000000, got "1000001"'
    with pytest.raises(AnimalStoreStartError, match=refused) as failure:
        container.start()
    assert failure.value.exit_code != 0
    assert docker_engine.containers.list(all=True, filters={"name": name}) == [], "start() removed its container"


def test_a_missing_image_fails_at_once_naming_it_and_how_to_get_it(docker_engine: docker.DockerClient) -> None:
    image = "animal-store-sandbox:9.9.9-mistyped"
    with pytest.raises(AnimalStoreImageMissingError, match=r"animal-store-sandbox:9\.9\.9-mistyped") as failure:
        AnimalStoreContainer(image).start()
    assert "npm run image" in str(failure.value) and "docker load" in str(failure.value)
    assert docker_engine.containers.list(all=True, filters={"ancestor": image}) == [], "nothing was created"
