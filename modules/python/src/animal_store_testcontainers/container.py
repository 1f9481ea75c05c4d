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
    """Waits for ``GET /healthz`` to answer 200 (over HTTPS trusting the sandbox's CA alone under
    ``TLS=auto``), and gives up at the container's exit with its stderr, where testcontainers'
    HttpWaitStrategy would poll an exited container until its timeout."""

    def wait_until_ready(self, container: WaitStrategyTarget) -> None:
        wrapped = container.get_wrapped_container()
        deadline = time.monotonic() + self._startup_timeout
        last: Exception | str = "no answer"
        while time.monotonic() < deadline:
            wrapped.reload()
            if wrapped.status not in ("created", "running"):
                raise AnimalStoreStartError(wrapped.attrs["State"]["ExitCode"], _stderr_of_exited(container))
            try:
                ca = _tls_ca(container)
                trust = None if ca is None else ssl.create_default_context(cadata=ca)
                with urllib.request.urlopen(f"{_origin(container, ca)}/healthz", timeout=1, context=trust) as answer:
                    if answer.status == 200:
                        return
            except Exception as error:  # noqa: BLE001 (no port mapped, not listening or no CA written yet)
                last = error
            time.sleep(self._poll_interval)
        raise TimeoutError(f"The Animal Store sandbox was not healthy within {self._startup_timeout} s (last: {last})")


class AnimalStoreContainer(DockerContainer):
    """The Animal Store sandbox, ready when ``GET /healthz`` answers 200. Settings go to the
    container's environment as given; a value the sandbox refuses fails start() with its message."""

    def __init__(self, image: str = DEFAULT_IMAGE, *, startup_timeout: int = 30, **kwargs: Any) -> None:
        super().__init__(image, **kwargs)
        self.with_exposed_ports(ANIMAL_STORE_PORT)
        self.waiting_for(HealthWaitStrategy().with_startup_timeout(startup_timeout).with_poll_interval(0.1))
        self._control: ControlClient | None = None
        self._tls_dir: tempfile.TemporaryDirectory[str] | None = None
        # Each container brings its own key and control token, which the accessors read back.
        self.with_env("API_KEYS", secrets.token_urlsafe(24)).with_env("ADMIN_TOKEN", secrets.token_urlsafe(24))

    def with_seed(self, seed: int) -> Self:
        return self.with_env("SEED", str(seed))

    def with_seed_count(self, count: int) -> Self:
        return self.with_env("SEED_COUNT", str(count))

    def with_api_key(self, api_key: str) -> Self:
        return self.with_env("API_KEYS", api_key)

    def with_admin_token(self, token: str) -> Self:
        return self.with_env("ADMIN_TOKEN", token)

    def with_fixtures(self, path: str | Path) -> Self:
        """Loads the initial pets from this JSON file on the host, copied to ``/fixtures/<name>``."""
        source = Path(path).resolve()
        self.with_copy_into_container(source, f"/fixtures/{source.name}")
        return self.with_env("FIXTURES", f"/fixtures/{source.name}")

    def with_in_memory(self) -> Self:
        return self.with_env("DATA_FILE", ":memory:")

    def with_tls(self) -> Self:
        """Serves HTTPS (and HTTP/2) with a CA made at start; get_tls_ca() gives that CA."""
        return self.with_env("TLS", "auto").with_env("TLS_CA_OUT", TLS_CA_PATH)

    def _configure(self) -> None:
        # The certificate of TLS=auto names localhost and its addresses; the host this module dials
        # (a remote engine's, or the gateway from inside a container) is named too.
        host = self._host_to_dial() if self.env.get("TLS") == "auto" else None
        if host is not None:
            names = [name for name in self.env.get("TLS_NAMES", "").split(",") if name]
            self.with_env("TLS_NAMES", ",".join(dict.fromkeys([*names, host])))

    def _host_to_dial(self) -> str | None:
        """get_container_host_ip() before the container runs; None for its own address (bridge_ip)."""
        client = self.get_docker_client()
        mode = client.get_connection_mode()
        if mode is ConnectionMode.docker_host:
            return client.host()
        if mode is ConnectionMode.gateway_ip:
            network = client.client.networks.get(self._network.name if self._network else "bridge")
            return _gateway(network.attrs["IPAM"]["Config"] or [])
        return None

    def start(self) -> Self:
        engine = self.get_docker_client().client
        try:
            engine.images.get(self.image)
        except docker.errors.ImageNotFound:
            try:
                engine.images.pull(self.image)
            except docker.errors.APIError as error:
                why = str(error.explanation or error).strip().splitlines()[0]
                raise AnimalStoreImageMissingError(self.image, why) from error
        try:
            super().start()
        except BaseException:
            # DockerContainer.start() leaves a container that failed to become ready behind.
            if self._container is not None:
                with contextlib.suppress(docker.errors.NotFound):
                    self._container.remove(force=True, v=True)
                self._container = None
            raise
        ca, ca_file = _tls_ca(self), None
        if ca is not None:  # the CA alone in a file of its own, for verify=; removed at stop()
            self._tls_dir = tempfile.TemporaryDirectory(prefix="animal-store-tls-")
            ca_file = str(Path(self._tls_dir.name) / "ca.pem")
            Path(ca_file).write_bytes(ca.encode())
        origin = _origin(self, ca)
        self._control = ControlClient(origin, self.get_admin_token(), api_key=self.get_api_key(), ca_file=ca_file)
        return self

    def stop(self, force: bool = True, delete_volume: bool = True) -> None:
        if self._control is not None:
            self._control.close()
        if self._tls_dir is not None:
            self._tls_dir.cleanup()
        self._control, self._tls_dir = None, None
        super().stop(force, delete_volume)

    def get_origin(self) -> str:
        """The sandbox's address on the host, e.g. ``http://localhost:32768``; /healthz is there."""
        return self.get_control_client().origin

    def get_base_url(self) -> str:
        """The API's base URL, e.g. ``http://localhost:32768/v1``."""
        return self.get_origin() + API_BASE_PATH

    def get_api_key(self) -> str:
        return self.env["API_KEYS"]

    def get_admin_token(self) -> str:
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
    """The gateway of a network with this IPAM configuration: the one listed, else (an engine that
    made its bridge itself, as Docker 20.10's `bridge`) the subnet's first address, as Docker gives it."""
    listed = [config["Gateway"] for config in ipam if config.get("Gateway")]
    subnets = [ipaddress.ip_network(config["Subnet"]) for config in ipam if config.get("Subnet")]
    firsts = [str(next(subnet.hosts())) for subnet in subnets if subnet.version == 4]
    return next(iter(listed + firsts), None)


