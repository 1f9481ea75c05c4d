"""A client of the sandbox's control API (``/__admin``), usable against any running sandbox.

Every call acts on one namespace: the default one for the client itself, or the one of a handle
from :meth:`ControlClient.namespace`, which also gives a test what its own HTTP client needs to
reach that namespace through the API (:attr:`ControlClient.api_base_url`,
:attr:`ControlClient.api_headers`). Answers are the spec's JSON bodies, typed by admin_types.py,
which is generated from the spec.
"""

import copy
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime, timezone
from typing import Any, Literal, NamedTuple, overload
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
_MEDIA_TYPES = {"json": "application/json", "markdown": "text/markdown"}
FaultKind = Literal["connection-reset", "empty-response", "malformed-body"]


class Route(NamedTuple):
    method: str
    path: str
    # False for the operations that span every namespace.
    namespaced: bool = True


# Every operation of the control API's spec, by operationId; a test holds it to the spec.
OPERATIONS: Mapping[str, Route] = {
    "reset": Route("POST", "/reset"),
    "exportPets": Route("GET", "/pets"),
    "replacePets": Route("PUT", "/pets"),
    "listRequests": Route("GET", "/requests"),
    "clearRequests": Route("DELETE", "/requests"),
    "listUnmatchedRequests": Route("GET", "/requests/unmatched"),
    "addFault": Route("POST", "/faults"),
    "listFaults": Route("GET", "/faults"),
    "clearFaults": Route("DELETE", "/faults"),
    "getClock": Route("GET", "/clock"),
    "setClock": Route("POST", "/clock"),
    "resetClock": Route("DELETE", "/clock"),
    "listNamespaces": Route("GET", "/namespaces", namespaced=False),
    "deleteNamespace": Route("DELETE", "/namespaces/{name}", namespaced=False),
    # Snapshots are the sandbox's, not a namespace's: createSnapshot names its namespace in the body.
    "createSnapshot": Route("POST", "/snapshots", namespaced=False),
    "listSnapshots": Route("GET", "/snapshots", namespaced=False),
    "deleteSnapshot": Route("DELETE", "/snapshots/{name}", namespaced=False),
    "getCoverage": Route("GET", "/coverage"),
    "getDrift": Route("GET", "/drift"),
    "verify": Route("POST", "/verify"),
    "exportPact": Route("GET", "/pact"),
}


class AnimalStoreControlError(Exception):
    """A control call the sandbox refused: the HTTP status and the Error body's code and message."""

    def __init__(self, operation_id: str, status: int, code: str, message: str) -> None:
        super().__init__(f"{operation_id} answered {status} {code}: {message}")
        self.operation_id = operation_id
        self.status = status
        self.code = code
        self.message = message


