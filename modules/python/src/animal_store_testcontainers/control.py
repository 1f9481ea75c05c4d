"""A typed client of the sandbox's control API (``/__admin``), usable against any running sandbox.

Every call acts on one namespace: the default one for the client itself, or the one of a handle
from :meth:`ControlClient.namespace`, which also gives a test what its own HTTP client needs to
reach that namespace through the API (:attr:`ControlClient.api_base_url`,
:attr:`ControlClient.api_headers`).
"""

import copy
import re
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime, timezone
from typing import Any, Literal, NamedTuple, Optional, Union, cast, overload
from urllib.parse import quote

import requests
from typing_extensions import NotRequired, Self, TypedDict

DEFAULT_API_KEY = "sandbox-api-key"
DEFAULT_ADMIN_TOKEN = "sandbox-admin-token"
API_BASE_PATH = "/v1"
CONTROL_BASE_PATH = "/__admin"
NAMESPACE_HEADER = "X-Sandbox-Namespace"
_MEDIA_TYPES = {"json": "application/json", "markdown": "text/markdown"}
# The sandbox's rule for names: they also name its data files.
NAMESPACE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")

FaultKind = Literal["connection-reset", "empty-response", "malformed-body"]
PetStatus = Literal["available", "pending", "sold"]


class Pet(TypedDict):
    id: int
    name: str
    categoryId: int
    # The sandbox always answers with one; replacePets gives "available" when it is left out.
    status: NotRequired[PetStatus]


class StateSummary(TypedDict):
    namespace: str
    pets: int


class Cleared(TypedDict):
    namespace: str
    cleared: int


class Clock(TypedDict):
    namespace: str
    now: str
    real: bool


class Fault(TypedDict):
    id: int
    operationId: str
    status: NotRequired[int]
    delayMs: NotRequired[int]
    fault: NotRequired[FaultKind]
    times: NotRequired[int]
    after: NotRequired[int]
    seen: int
    fired: int


class FaultList(TypedDict):
    count: int
    faults: list[Fault]


class AnsweredError(TypedDict):
    code: str
    message: str


class JournalEntry(TypedDict):
    id: int
    time: str
    namespace: str
    method: str
    path: str
    query: dict[str, Union[str, list[str]]]
    # Authorization and any configured key are redacted.
    headers: dict[str, str]
    body: Any
    status: Optional[int]
    durationMs: float
    operationId: str
    fault: Optional[str]
    # The code and message of the Error body answered; None for any other answer.
    error: Optional[AnsweredError]
    # The trace id of the request's W3C traceparent; absent when it sent none valid.
    traceId: NotRequired[str]


class JournalPage(TypedDict):
    """One page of the matching entries, oldest first."""

    # How many entries match the filters: the page's and all others.
    count: int
    entries: list[JournalEntry]
    # The ``after`` of the next page; None on the last page (and for ``limit=0``).
    next: Optional[int]


class NamespaceInfo(TypedDict):
    name: str
    requests: int
    faults: int


class NamespaceList(TypedDict):
    max: int
    namespaces: list[NamespaceInfo]


class Deleted(TypedDict):
    namespace: str
    deleted: bool


class Snapshot(TypedDict):
    """A namespace's pets and clock frozen under a name, for ``reset(snapshot=name)``."""

    name: str
    # The namespace it was taken from.
    namespace: str
    pets: int
    # Where a namespace reset to it starts its clock; None when that clock followed real time.
    clock: Optional[str]
    createdAt: str
    # The namespaces that start from it: while there are any, it cannot be deleted.
    forks: list[str]


class SnapshotList(TypedDict):
    count: int
    snapshots: list[Snapshot]


class SnapshotDeleted(TypedDict):
    snapshot: str
    deleted: bool


# --- coverage and verification ---------------------------------------------------------------

Stability = Literal["experimental", "beta", "stable"]


