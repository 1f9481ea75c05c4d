"""The wait and the stray calls against the image: a background thread makes the call after a random
delay and the test awaits it on the sandbox with no sleep; a call into the namespace after its test
ended makes ``assert_no_stray_calls`` fail, naming it."""

import random
import threading

import pytest
import requests

from animal_store_testcontainers import ControlClient, assert_awaited, assert_no_stray_calls
from animal_store_testcontainers.control_api.api.verification import end_test
from animal_store_testcontainers.control_api.models import AwaitResultEndedBy, Expectation


def test_a_call_a_background_job_makes_later_is_awaited_with_no_sleep(animal_store_namespace: ControlClient) -> None:
    ns = animal_store_namespace
    delay = random.uniform(0, 1)
    statuses: list[int] = []

    def job() -> None:
        statuses.append(requests.get(f"{ns.api_base_url}/pets", headers=ns.api_headers, timeout=10).status_code)

    timer = threading.Timer(delay, job)
    timer.start()
    try:
        result = ns.await_requests([Expectation("listPets", count=1)], timeout_ms=10_000)
        assert_awaited(result)
        assert (result.ended_by, result.namespace) == (AwaitResultEndedBy.MET, ns.namespace_name)
    finally:
        timer.join()
    assert statuses == [200]

    missing = ns.await_requests([Expectation("createPet", min_=1)], timeout_ms=200)
    assert (missing.passed, missing.ended_by) == (False, AwaitResultEndedBy.DEADLINE)
    with pytest.raises(AssertionError, match=r"createPet[\s\S]*the wait ended by deadline after \d+ ms"):
        assert_awaited(missing)


def test_a_call_after_the_test_ended_fails_assert_no_stray_calls(animal_store_namespace: ControlClient) -> None:
    ns = animal_store_namespace
    name = str(ns.namespace_name)
    requests.get(f"{ns.api_base_url}/pets", headers=ns.api_headers, timeout=10)
    # The service settles before its test ends: the namespace quiet for 10 ms.
    assert ns.await_requests([], quiet_ms=10).ended_by == AwaitResultEndedBy.QUIET
    end_test.sync(name, client=ns.api)
    assert_no_stray_calls(ns.stray_calls())  # the call made during the test is no stray

    requests.get(f"{ns.api_base_url}/pets", headers=ns.api_headers, timeout=10)
    with pytest.raises(AssertionError) as failed:
        assert_no_stray_calls(ns.stray_calls())
    assert str(failed.value) == (
        f"stray calls (test {name}):\n- after-end: listPets (GET /v1/pets) answered 200, in namespace {name}"
    )
    assert_no_stray_calls(ns.namespace("another-test").stray_calls())  # another test's handle sees none
