"""A failing test's bundle (docs/bundle.md), saved where the run keeps its reports.

``pytest --animal-store-bundles`` turns it on: when a test that used ``animal_store_namespace``
fails, the plugin saves ``GET /__admin/bundle`` of that test's namespace before deleting it, as
``<nodeid>.bundle.json`` in the folder of ``--junitxml`` when given, else ``test-results/`` under
pytest's rootdir; ``--animal-store-bundles=DIR`` names another folder.
"""

import re
from pathlib import Path

import pytest

from animal_store_testcontainers.control import ControlClient
from animal_store_testcontainers.control_api.api.faults import get_bundle

OPTION = "--animal-store-bundles"
# The folder, relative to the rootdir, when the run writes no JUnit report.
DEFAULT_FOLDER = "test-results"
# The value of the bare option: the folder is then chosen from the run's reports.
_AUTO = "auto"
# What a test's node id may keep in a file name; the rest becomes "_".
_UNSAFE = re.compile(r"[^A-Za-z0-9_.\[\]=-]+")


def add_option(parser: pytest.Parser) -> None:
    parser.getgroup("animal_store").addoption(
        OPTION,
        nargs="?",
        const=_AUTO,
        default=None,
        metavar="DIR",
        help="save the bundle of each failing test's sandbox namespace, as <nodeid>.bundle.json, in DIR "
        f"(default: the folder of --junitxml, else {DEFAULT_FOLDER}/ under the rootdir)",
    )


def folder(config: pytest.Config) -> Path | None:
    """Where bundles go, or None when the run does not save them."""
    chosen = config.getoption(OPTION)
    if chosen is None:
        return None
    if chosen != _AUTO:
        return Path(chosen).resolve()
    junitxml = config.getoption("xmlpath", None)
    if junitxml:
        return Path(junitxml).resolve().parent
    return config.rootpath / DEFAULT_FOLDER


def file_name(nodeid: str) -> str:
    """``tests/test_pets.py::test_x[a]`` gives ``tests_test_pets.py__test_x[a].bundle.json``."""
    return _UNSAFE.sub("_", nodeid.replace("::", "__")).strip("_.") + ".bundle.json"


def save_bundle(namespace: ControlClient, path: Path) -> Path:
    """Writes the namespace's bundle to ``path`` as the sandbox sent it (secrets already cut)."""
    answer = get_bundle.sync_detailed(client=namespace.api)  # a refusal has raised
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(answer.content)
    return path
