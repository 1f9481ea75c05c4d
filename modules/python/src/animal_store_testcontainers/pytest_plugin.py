"""pytest fixtures for the Animal Store sandbox (the package's ``pytest11`` entry point): the
session's ``animal_store``, each test's ``animal_store_namespace``, and ``animal_store_container`` and
``animal_store_image`` to override. ``pytest --animal-store-bundles`` saves a failing test's bundle."""

import os
import re
import uuid
from collections.abc import Generator, Iterator

import pytest

from animal_store_testcontainers import bundles
from animal_store_testcontainers.container import DEFAULT_IMAGE, AnimalStoreContainer
from animal_store_testcontainers.control import ControlClient
from animal_store_testcontainers.control_api.api.namespaces import delete_namespace
from animal_store_testcontainers.control_api.api.state import reset

# Each phase's report of a test ("setup", "call", "teardown"), for its fixtures' teardown to read.
_REPORTS = pytest.StashKey[dict[str, pytest.TestReport]]()
# The bundles the run saved, for the summary at its end.
_SAVED = pytest.StashKey[list[str]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    bundles.add_option(parser)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    item.stash.setdefault(_REPORTS, {})[report.when] = report
    return report


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    saved = config.stash.get(_SAVED, [])
    if saved:
        terminalreporter.write_sep("-", f"animal-store bundles of failing tests: {len(saved)}")
        for path in saved:
            terminalreporter.write_line(path)


@pytest.fixture(scope="session")
def animal_store_image() -> str:
    return os.environ.get("ANIMAL_STORE_IMAGE") or DEFAULT_IMAGE


@pytest.fixture(scope="session")
def animal_store_container(animal_store_image: str) -> AnimalStoreContainer:
    return AnimalStoreContainer(animal_store_image)


@pytest.fixture(scope="session")
def animal_store(animal_store_container: AnimalStoreContainer) -> Iterator[AnimalStoreContainer]:
    with animal_store_container as sandbox:
        yield sandbox


@pytest.fixture
def animal_store_namespace(
    animal_store: AnimalStoreContainer, request: pytest.FixtureRequest
) -> Iterator[ControlClient]:
    # A reset brings the namespace into being (reads never create one); deleting it afterwards
    # frees its slot for the tests still to come.
    client = animal_store.get_control_client()
    namespace = client.namespace(namespace_for(request.node.name))
    reset.sync(client=namespace.api)
    yield namespace
    _save_bundle_on_failure(request, namespace)
    delete_namespace.sync(str(namespace.namespace_name), client=client.api)
    namespace.close()


def namespace_for(test_name: str) -> str:
    """A namespace name unique to one test, readable in listNamespaces: ``test_x-1a2b3c4d``."""
    readable = re.sub(r"[^A-Za-z0-9_.-]+", "-", test_name).lstrip("-._")[:50]
    return f"{readable or 'test'}-{uuid.uuid4().hex[:8]}"


def _save_bundle_on_failure(request: pytest.FixtureRequest, namespace: ControlClient) -> None:
    folder = bundles.folder(request.config)
    reports = request.node.stash.get(_REPORTS, {})
    if folder is None or not any(report.failed for report in reports.values()):
        return
    path = bundles.save_bundle(namespace, folder / bundles.file_name(request.node.nodeid))
    request.config.stash.setdefault(_SAVED, []).append(str(path))
