"""A handle on the sandbox's control API (``/__admin``), usable against any running sandbox.

Its :attr:`ControlClient.api` is the client the calls of ``animal_store_testcontainers.control_api``
(generated from the spec) take; they act on the handle's namespace, and a refusal raises
:class:`AnimalStoreControlError`: ``add_fault.sync(client=ns.api, body=NewFault("listPets", status=503))``.
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
    default namespace; over HTTPS, trusting the CA in ``ca_file`` (else the system's)."""

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
        self.origin = origin.rstrip("/")
        self.api_base_url = self.origin + API_BASE_PATH
        self.ca_file = ca_file
        """The file of the CA an HTTPS sandbox is trusted through, for ``verify=``; None over HTTP."""
        self.namespace_name = namespace
        """The namespace this handle acts on; None for the default namespace."""
        self.api_headers = {"Authorization": f"Bearer {api_key}"}
        """The headers an API call needs: the API key and, for a handle, its namespace."""
        if namespace is not None:
            self.api_headers[NAMESPACE_HEADER] = namespace
        self._settings = {"admin_token": admin_token, "api_key": api_key, "ca_file": ca_file, "timeout": timeout}
        self.api = self._new_api(httpx.Timeout(timeout))
        # A wait holds its call up to its deadline: its own client reads that much longer.
        self._waits = self._new_api(httpx.Timeout(timeout, read=timeout + _LONGEST_WAIT_S))

    def namespace(self, name: str) -> Self:
        """A handle whose calls, and whose :attr:`api_headers`, act on namespace ``name``."""
        return type(self)(self.origin, **self._settings, namespace=name)

    def count_requests(self, **filters: Any) -> int:
        """How many requests match the filters of ``list_requests``: no entry is sent."""
        return self._page(**filters, limit=0).count

    def iter_requests(self, *, page_size: int | None = None, **filters: Any) -> Iterator[JournalEntry]:
        """Every request that matches the filters of ``list_requests``, a page at a time."""
        page = self._page(**filters, limit=page_size)
        yield from page.entries
        while page.next_ is not None:
            page = self._page(**filters, limit=page_size, after=page.next_)
            yield from page.entries

    def await_requests(
        self, expectations: Sequence[Expectation], *, trace_id: str | None = None, **options: Any
    ) -> AwaitResult:
        """``await_requests`` on a client that reads as long as the sandbox may hold the call: until
        the journal holds the calls expected, ``quiet_ms`` of quiet, or ``timeout_ms`` (at most 30 s).
        ``options`` are ``AwaitRequest``'s (``timeout_ms``, ``quiet_ms``, ``strict``, ``no_other_calls``)."""
        body = AwaitRequest(expectations=list(expectations), **options)
        result = await_requests.sync(client=self._waits, body=body, trace_id=trace_id or UNSET)
        assert isinstance(result, AwaitResult)  # a refusal has raised
        return result

    def stray_calls(self) -> StrayReport:
        """The stray calls of this namespace's test (every test's on the default namespace)."""
        report = list_stray_requests.sync(client=self.api, test=self.namespace_name or UNSET)
        assert isinstance(report, StrayReport)
        return report

    def close(self) -> None:
        self.api.get_httpx_client().close()
        self._waits.get_httpx_client().close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _new_api(self, timeout: httpx.Timeout) -> AuthenticatedClient:
        hooks = {"request": [self._in_namespace], "response": [_raise_refusal]}
        return AuthenticatedClient(
            base_url=self.origin + CONTROL_BASE_PATH,
            token=str(self._settings["admin_token"]),
            verify_ssl=ssl.create_default_context(cafile=self.ca_file) if self.ca_file else True,
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
        if self.namespace_name is not None and not sandbox_wide and "namespace" not in params:
            request.url = request.url.copy_add_param("namespace", self.namespace_name)


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
