"""The control client: every operation once against the session's sandbox (test_spec_coverage.py
holds the client to the spec), its errors, its namespace handles, and the assertions' messages.
What the answers mean is the sandbox's, tested in its own suite (test/control, test/coverage)."""

import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone

import pytest
import requests

from animal_store_testcontainers import (
    AnimalStoreContainer,
    AnimalStoreControlError,
    ControlClient,
    assert_all_responses_exercised,
    assert_no_deprecated_calls,
    assert_verified,
)
from animal_store_testcontainers.control import _timestamp


def test_every_operation_sends_what_the_sandbox_takes(
    animal_store: AnimalStoreContainer, animal_store_namespace: ControlClient
) -> None:
    api = animal_store_namespace
    name = api.namespace_name
    other = animal_store.get_control_client().namespace(f"{name}.other")

    assert api.reset(seed=3, count=4) == {"namespace": name, "pets": 4}
    pets = api.export_pets()
    assert len(pets) == 4
    assert api.replace_pets(pets[:2])["pets"] == 2

    for path in ("/pets?limit=5", "/pets/1", "/nowhere"):
        requests.get(f"{api.api_base_url}{path}", headers=api.api_headers)
    deadline = time.monotonic() + 5
    while api.count_requests() < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    hour_ago = datetime.now(timezone.utc) - timedelta(hours=1)
    listed = api.list_requests(
        method="get", path="/v1/pets", operation_id="listPets", status=200, since=hour_ago, limit=1
    )
    assert (listed["count"], listed["entries"][0]["query"]) == (1, {"limit": "5"})
    first = api.list_requests(limit=2)
    walked = [entry["id"] for entry in api.iter_requests(page_size=2)]
    assert len(walked) == 3, "every page"
    assert api.list_requests(after=first["next"])["entries"][0]["id"] == walked[2]
    assert api.list_requests(trace_id="0af7651916cd43dd8448eb211c80319c")["count"] == 0
    assert api.list_unmatched_requests(limit=5, after=0)["entries"][0]["path"] == "/v1/nowhere"

    assert api.get_coverage()["summary"]["calls"] == 3
    assert api.get_coverage(all=True, format="markdown").startswith("# API coverage: every namespace")
    assert api.get_coverage(trace_id="0af7651916cd43dd8448eb211c80319c")["summary"]["calls"] == 0
    result = api.verify(
        [
            {"operationId": "listPets", "count": 1, "headers": {"X-Sandbox-Namespace": name}},
            {"operationId": "getPet", "min": 1, "max": 1},
            {"operationId": "unmatched"},
            {"operationId": "createPet", "count": 0},
        ],
        strict=True,
    )
    assert result["passed"], result["message"]
    assert api.get_drift()["mode"] == "off"
    pact = api.export_pact(consumer="checkout", provider="store")
    assert (pact["consumer"]["name"], pact["provider"]["name"]) == ("checkout", "store")
    assert api.clear_requests()["cleared"] == 3

    fault = api.add_fault("listPets", status=503, delay_ms=0, times=1, after=0)
    assert [armed["id"] for armed in api.list_faults()["faults"]] == [fault["id"]]
    assert api.clear_faults()["cleared"] == 1

    assert api.set_clock("2029-06-01T12:00:00Z")["now"].startswith("2029-06-01T12:00")
    assert api.get_clock()["real"] is False
    snapshot = api.create_snapshot(name)
    assert (snapshot["name"], snapshot["namespace"], snapshot["pets"]) == (name, name, 2)
    assert api.reset_clock()["real"] is True
    assert other.reset(snapshot=name)["pets"] == 2
    assert [s["forks"] for s in api.list_snapshots()["snapshots"] if s["name"] == name] == [[other.namespace_name]]

    names = [namespace["name"] for namespace in api.list_namespaces()["namespaces"]]
    assert {name, other.namespace_name} <= set(names)
    assert api.delete_namespace(other.namespace_name) == {"namespace": other.namespace_name, "deleted": True}
    assert api.delete_snapshot(name) == {"snapshot": name, "deleted": True}
    with pytest.raises(AnimalStoreControlError) as no_ca:  # served over plain HTTP: no CA was made
        api.get_tls_ca()
    assert (no_ca.value.operation_id, no_ca.value.status) == ("getTlsCa", 404)


def test_coverage_check_passes_a_suite_that_caused_every_reachable_response_of_create_pet(
    animal_store_namespace: ControlClient,
) -> None:
    api = animal_store_namespace
    url = f"{api.api_base_url}/pets"
    requests.post(url, headers=api.api_headers, json={"name": "Rex", "categoryId": 3})  # 201
    requests.post(url, headers=api.api_headers, json={"categoryId": 3})  # 400 invalid_body
    wait_for_requests(api, 2)
    # The sandbox's words, the same as the TypeScript client raises (test/control/client-assertions.test.ts).
    with pytest.raises(AssertionError) as missing:
        assert_all_responses_exercised(api.get_coverage(), "createPet")
    assert str(missing.value) == f"createPet (POST /v1/pets), namespace {api.namespace_name}: never exercised 401"
    requests.post(url, headers={**api.api_headers, "Authorization": "Bearer not-a-key"}, json={})  # 401
    wait_for_requests(api, 3)
    report = api.get_coverage()
    # No malformed JSON, no forced 400: a conforming client causes neither, and the check asks for neither.
    assert_all_responses_exercised(report, "createPet")
    create = next(operation for operation in report["operations"] if operation["operationId"] == "createPet")
    left = [(response["label"], response["reachable"]) for response in create["responses"] if not response["exercised"]]
    assert left == [("400 malformed_json", False), ("400 bad_request", False)]


