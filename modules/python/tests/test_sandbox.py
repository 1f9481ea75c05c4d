"""The session's sandbox, over real HTTP: each test works in a namespace of its own."""

import re
import time
from collections.abc import Callable
from typing import TypeVar

import pytest
import requests

from animal_store_testcontainers import (
    AnimalStoreContainer,
    AnimalStoreControlError,
    ControlClient,
    HealthWaitStrategy,
)
from animal_store_testcontainers.admin_types import Pet

T = TypeVar("T")
# getPet's removal date in the API's spec: from then on it answers 410.
GET_PET_SUNSET = "2030-12-05T00:00:00Z"
# A snapshot's frozen clock, before getPet's sunset.
FROZEN_AT = "2029-06-01T12:00:00"


def eventually(read: Callable[[], T], until: Callable[[T], bool], timeout: float = 5.0) -> T:
    """Reads until the value passes ``until``, for at most ``timeout`` s; returns the last value read."""
    deadline = time.monotonic() + timeout
    value = read()
    while not until(value) and time.monotonic() < deadline:
        time.sleep(0.05)
        value = read()
    return value


def create_pet(api: ControlClient, name: str) -> Pet:
    response = requests.post(
        f"{api.api_base_url}/pets", json={"name": name, "categoryId": 1, "status": "available"}, headers=api.api_headers
    )
    assert response.status_code == 201, response.text
    pet: Pet = response.json()
    return pet


def get_pet(api: ControlClient, pet_id: int) -> requests.Response:
    return requests.get(f"{api.api_base_url}/pets/{pet_id}", headers=api.api_headers)


def test_start_waits_for_health_over_http(animal_store: AnimalStoreContainer) -> None:
    assert isinstance(animal_store._wait_strategy, HealthWaitStrategy)
    assert re.fullmatch(r"http://[^/]+:\d+/v1", animal_store.get_base_url())
    assert requests.get(f"{animal_store.get_origin()}/healthz").status_code == 200


def test_the_configured_key_opens_the_list(animal_store_namespace: ControlClient) -> None:
    api = animal_store_namespace
    pets = f"{api.api_base_url}/pets?limit=5&status=available"
    with_key = requests.get(pets, headers=api.api_headers)
    assert with_key.status_code == 200
    listed = with_key.json()
    assert 0 < len(listed) <= 5
    assert {pet["status"] for pet in listed} == {"available"}

    namespace_only = {"X-Sandbox-Namespace": api.namespace_name}
    without_key = requests.get(pets, headers=namespace_only)
    assert without_key.status_code == 401
    assert without_key.json()["status"] == 401
    default_key = requests.get(pets, headers={**namespace_only, "Authorization": "Bearer sandbox-api-key"})
    assert default_key.status_code == 401, "the container's key replaces the published default"


def test_create_then_get(animal_store_namespace: ControlClient) -> None:
    api = animal_store_namespace
    created = requests.post(f"{api.api_base_url}/pets", json={"name": "Rex", "categoryId": 1}, headers=api.api_headers)
    assert created.status_code == 201
    pet = created.json()
    assert created.headers["Location"] == f"/v1/pets/{pet['id']}"

    fetched = get_pet(api, pet["id"])
    assert fetched.status_code == 200
    assert fetched.json() == pet


def test_reset_removes_the_created_pet(animal_store_namespace: ControlClient) -> None:
    api = animal_store_namespace
    initial_count = len(api.export_pets())
    pet = create_pet(api, "Temporary Tortoise")
    assert pet in api.export_pets()

    assert api.reset() == {"namespace": api.namespace_name, "pets": initial_count}
    assert get_pet(api, pet["id"]).status_code == 404
    assert pet not in api.export_pets()

    assert api.reset(seed=3, count=4)["pets"] == 4
    assert len(api.export_pets()) == 4


