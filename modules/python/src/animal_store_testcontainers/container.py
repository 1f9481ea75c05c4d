"""The Animal Store sandbox as a Testcontainers container."""

import contextlib
import re
import secrets
import time
from pathlib import Path
from typing import Any, Optional, Union

import docker.errors
import requests
from testcontainers.core.container import DockerContainer
from testcontainers.core.exceptions import ContainerStartException
from testcontainers.core.waiting_utils import WaitStrategy, WaitStrategyTarget
from typing_extensions import Self

from animal_store_testcontainers.control import (
    API_BASE_PATH,
    DEFAULT_API_KEY,
    ControlClient,
)

# The image of this version of the sandbox.
DEFAULT_IMAGE = "animal-store-sandbox:0.1.0"
ANIMAL_STORE_PORT = 4010
HEALTH_PATH = "/healthz"
# Where with_fixtures() puts the file inside the container.
FIXTURES_DIR = "/fixtures"
# What a bearer token can carry (RFC 6750 token68): the sandbox's rule for keys and tokens.
TOKEN68 = re.compile(r"[A-Za-z0-9\-._~+/]+=*")


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
    sandbox exits at once on a bad setting, and its stderr then says which.
    """

    def __init__(self, port: int = ANIMAL_STORE_PORT, path: str = HEALTH_PATH) -> None:
        super().__init__()
        self._port = port
        self._path = path

    def wait_until_ready(self, container: WaitStrategyTarget) -> None:
        wrapped = container.get_wrapped_container()
        deadline = time.monotonic() + self._startup_timeout
        url: Optional[str] = None
        last_problem = "the container has not started yet"
        while True:
            wrapped.reload()
            if wrapped.status not in ("created", "running"):
                raise AnimalStoreStartError(wrapped.attrs["State"]["ExitCode"], _stderr_of_exited(container))
            try:
                url = url or self._health_url(container)
                status = requests.get(url, timeout=1).status_code
                if status == 200:
                    return
                last_problem = f"GET {url} answered {status}"
            except Exception as problem:  # noqa: BLE001
                # Not ready yet (no port mapped, refused, reset): the loop is bounded, and checks
                # for an exit first.
                last_problem = f"{type(problem).__name__}: {problem}"
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"The Animal Store sandbox was not healthy within {self._startup_timeout} s ({last_problem})"
                )
            time.sleep(self._poll_interval)

    def _health_url(self, container: WaitStrategyTarget) -> str:
        return f"http://{container.get_container_host_ip()}:{container.get_exposed_port(self._port)}{self._path}"


class AnimalStoreContainer(DockerContainer):
    """The Animal Store sandbox, ready when ``GET /healthz`` answers 200.

    Example::

        with AnimalStoreContainer().with_seed(7) as sandbox:
            requests.get(f"{sandbox.get_base_url()}/pets",
                         headers={"Authorization": f"Bearer {sandbox.get_api_key()}"})
            sandbox.get_control_client().reset()

    Settings are checked when they are given (ValueError). The settings' single home is the
    container's environment, so the accessors tell what the sandbox was given.
    """

    def __init__(self, image: str = DEFAULT_IMAGE, *, startup_timeout: int = 30, **kwargs: Any) -> None:
        super().__init__(image, **kwargs)
        self.with_exposed_ports(ANIMAL_STORE_PORT)
        self.waiting_for(HealthWaitStrategy().with_startup_timeout(startup_timeout).with_poll_interval(0.1))
        self._origin: Optional[str] = None
        self._control: Optional[ControlClient] = None
        # The sandbox listens on every interface in the container, where it turns its control API
        # off rather than open it with the published default token: each container brings its own.
        self.with_env("ADMIN_TOKEN", secrets.token_urlsafe(24))

    # --- settings --------------------------------------------------------------------------

    def with_seed(self, seed: int) -> Self:
        """Generates the initial pets from ``seed`` (SEED): the same seed gives the same pets."""
        self._reject_with_fixtures("with_seed()")
        return self.with_env("SEED", str(_integer("seed", seed)))

    def with_seed_count(self, count: int) -> Self:
        """How many pets the seed generates (SEED_COUNT); the sandbox's rules decide what it takes."""
        self._reject_with_fixtures("with_seed_count()")
        return self.with_env("SEED_COUNT", str(_integer("seed count", count)))

    def with_api_key(self, api_key: str) -> Self:
        """The key API calls must send as ``Authorization: Bearer <key>`` (API_KEYS)."""
        if api_key == "" or "," in api_key:
            raise ValueError("an API key must be non-empty and hold no comma")
        _check_token("API key", api_key)
        if api_key == self.get_admin_token():
            raise ValueError("the API key must differ from the admin token")
        return self.with_env("API_KEYS", api_key)

    def with_admin_token(self, token: str) -> Self:
        """The bearer token of the control API (ADMIN_TOKEN), instead of the random one generated."""
        _check_token("admin token", token)
        if token in self._api_keys():
            raise ValueError("the admin token must differ from every API key")
        return self.with_env("ADMIN_TOKEN", token)

    def with_fixtures(self, path: Union[str, Path]) -> Self:
        """Loads the initial pets from this JSON file on the host (FIXTURES), copied into the container."""
        source = Path(path)
        if not source.is_file():
            raise ValueError(f"fixtures file {str(path)!r} does not exist or is not a file")
        if "SEED" in self.env or "SEED_COUNT" in self.env:
            raise ValueError("with_fixtures() and with_seed()/with_seed_count() both choose the initial data: use one")
        target = f"{FIXTURES_DIR}/{source.name}"
        if hasattr(self, "with_copy_into_container"):
            self.with_copy_into_container(source.resolve(), target)
        else:
            # testcontainers before 4.15 (the line Python 3.9 gets) cannot copy files in.
            self.with_volume_mapping(source.resolve(), target, "ro")
        return self.with_env("FIXTURES", target)

    def with_in_memory(self) -> Self:
        """Keeps the data in memory (DATA_FILE=:memory:) rather than on the container's /data volume."""
        return self.with_env("DATA_FILE", ":memory:")

    # --- lifecycle -------------------------------------------------------------------------

    def start(self) -> Self:
        self._require_image()
        try:
            super().start()
        except BaseException:
            # DockerContainer.start() leaves a container that failed to become ready behind.
            self._remove_container()
            raise
        self._origin = f"http://{self.get_container_host_ip()}:{self.get_exposed_port(ANIMAL_STORE_PORT)}"
        self._control = ControlClient(self._origin, self.get_admin_token(), api_key=self.get_api_key())
        return self

    def stop(self, force: bool = True, delete_volume: bool = True) -> None:
        if self._control is not None:
            self._control.close()
        self._control = None
        self._origin = None
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

    # --- accessors -------------------------------------------------------------------------

    def get_origin(self) -> str:
        """The sandbox's address on the host, e.g. ``http://localhost:32768``; /healthz is there."""
        if self._origin is None:
            raise ContainerStartException("the Animal Store sandbox is not started")
        return self._origin

    def get_base_url(self) -> str:
        """The API's base URL, e.g. ``http://localhost:32768/v1``, ready for ``f"{base}/pets"``."""
        return self.get_origin() + API_BASE_PATH

    def get_api_key(self) -> str:
        """The key to send as ``Authorization: Bearer <key>``: the first configured, else the default."""
        return self._api_keys()[0]

    def get_admin_token(self) -> str:
        """The control API's token: the one given, else the random one this container generated."""
        return self.env["ADMIN_TOKEN"]

    def get_control_client(self) -> ControlClient:
        """The client of the control API, on the default namespace; ``.namespace(name)`` for another."""
        if self._control is None:
            raise ContainerStartException("the Animal Store sandbox is not started")
        return self._control

    def _api_keys(self) -> list[str]:
        # As the sandbox reads API_KEYS: comma-separated, trimmed, empty means the default key.
        keys = [key.strip() for key in self.env.get("API_KEYS", "").split(",") if key.strip()]
        return keys or [DEFAULT_API_KEY]

    def _reject_with_fixtures(self, setting: str) -> None:
        if "FIXTURES" in self.env:
            raise ValueError(f"with_fixtures() and {setting} both choose the initial data: use one")


def _integer(what: str, value: int) -> int:
    # Only the type: the range is the sandbox's rule, and its message the error (AnimalStoreStartError).
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"the {what} must be an int, got {value!r}")
    return value


def _check_token(what: str, value: str) -> None:
    # The value is a secret: the message does not repeat it.
    if not TOKEN68.fullmatch(value):
        raise ValueError(f"the {what} has characters a bearer token cannot carry (letters, digits, -._~+/ then =)")


def _stderr_of_exited(container: WaitStrategyTarget) -> str:
    """The exited container's stderr; the engine may still be copying the last lines."""
    stderr = ""
    for _ in range(20):
        stderr = container.get_logs()[1].decode(errors="replace").strip()
        if stderr:
            break
        time.sleep(0.05)
    return stderr or "(nothing on stderr)"