class CoverageSummary(TypedDict):
    calls: int
    operations: int
    # Documented responses, a 400 once per Error code the sandbox answers.
    responses: int
    exercised: int
    unmatched: int
    invalid: int
    deprecatedCalls: int
    unstableCalls: int
    unauthenticatedDropped: int
    # Entries the journals dropped (JOURNAL_SIZE), counted all the same.
    journalDropped: int
    # With all=True: namespaces deleted and evicted since the start, their calls counted all the same.
    namespacesDeleted: int
    namespacesEvicted: int


class ResponseCoverage(TypedDict):
    # As the spec writes it: "201", "400", "default".
    status: str
    # For a 400, the Error code; None otherwise.
    code: Optional[str]
    # e.g. "400 invalid_body"
    label: str
    exercised: bool
    calls: int
    # Of the calls, those answered by a fault or a Prefer header.
    forced: int


class UndocumentedAnswer(TypedDict):
    status: int
    code: Optional[str]
    calls: int


class ParameterValue(TypedDict):
    # None for the parameter left out.
    value: Optional[str]
    kind: Literal["enum", "minimum", "maximum", "default", "omitted"]
    label: str
    calls: int


class OtherValue(TypedDict):
    value: str
    calls: int


class ParameterCoverage(TypedDict):
    name: str
    values: list[ParameterValue]
    others: list[OtherValue]


class OperationCoverage(TypedDict):
    operationId: str
    method: str
    # With the API's base path, e.g. /v1/pets/{petId}.
    path: str
    stability: Stability
    deprecated: bool
    sunset: Optional[str]
    replacement: Optional[str]
    calls: int
    responses: list[ResponseCoverage]
    undocumented: list[UndocumentedAnswer]
    # Calls a fault closed without an answer.
    unanswered: int
    parameters: list[ParameterCoverage]


class DeprecatedCall(TypedDict):
    operationId: str
    method: str
    path: str
    calls: int
    sunset: Optional[str]
    replacement: Optional[str]


class UnstableCall(TypedDict):
    operationId: str
    method: str
    path: str
    stability: Stability
    calls: int


class UnmatchedRequest(TypedDict):
    method: str
    path: str
    status: Optional[int]
    calls: int


class UnmatchedRequests(TypedDict):
    count: int
    requests: list[UnmatchedRequest]


class InvalidRequest(TypedDict):
    id: int
    namespace: str
    operationId: str
    method: str
    path: str
    status: int
    code: str
    message: str


class InvalidRequests(TypedDict):
    count: int
    requests: list[InvalidRequest]


class CoverageReport(TypedDict):
    """What the journaled requests covered of the API's contract (getCoverage)."""

    reportVersion: int
    generatedAt: str
    # None when the report spans every namespace.
    namespace: Optional[str]
    namespaces: list[str]
    summary: CoverageSummary
    operations: list[OperationCoverage]
    deprecatedCalls: list[DeprecatedCall]
    unstableCalls: list[UnstableCall]
    unmatched: UnmatchedRequests
    invalid: InvalidRequests


class Expectation(TypedDict):
    """A call a test expected: at least one when none of count, min and max is given."""

    # An operationId of the API, or "unmatched".
    operationId: str
    count: NotRequired[int]
    min: NotRequired[int]
    max: NotRequired[int]
    # A JSON value the request body must contain: objects as subsets, arrays element by element.
    body: NotRequired[Any]
    # Headers the call must carry: names in any case, values exact.
    headers: NotRequired[dict[str, str]]


class EntrySummary(TypedDict):
    id: int
    method: str
    path: str
    status: Optional[int]
    operationId: str


# "in" is a keyword: only the functional form can name that key.
Difference = TypedDict(
    "Difference",
    {
        "in": Literal["body", "header"],
        # A JSON Pointer into the body ("" for the whole body), or the header's name.
        "pointer": str,
        "expected": Any,
        # Absent when there was nothing there.
        "actual": NotRequired[Any],
        # e.g. 'createPet body /categoryId: expected 3, got "3"'
        "message": str,
    },
)