def test_replace_pets_sets_the_whole_store(animal_store_namespace: ControlClient) -> None:
    api = animal_store_namespace
    assert api.replace_pets([{"id": 7, "name": "Only One", "categoryId": 2}])["pets"] == 1
    assert api.export_pets() == [{"id": 7, "name": "Only One", "categoryId": 2, "status": "available"}]

    with pytest.raises(AnimalStoreControlError) as refused:
        api.replace_pets([{"id": 1, "name": "Bad", "categoryId": "one"}])  # type: ignore[typeddict-item]
    assert (refused.value.status, refused.value.code) == (400, "invalid_body")
    assert len(api.export_pets()) == 1, "a refused replacement changes nothing"


def test_the_journal_shows_the_calls(animal_store_namespace: ControlClient) -> None:
    api = animal_store_namespace
    create_pet(api, "Journal Jay")
    for _ in range(2):
        assert requests.get(f"{api.api_base_url}/pets", headers=api.api_headers).status_code == 200
    requests.get(f"{api.api_base_url}/no-such-thing", headers=api.api_headers)

    listed = eventually(lambda: api.list_requests(operation_id="listPets"), lambda page: page["count"] >= 2)
    assert listed["count"] == 2
    assert [(entry["method"], entry["path"], entry["status"]) for entry in listed["entries"]] == [
        ("GET", "/v1/pets", 200)
    ] * 2
    created = api.list_requests(operation_id="createPet", status=201)["entries"]
    assert created[0]["body"] == {"name": "Journal Jay", "categoryId": 1, "status": "available"}
    assert created[0]["headers"]["authorization"] == "Bearer [REDACTED]"
    assert api.list_requests(method="get", path="/v1/pets*")["count"] == 2

    unmatched = eventually(api.list_unmatched_requests, lambda page: page["count"] >= 1)
    assert [entry["path"] for entry in unmatched["entries"]] == ["/v1/no-such-thing"]

    assert api.clear_requests()["cleared"] == 4
    assert api.list_requests()["count"] == 0


def test_the_journal_is_read_a_page_at_a_time(animal_store_namespace: ControlClient) -> None:
    api = animal_store_namespace
    # 130 reads of pet 1, one of pet 2 after every tenth: 143 getPets, 13 of them of pet 2.
    with requests.Session() as http:
        for i in range(1, 131):
            assert http.get(f"{api.api_base_url}/pets/1", headers=api.api_headers).status_code == 200
            if i % 10 == 0:
                http.get(f"{api.api_base_url}/pets/2", headers=api.api_headers)

    first = api.list_requests(operation_id="getPet")
    assert (first["count"], len(first["entries"])) == (143, 100), "the count of all, a page of the default 100"
    assert first["next"] == first["entries"][-1]["id"]
    second = api.list_requests(operation_id="getPet", after=first["next"])
    assert (second["count"], len(second["entries"]), second["next"]) == (143, 43, None)
    ids = [entry["id"] for entry in first["entries"] + second["entries"]]
    assert ids == sorted(set(ids)) and len(ids) == 143, "every entry once, oldest first"

    small = api.list_requests(path="/v1/pets/2", limit=5)
    assert (small["count"], len(small["entries"]), small["next"]) == (13, 5, small["entries"][-1]["id"])
    empty = api.list_requests(operation_id="getPet", limit=0)
    assert (empty["count"], empty["entries"], empty["next"]) == (143, [], None)

    assert api.count_requests(operation_id="getPet") == 143
    assert api.count_requests(path="/v1/pets/2") == 13
    assert api.count_requests(operation_id="createPet") == 0

    walked = list(api.iter_requests(path="/v1/pets/2", page_size=4))
    assert [entry["path"] for entry in walked] == ["/v1/pets/2"] * 13
    assert [entry["id"] for entry in walked] == sorted({entry["id"] for entry in walked})
    assert sum(1 for _ in api.iter_requests(operation_id="getPet")) == 143, "past the default page"

    for _ in range(3):
        requests.get(f"{api.api_base_url}/nowhere", headers=api.api_headers)
    unmatched = api.list_unmatched_requests(limit=2)
    assert (unmatched["count"], len(unmatched["entries"])) == (3, 2)
    assert len(api.list_unmatched_requests(after=unmatched["next"])["entries"]) == 1

    with pytest.raises(AnimalStoreControlError) as refused:
        api.list_requests(limit=1001)
    assert (refused.value.status, refused.value.code) == (400, "invalid_parameter")
    assert "limit" in refused.value.message


