"""The module follows the sandbox's version: its own, and the tag of its default image."""

import json
from importlib import metadata
from pathlib import Path

from animal_store_testcontainers import DEFAULT_IMAGE

# The sandbox's package, in the root of the repository this module lives in.
PACKAGE_JSON = (Path(__file__).resolve().parents[1] / "../../package.json").resolve()


def test_the_default_image_and_the_package_follow_the_projects_version() -> None:
    project_version = json.loads(PACKAGE_JSON.read_text())["version"]
    assert DEFAULT_IMAGE == f"animal-store-sandbox:{project_version}"
    assert metadata.version("animal-store-testcontainers") == project_version
