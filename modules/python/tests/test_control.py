"""The control handle: every operation once against the session's sandbox through the client
generated from the spec (test_generated.py holds it to the spec), its errors, its namespace handles,
and the assertions' messages. What the answers mean is the sandbox's, tested in its own suite
(test/control, test/journal)."""

import time
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
from animal_store_testcontainers.control_api.api.clock import get_clock, reset_clock, set_clock
from animal_store_testcontainers.control_api.api.faults import add_fault, clear_faults, list_faults
from animal_store_testcontainers.control_api.api.journal import clear_requests, list_requests, list_unmatched_requests
from animal_store_testcontainers.control_api.api.namespaces import delete_namespace, list_namespaces
from animal_store_testcontainers.control_api.api.snapshots import create_snapshot, delete_snapshot, list_snapshots
from animal_store_testcontainers.control_api.api.state import export_pets, replace_pets, reset
from animal_store_testcontainers.control_api.api.tls import get_tls_ca
from animal_store_testcontainers.control_api.api.verification import export_pact, get_coverage, get_drift, verify
from animal_store_testcontainers.control_api.models import (
    Expectation,
    ExpectationHeaders,
    NewFault,
    NewSnapshot,
    ResetBody,
    SetClockBody,
    VerifyRequest,
)


def test_every_operation_sends_what_the_sandbox_takes(
    animal_store: AnimalStoreContainer, animal_store_namespace: ControlClient
) -> None:
    ns = animal_store_namespace
    api = ns.api
    name = ns.namespace_name
    sandbox = animal_store.get_control_client().api
    other = animal_store.get_control_client().namespace(f"{name}.other")

    assert reset.sync(client=api, body=ResetBody(seed=3, count=4)).to_dict() == {"namespace": name, "pets": 4}
    pets = export_pets.sync(client=api)
    assert len(pets) == 4
    assert replace_pets.sync(client=api, body=pets[:2]).pets == 2

    for path in ("/pets?limit=5", "/pets/1", "/nowhere"):
        requests.get(f"{ns.api_base_url}{path}", headers=ns.api_headers)
    wait_for_requests(ns, 3)
    hour_ago = datetime.now(timezone.utc) - timedelta(hours=1)
    listed = list_requests.sync(
        client=api, method="get", path="/v1/pets", operation_id="listPets", status=200, since=hour_ago, limit=1
    )
    assert (listed.count, listed.entries[0].query.to_dict()) == (1, {"limit": "5"})
    first = list_requests.sync(client=api, limit=2)
    walked = [entry.id for entry in ns.iter_requests(page_size=2)]
    assert len(walked) == 3, "every page"
    assert list_requests.sync(client=api, after=first.next_).entries[0].id == walked[2]
    assert list_requests.sync(client=api, trace_id="0af7651916cd43dd8448eb211c80319c").count == 0
    assert list_unmatched_requests.sync(client=api, limit=5, after=0).entries[0].path == "/v1/nowhere"

    assert get_coverage.sync(client=api).summary.calls == 3
    # The Markdown report is text, which the generated call does not parse: the client's httpx client reads it.
    markdown = api.get_httpx_client().get("/coverage", params={"all": "true", "format": "markdown"}).text
    assert markdown.startswith("# API coverage: every namespace")
    assert get_coverage.sync(client=api, trace_id="0af7651916cd43dd8448eb211c80319c").summary.calls == 0
    expected = [
        Expectation("listPets", count=1, headers=ExpectationHeaders.from_dict({"X-Sandbox-Namespace": name})),
        Expectation("getPet", min_=1, max_=1),
        Expectation("unmatched"),
        Expectation("createPet", count=0),
    ]
    result = verify.sync(client=api, body=VerifyRequest(expected, strict=True))
    assert result.passed, result.message
    assert get_drift.sync(client=api).mode == "off"
    pact = export_pact.sync(client=api, consumer="checkout", provider="store")
    assert (pact.consumer.name, pact.provider.name) == ("checkout", "store")
    assert clear_requests.sync(client=api).cleared == 3

    fault = add_fault.sync(client=api, body=NewFault("listPets", status=503, delay_ms=0, times=1, after=0))
    assert [armed.id for armed in list_faults.sync(client=api).faults] == [fault.id]
    assert clear_faults.sync(client=api).cleared == 1

    clock = set_clock.sync(client=api, body=SetClockBody(datetime(2029, 6, 1, 12, tzinfo=timezone.utc)))
    assert clock.now.isoformat().startswith("2029-06-01T12:00")
    assert get_clock.sync(client=api).real is False
    snapshot = create_snapshot.sync(client=sandbox, body=NewSnapshot(name, namespace=name))
    assert (snapshot.name, snapshot.namespace, snapshot.pets) == (name, name, 2)
    assert reset_clock.sync(client=api).real is True
    assert reset.sync(client=other.api, body=ResetBody(snapshot=name)).pets == 2
    forks = [s.forks for s in list_snapshots.sync(client=api).snapshots if s.name == name]
    assert forks == [[other.namespace_name]]

    names = [namespace.name for namespace in list_namespaces.sync(client=api).namespaces]
    assert {name, other.namespace_name} <= set(names)
    deleted = delete_namespace.sync(str(other.namespace_name), client=api).to_dict()
    assert deleted == {"namespace": other.namespace_name, "deleted": True}
    assert delete_snapshot.sync(name, client=api).to_dict() == {"snapshot": name, "deleted": True}
    with pytest.raises(AnimalStoreControlError) as no_ca:  # served over plain HTTP: no CA was made
        get_tls_ca.sync(client=api)
    assert (no_ca.value.operation, no_ca.value.status) == ("GET /tls/ca", 404)