def test_a_fault_fires_on_the_next_call_only(animal_store_namespace: ControlClient) -> None:
    api = animal_store_namespace
    fault = api.add_fault("listPets", status=503, times=1)
    assert (fault["operationId"], fault["status"], fault["fired"]) == ("listPets", 503, 0)

    failed = requests.get(f"{api.api_base_url}/pets", headers=api.api_headers)
    assert failed.status_code == 503
    assert failed.json()["status"] == 503
    assert requests.get(f"{api.api_base_url}/pets", headers=api.api_headers).status_code == 200

    faults = eventually(api.list_faults, lambda listed: listed["faults"][0]["fired"] == 1)
    assert [(armed["id"], armed["fired"]) for armed in faults["faults"]] == [(fault["id"], 1)]
    assert api.clear_faults()["cleared"] == 1
    assert api.list_faults() == {"count": 0, "faults": []}

    with pytest.raises(AnimalStoreControlError) as refused:
        api.add_fault("noSuchOperation", status=500)
    assert (refused.value.status, refused.value.code) == (400, "invalid_body")
    assert "listPets" in refused.value.message


def test_the_clock_at_the_sunset_turns_get_pet_into_410(animal_store_namespace: ControlClient) -> None:
    api = animal_store_namespace
    assert get_pet(api, 1).status_code == 200

    clock = api.set_clock(GET_PET_SUNSET)
    assert clock["real"] is False
    assert clock["now"].startswith("2030-12-05T00:00:0")
    gone = get_pet(api, 1)
    assert gone.status_code == 410
    assert gone.json()["status"] == 410

    assert api.reset_clock()["real"] is True
    assert api.get_clock()["real"] is True
    assert get_pet(api, 1).status_code == 200


def test_two_namespaces_do_not_see_each_others_writes(animal_store: AnimalStoreContainer) -> None:
    control = animal_store.get_control_client()
    first, second = control.namespace("isolation-a"), control.namespace("isolation-b")
    first.reset()
    second.reset()

    pet = create_pet(first, "Only In A")
    assert get_pet(first, pet["id"]).status_code == 200
    assert get_pet(second, pet["id"]).status_code == 404
    assert pet not in second.export_pets()
    journal = eventually(second.list_requests, lambda page: page["count"] >= 1)
    assert [(entry["operationId"], entry["status"]) for entry in journal["entries"]] == [("getPet", 404)]

    names = [namespace["name"] for namespace in control.list_namespaces()["namespaces"]]
    assert {"isolation-a", "isolation-b", "default"} <= set(names)
    assert pet not in control.export_pets(), "nor does the default namespace"


def test_control_calls_need_the_admin_token(animal_store: AnimalStoreContainer) -> None:
    wrong_token = ControlClient(
        animal_store.get_origin(), animal_store.get_api_key(), api_key=animal_store.get_api_key()
    )
    with pytest.raises(AnimalStoreControlError) as refused:
        wrong_token.get_clock()
    assert refused.value.status == 401
    assert refused.value.operation_id == "getClock"