def wait_for_requests(api: ControlClient, count: int) -> None:
    """The journal counts a call once it is answered: wait for the calls made to be counted."""
    deadline = time.monotonic() + 5
    while api.count_requests() < count and time.monotonic() < deadline:
        time.sleep(0.05)


def test_a_refusal_is_an_error_with_the_error_body(animal_store_namespace: ControlClient) -> None:
    with pytest.raises(AnimalStoreControlError) as refused:
        animal_store_namespace.add_fault("noSuchOperation", status=500)
    assert (refused.value.operation_id, refused.value.status, refused.value.code) == ("addFault", 400, "invalid_body")
    assert "operationId" in refused.value.message


def test_a_namespace_handle_carries_its_name() -> None:
    client = ControlClient("http://localhost:4010/", "admin", api_key="key")
    assert client.api_base_url == "http://localhost:4010/v1"
    assert client.api_headers == {"Authorization": "Bearer key"}
    assert client.namespace_name is None

    handle = client.namespace("t1")
    assert handle.namespace_name == "t1"
    assert handle.api_headers == {"Authorization": "Bearer key", "X-Sandbox-Namespace": "t1"}
    assert client.namespace_name is None, "the client itself stays on the default namespace"


def test_time_stamps_are_sent_in_utc() -> None:
    two_hours_east = timezone(timedelta(hours=2))
    assert _timestamp(datetime(2030, 12, 5, 2, 0, tzinfo=two_hours_east)) == "2030-12-05T00:00:00.000Z"
    assert _timestamp("2030-12-05T00:00:00Z") == "2030-12-05T00:00:00Z"
    with pytest.raises(ValueError, match="time zone"):
        _timestamp(datetime(2030, 12, 5))


CREATE_PET_MISSING = "createPet (POST /v1/pets), namespace checkout: never exercised 400 invalid_body, 401"
REPORT = {
    "namespace": "checkout",
    "operations": [
        {
            "operationId": "listPets",
            "method": "GET",
            "path": "/v1/pets",
            "responses": [{"label": "200", "exercised": True}],
            "complete": True,
            "message": "listPets (GET /v1/pets), namespace checkout: every reachable documented response exercised",
        },
        {
            "operationId": "createPet",
            "method": "POST",
            "path": "/v1/pets",
            "responses": [
                {"label": "201", "exercised": True},
                {"label": "400 invalid_body", "exercised": False},
                {"label": "400 malformed_json", "reachable": False, "exercised": False},  # not asked for
                {"label": "401", "exercised": False},
            ],
            "complete": False,
            "message": CREATE_PET_MISSING,
        },
    ],
    # The sandbox words the outcome (test/control/coverage.test.ts): the assertion raises it as it is.
    "complete": False,
    "message": CREATE_PET_MISSING,
    "deprecatedCalls": [
        {
            "operationId": "getPet",
            "method": "GET",
            "path": "/v1/pets/{petId}",
            "calls": 2,
            "sunset": "2030-12-05T00:00:00.000Z",
            "replacement": "/v1/pets",
        }
    ],
}
# The sandbox's message lists the failures (test/control/verify.test.ts).
VERIFIED = {"namespace": "checkout", "passed": False, "message": "failed:\n- createPet: expected exactly 1 call"}


@pytest.mark.parametrize(
    ("assertion", "failure"),
    [
        pytest.param(lambda: assert_all_responses_exercised(REPORT, "listPets"), None, id="exercised"),
        pytest.param(
            lambda: assert_all_responses_exercised(REPORT),
            CREATE_PET_MISSING,
            id="not-exercised",
        ),
        pytest.param(
            lambda: assert_all_responses_exercised(REPORT, "listPets", "createPet"),
            CREATE_PET_MISSING,
            id="not-exercised-named",
        ),
        pytest.param(
            lambda: assert_no_deprecated_calls({**REPORT, "namespace": None}),
            "deprecated operations called (every namespace):\n"
            "- getPet (GET /v1/pets/{petId}): 2 calls, sunset 2030-12-05, use /v1/pets instead",
            id="deprecated",
        ),
        pytest.param(lambda: assert_no_deprecated_calls({**REPORT, "deprecatedCalls": []}), None, id="not-deprecated"),
        pytest.param(
            lambda: assert_verified(VERIFIED),
            "verification (namespace checkout) failed:\n- createPet: expected exactly 1 call",
            id="not-verified",
        ),
        pytest.param(lambda: assert_verified({**VERIFIED, "passed": True}), None, id="verified"),
    ],
)
def test_the_assertions_say_what_is_missing(assertion: Callable[[], None], failure: str | None) -> None:
    if failure is None:
        assertion()
    else:
        with pytest.raises(AssertionError) as failed:
            assertion()
        assert str(failed.value) == failure


def test_an_operation_the_api_lacks_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="^the API has no operation nope; it has listPets, createPet$"):
        assert_all_responses_exercised(REPORT, "nope")