class ControlClient:
    """Calls the control API of the sandbox at ``origin`` (e.g. ``http://localhost:4010``).

    The client acts on the default namespace; ``client.namespace("t1")`` returns a handle with the
    same calls acting on namespace ``t1``. Handles share the client's connections.
    """

    def __init__(
        self,
        origin: str,
        admin_token: str,
        *,
        api_key: str,
        timeout: float = 10.0,
    ) -> None:
        self._origin = origin.rstrip("/")
        self._admin_token = admin_token
        self._api_key = api_key
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

    # --- state -----------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, count: int | None = None, snapshot: str | None = None) -> StateSummary:
        """Puts the namespace back to its initial data (or to ``count`` pets generated from
        ``seed``, or to the pets and clock of the snapshot ``snapshot``), and clears its journal,
        its faults and its clock. A namespace started from a snapshot shares its pets until it
        changes them: no change of it reaches the snapshot or another namespace."""
        body = _present(seed=seed, count=count, snapshot=snapshot)
        return self._call("reset", body=body or None)

    def export_pets(self) -> list[Pet]:
        """Every pet of the namespace, in id order."""
        return self._call("exportPets")

    def replace_pets(self, pets: Sequence[Pet]) -> StateSummary:
        """Replaces every pet; an invalid record or a repeated id changes nothing."""
        return self._call("replacePets", body=list(pets))

    # --- journal ---------------------------------------------------------------------------

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
        """A page of the requests the namespace received that match every filter given, oldest
        first, with the ``count`` of all that match. ``path`` is exact, or a prefix when it ends
        with ``*``; ``operation_id`` may be ``unmatched``; ``trace_id`` keeps the requests whose
        W3C traceparent carried it. The page holds at most ``limit`` entries
        (0 to 1000, the sandbox's default 100 when None; 0 for the count alone), those after the
        entry ``after``: the previous page's ``next``."""
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
        return self._call("listRequests", query=query)

    def count_requests(self, **filters: Any) -> int:
        """How many requests match every filter of :meth:`list_requests` given: the journal's
        cheapest check, no entry is sent."""
        return self.list_requests(**filters, limit=0)["count"]

    def iter_requests(self, *, page_size: int | None = None, **filters: Any) -> Iterator[JournalEntry]:
        """Every request that matches the filters of :meth:`list_requests`, oldest first, fetched a
        page (of ``page_size``, the sandbox's default when None) at a time as the loop goes on."""
        after: int | None = None
        while True:
            page = self.list_requests(**filters, limit=page_size, after=after)
            yield from page["entries"]
            after = page["next"]
            if after is None:
                return

    def clear_requests(self) -> Cleared:
        return self._call("clearRequests")

    def list_unmatched_requests(self, *, limit: int | None = None, after: int | None = None) -> JournalPage:
        """A page of the requests no operation of the API matched, as :meth:`list_requests`."""
        return self._call("listUnmatchedRequests", query=_present(limit=limit, after=after))

    # --- faults ----------------------------------------------------------------------------

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
        """Arms a fault on the API operation ``operation_id``: it lets the first ``after`` calls
        pass, then answers ``status``, waits ``delay_ms`` or breaks the connection (``fault``) on
        the next ``times`` calls (every call when ``times`` is None)."""
        body = _present(
            operationId=operation_id, status=status, delayMs=delay_ms, fault=fault, times=times, after=after
        )
        return self._call("addFault", body=body)

    def list_faults(self) -> FaultsGetResponse:
        """The faults, oldest first, with how often each has fired."""
        return self._call("listFaults")

    def clear_faults(self) -> Cleared:
        return self._call("clearFaults")

    # --- clock -----------------------------------------------------------------------------

    def get_clock(self) -> Clock:
        return self._call("getClock")

    def set_clock(self, now: datetime | str) -> Clock:
        """Moves the namespace's clock to ``now``, from where it runs at the real pace."""
        return self._call("setClock", body={"now": _timestamp(now)})

    def reset_clock(self) -> Clock:
        """Returns the namespace's clock to real time."""
        return self._call("resetClock")

    # --- namespaces ------------------------------------------------------------------------

    def list_namespaces(self) -> NamespacesGetResponse:
        """Every namespace in memory, least recently used first, whichever this handle is on."""
        return self._call("listNamespaces")

    def delete_namespace(self, name: str) -> NamespacesNameDeleteResponse:
        """Deletes the namespace ``name`` with its pets, journal, faults and clock (durably)."""
        return self._call("deleteNamespace", path={"name": name})

    # --- snapshots -------------------------------------------------------------------------

    def create_snapshot(self, name: str, *, namespace: str | None = None) -> Snapshot:
        """Freezes the pets and clock of ``namespace`` (this handle's namespace when None) under
        ``name``, for ``reset(snapshot=name)``. A snapshot never changes; its name is taken until
        it is deleted."""
        body = _present(name=name, namespace=namespace or self._namespace)
        return self._call("createSnapshot", body=body)

    def list_snapshots(self) -> SnapshotsGetResponse:
        """Every snapshot, oldest first, with the namespaces that start from it."""
        return self._call("listSnapshots")

    def delete_snapshot(self, name: str) -> SnapshotsNameDeleteResponse:
        """Deletes the snapshot ``name``; refused (409, naming them) while namespaces start from it."""
        return self._call("deleteSnapshot", path={"name": name})

    # --- verification ----------------------------------------------------------------------

    @overload
    def get_coverage(
        self, *, all: bool = False, format: Literal["json"] = "json", trace_id: str | None = None
    ) -> CoverageReport: ...

    @overload
    def get_coverage(self, *, all: bool = False, format: Literal["markdown"], trace_id: str | None = None) -> str: ...

    def get_coverage(
        self, *, all: bool = False, format: Literal["json", "markdown"] = "json", trace_id: str | None = None
    ) -> CoverageReport | str:
        """What the namespace's journaled requests covered of the API's contract: per operation,
        the calls and each documented response exercised or not; the deprecated operations
        called; the unmatched and invalid requests. ``all=True`` reports across every namespace,
        whichever this handle is on; ``format="markdown"`` gives the report as a table for people;
        ``trace_id`` counts only the calls of that trace the journal keeps."""
        query = _present(all="true" if all else None, format=None if format == "json" else format, traceId=trace_id)
        response = self._send("getCoverage", query=query, across_namespaces=all, accept=_MEDIA_TYPES[format])
        return response.text if format == "markdown" else response.json()

    def get_drift(self) -> DriftReport:
        """Each difference between the sandbox's answers and the real API's (UPSTREAM), with
        counts per operation; mode ``off`` and nothing in it when no upstream is set."""
        return self._call("getDrift")

    def verify(
        self, expectations: Sequence[Expectation], *, strict: bool = False, trace_id: str | None = None
    ) -> VerifyResult:
        """Checks the namespace's journal against the calls expected. With ``strict``, every call
        no expectation matched fails the verification; with ``trace_id``, only the calls of that
        trace count. The sandbox answers whether it passed or not: see ``passed``, or
        :func:`assert_verified`."""
        body = {"expectations": list(expectations), "strict": strict}
        return self._call("verify", query=_present(traceId=trace_id), body=body)

    def export_pact(self, *, consumer: str | None = None, provider: str | None = None) -> dict[str, Any]:
        """The calls the namespace received as a Pact (specification V4): one interaction per
        distinct request and response shape, with matchers from the spec and provider states that
        ``animal-store-sandbox pact verify`` restores. ``consumer`` defaults to the namespace's
        name, ``provider`` to the API's title."""
        return self._call("exportPact", query=_present(consumer=consumer, provider=provider))

    def _call(
        self,
        operation_id: str,
        *,
        query: dict[str, Any] | None = None,
        body: Any = None,
        path: dict[str, str] | None = None,
    ) -> Any:
        return self._send(operation_id, query=query, body=body, path=path).json()

    def _send(
        self,
        operation_id: str,
        *,
        query: dict[str, Any] | None = None,
        body: Any = None,
        path: dict[str, str] | None = None,
        across_namespaces: bool = False,
        accept: str = "application/json",
    ) -> requests.Response:
        route = OPERATIONS[operation_id]
        route_path = route.path.format(**{name: quote(value, safe="") for name, value in (path or {}).items()})
        params = dict(query or {})
        if route.namespaced and not across_namespaces and self._namespace is not None:
            params["namespace"] = self._namespace
        response = self._session.request(
            route.method,
            f"{self._origin}{CONTROL_BASE_PATH}{route_path}",
            params=params,
            json=body,
            headers={"Authorization": f"Bearer {self._admin_token}", "Accept": accept},
            timeout=self._timeout,
        )
        if response.status_code >= 400:
            raise _control_error(operation_id, response)
        return response


def _control_error(operation_id: str, response: requests.Response) -> AnimalStoreControlError:
    try:
        error = response.json()
    except ValueError:
        error = None
    if not isinstance(error, dict):
        # Not the sandbox's Error body (e.g. a proxy's page): keep what there is.
        return AnimalStoreControlError(operation_id, response.status_code, "unknown", response.text[:500])
    return AnimalStoreControlError(
        operation_id, response.status_code, str(error.get("code", "unknown")), str(error.get("message", ""))
    )


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