def test_forks_start_from_the_snapshot_and_keep_their_writes(
    animal_store: AnimalStoreContainer, animal_store_namespace: ControlClient
) -> None:
    control = animal_store.get_control_client()
    setup = animal_store_namespace
    assert setup.namespace_name is not None
    # Unique as the namespace's name is; snapshot names never meet namespace names.
    name = setup.namespace_name
    first, second = control.namespace(f"{name}.a"), control.namespace(f"{name}.b")

    fixture = create_pet(setup, "Snapshot Sam")
    setup.set_clock(f"{FROZEN_AT}Z")
    frozen = setup.export_pets()
    snapshot = setup.create_snapshot(name)
    assert (snapshot["name"], snapshot["namespace"], snapshot["pets"]) == (name, name, len(frozen))
    assert snapshot["clock"] is not None and snapshot["clock"].startswith(FROZEN_AT[:16])
    assert snapshot["forks"] == []
    create_pet(setup, "After the snapshot")

    assert first.reset(snapshot=name) == {"namespace": first.namespace_name, "pets": len(frozen)}
    assert second.reset(snapshot=name)["pets"] == len(frozen)
    assert first.export_pets() == frozen, "the snapshot's pets, not what setup did since"
    assert fixture in frozen
    assert first.get_clock()["now"].startswith(FROZEN_AT[:16]), "the snapshot's clock"

    only_in_first = create_pet(first, "Only in first")
    assert get_pet(first, only_in_first["id"]).status_code == 200
    assert get_pet(second, only_in_first["id"]).status_code == 404
    assert second.export_pets() == frozen, "a fork's write is its own"
    first.reset(snapshot=name)
    assert first.export_pets() == frozen, "a reset returns the fork to the snapshot, which the write never reached"

    listed = [entry for entry in control.list_snapshots()["snapshots"] if entry["name"] == name]
    assert len(listed) == 1
    assert sorted(listed[0]["forks"]) == sorted([first.namespace_name, second.namespace_name])
    with pytest.raises(AnimalStoreControlError) as in_use:
        control.delete_snapshot(name)
    assert (in_use.value.status, in_use.value.code) == (409, "conflict")
    assert first.namespace_name in in_use.value.message and second.namespace_name in in_use.value.message

    first.reset()
    control.delete_namespace(second.namespace_name)
    assert control.delete_snapshot(name) == {"snapshot": name, "deleted": True}
    assert name not in [entry["name"] for entry in control.list_snapshots()["snapshots"]]
    with pytest.raises(AnimalStoreControlError) as unknown:
        first.reset(snapshot=name)
    assert (unknown.value.status, unknown.value.code) == (404, "not_found")
    assert unknown.value.message == f'No snapshot "{name}"'
    with pytest.raises(AnimalStoreControlError) as deleted_twice:
        control.delete_snapshot(name)
    assert (deleted_twice.value.status, deleted_twice.value.code) == (404, "not_found")
    control.delete_namespace(first.namespace_name)


def test_the_client_snapshots_the_namespace_it_names(
    animal_store: AnimalStoreContainer, animal_store_namespace: ControlClient
) -> None:
    control = animal_store.get_control_client()
    fork = animal_store_namespace
    assert fork.namespace_name is not None
    name = fork.namespace_name

    of_default = control.create_snapshot(name)
    try:
        assert of_default["namespace"] == "default"
        assert of_default["clock"] is None, "the default namespace's clock follows real time"
        assert fork.reset(snapshot=name)["pets"] == len(control.export_pets())
        with pytest.raises(AnimalStoreControlError) as taken:
            control.create_snapshot(name, namespace=fork.namespace_name)
        assert (taken.value.status, taken.value.code) == (409, "conflict")
        with pytest.raises(AnimalStoreControlError) as mixed:
            fork.reset(snapshot=name, seed=3)
        assert mixed.value.status == 400
    finally:
        fork.reset()
        control.delete_snapshot(name)

    of_fork = control.create_snapshot(name, namespace=fork.namespace_name)
    assert (of_fork["namespace"], of_fork["pets"]) == (fork.namespace_name, len(fork.export_pets()))
    assert control.delete_snapshot(name)["deleted"] is True
