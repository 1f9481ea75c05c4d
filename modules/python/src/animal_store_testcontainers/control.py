"""A handle on the sandbox's control API (``/__admin``), usable against any running sandbox.

The calls are those of ``animal_store_testcontainers.control_api``, generated from the spec with
openapi-python-client: one module per operation, named after its operationId, each with ``sync``
(the answer, a model of ``control_api.models``) and ``sync_detailed`` (the whole response). A
handle's :attr:`ControlClient.api` is the client to pass them; its calls act on the handle's
namespace, and a refusal raises :class:`AnimalStoreControlError`::

    from animal_store_testcontainers.control_api.api.faults import add_fault
    from animal_store_testcontainers.control_api.models import NewFault

    add_fault.sync(client=ns.api, body=NewFault(operation_id="listPets", status=503, times=1))

A handle also gives what a test's own HTTP client needs to reach that namespace through the API
(:attr:`ControlClient.api_base_url`, :attr:`ControlClient.api_headers`).
"""

import ssl
from collections.abc import Iterator, Sequence
from typing import Any

import httpx
from typing_extensions import Self

from animal_store_testcontainers.control_api import AuthenticatedClient
from animal_store_testcontainers.control_api.api.journal import list_requests
from animal_store_testcontainers.control_api.api.verification import await_requests, list_stray_requests
from animal_store_testcontainers.control_api.models import (
    AwaitRequest,
    AwaitResult,
    Expectation,
    JournalEntry,
    JournalPage,
    StrayReport,
)
from animal_store_testcontainers.control_api.types import UNSET

API_BASE_PATH = "/v1"
CONTROL_BASE_PATH = "/__admin"
NAMESPACE_HEADER = "X-Sandbox-Namespace"
# The longest wait the sandbox holds a call for (timeoutMs), beyond which a wait's answer is late.
_LONGEST_WAIT_S = 30.0
# Snapshots, the list of namespaces and the CA are the sandbox's, not a namespace's.
_SANDBOX_WIDE = tuple(f"{CONTROL_BASE_PATH}/{part}" for part in ("snapshots", "namespaces", "tls"))


class AnimalStoreControlError(Exception):
    """A control call the sandbox refused: the call, the HTTP status and the Error body's code and message."""

    def __init__(self, operation: str, status: int, code: str, message: str) -> None:
        super().__init__(f"{operation} answered {status} {code}: {message}")
        self.operation = operation
        self.status = status
        self.code = code
        self.message = message


class ControlClient:
    """The control API of the sandbox at ``origin`` (e.g. ``http://localhost:4010``), on the
    default namespace; over HTTPS, trusting the CA in ``ca_file`` (else the system's).
    ``client.namespace("t1")`` returns a handle on namespace ``t1``."""

    def __init__(
        self,
        origin: str,
        admin_token: str,
        *,
        api_key: str,
        ca_file: str | None = None,
        timeout: float = 10.0,
        namespace: str | None = None,
    ) -> None:
        self._origin = origin.rstrip("/")
        self._settings = {"admin_token": admin_token, "api_key": api_key, "ca_file": ca_file, "timeout": timeout}
        self._api_key = api_key
        self._ca_file = ca_file
        self._namespace = namespace
        self.api = self._new_api(httpx.Timeout(timeout))
        """The client the generated calls take; they act on this handle's namespace."""
        # A wait holds its call up to its deadline: its own client reads that much longer.
        self._waits = self._new_api(httpx.Timeout(timeout, read=timeout + _LONGEST_WAIT_S))

    def namespace(self, name: str) -> Self:
        """A handle whose calls, and whose :attr:`api_headers`, act on namespace ``name``."""
        return type(self)(self._origin, **self._settings, namespace=name)

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

    def count_requests(self, **filters: Any) -> int:
        """How many requests match the filters of ``list_requests``: no entry is sent."""
        return self._page(**filters, limit=0).count

    def iter_requests(self, *, page_size: int | None = None, **filters: Any) -> Iterator[JournalEntry]:
        """Every request that matches the filters of ``list_requests``, a page at a time."""
        after: int | None = None
        while True:
            page = self._page(**filters, limit=page_size, after=after)
            yield from page.entries
            if page.next_ is None:
                return
            after = page.next_

    def await_requests(
        self,
        expectations: Sequence[Expectation],
        *,
        timeout_ms: int = 10_000,
        quiet_ms: int | None = None,
        strict: bool = False,
        trace_id: str | None = None,
        **options: Any,
    ) -> AwaitResult:
        """Waits on the sandbox until the journal holds the calls expected, the namespace (the trace)
        was quiet for ``quiet_ms``, or the deadline ``timeout_ms`` (at most 30 s): for a call the
        service under test makes later, from a job or a queue, with no sleep. Answers verify's
        result then, with ``ended_by`` and ``waited_ms``, passed or not (``assert_awaited`` checks
        it); ``options`` are the rest of ``AwaitRequest`` (``no_other_calls``, ``logical_calls``)."""
        body = AwaitRequest(
            expectations=list(expectations),
            timeout_ms=timeout_ms,
            quiet_ms=UNSET if quiet_ms is None else quiet_ms,
            strict=strict,
            **options,
        )
        result = await_requests.sync(client=self._waits, body=body, trace_id=UNSET if trace_id is None else trace_id)
        assert isinstance(result, AwaitResult)  # a refusal has raised
        return result

    def stray_calls(self) -> StrayReport:
        """The calls no running test made that this namespace's test caused (every test's on the
        default namespace), for ``assert_no_stray_calls``."""
        report = list_stray_requests.sync(client=self.api, test=UNSET if self._namespace is None else self._namespace)
        assert isinstance(report, StrayReport)
        return report

    def close(self) -> None:
        """Closes the handle's connections."""
        self.api.get_httpx_client().close()
        self._waits.get_httpx_client().close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _new_api(self, timeout: httpx.Timeout) -> AuthenticatedClient:
        hooks = {"request": [self._in_namespace], "response": [_raise_refusal]}
        return AuthenticatedClient(
            base_url=self._origin + CONTROL_BASE_PATH,
            token=str(self._settings["admin_token"]),
            verify_ssl=ssl.create_default_context(cafile=self._ca_file) if self._ca_file else True,
            timeout=timeout,
            httpx_args={"event_hooks": hooks},
        )

    def _page(self, **query: Any) -> JournalPage:
        page = list_requests.sync(
            client=self.api, **{name: value for name, value in query.items() if value is not None}
        )
        assert isinstance(page, JournalPage)  # a refusal has raised
        return page

    def _in_namespace(self, request: httpx.Request) -> None:
        params = request.url.params
        sandbox_wide = request.url.path.startswith(_SANDBOX_WIDE) or params.get("all") == "true"
        if self._namespace is not None and not sandbox_wide and "namespace" not in params:
            request.url = request.url.copy_add_param("namespace", self._namespace)


def _raise_refusal(response: httpx.Response) -> None:
    if response.status_code < 400:
        return
    response.read()
    try:
        error = response.json()
    except ValueError:
        error = None
    if not isinstance(error, dict):  # not the sandbox's Error body (e.g. a proxy's page)
        error = {"message": response.text[:500]}
    operation = f"{response.request.method} {response.request.url.path.removeprefix(CONTROL_BASE_PATH)}"
    raise AnimalStoreControlError(
        operation, response.status_code, str(error.get("code", "unknown")), str(error.get("message", ""))
    )
