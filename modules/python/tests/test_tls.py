"""HTTPS with verification on: the sandbox's certificate is trusted through the CA it made, alone."""

import ssl
import urllib.request
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
import requests
from testcontainers.core.config import testcontainers_config
from testcontainers.core.exceptions import ContainerStartException
from testcontainers.core.wait_strategies import LogMessageWaitStrategy

from animal_store_testcontainers import AnimalStoreContainer, ControlClient
from animal_store_testcontainers.control_api.api.state import export_pets, reset
from animal_store_testcontainers.control_api.api.tls import get_tls_ca


@pytest.mark.parametrize(
    "turn_on",
    [
        pytest.param(AnimalStoreContainer.with_tls, id="with_tls"),
        # TLS=auto alone: the CA is read where the image's TLS_CA_OUT says.
        pytest.param(lambda container: container.with_env("TLS", "auto"), id="TLS=auto"),
    ],
)
def test_https_is_trusted_through_the_sandbox_ca_and_nothing_else(
    turn_on: Callable[[AnimalStoreContainer], AnimalStoreContainer], animal_store_image: str, docker_engine: object
) -> None:
    with turn_on(AnimalStoreContainer(animal_store_image).with_in_memory().with_seed_count(2)) as sandbox:
        base_url, ca_file = sandbox.get_base_url(), sandbox.get_tls_ca_file()
        headers = {"Authorization": f"Bearer {sandbox.get_api_key()}"}
        assert base_url.startswith("https://") and sandbox.get_tls_ca().startswith("-----BEGIN CERTIFICATE-----")

        # The default trust does not know the sandbox's CA: verification refuses its certificate.
        with pytest.raises(requests.exceptions.SSLError, match="CERTIFICATE_VERIFY_FAILED"):
            requests.get(f"{base_url}/pets", headers=headers)
        untrusting = ControlClient(sandbox.get_origin(), sandbox.get_admin_token(), api_key=sandbox.get_api_key())
        with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            export_pets.sync(client=untrusting.api)

        # Trusting it, each way: requests' verify=, the standard library's ssl context, the control client.
        assert len(requests.get(f"{base_url}/pets", headers=headers, verify=ca_file).json()) == 2
        trust = ssl.create_default_context(cadata=sandbox.get_tls_ca())
        with urllib.request.urlopen(
            urllib.request.Request(f"{base_url}/pets", headers=headers), context=trust
        ) as answer:
            assert (answer.status, answer.version) == (200, 11), "HTTP/1.1: the standard library speaks no HTTP/2"
        over_https = get_tls_ca.sync(client=sandbox.get_control_client().api)
        assert over_https == sandbox.get_tls_ca(), "the CA over HTTPS is the one copied"
        api = sandbox.get_control_client().namespace("tls")
        assert reset.sync(client=api.api).pets == 2
        assert len(requests.get(f"{api.api_base_url}/pets", headers=api.api_headers, verify=api.ca_file).json()) == 2
    assert not Path(ca_file).exists(), "stop() removed the CA's file"


def test_the_certificate_names_the_host_start_dials(
    animal_store_image: str, docker_engine: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without TESTCONTAINERS_HOST_OVERRIDE, as a team's CI runs: inside a container (a /.dockerenv),
    # testcontainers dials the gateway of the container's network, which an engine's `bridge` may not
    # list before the container runs. A wait on the log dials nothing, so a host this machine cannot
    # reach still gets its answer here.
    monkeypatch.setattr(testcontainers_config, "tc_host_override", None)
    container = AnimalStoreContainer(animal_store_image).with_in_memory().with_tls()
    with container.waiting_for(LogMessageWaitStrategy("listening")) as sandbox:
        env = dict(item.split("=", 1) for item in sandbox.get_wrapped_container().attrs["Config"]["Env"])
        names = {"localhost", "127.0.0.1", "::1", *env.get("TLS_NAMES", "").split(",")}
        assert sandbox.get_container_host_ip() in names


def test_a_plain_sandbox_has_no_ca(animal_store: AnimalStoreContainer) -> None:
    assert animal_store.get_control_client().ca_file is None
    with pytest.raises(ContainerStartException, match="with_tls"):
        animal_store.get_tls_ca()
