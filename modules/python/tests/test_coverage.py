"""The coverage report and verify, and their assertions, after a short suite of API calls in the
test's namespace of the session's sandbox."""

import secrets
import time
from typing import NamedTuple

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
from animal_store_testcontainers.admin_types import CoverageReport, Expectation, JournalEntry, OperationCoverage

# getPet's removal date in the API's spec, as the report gives it.
GET_PET_SUNSET = "2030-12-05T00:00:00.000Z"
# A bound on reading the journal until it holds what a test expects (it holds a call before its answer).
JOURNAL_WAIT = 5.0


class Suite(NamedTuple):
    """The journal ids of the suite's calls that the tests name."""

    create: int
    list: int
    invalid_create: int


def await_journal(api: ControlClient, count: int) -> list[JournalEntry]:
    deadline = time.monotonic() + JOURNAL_WAIT
    while (page := api.list_requests())["count"] < count and time.monotonic() < deadline:
        time.sleep(0.05)
    assert page["count"] >= count, f"the journal holds {page['count']} entries, not {count}"
    return page["entries"]


def run_suite(api: ControlClient) -> Suite:
    """A create, a list, an invalid create (categoryId as a string), a missing pet, the created pet
    through the deprecated getPet, and a path no operation has; returns once all six are journaled."""
    pets = f"{api.api_base_url}/pets"
    created = requests.post(pets, json={"name": "Rex", "categoryId": 3}, headers=api.api_headers)
    assert created.status_code == 201
    assert requests.get(pets, params={"limit": 5}, headers=api.api_headers).status_code == 200
    assert requests.post(pets, json={"name": "Bad", "categoryId": "3"}, headers=api.api_headers).status_code == 400
    assert requests.get(f"{pets}/987654", headers=api.api_headers).status_code == 404
    assert requests.get(f"{pets}/{created.json()['id']}", headers=api.api_headers).status_code == 200
    assert requests.get(f"{api.api_base_url}/no-such-thing", headers=api.api_headers).status_code == 404
    entries = await_journal(api, 6)
    return Suite(create=entries[0]["id"], list=entries[1]["id"], invalid_create=entries[2]["id"])


def operation(report: CoverageReport, operation_id: str) -> OperationCoverage:
    return next(op for op in report["operations"] if op["operationId"] == operation_id)


def responses(report: CoverageReport, operation_id: str) -> list[str]:
    """Each documented response of the operation: ``400 invalid_body ×1`` or ``401 never``."""
    return [
        f"{r['label']} ×{r['calls']}" if r["exercised"] else f"{r['label']} never"
        for r in operation(report, operation_id)["responses"]
    ]


def test_the_report_shows_what_the_suite_exercised_and_what_it_did_not(animal_store_namespace: ControlClient) -> None:
    api = animal_store_namespace
    suite = run_suite(api)

    report = api.get_coverage()
    assert (report["reportVersion"], report["namespace"], report["namespaces"]) == (
        1,
        api.namespace_name,
        [api.namespace_name],
    )
    assert report["summary"] == {
        "calls": 6,
        "operations": 4,
        "responses": 11,
        "exercised": 5,
        "unmatched": 1,
        "invalid": 1,
        "deprecatedCalls": 2,
        "unstableCalls": 0,
        "unauthenticatedDropped": 0,
        "journalDropped": 0,
        "namespacesDeleted": 0,
        "namespacesEvicted": 0,
    }
    assert [(op["operationId"], op["calls"]) for op in report["operations"]] == [
        ("listPets", 1),
        ("createPet", 2),
        ("getPet", 2),
        ("listOrders", 0),
    ]
    assert responses(report, "listPets") == ["200 ×1", "401 never"]
    assert responses(report, "createPet") == [
        "201 ×1",
        "400 invalid_body ×1",
        "400 malformed_json never",
        "400 bad_request never",
        "401 never",
    ]
    assert responses(report, "getPet") == ["200 ×1", "401 never", "404 ×1"]
    assert responses(report, "listOrders") == ["default never"]

    limit = operation(report, "listPets")["parameters"][0]
    assert [(v["label"], v["calls"]) for v in limit["values"]] == [
        ("1 (minimum)", 0),
        ("100 (maximum)", 0),
        ("default (20)", 0),
    ]
    assert limit["others"] == [{"value": "5", "calls": 1}]

    get_pet = operation(report, "getPet")
    assert (get_pet["deprecated"], get_pet["sunset"], get_pet["replacement"]) == (True, GET_PET_SUNSET, "/v1/pets")
    assert report["deprecatedCalls"] == [
        {
            "operationId": "getPet",
            "method": "GET",
            "path": "/v1/pets/{petId}",
            "calls": 2,
            "sunset": GET_PET_SUNSET,
            "replacement": "/v1/pets",
        }
    ]
    assert report["unstableCalls"] == []
    assert report["unmatched"] == {
        "count": 1,
        "requests": [{"method": "GET", "path": "/v1/no-such-thing", "status": 404, "calls": 1}],
    }
    [invalid] = report["invalid"]["requests"]
    assert (invalid["id"], invalid["operationId"], invalid["status"], invalid["code"]) == (
        suite.invalid_create,
        "createPet",
        400,
        "invalid_body",
    )
    assert "categoryId" in invalid["message"]

    markdown = api.get_coverage(format="markdown")
    assert markdown.startswith(f"# API coverage: namespace `{api.namespace_name}`")
    assert "5 of 11 documented responses exercised" in markdown
    assert "removed on 2030-12-05" in markdown


