from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.test_end import TestEnd
from ...types import Response


def _get_kwargs(
    name: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/namespaces/{name}/end".format(
            name=quote(str(name), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | TestEnd | None:
    if response.status_code == 200:
        response_200 = TestEnd.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = Error.from_dict(response.json())

        return response_404

    if response.status_code == 421:
        response_421 = Error.from_dict(response.json())

        return response_421

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Error | TestEnd]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    name: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[Error | TestEnd]:
    """End the test of a namespace

     Marks the namespace's test as ended, now: a call into the namespace from now on, or with a trace of
    its calls so far, is a stray call of this test (GET /__admin/requests/strays). Deleting the
    namespace ends its test too; a reset, a replace, a fault or a clock set in it begins a new one.

    Args:
        name (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | TestEnd]
    """

    kwargs = _get_kwargs(
        name=name,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    name: str,
    *,
    client: AuthenticatedClient | Client,
) -> Error | TestEnd | None:
    """End the test of a namespace

     Marks the namespace's test as ended, now: a call into the namespace from now on, or with a trace of
    its calls so far, is a stray call of this test (GET /__admin/requests/strays). Deleting the
    namespace ends its test too; a reset, a replace, a fault or a clock set in it begins a new one.

    Args:
        name (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | TestEnd
    """

    return sync_detailed(
        name=name,
        client=client,
    ).parsed


async def asyncio_detailed(
    name: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[Error | TestEnd]:
    """End the test of a namespace

     Marks the namespace's test as ended, now: a call into the namespace from now on, or with a trace of
    its calls so far, is a stray call of this test (GET /__admin/requests/strays). Deleting the
    namespace ends its test too; a reset, a replace, a fault or a clock set in it begins a new one.

    Args:
        name (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | TestEnd]
    """

    kwargs = _get_kwargs(
        name=name,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    name: str,
    *,
    client: AuthenticatedClient | Client,
) -> Error | TestEnd | None:
    """End the test of a namespace

     Marks the namespace's test as ended, now: a call into the namespace from now on, or with a trace of
    its calls so far, is a stray call of this test (GET /__admin/requests/strays). Deleting the
    namespace ends its test too; a reset, a replace, a fault or a clock set in it begins a new one.

    Args:
        name (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | TestEnd
    """

    return (
        await asyncio_detailed(
            name=name,
            client=client,
        )
    ).parsed
