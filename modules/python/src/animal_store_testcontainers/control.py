"""A client of the sandbox's control API (``/__admin``), usable against any running sandbox.

Every call acts on one namespace: the default one for the client itself, or the one of a handle
from :meth:`ControlClient.namespace`, which also gives a test what its own HTTP client needs to
reach that namespace through the API (:attr:`ControlClient.api_base_url`,
:attr:`ControlClient.api_headers`). Answers are the spec's JSON bodies, typed by admin_types.py,
which is generated from the spec.
"""

import copy
from collections.abc import Iterator, Sequence
from datetime import datetime, timezone
from typing import Any, Literal, overload
from urllib.parse import quote

import requests
from typing_extensions import Self

from animal_store_testcontainers.admin_types import (
    Cleared,
    Clock,
    CoverageReport,
    DriftReport,
    Expectation,
    Fault,
    FaultsGetResponse,
    JournalEntry,
    JournalPage,
    NamespacesGetResponse,
    NamespacesNameDeleteResponse,
    Pet,
    Snapshot,
    SnapshotsGetResponse,
    SnapshotsNameDeleteResponse,
    StateSummary,
    VerifyResult,
)

API_BASE_PATH = "/v1"
CONTROL_BASE_PATH = "/__admin"
NAMESPACE_HEADER = "X-Sandbox-Namespace"
FaultKind = Literal["connection-reset", "empty-response", "malformed-body"]


class AnimalStoreControlError(Exception):
    """A control call the sandbox refused: the HTTP status and the Error body's code and message."""

    def __init__(self, operation_id: str, status: int, code: str, message: str) -> None:
        super().__init__(f"{operation_id} answered {status} {code}: {message}")
        self.operation_id = operation_id
        self.status = status
        self.code = code
        self.message = message


