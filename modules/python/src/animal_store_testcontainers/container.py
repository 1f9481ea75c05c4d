"""The Animal Store sandbox as a Testcontainers container."""

import contextlib
import io
import ipaddress
import secrets
import ssl
import tarfile
import tempfile
import time
import urllib.request
from importlib import metadata
from pathlib import Path
from typing import Any

import docker.errors
from testcontainers.core.config import ConnectionMode
from testcontainers.core.container import DockerContainer
from testcontainers.core.exceptions import ContainerStartException
from testcontainers.core.waiting_utils import WaitStrategy, WaitStrategyTarget
from typing_extensions import Self

from animal_store_testcontainers.control import API_BASE_PATH, ControlClient

# The image of this package's version: a release publishes both under one version.
DEFAULT_IMAGE = f"animal-store-sandbox:{metadata.version('animal-store-testcontainers')}"
ANIMAL_STORE_PORT = 4010
# Where with_fixtures() puts the file inside the container.
FIXTURES_DIR = "/fixtures"
# Where the sandbox of with_tls() writes the CA it makes at start (TLS_CA_OUT), as the image does.
TLS_CA_PATH = "/tmp/animal-store-ca.pem"


class AnimalStoreStartError(ContainerStartException):
    """The sandbox exited before it was ready, most often over a bad setting; ``stderr`` says why."""

    def __init__(self, exit_code: int, stderr: str) -> None:
        super().__init__(f"The Animal Store sandbox exited with code {exit_code} before it was ready: {stderr}")
        self.exit_code = exit_code
        self.stderr = stderr


class AnimalStoreImageMissingError(ContainerStartException):
    """The image is neither on the Docker engine nor pullable; the message says how to get it."""

    def __init__(self, image: str, why: str) -> None:
        super().__init__(
            f"The Animal Store sandbox did not start: the image {image} is not on this Docker engine, and pulling"
            f" it failed ({why}). Build it in the sandbox's repository with `npm run image` (it tags the image"
            " :local and with the package's version), or load a saved one with `docker load -i <file>`; or pass"
            " another image to AnimalStoreContainer()."
        )
        self.image = image


class HealthWaitStrategy(WaitStrategy):
    """Waits for ``GET /healthz`` to answer 200, and gives up as soon as the container exits.

    testcontainers' HttpWaitStrategy would poll an exited container until its timeout; the
    sandbox exits at once on a bad setting, and its stderr then says which. A sandbox started with
    ``TLS=auto`` is asked over HTTPS, trusting the CA it wrote to ``TLS_CA_OUT`` and nothing else.
    """

    def wait_until_ready(self, container: WaitStrategyTarget) -> None:
        wrapped = container.get_wrapped_container()
        deadline = time.monotonic() + self._startup_timeout
        last: Exception | str = "no answer"
        while time.monotonic() < deadline:
            wrapped.reload()
            if wrapped.status not in ("created", "running"):
                raise AnimalStoreStartError(wrapped.attrs["State"]["ExitCode"], _stderr_of_exited(container))
            try:
                if _healthy(container):
                    return
            except Exception as error:  # noqa: BLE001 (no port mapped yet, not listening yet, or no CA written yet)
                last = error
            time.sleep(self._poll_interval)
        raise TimeoutError(f"The Animal Store sandbox was not healthy within {self._startup_timeout} s (last: {last})")