class Closest(TypedDict):
    entry: EntrySummary
    differences: list[Difference]


class ExpectationResult(TypedDict):
    index: int
    operationId: str
    passed: bool
    # The count wanted, in words: "exactly 1".
    expected: str
    matched: int
    matchedEntries: list[int]
    # When it failed for want of a match, the calls that came closest, fewest differences first.
    closest: list[Closest]
    message: str


class DriftRequest(TypedDict):
    method: str
    target: str


class Drift(TypedDict):
    """One difference between the sandbox's answer and the real API's (getDrift)."""

    operationId: str
    request: DriftRequest
    # A JSON pointer into the answer: /status, /headers/<name>, /body/...
    pointer: str
    kind: str
    sandbox: Any
    upstream: Any
    time: str


class OperationDrift(TypedDict):
    compared: int
    differences: int


class DriftReport(TypedDict):
    """How the sandbox's answers differed from the real API's (UPSTREAM_MODE=compare)."""

    namespace: str
    upstream: Optional[str]
    mode: str
    compared: int
    skipped: int
    count: int
    operations: dict[str, OperationDrift]
    differences: list[Drift]


class VerifyResult(TypedDict):
    """Whether the journal holds the calls expected (verify)."""

    namespace: str
    passed: bool
    # The answer depends on entries the journal dropped: then it did not pass.
    incomplete: bool
    journalDropped: int
    strict: bool
    checked: int
    expectations: list[ExpectationResult]
    # In strict mode, the calls no expectation matched.
    unexpected: list[EntrySummary]
    message: str


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
        admin_token: str = DEFAULT_ADMIN_TOKEN,
        *,
        api_key: str = DEFAULT_API_KEY,
        timeout: float = 10.0,
    ) -> None:
        self._origin = origin.rstrip("/")
        self._admin_token = admin_token
        self._api_key = api_key
        self._timeout = timeout
        self._session = requests.Session()
        self._namespace: Optional[str] = None

    def namespace(self, name: str) -> Self:
        """A handle whose calls, and whose :attr:`api_headers`, act on namespace ``name``."""
        if not NAMESPACE_NAME.fullmatch(name):
            raise ValueError(
                f"namespace {name!r}: 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit"
            )
        handle = copy.copy(self)
        handle._namespace = name
        return handle

    @property
    def namespace_name(self) -> Optional[str]:
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

    def reset(
        self, *, seed: Optional[int] = None, count: Optional[int] = None, snapshot: Optional[str] = None
    ) -> StateSummary:
        """Puts the namespace back to its initial data (or to ``count`` pets generated from
        ``seed``, or to the pets and clock of the snapshot ``snapshot``), and clears its journal,
        its faults and its clock. A namespace started from a snapshot shares its pets until it
        changes them: no change of it reaches the snapshot or another namespace."""
        body = _present(seed=seed, count=count, snapshot=snapshot)
        return cast(StateSummary, self._call("reset", body=body or None))

    def export_pets(self) -> list[Pet]:
        """Every pet of the namespace, in id order."""
        return cast(list[Pet], self._call("exportPets"))

    def replace_pets(self, pets: Sequence[Pet]) -> StateSummary:
        """Replaces every pet; an invalid record or a repeated id changes nothing."""
        return cast(StateSummary, self._call("replacePets", body=list(pets)))

    # --- journal ---------------------------------------------------------------------------

    def list_requests(
        self,
        *,
        method: Optional[str] = None,
        path: Optional[str] = None,
        operation_id: Optional[str] = None,
        status: Optional[int] = None,
        since: Union[datetime, str, None] = None,
        trace_id: Optional[str] = None,
        limit: Optional[int] = None,
        after: Optional[int] = None,
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
        return cast(JournalPage, self._call("listRequests", query=query))

    def count_requests(
        self,
        *,
        method: Optional[str] = None,
        path: Optional[str] = None,
        operation_id: Optional[str] = None,
        status: Optional[int] = None,
        since: Union[datetime, str, None] = None,
        trace_id: Optional[str] = None,
    ) -> int:
        """How many requests match every filter given: the journal's cheapest check, no entry is
        sent."""
        page = self.list_requests(
            method=method,
            path=path,
            operation_id=operation_id,
            status=status,
            since=since,
            trace_id=trace_id,
            limit=0,
        )
        return page["count"]

    def iter_requests(
        self,
        *,
        method: Optional[str] = None,
        path: Optional[str] = None,
        operation_id: Optional[str] = None,
        status: Optional[int] = None,
        since: Union[datetime, str, None] = None,
        trace_id: Optional[str] = None,
        page_size: Optional[int] = None,
    ) -> Iterator[JournalEntry]:
        """Every request that matches the filters, oldest first, fetched a page (of ``page_size``,
        the sandbox's default when None) at a time as the loop goes on."""
        if page_size == 0:
            raise ValueError("page_size must be at least 1")
        after: Optional[int] = None
        while True:
            page = self.list_requests(
                method=method,
                path=path,
                operation_id=operation_id,
                status=status,
                since=since,
                trace_id=trace_id,
                limit=page_size,
                after=after,
            )
            yield from page["entries"]
            after = page["next"]
            if after is None:
                return

    def clear_requests(self) -> Cleared:
        return cast(Cleared, self._call("clearRequests"))

    def list_unmatched_requests(self, *, limit: Optional[int] = None, after: Optional[int] = None) -> JournalPage:
        """A page of the requests no operation of the API matched, as :meth:`list_requests`."""
        return cast(JournalPage, self._call("listUnmatchedRequests", query=_present(limit=limit, after=after)))

    # --- faults ----------------------------------------------------------------------------

    def add_fault(
        self,
        operation_id: str,
        *,
        status: Optional[int] = None,
        delay_ms: Optional[int] = None,
        fault: Optional[FaultKind] = None,
        times: Optional[int] = None,
        after: Optional[int] = None,
    ) -> Fault:
        """Arms a fault on the API operation ``operation_id``: it lets the first ``after`` calls
        pass, then answers ``status``, waits ``delay_ms`` or breaks the connection (``fault``) on
        the next ``times`` calls (every call when ``times`` is None)."""
        body = _present(
            operationId=operation_id, status=status, delayMs=delay_ms, fault=fault, times=times, after=after
        )
        return cast(Fault, self._call("addFault", body=body))

    def list_faults(self) -> FaultList:
        """The faults, oldest first, with how often each has fired."""
        return cast(FaultList, self._call("listFaults"))

    def clear_faults(self) -> Cleared:
        return cast(Cleared, self._call("clearFaults"))

    # --- clock -----------------------------------------------------------------------------

    def get_clock(self) -> Clock:
        return cast(Clock, self._call("getClock"))

    def set_clock(self, now: Union[datetime, str]) -> Clock:
        """Moves the namespace's clock to ``now``, from where it runs at the real pace."""
        return cast(Clock, self._call("setClock", body={"now": _timestamp(now)}))

    def reset_clock(self) -> Clock:
        """Returns the namespace's clock to real time."""
        return cast(Clock, self._call("resetClock"))

    # --- namespaces ------------------------------------------------------------------------

    def list_namespaces(self) -> NamespaceList:
        """Every namespace in memory, least recently used first, whichever this handle is on."""
        return cast(NamespaceList, self._call("listNamespaces"))

    def delete_namespace(self, name: str) -> Deleted:
        """Deletes the namespace ``name`` with its pets, journal, faults and clock (durably)."""
        return cast(Deleted, self._call("deleteNamespace", path={"name": name}))

    # --- snapshots -------------------------------------------------------------------------

    def create_snapshot(self, name: str, *, namespace: Optional[str] = None) -> Snapshot:
        """Freezes the pets and clock of ``namespace`` (this handle's namespace when None) under
        ``name``, for ``reset(snapshot=name)``. A snapshot never changes; its name is taken until
        it is deleted."""
        body = _present(name=name, namespace=namespace or self._namespace)
        return cast(Snapshot, self._call("createSnapshot", body=body))

    def list_snapshots(self) -> SnapshotList:
        """Every snapshot, oldest first, with the namespaces that start from it."""
        return cast(SnapshotList, self._call("listSnapshots"))

    def delete_snapshot(self, name: str) -> SnapshotDeleted:
        """Deletes the snapshot ``name``; refused (409, naming them) while namespaces start from it."""
        return cast(SnapshotDeleted, self._call("deleteSnapshot", path={"name": name}))

    # --- verification ----------------------------------------------------------------------

    @overload
    def get_coverage(
        self, *, all: bool = False, format: Literal["json"] = "json", trace_id: Optional[str] = None
    ) -> CoverageReport: ...

    @overload
    def get_coverage(
        self, *, all: bool = False, format: Literal["markdown"], trace_id: Optional[str] = None
    ) -> str: ...

    def get_coverage(
        self, *, all: bool = False, format: Literal["json", "markdown"] = "json", trace_id: Optional[str] = None
    ) -> Union[CoverageReport, str]:
        """What the namespace's journaled requests covered of the API's contract: per operation,
        the calls and each documented response exercised or not; the deprecated operations
        called; the unmatched and invalid requests. ``all=True`` reports across every namespace,
        whichever this handle is on; ``format="markdown"`` gives the report as a table for people;
        ``trace_id`` counts only the calls of that trace the journal keeps."""
        query = _present(all="true" if all else None, format=None if format == "json" else format, traceId=trace_id)
        response = self._send("getCoverage", query=query, across_namespaces=all, accept=_MEDIA_TYPES[format])
        return response.text if format == "markdown" else cast(CoverageReport, response.json())

    def get_drift(self) -> DriftReport:
        """Each difference between the sandbox's answers and the real API's (UPSTREAM), with
        counts per operation; mode ``off`` and nothing in it when no upstream is set."""
        return cast(DriftReport, self._call("getDrift"))

    def verify(
        self, expectations: Sequence[Expectation], *, strict: bool = False, trace_id: Optional[str] = None
    ) -> VerifyResult:
        """Checks the namespace's journal against the calls expected. With ``strict``, every call
        no expectation matched fails the verification; with ``trace_id``, only the calls of that
        trace count. The sandbox answers whether it passed or not: see ``passed``, or
        :func:`assert_verified`."""
        body = {"expectations": list(expectations), "strict": strict}
        return cast(VerifyResult, self._call("verify", query=_present(traceId=trace_id), body=body))

    def export_pact(self, *, consumer: Optional[str] = None, provider: Optional[str] = None) -> dict[str, Any]:
        """The calls the namespace received as a Pact (specification V4): one interaction per
        distinct request and response shape, with matchers from the spec and provider states that
        ``animal-store-sandbox pact verify`` restores. ``consumer`` defaults to the namespace's
        name, ``provider`` to the API's title."""
        return cast(dict[str, Any], self._call("exportPact", query=_present(consumer=consumer, provider=provider)))

    def _call(
        self,
        operation_id: str,
        *,
        query: Optional[dict[str, Any]] = None,
        body: Any = None,
        path: Optional[dict[str, str]] = None,
    ) -> Any:
        return self._send(operation_id, query=query, body=body, path=path).json()

    def _send(
        self,
        operation_id: str,
        *,
        query: Optional[dict[str, Any]] = None,
        body: Any = None,
        path: Optional[dict[str, str]] = None,
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


def _timestamp(value: Union[datetime, str]) -> str:
    """An RFC 3339 date-time in UTC; a string is passed on as it is, for the sandbox to judge."""
    if isinstance(value, str):
        return value
    if value.tzinfo is None:
        raise ValueError(f"{value!r} has no time zone: give one, e.g. tzinfo=timezone.utc")
    return value.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