class ControlClient:
    """Calls the control API of the sandbox at ``origin`` (e.g. ``http://localhost:4010``); over
    HTTPS, trusting the CA in ``ca_file`` (else the system's).

    The client acts on the default namespace; ``client.namespace("t1")`` returns a handle with the
    same calls acting on namespace ``t1``. Handles share the client's connections.
    """

    def __init__(
        self, origin: str, admin_token: str, *, api_key: str, ca_file: str | None = None, timeout: float = 10.0
    ) -> None:
        self._origin = origin.rstrip("/")
        self._admin_token = admin_token
        self._api_key = api_key
        self._ca_file = ca_file
        self._timeout = timeout
        self._session = requests.Session()
        self._namespace: str | None = None

    def namespace(self, name: str) -> Self:
        """A handle whose calls, and whose :attr:`api_headers`, act on namespace ``name``."""
        handle = copy.copy(self)
        handle._namespace = name
        return handle

    @property
    def namespace_name(self) -> str | None:
        """The namespace this handle acts on; None for the default namespace."""
        return self._namespace

    @property
    def origin(self) -> str:
        return self._origin

    @property
    def api_base_url(self) -> str:
        """The Animal Store API's base URL, e.g. ``http://localhost:4010/v1``."""
        return self._origin + API_BASE_PATH

    @property
    def ca_file(self) -> str | None:
        """The file of the CA an HTTPS sandbox is trusted through, for ``verify=``; None over HTTP."""
        return self._ca_file

    @property
    def api_headers(self) -> dict[str, str]:
        """The headers an API call needs: the API key and, for a handle, its namespace."""
        headers = {"Authorization": f"Bearer {self._api_key}"}
        if self._namespace is not None:
            headers[NAMESPACE_HEADER] = self._namespace
        return headers

    def close(self) -> None:
        """Closes the connections, the handles' too."""
        self._session.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def reset(self, *, seed: int | None = None, count: int | None = None, snapshot: str | None = None) -> StateSummary:
        """Puts the namespace back to its initial data (or to ``count`` pets from ``seed``, or to
        the snapshot ``snapshot``), and clears its journal, faults and clock."""
        body = _present(seed=seed, count=count, snapshot=snapshot)
        return self._call("reset", "POST /reset", body=body or None)

    def export_pets(self) -> list[Pet]:
        return self._call("exportPets", "GET /pets")

    def replace_pets(self, pets: Sequence[Pet]) -> StateSummary:
        return self._call("replacePets", "PUT /pets", body=list(pets))

    def list_requests(
        self,
        *,
        method: str | None = None,
        path: str | None = None,
        operation_id: str | None = None,
        status: int | None = None,
        since: datetime | str | None = None,
        trace_id: str | None = None,
        limit: int | None = None,
        after: int | None = None,
    ) -> JournalPage:
        """A page of the requests that match every filter given, oldest first, with the ``count``
        of all that match; ``after=page["next"]`` goes on."""
        query = _present(
            method=method,
            path=path,
            operationId=operation_id,
            status=status,
            since=None if since is None else _timestamp(since),
            traceId=trace_id,
            limit=limit,
            after=after,
        )
        return self._call("listRequests", "GET /requests", query=query)

    def count_requests(self, **filters: Any) -> int:
        """How many requests match the filters of :meth:`list_requests`: no entry is sent."""
        return self.list_requests(**filters, limit=0)["count"]

    def iter_requests(self, *, page_size: int | None = None, **filters: Any) -> Iterator[JournalEntry]:
        """Every request that matches the filters of :meth:`list_requests`, a page at a time."""
        after: int | None = None
        while True:
            page = self.list_requests(**filters, limit=page_size, after=after)
            yield from page["entries"]
            after = page["next"]
            if after is None:
                return

    def clear_requests(self) -> Cleared:
        return self._call("clearRequests", "DELETE /requests")

    def list_unmatched_requests(self, *, limit: int | None = None, after: int | None = None) -> JournalPage:
        return self._call("listUnmatchedRequests", "GET /requests/unmatched", query=_present(limit=limit, after=after))

    def add_fault(
        self,
        operation_id: str,
        *,
        status: int | None = None,
        delay_ms: int | None = None,
        fault: FaultKind | None = None,
        times: int | None = None,
        after: int | None = None,
    ) -> Fault:
        """Arms a fault on ``operation_id``: after the first ``after`` calls, the next ``times``
        (every one when None) answer ``status``, wait ``delay_ms`` or break (``fault``)."""
        body = _present(
            operationId=operation_id, status=status, delayMs=delay_ms, fault=fault, times=times, after=after
        )
        return self._call("addFault", "POST /faults", body=body)

    def list_faults(self) -> FaultsGetResponse:
        return self._call("listFaults", "GET /faults")

    def clear_faults(self) -> Cleared:
        return self._call("clearFaults", "DELETE /faults")

    def get_clock(self) -> Clock:
        return self._call("getClock", "GET /clock")

    def set_clock(self, now: datetime | str) -> Clock:
        """Moves the namespace's clock to ``now``, from where it runs on."""
        return self._call("setClock", "POST /clock", body={"now": _timestamp(now)})

    def reset_clock(self) -> Clock:
        return self._call("resetClock", "DELETE /clock")

    def list_namespaces(self) -> NamespacesGetResponse:
        return self._call("listNamespaces", "GET /namespaces")

    def delete_namespace(self, name: str) -> NamespacesNameDeleteResponse:
        return self._call("deleteNamespace", "DELETE /namespaces/{name}", name=name)

    def create_snapshot(self, name: str, *, namespace: str | None = None) -> Snapshot:
        """Freezes the pets and clock of ``namespace`` (this handle's when None) as ``name``."""
        body = _present(name=name, namespace=namespace or self._namespace)
        return self._call("createSnapshot", "POST /snapshots", body=body)

    def list_snapshots(self) -> SnapshotsGetResponse:
        return self._call("listSnapshots", "GET /snapshots")

    def delete_snapshot(self, name: str) -> SnapshotsNameDeleteResponse:
        return self._call("deleteSnapshot", "DELETE /snapshots/{name}", name=name)

    def get_tls_ca(self) -> str:
        """The PEM of the CA that TLS=auto made at this start; a 404 when the sandbox made none."""
        return self._send("getTlsCa", "GET /tls/ca").text

    @overload
    def get_coverage(
        self, *, all: bool = False, format: Literal["json"] = "json", trace_id: str | None = None
    ) -> CoverageReport: ...

    @overload
    def get_coverage(self, *, all: bool = False, format: Literal["markdown"], trace_id: str | None = None) -> str: ...

    def get_coverage(
        self, *, all: bool = False, format: Literal["json", "markdown"] = "json", trace_id: str | None = None
    ) -> CoverageReport | str:
        """What the journal covered of the API's contract; ``all=True`` across every namespace."""
        query = _present(all="true" if all else None, format=None if format == "json" else format, traceId=trace_id)
        response = self._send("getCoverage", "GET /coverage", query=query, across_namespaces=all)
        return response.text if format == "markdown" else response.json()

    def get_drift(self) -> DriftReport:
        return self._call("getDrift", "GET /drift")

    def verify(
        self, expectations: Sequence[Expectation], *, strict: bool = False, trace_id: str | None = None
    ) -> VerifyResult:
        """Checks the journal against the calls expected; see ``passed``, or :func:`assert_verified`."""
        body = {"expectations": list(expectations), "strict": strict}
        return self._call("verify", "POST /verify", query=_present(traceId=trace_id), body=body)

    def export_pact(self, *, consumer: str | None = None, provider: str | None = None) -> dict[str, Any]:
        """The calls the namespace received as a Pact (specification V4)."""
        return self._call("exportPact", "GET /pact", query=_present(consumer=consumer, provider=provider))

    def _call(self, operation_id: str, route: str, **request: Any) -> Any:
        return self._send(operation_id, route, **request).json()

    def _send(
        self,
        operation_id: str,
        route: str,
        *,
        query: dict[str, Any] | None = None,
        body: Any = None,
        name: str = "",
        across_namespaces: bool = False,
    ) -> requests.Response:
        method, path = route.split(" ")
        params = dict(query or {})
        # Snapshots, the list of namespaces and the CA are the sandbox's, not a namespace's.
        if (
            self._namespace is not None
            and not across_namespaces
            and not path.startswith(("/snapshots", "/namespaces", "/tls"))
        ):
            params["namespace"] = self._namespace
        response = self._session.request(
            method,
            f"{self._origin}{CONTROL_BASE_PATH}{path.replace('{name}', quote(name, safe=''))}",
            params=params,
            json=body,
            headers={"Authorization": f"Bearer {self._admin_token}"},
            # Per request: a session's verify gives way to REQUESTS_CA_BUNDLE, and only this CA is trusted.
            verify=self._ca_file or True,
            timeout=self._timeout,
        )
        if response.status_code < 400:
            return response
        try:
            error = response.json()
        except ValueError:
            error = None
        if not isinstance(error, dict):  # not the sandbox's Error body (e.g. a proxy's page)
            error = {"message": response.text[:500]}
        code, message = str(error.get("code", "unknown")), str(error.get("message", ""))
        raise AnimalStoreControlError(operation_id, response.status_code, code, message)


def _present(**values: Any) -> dict[str, Any]:
    """The values that were given, under their wire names."""
    return {name: value for name, value in values.items() if value is not None}


def _timestamp(value: datetime | str) -> str:
    """An RFC 3339 date-time in UTC; a string is passed on as it is, for the sandbox to judge."""
    if isinstance(value, str):
        return value
    if value.tzinfo is None:
        raise ValueError(f"{value!r} has no time zone: give one, e.g. tzinfo=timezone.utc")
    return value.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