class AnimalStoreContainer(DockerContainer):
    """The Animal Store sandbox, ready when ``GET /healthz`` answers 200.

    Example::

        with AnimalStoreContainer().with_seed(7) as sandbox:
            requests.get(f"{sandbox.get_base_url()}/pets",
                         headers={"Authorization": f"Bearer {sandbox.get_api_key()}"})
            reset.sync(client=sandbox.get_control_client().api)  # control_api.api.state.reset

    Settings go to the container's environment as they are given; the sandbox checks them when it
    starts, and a value it refuses fails start() with its message (AnimalStoreStartError).
    """

    def __init__(self, image: str = DEFAULT_IMAGE, *, startup_timeout: int = 30, **kwargs: Any) -> None:
        super().__init__(image, **kwargs)
        self.with_exposed_ports(ANIMAL_STORE_PORT)
        self.waiting_for(HealthWaitStrategy().with_startup_timeout(startup_timeout).with_poll_interval(0.1))
        self._control: ControlClient | None = None
        self._tls_dir: tempfile.TemporaryDirectory[str] | None = None
        # Each container brings its own key and control token, which the accessors read back.
        self.with_env("API_KEYS", secrets.token_urlsafe(24))
        self.with_env("ADMIN_TOKEN", secrets.token_urlsafe(24))

    def with_seed(self, seed: int) -> Self:
        """Generates the initial pets from ``seed`` (SEED): the same seed gives the same pets."""
        return self.with_env("SEED", str(seed))

    def with_seed_count(self, count: int) -> Self:
        """How many pets the seed generates (SEED_COUNT)."""
        return self.with_env("SEED_COUNT", str(count))

    def with_api_key(self, api_key: str) -> Self:
        """The key API calls must send as ``Authorization: Bearer <key>`` (API_KEYS)."""
        return self.with_env("API_KEYS", api_key)

    def with_admin_token(self, token: str) -> Self:
        """The bearer token of the control API (ADMIN_TOKEN), instead of the random one generated."""
        return self.with_env("ADMIN_TOKEN", token)

    def with_fixtures(self, path: str | Path) -> Self:
        """Loads the initial pets from this JSON file on the host (FIXTURES), copied into the container."""
        source = Path(path).resolve()
        target = f"{FIXTURES_DIR}/{source.name}"
        self.with_copy_into_container(source, target)
        return self.with_env("FIXTURES", target)

    def with_in_memory(self) -> Self:
        """Keeps the data in memory (DATA_FILE=:memory:) rather than on the container's /data volume."""
        return self.with_env("DATA_FILE", ":memory:")

    def with_tls(self) -> Self:
        """Serves HTTPS (and HTTP/2) with a CA made at start (TLS=auto); get_tls_ca() gives that CA."""
        return self.with_env("TLS", "auto").with_env("TLS_CA_OUT", TLS_CA_PATH)

    def _configure(self) -> None:
        # The certificate of TLS=auto names localhost and its addresses; this module may dial another
        # (a remote engine, or the engine's gateway from inside a container), which it names too.
        host = self._host_to_dial() if self.env.get("TLS") == "auto" else None
        if host is not None:
            names = [name for name in self.env.get("TLS_NAMES", "").split(",") if name]
            self.with_env("TLS_NAMES", ",".join(dict.fromkeys([*names, host])))

    def _host_to_dial(self) -> str | None:
        """What get_container_host_ip() will give once the container runs, where it is known before:
        the engine's host, or the gateway of the container's network; None for the container's own
        address (bridge_ip), which it gets only when it starts."""
        client = self.get_docker_client()
        mode = client.get_connection_mode()
        if mode is ConnectionMode.docker_host:
            return client.host()
        if mode is ConnectionMode.gateway_ip:
            network = client.client.networks.get(self._network.name if self._network else "bridge")
            return _gateway(network.attrs["IPAM"]["Config"] or [])
        return None

    def start(self) -> Self:
        self._require_image()
        try:
            super().start()
        except BaseException:
            # DockerContainer.start() leaves a container that failed to become ready behind.
            self._remove_container()
            raise
        ca = _tls_ca(self)
        ca_file = None
        if ca is not None:
            # The CA alone in a file of its own, for verify=; removed at stop().
            self._tls_dir = tempfile.TemporaryDirectory(prefix="animal-store-tls-")
            ca_file = str(Path(self._tls_dir.name) / "ca.pem")
            Path(ca_file).write_bytes(ca.encode())
        origin = _origin(self, ca)
        self._control = ControlClient(origin, self.get_admin_token(), api_key=self.get_api_key(), ca_file=ca_file)
        return self

    def stop(self, force: bool = True, delete_volume: bool = True) -> None:
        if self._control is not None:
            self._control.close()
        self._control = None
        if self._tls_dir is not None:
            self._tls_dir.cleanup()
        self._tls_dir = None
        super().stop(force, delete_volume)

    def _require_image(self) -> None:
        """Uses the engine's image, or pulls it once; a failed pull raises at once with what to do."""
        engine = self.get_docker_client().client
        try:
            engine.images.get(self.image)
        except docker.errors.ImageNotFound:
            try:
                engine.images.pull(self.image)
            except docker.errors.APIError as error:
                why = str(error.explanation or error).strip().splitlines()[0]
                raise AnimalStoreImageMissingError(self.image, why) from error

    def _remove_container(self) -> None:
        if self._container is not None:
            with contextlib.suppress(docker.errors.NotFound):
                self._container.remove(force=True, v=True)
            self._container = None

    def get_origin(self) -> str:
        """The sandbox's address on the host, e.g. ``http://localhost:32768``; /healthz is there."""
        return self.get_control_client().origin

    def get_base_url(self) -> str:
        """The API's base URL, e.g. ``http://localhost:32768/v1``, ready for ``f"{base}/pets"``."""
        return self.get_origin() + API_BASE_PATH

    def get_api_key(self) -> str:
        """The key to send as ``Authorization: Bearer <key>``: the one given, else the one generated."""
        return self.env["API_KEYS"]

    def get_admin_token(self) -> str:
        """The control API's token: the one given, else the one generated."""
        return self.env["ADMIN_TOKEN"]

    def get_tls_ca(self) -> str:
        """The PEM of the CA the sandbox made at start (with_tls()): trust it, and nothing else."""
        return Path(self.get_tls_ca_file()).read_bytes().decode()  # as written: PEM lines end in CRLF

    def get_tls_ca_file(self) -> str:
        """A file on the host holding the CA alone, for ``verify=`` (requests) or ``cafile=`` (ssl)."""
        ca_file = self.get_control_client().ca_file
        if ca_file is None:
            raise ContainerStartException("the Animal Store sandbox serves plain HTTP: with_tls() turns HTTPS on")
        return ca_file

    def get_control_client(self) -> ControlClient:
        """The client of the control API, on the default namespace; ``.namespace(name)`` for another."""
        if self._control is None:
            raise ContainerStartException("the Animal Store sandbox is not started")
        return self._control