def test_the_report_across_every_namespace(
    animal_store: AnimalStoreContainer, animal_store_namespace: ControlClient
) -> None:
    api = animal_store_namespace
    run_suite(api)

    for client in (animal_store.get_control_client(), api):  # whichever namespace the handle is on
        report = client.get_coverage(all=True)
        assert report["namespace"] is None
        assert api.namespace_name in report["namespaces"]
        assert operation(report, "createPet")["calls"] >= 2
    assert api.get_coverage(all=True, format="markdown").startswith("# API coverage: every namespace")
    with pytest.raises(AssertionError, match=r"^deprecated operations called \(every namespace\):\n- getPet "):
        assert_no_deprecated_calls(api.get_coverage(all=True))


def test_verify_names_the_closest_call_and_the_difference(animal_store_namespace: ControlClient) -> None:
    api = animal_store_namespace
    suite = run_suite(api)

    met = api.verify(
        [
            {"operationId": "createPet", "count": 1, "body": {"name": "Rex", "categoryId": 3}},
            {"operationId": "createPet", "min": 2, "headers": {"Content-Type": "application/json"}},
            {"operationId": "getPet", "max": 2},
            {"operationId": "listOrders", "count": 0},
        ]
    )
    assert met["passed"], met["message"]
    assert met["checked"] == 6
    assert [result["matched"] for result in met["expectations"]] == [1, 2, 2, 0]
    assert met["expectations"][0]["matchedEntries"] == [suite.create]

    # The invalid create sent categoryId as a string: it is the closest call, with that difference.
    missed = api.verify([{"operationId": "createPet", "count": 1, "body": {"name": "Bad", "categoryId": 3}}])
    assert not missed["passed"]
    [failed] = missed["expectations"]
    assert failed["matched"] == 0
    closest = failed["closest"][0]
    assert closest["entry"]["id"] == suite.invalid_create
    assert closest["differences"] == [
        {
            "in": "body",
            "pointer": "/categoryId",
            "expected": 3,
            "actual": "3",
            "message": 'createPet body /categoryId: expected 3, got "3"',
        }
    ]


def test_strict_verification_names_the_unexpected_call(animal_store_namespace: ControlClient) -> None:
    api = animal_store_namespace
    suite = run_suite(api)
    expected: list[Expectation] = [
        {"operationId": "createPet", "count": 2},
        {"operationId": "getPet", "count": 2},
        {"operationId": "unmatched", "count": 1},
    ]

    result = api.verify(expected, strict=True)
    assert (result["strict"], result["passed"]) == (True, False)
    assert all(expectation["passed"] for expectation in result["expectations"])
    assert result["unexpected"] == [
        {"id": suite.list, "method": "GET", "path": "/v1/pets", "status": 200, "operationId": "listPets"}
    ]
    assert api.verify(expected)["passed"], "without strict, other calls are allowed"


def test_the_assertions_fail_with_what_is_missing(animal_store_namespace: ControlClient) -> None:
    api = animal_store_namespace
    suite = run_suite(api)
    report = api.get_coverage()
    scope = f"(namespace {api.namespace_name}):\n"

    with pytest.raises(AssertionError) as failed:
        assert_all_responses_exercised(report, "createPet")
    assert str(failed.value) == (
        f"documented responses never exercised {scope}"
        "- createPet (POST /v1/pets): 400 malformed_json, 400 bad_request, 401"
    )
    with pytest.raises(AssertionError) as failed:
        assert_all_responses_exercised(report)
    assert str(failed.value) == (
        f"documented responses never exercised {scope}"
        "- listPets (GET /v1/pets): 401\n"
        "- createPet (POST /v1/pets): 400 malformed_json, 400 bad_request, 401\n"
        "- getPet (GET /v1/pets/{petId}): 401\n"
        "- listOrders (GET /v1/store/orders): default"
    )
    with pytest.raises(AssertionError) as failed:
        assert_no_deprecated_calls(report)
    assert str(failed.value) == (
        f"deprecated operations called {scope}"
        "- getPet (GET /v1/pets/{petId}): 2 calls, sunset 2030-12-05, use /v1/pets instead"
    )
    missed = api.verify([{"operationId": "createPet", "count": 1, "body": {"name": "Bad", "categoryId": 3}}])
    with pytest.raises(AssertionError) as failed:
        assert_verified(missed)
    assert str(failed.value).startswith(f"verification failed {scope}- createPet: expected exactly 1 call")
    assert (
        f"\n  #{suite.invalid_create} POST /v1/pets → 400 (createPet):\n"
        '    createPet body /categoryId: expected 3, got "3"'
    ) in str(failed.value)
    strict = api.verify(
        [{"operationId": "createPet", "count": 2}, {"operationId": "getPet", "count": 2}, {"operationId": "unmatched"}],
        strict=True,
    )
    with pytest.raises(AssertionError) as failed:
        assert_verified(strict)
    assert str(failed.value) == (
        f"verification failed {scope}- unexpected call (strict): #{suite.list} GET /v1/pets → 200 (listPets)"
    )
    with pytest.raises(ValueError, match="^the API has no operation noSuchOperation; it has listPets, createPet, "):
        assert_all_responses_exercised(report, "noSuchOperation")


