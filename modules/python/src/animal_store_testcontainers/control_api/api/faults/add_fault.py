from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.fault import Fault
from ...models.new_fault import NewFault
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: NewFault,
    namespace: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    params: dict[str, Any] = {}

    params["namespace"] = namespace

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/faults",
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | Fault | None:
    if response.status_code == 201:
        response_201 = Fault.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = Error.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())

        return response_401

    if response.status_code == 409:
        response_409 = Error.from_dict(response.json())

        return response_409

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
) -> Response[Error | Fault]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: NewFault,
    namespace: str | Unset = UNSET,
) -> Response[Error | Fault]:
    """Make the next matching calls fail or slow down

     The fault applies to authenticated calls of `operationId` in the namespace: it skips the first
    `after` of them, then acts on the next `times` (every one when `times` is omitted), then the
    operation answers normally again.

    Args:
        namespace (str | Unset):
        body (NewFault):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | Fault]
    """

    kwargs = _get_kwargs(
        body=body,
        namespace=namespace,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: NewFault,
    namespace: str | Unset = UNSET,
) -> Error | Fault | None:
    """Make the next matching calls fail or slow down

     The fault applies to authenticated calls of `operationId` in the namespace: it skips the first
    `after` of them, then acts on the next `times` (every one when `times` is omitted), then the
    operation answers normally again.

    Args:
        namespace (str | Unset):
        body (NewFault):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | Fault
    """

    return sync_detailed(
        client=client,
        body=body,
        namespace=namespace,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: NewFault,
    namespace: str | Unset = UNSET,
) -> Response[Error | Fault]:
    """Make the next matching calls fail or slow down

     The fault applies to authenticated calls of `operationId` in the namespace: it skips the first
    `after` of them, then acts on the next `times` (every one when `times` is omitted), then the
    operation answers normally again.

    Args:
        namespace (str | Unset):
        body (NewFault):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | Fault]
    """

    kwargs = _get_kwargs(
        body=body,
        namespace=namespace,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: NewFault,
    namespace: str | Unset = UNSET,
) -> Error | Fault | None:
    """Make the next matching calls fail or slow down

     The fault applies to authenticated calls of `operationId` in the namespace: it skips the first
    `after` of them, then acts on the next `times` (every one when `times` is omitted), then the
    operation answers normally again.

    Args:
        namespace (str | Unset):
        body (NewFault):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | Fault
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            namespace=namespace,
        )
    ).parsed