def test_coverage_check_passes_a_suite_that_caused_every_reachable_response_of_create_pet(
    animal_store_namespace: ControlClient,
) -> None:
    api = animal_store_namespace
    url = f"{api.api_base_url}/pets"
    requests.post(url, headers=api.api_headers, json={"name": "Rex", "categoryId": 3})  # 201
    requests.post(url, headers=api.api_headers, json={"categoryId": 3})  # 400 invalid_body
    wait_for_requests(api, 2)
    # The sandbox's words, the same as the TypeScript client raises (test/journal/client-assertions.test.ts).
    with pytest.raises(AssertionError) as missing:
        assert_all_responses_exercised(get_coverage.sync(client=api.api), "createPet")
    assert str(missing.value) == f"createPet (POST /v1/pets), namespace {api.namespace_name}: never exercised 401"
    requests.post(url, headers={**api.api_headers, "Authorization": "Bearer not-a-key"}, json={})  # 401
    wait_for_requests(api, 3)
    report = get_coverage.sync(client=api.api)
    # No malformed JSON, no forced 400: a conforming client causes neither, and the check asks for neither.
    assert_all_responses_exercised(report, "createPet")
    create = next(operation for operation in report.operations if operation.operation_id == "createPet")
    left = [(response.label, response.reachable) for response in create.responses if not response.exercised]
    assert left == [("400 malformed_json", False), ("400 bad_request", False)]


def wait_for_requests(api: ControlClient, count: int) -> None:
    """The journal counts a call once it is answered: wait for the calls made to be counted."""
    deadline = time.monotonic() + 5
    while api.count_requests() < count and time.monotonic() < deadline:
        time.sleep(0.05)


def test_a_refusal_is_an_error_with_the_error_body(animal_store_namespace: ControlClient) -> None:
    with pytest.raises(AnimalStoreControlError) as refused:
        add_fault.sync(client=animal_store_namespace.api, body=NewFault("noSuchOperation", status=500))
    refusal = (refused.value.operation, refused.value.status, refused.value.code)
    assert refusal == ("POST /faults", 400, "invalid_body")
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


def test_the_assertions_raise_what_is_missing_in_the_sandbox_words(animal_store_namespace: ControlClient) -> None:
    api = animal_store_namespace
    name = api.namespace_name
    for _ in range(2):
        requests.get(f"{api.api_base_url}/pets/1", headers=api.api_headers)  # getPet is deprecated
    wait_for_requests(api, 2)
    report = get_coverage.sync(client=api.api)
    with pytest.raises(AssertionError) as deprecated:
        assert_no_deprecated_calls(report)
    assert str(deprecated.value) == (
        f"deprecated operations called (namespace {name}):\n"
        "- getPet (GET /v1/pets/{petId}): 2 calls, sunset 2030-12-05, use /v1/pets instead"
    )
    with pytest.raises(AssertionError) as missing:
        assert_all_responses_exercised(report)
    assert str(missing.value) == report.message
    with pytest.raises(ValueError, match="^the API has no operation nope; it has listPets, "):
        assert_all_responses_exercised(report, "nope")
    result = verify.sync(client=api.api, body=VerifyRequest([Expectation("getPet", count=1)]))
    with pytest.raises(AssertionError) as unverified:
        assert_verified(result)
    assert str(unverified.value) == f"verification (namespace {name}) {result.message}"
