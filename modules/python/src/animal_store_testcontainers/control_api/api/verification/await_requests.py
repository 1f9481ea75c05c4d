from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.await_request import AwaitRequest
from ...models.await_result import AwaitResult
from ...models.error import Error
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: AwaitRequest,
    namespace: str | Unset = UNSET,
    trace_id: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    params: dict[str, Any] = {}

    params["namespace"] = namespace

    params["traceId"] = trace_id

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/requests/await",
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AwaitResult | Error | None:
    if response.status_code == 200:
        response_200 = AwaitResult.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Error.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = Error.from_dict(response.json())

        return response_404

    if response.status_code == 421:
        response_421 = Error.from_dict(response.json())

        return response_421

    if response.status_code == 429:
        response_429 = Error.from_dict(response.json())

        return response_429

    if response.status_code == 503:
        response_503 = Error.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[AwaitResult | Error]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: AwaitRequest,
    namespace: str | Unset = UNSET,
    trace_id: str | Unset = UNSET,
) -> Response[AwaitResult | Error]:
    """Wait until the journal holds the calls a test expects

     Long-polls: answers as soon as the namespace's journal (or the trace's, with `traceId`) holds calls
    meeting every expectation (verify's: operation, body, headers; `count` is exactly, `min` at least),
    or as soon as an expectation can no longer be met (more calls than its `count` or `max`), or at the
    deadline `timeoutMs` (at most 30000), whichever comes first. With `quietMs`, it answers once the
    namespace (the trace) has had no call for that long instead of when the expectations are met, which
    are then judged. The answer is verify's, taken at that moment, with `endedBy` saying what ended the
    wait: a wait that ended at the deadline names the near misses as verify does. A call journaled by
    another replica (DATABASE_URL) is seen within 250 ms. At most 16 waits per namespace and 64 in all
    are open at once: past either, a 429 with Retry-After. A client that goes away ends its wait.

    Args:
        namespace (str | Unset):
        trace_id (str | Unset):
        body (AwaitRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AwaitResult | Error]
    """

    kwargs = _get_kwargs(
        body=body,
        namespace=namespace,
        trace_id=trace_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: AwaitRequest,
    namespace: str | Unset = UNSET,
    trace_id: str | Unset = UNSET,
) -> AwaitResult | Error | None:
    """Wait until the journal holds the calls a test expects

     Long-polls: answers as soon as the namespace's journal (or the trace's, with `traceId`) holds calls
    meeting every expectation (verify's: operation, body, headers; `count` is exactly, `min` at least),
    or as soon as an expectation can no longer be met (more calls than its `count` or `max`), or at the
    deadline `timeoutMs` (at most 30000), whichever comes first. With `quietMs`, it answers once the
    namespace (the trace) has had no call for that long instead of when the expectations are met, which
    are then judged. The answer is verify's, taken at that moment, with `endedBy` saying what ended the
    wait: a wait that ended at the deadline names the near misses as verify does. A call journaled by
    another replica (DATABASE_URL) is seen within 250 ms. At most 16 waits per namespace and 64 in all
    are open at once: past either, a 429 with Retry-After. A client that goes away ends its wait.

    Args:
        namespace (str | Unset):
        trace_id (str | Unset):
        body (AwaitRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AwaitResult | Error
    """

    return sync_detailed(
        client=client,
        body=body,
        namespace=namespace,
        trace_id=trace_id,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: AwaitRequest,
    namespace: str | Unset = UNSET,
    trace_id: str | Unset = UNSET,
) -> Response[AwaitResult | Error]:
    """Wait until the journal holds the calls a test expects

     Long-polls: answers as soon as the namespace's journal (or the trace's, with `traceId`) holds calls
    meeting every expectation (verify's: operation, body, headers; `count` is exactly, `min` at least),
    or as soon as an expectation can no longer be met (more calls than its `count` or `max`), or at the
    deadline `timeoutMs` (at most 30000), whichever comes first. With `quietMs`, it answers once the
    namespace (the trace) has had no call for that long instead of when the expectations are met, which
    are then judged. The answer is verify's, taken at that moment, with `endedBy` saying what ended the
    wait: a wait that ended at the deadline names the near misses as verify does. A call journaled by
    another replica (DATABASE_URL) is seen within 250 ms. At most 16 waits per namespace and 64 in all
    are open at once: past either, a 429 with Retry-After. A client that goes away ends its wait.

    Args:
        namespace (str | Unset):
        trace_id (str | Unset):
        body (AwaitRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AwaitResult | Error]
    """

    kwargs = _get_kwargs(
        body=body,
        namespace=namespace,
        trace_id=trace_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: AwaitRequest,
    namespace: str | Unset = UNSET,
    trace_id: str | Unset = UNSET,
) -> AwaitResult | Error | None:
    """Wait until the journal holds the calls a test expects

     Long-polls: answers as soon as the namespace's journal (or the trace's, with `traceId`) holds calls
    meeting every expectation (verify's: operation, body, headers; `count` is exactly, `min` at least),
    or as soon as an expectation can no longer be met (more calls than its `count` or `max`), or at the
    deadline `timeoutMs` (at most 30000), whichever comes first. With `quietMs`, it answers once the
    namespace (the trace) has had no call for that long instead of when the expectations are met, which
    are then judged. The answer is verify's, taken at that moment, with `endedBy` saying what ended the
    wait: a wait that ended at the deadline names the near misses as verify does. A call journaled by
    another replica (DATABASE_URL) is seen within 250 ms. At most 16 waits per namespace and 64 in all
    are open at once: past either, a 429 with Retry-After. A client that goes away ends its wait.

    Args:
        namespace (str | Unset):
        trace_id (str | Unset):
        body (AwaitRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AwaitResult | Error
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            namespace=namespace,
            trace_id=trace_id,
        )
    ).parsed
