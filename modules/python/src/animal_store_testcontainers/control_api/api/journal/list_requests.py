import datetime
from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.journal_page import JournalPage
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    namespace: str | Unset = UNSET,
    method: str | Unset = UNSET,
    path: str | Unset = UNSET,
    operation_id: str | Unset = UNSET,
    status: int | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    trace_id: str | Unset = UNSET,
    logical_calls: bool | Unset = False,
    limit: int | Unset = 100,
    after: int | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["namespace"] = namespace

    params["method"] = method

    params["path"] = path

    params["operationId"] = operation_id

    params["status"] = status

    json_since: str | Unset = UNSET
    if not isinstance(since, Unset):
        json_since = since.isoformat()
    params["since"] = json_since

    params["traceId"] = trace_id

    params["logicalCalls"] = logical_calls

    params["limit"] = limit

    params["after"] = after

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/requests",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | JournalPage | None:
    if response.status_code == 200:
        response_200 = JournalPage.from_dict(response.json())

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

    if response.status_code == 503:
        response_503 = Error.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Error | JournalPage]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    namespace: str | Unset = UNSET,
    method: str | Unset = UNSET,
    path: str | Unset = UNSET,
    operation_id: str | Unset = UNSET,
    status: int | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    trace_id: str | Unset = UNSET,
    logical_calls: bool | Unset = False,
    limit: int | Unset = 100,
    after: int | Unset = UNSET,
) -> Response[Error | JournalPage]:
    """List the requests a namespace received

     One page of the matching entries, oldest first, and the count of all of them. Every filter given
    must match. `limit=0` answers the count alone; `next` is the `after` of the next page.

    Args:
        namespace (str | Unset):
        method (str | Unset):
        path (str | Unset):
        operation_id (str | Unset):
        status (int | Unset):
        since (datetime.datetime | Unset):
        trace_id (str | Unset):
        logical_calls (bool | Unset):  Default: False.
        limit (int | Unset):  Default: 100.
        after (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | JournalPage]
    """

    kwargs = _get_kwargs(
        namespace=namespace,
        method=method,
        path=path,
        operation_id=operation_id,
        status=status,
        since=since,
        trace_id=trace_id,
        logical_calls=logical_calls,
        limit=limit,
        after=after,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    namespace: str | Unset = UNSET,
    method: str | Unset = UNSET,
    path: str | Unset = UNSET,
    operation_id: str | Unset = UNSET,
    status: int | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    trace_id: str | Unset = UNSET,
    logical_calls: bool | Unset = False,
    limit: int | Unset = 100,
    after: int | Unset = UNSET,
) -> Error | JournalPage | None:
    """List the requests a namespace received

     One page of the matching entries, oldest first, and the count of all of them. Every filter given
    must match. `limit=0` answers the count alone; `next` is the `after` of the next page.

    Args:
        namespace (str | Unset):
        method (str | Unset):
        path (str | Unset):
        operation_id (str | Unset):
        status (int | Unset):
        since (datetime.datetime | Unset):
        trace_id (str | Unset):
        logical_calls (bool | Unset):  Default: False.
        limit (int | Unset):  Default: 100.
        after (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | JournalPage
    """

    return sync_detailed(
        client=client,
        namespace=namespace,
        method=method,
        path=path,
        operation_id=operation_id,
        status=status,
        since=since,
        trace_id=trace_id,
        logical_calls=logical_calls,
        limit=limit,
        after=after,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    namespace: str | Unset = UNSET,
    method: str | Unset = UNSET,
    path: str | Unset = UNSET,
    operation_id: str | Unset = UNSET,
    status: int | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    trace_id: str | Unset = UNSET,
    logical_calls: bool | Unset = False,
    limit: int | Unset = 100,
    after: int | Unset = UNSET,
) -> Response[Error | JournalPage]:
    """List the requests a namespace received

     One page of the matching entries, oldest first, and the count of all of them. Every filter given
    must match. `limit=0` answers the count alone; `next` is the `after` of the next page.

    Args:
        namespace (str | Unset):
        method (str | Unset):
        path (str | Unset):
        operation_id (str | Unset):
        status (int | Unset):
        since (datetime.datetime | Unset):
        trace_id (str | Unset):
        logical_calls (bool | Unset):  Default: False.
        limit (int | Unset):  Default: 100.
        after (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | JournalPage]
    """

    kwargs = _get_kwargs(
        namespace=namespace,
        method=method,
        path=path,
        operation_id=operation_id,
        status=status,
        since=since,
        trace_id=trace_id,
        logical_calls=logical_calls,
        limit=limit,
        after=after,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    namespace: str | Unset = UNSET,
    method: str | Unset = UNSET,
    path: str | Unset = UNSET,
    operation_id: str | Unset = UNSET,
    status: int | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    trace_id: str | Unset = UNSET,
    logical_calls: bool | Unset = False,
    limit: int | Unset = 100,
    after: int | Unset = UNSET,
) -> Error | JournalPage | None:
    """List the requests a namespace received

     One page of the matching entries, oldest first, and the count of all of them. Every filter given
    must match. `limit=0` answers the count alone; `next` is the `after` of the next page.

    Args:
        namespace (str | Unset):
        method (str | Unset):
        path (str | Unset):
        operation_id (str | Unset):
        status (int | Unset):
        since (datetime.datetime | Unset):
        trace_id (str | Unset):
        logical_calls (bool | Unset):  Default: False.
        limit (int | Unset):  Default: 100.
        after (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | JournalPage
    """

    return (
        await asyncio_detailed(
            client=client,
            namespace=namespace,
            method=method,
            path=path,
            operation_id=operation_id,
            status=status,
            since=since,
            trace_id=trace_id,
            logical_calls=logical_calls,
            limit=limit,
            after=after,
        )
    ).parsed