def test_the_assertions_pass_when_satisfied(animal_store_namespace: ControlClient) -> None:
    api = animal_store_namespace
    pets = f"{api.api_base_url}/pets"
    assert requests.get(pets, headers=api.api_headers).status_code == 200
    assert requests.get(f"{pets}/1", headers=api.api_headers).status_code == 200
    assert requests.get(f"{pets}/987654", headers=api.api_headers).status_code == 404
    wrong_key = {**api.api_headers, "Authorization": "Bearer wrong-key"}
    assert requests.get(f"{pets}/1", headers=wrong_key).status_code == 401
    await_journal(api, 4)

    report = api.get_coverage()
    assert_all_responses_exercised(report, "getPet")
    assert_verified(api.verify([{"operationId": "listPets", "count": 1}, {"operationId": "getPet", "count": 3}]))
    assert_verified(api.verify([{"operationId": "listPets"}, {"operationId": "getPet", "min": 3}], strict=True))
    with pytest.raises(AssertionError, match=r"getPet \(GET /v1/pets/\{petId\}\): 3 calls"):
        assert_no_deprecated_calls(report)

    api.reset()  # and the journal with it
    assert requests.get(pets, headers=api.api_headers).status_code == 200
    await_journal(api, 1)
    assert_no_deprecated_calls(api.get_coverage())


def test_refusals_carry_the_error_body(
    animal_store: AnimalStoreContainer, animal_store_namespace: ControlClient
) -> None:
    api = animal_store_namespace
    with pytest.raises(AnimalStoreControlError) as refused:
        api.verify([{"operationId": "noSuchOperation"}])
    assert (refused.value.operation_id, refused.value.status, refused.value.code) == ("verify", 400, "invalid_body")
    assert "operationId" in refused.value.message
    with pytest.raises(AnimalStoreControlError, match="min is above its max"):
        api.verify([{"operationId": "listPets", "min": 3, "max": 1}])

    client = animal_store.get_control_client()
    gone = client.namespace(f"{api.namespace_name}-gone")
    for fetch in (gone.get_coverage, lambda: gone.get_coverage(format="markdown")):
        with pytest.raises(AnimalStoreControlError) as refused:
            fetch()
        refusal = (refused.value.operation_id, refused.value.status, refused.value.code)
        assert refusal == ("getCoverage", 404, "not_found")


def test_the_journal_coverage_and_verify_read_one_trace(animal_store_namespace: ControlClient) -> None:
    """Two calls of two traces in one namespace, named by baggage as a service under test would:
    each trace's filter reads its own call alone."""
    api = animal_store_namespace
    pets = f"{api.api_base_url}/pets"
    listing, creating = secrets.token_hex(16), secrets.token_hex(16)
    headers = {
        "Authorization": api.api_headers["Authorization"],
        "baggage": f"sandbox.namespace={api.namespace_name}",
    }
    listed = requests.get(pets, headers={**headers, "traceparent": f"00-{listing}-{secrets.token_hex(8)}-01"})
    assert listed.status_code == 200
    created = requests.post(
        pets,
        json={"name": "Traced", "categoryId": 1},
        headers={**headers, "traceparent": f"00-{creating}-{secrets.token_hex(8)}-01"},
    )
    assert created.status_code == 201
    await_journal(api, 2)

    page = api.list_requests(trace_id=listing)
    assert page["count"] == 1
    assert [(e["operationId"], e.get("traceId")) for e in page["entries"]] == [("listPets", listing)]
    assert api.count_requests(trace_id=creating) == 1

    report = api.get_coverage(trace_id=creating)
    assert report["summary"]["calls"] == 1
    assert (operation(report, "createPet")["calls"], operation(report, "listPets")["calls"]) == (1, 0)

    expected: list[Expectation] = [{"operationId": "createPet", "count": 1}]
    assert api.verify(expected, strict=True, trace_id=creating)["passed"]
    assert not api.verify(expected, strict=True, trace_id=listing)["passed"]
