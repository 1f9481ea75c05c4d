"""The control client's own behaviour, without a sandbox: namespaces, headers, time stamps."""

from datetime import datetime, timedelta, timezone

import pytest

from animal_store_testcontainers import ControlClient
from animal_store_testcontainers.control import _timestamp


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
