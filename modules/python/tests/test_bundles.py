"""``pytest --animal-store-bundles``, run in a pytest of its own: a failing test leaves its
namespace's bundle beside the JUnit report, a passing one leaves none, and the sandbox's
``replay`` replays that bundle to the same answers, the failing call's included."""

import json
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
CLI = ROOT / "dist" / "cli.js"

SUITE = """
import requests


def test_reads_a_pet_that_is_not_there(animal_store_namespace):
    api = animal_store_namespace
    created = requests.post(f"{api.api_base_url}/pets", json={"name": "Tortoise", "categoryId": 1}, headers=api.api_headers)
    assert created.status_code == 201
    assert requests.get(f"{api.api_base_url}/pets/999999", headers=api.api_headers).status_code == 200


def test_lists_pets(animal_store_namespace):
    api = animal_store_namespace
    assert requests.get(f"{api.api_base_url}/pets", headers=api.api_headers).status_code == 200
"""


@pytest.mark.parametrize("enabled", [True, False], ids=["on", "off"])
def test_a_failing_test_leaves_its_bundle_and_replay_reproduces_it(
    pytester: pytest.Pytester, docker_engine: object, enabled: bool
) -> None:
    pytester.makepyfile(test_suite=SUITE)
    reports = pytester.path / "reports"
    option = ["--animal-store-bundles"] if enabled else []
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", f"--junitxml={reports / 'junit.xml'}", *option, timeout=120
    )
    result.assert_outcomes(passed=1, failed=1)
    bundles = sorted(path.name for path in reports.glob("*.bundle.json"))
    if not enabled:
        assert bundles == []
        return
    assert bundles == ["test_suite.py__test_reads_a_pet_that_is_not_there.bundle.json"]
    result.stdout.fnmatch_lines(["*animal-store bundles of failing tests: 1*"])

    path = reports / bundles[0]
    bundle = json.loads(path.read_text())
    assert bundle["format"] == "animal-store-sandbox.bundle"
    assert bundle["namespace"].startswith("test_reads_a_pet_that_is_not_there-")
    calls = [(entry["operationId"], entry["status"]) for entry in bundle["journal"]["entries"]]
    assert calls == [("createPet", 201), ("getPet", 404)]

    assert CLI.exists(), "the replay needs the sandbox built: npm run build at the repository's root"
    replay = subprocess.run(
        ["node", str(CLI), "replay", str(path)], check=False, capture_output=True, text=True, timeout=120
    )
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert "Replayed 2 of 2 requests" in replay.stdout