def _origin(container: WaitStrategyTarget, ca: str | None) -> str:
    """Where the sandbox is published. An engine may publish a port under one number on IPv4 and
    another on IPv6 (moby/moby#42442), and list either first; and localhost may resolve to ::1 first,
    where another container can hold the IPv4 binding's number. So the binding dialled is of the
    host's family, IPv4 unless the host is an IPv6 address, and localhost is dialled at 127.0.0.1."""
    scheme = "http" if ca is None else "https"
    host, port = container.get_container_host_ip(), container.get_exposed_port(ANIMAL_STORE_PORT)
    wrapped = container.get_wrapped_container()
    wrapped.reload()
    bindings = (wrapped.attrs["NetworkSettings"]["Ports"] or {}).get(f"{ANIMAL_STORE_PORT}/tcp") or []
    if str(port) in (binding["HostPort"] for binding in bindings):  # a published port, not the container's own
        host = "127.0.0.1" if host == "localhost" else host
        ipv6 = _ip_version(host) == 6
        family = (int(b["HostPort"]) for b in bindings if not b["HostIp"] or (_ip_version(b["HostIp"]) == 6) == ipv6)
        port = next(family, port)
        host = f"[{host}]" if ipv6 else host
    return f"{scheme}://{host}:{port}"


def _ip_version(host: str) -> int | None:
    """4 or 6 for an IP address, None for a name."""
    try:
        return ipaddress.ip_address(host).version
    except ValueError:
        return None


def _tls_ca(container: WaitStrategyTarget) -> str | None:
    """The PEM of the CA a sandbox under TLS=auto made, copied out of the container from its
    TLS_CA_OUT (given or the image's); None over plain HTTP. docker.errors.NotFound until written."""
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
    for _ in range(20):
        stderr = container.get_logs()[1].decode(errors="replace").strip()
        if stderr:
            return stderr
        time.sleep(0.05)
    return "(nothing on stderr)"