def _gateway(ipam: list[dict[str, str]]) -> str | None:
    """The gateway a container on a network with this IPAM configuration gets. An engine that made
    its bridge itself lists no gateway (Docker 20.10's default `bridge`): its containers' gateway is
    then the subnet's first address, as Docker's address allocator gives it."""
    for config in ipam:
        if config.get("Gateway"):
            return config["Gateway"]
    for config in ipam:
        subnet = ipaddress.ip_network(config["Subnet"]) if config.get("Subnet") else None
        if subnet is not None and subnet.version == 4:
            return str(next(subnet.hosts()))
    return None


def _origin(container: WaitStrategyTarget, ca: str | None) -> str:
    scheme = "http" if ca is None else "https"
    return f"{scheme}://{container.get_container_host_ip()}:{container.get_exposed_port(ANIMAL_STORE_PORT)}"


def _healthy(container: WaitStrategyTarget) -> bool:
    ca = _tls_ca(container)
    trust = None if ca is None else ssl.create_default_context(cadata=ca)
    with urllib.request.urlopen(f"{_origin(container, ca)}/healthz", timeout=1, context=trust) as response:
        return response.status == 200


def _tls_ca(container: WaitStrategyTarget) -> str | None:
    """The PEM of the CA a sandbox started with TLS=auto made, copied out of the container from
    TLS_CA_OUT (given or the image's, read from the container's own environment); None when the
    sandbox serves plain HTTP. Raises docker.errors.NotFound until the sandbox has written it."""
    wrapped = container.get_wrapped_container()
    env = dict(item.split("=", 1) for item in wrapped.attrs["Config"]["Env"])
    path = env.get("TLS_CA_OUT")
    if env.get("TLS") != "auto" or path is None:
        return None
    chunks, _ = wrapped.get_archive(path)
    with tarfile.open(fileobj=io.BytesIO(b"".join(chunks))) as archive:
        file = archive.extractfile(Path(path).name)
        if file is None:
            raise FileNotFoundError(f"{path} in the container is not a file")
        return file.read().decode()


def _stderr_of_exited(container: WaitStrategyTarget) -> str:
    """The exited container's stderr; the engine may still be copying the last lines."""
    stderr = ""
    for _ in range(20):
        stderr = container.get_logs()[1].decode(errors="replace").strip()
        if stderr:
            break
        time.sleep(0.05)
    return stderr or "(nothing on stderr)"
