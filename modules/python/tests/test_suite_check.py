"""The README's end-of-suite checks, run as written in a pytest of their own: each test's namespace
is deleted after it, and the run passes when the suite called listOrders, and fails (every test
passing) when it did not."""

import re
from pathlib import Path

import pytest

from animal_store_testcontainers import AnimalStoreContainer
from animal_store_testcontainers.control_api.api.namespaces import list_namespaces

README = Path(__file__).resolve().parents[1] / "README.md"


def snippet(title: str) -> str:
    match = re.search(rf"```python\n(# conftest\.py, {re.escape(title)}\n.*?)```", README.read_text(), re.DOTALL)
    assert match, f"the README has no conftest.py {title}"
    return match[1]


def suite(calls_orders: bool) -> str:
    orders = '    assert get("/store/orders").status_code == 501\n' if calls_orders else ""
    return f"""
import requests


def test_pets(animal_store_namespace):
    api = animal_store_namespace

    def get(path):
        return requests.get(f"{{api.api_base_url}}{{path}}", headers=api.api_headers)

    assert get("/pets").status_code == 200
{orders}

def test_more_pets(animal_store_namespace):
    api = animal_store_namespace
    assert requests.get(f"{{api.api_base_url}}/pets", headers=api.api_headers).status_code == 200
"""


@pytest.mark.parametrize("calls_orders", [True, False], ids=["covered", "uncovered"])
def test_the_end_of_suite_check_fails_the_run(
    pytester: pytest.Pytester, docker_engine: object, calls_orders: bool
) -> None:
    pytester.makeconftest(snippet("with the end-of-suite check"))
    pytester.makepyfile(test_suite=suite(calls_orders))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", timeout=120)
    result.assert_outcomes(passed=2, errors=0 if calls_orders else 1)
    if calls_orders:
        assert result.ret == 0
    else:
        assert result.ret == 1
        result.stdout.fnmatch_lines(["*listOrders (GET /v1/store/orders), every namespace: never exercised default*"])


@pytest.mark.parametrize("calls_orders", [True, False], ids=["covered", "uncovered"])
def test_under_xdist_the_controller_checks_once(
    pytester: pytest.Pytester,
    docker_engine: object,
    animal_store_image: str,
    monkeypatch: pytest.MonkeyPatch,
    calls_orders: bool,
) -> None:
    # One sandbox of this test's own, shared by the run's two workers.
    with AnimalStoreContainer(animal_store_image).with_in_memory() as sandbox:
        monkeypatch.setenv("ANIMAL_STORE_ORIGIN", sandbox.get_control_client().origin)
        monkeypatch.setenv("ANIMAL_STORE_ADMIN_TOKEN", sandbox.get_admin_token())
        monkeypatch.setenv("ANIMAL_STORE_API_KEY", sandbox.get_api_key())
        pytester.makeconftest(snippet("under pytest-xdist"))
        pytester.makepyfile(test_suite=suite(calls_orders))
        result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2", timeout=120)
        result.assert_outcomes(passed=2)
        if calls_orders:
            assert result.ret == 0
        else:
            assert result.ret == 1
            result.stdout.fnmatch_lines(
                [
                    "*end-of-suite check failed: listOrders (GET /v1/store/orders), every namespace: never exercised default*"
                ]
            )
            assert result.stdout.str().count("end-of-suite check failed") == 1, "the controller alone"
        listed = list_namespaces.sync(client=sandbox.get_control_client().api)
        names = [namespace.name for namespace in listed.namespaces]
        assert names == ["default"], "each test deleted its namespace"
