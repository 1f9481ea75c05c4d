from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.delete_namespace_response_200 import DeleteNamespaceResponse200
from ...models.error import Error
from ...types import Response


def _get_kwargs(
    name: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/namespaces/{name}".format(
            name=quote(str(name), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> DeleteNamespaceResponse200 | Error | None:
    if response.status_code == 200:
        response_200 = DeleteNamespaceResponse200.from_dict(response.json())

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
) -> Response[DeleteNamespaceResponse200 | Error]:
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
) -> Response[DeleteNamespaceResponse200 | Error]:
    """Delete a namespace

     Removes the namespace with its pets (its data file too), journal, faults and clock, on disk before
    the answer: a restart does not bring it back. A later request that names it starts it again from the
    initial data. The default namespace cannot be deleted (reset it instead).

    Args:
        name (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeleteNamespaceResponse200 | Error]
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
) -> DeleteNamespaceResponse200 | Error | None:
    """Delete a namespace

     Removes the namespace with its pets (its data file too), journal, faults and clock, on disk before
    the answer: a restart does not bring it back. A later request that names it starts it again from the
    initial data. The default namespace cannot be deleted (reset it instead).

    Args:
        name (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeleteNamespaceResponse200 | Error
    """

    return sync_detailed(
        name=name,
        client=client,
    ).parsed


async def asyncio_detailed(
    name: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[DeleteNamespaceResponse200 | Error]:
    """Delete a namespace

     Removes the namespace with its pets (its data file too), journal, faults and clock, on disk before
    the answer: a restart does not bring it back. A later request that names it starts it again from the
    initial data. The default namespace cannot be deleted (reset it instead).

    Args:
        name (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeleteNamespaceResponse200 | Error]
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
) -> DeleteNamespaceResponse200 | Error | None:
    """Delete a namespace

     Removes the namespace with its pets (its data file too), journal, faults and clock, on disk before
    the answer: a restart does not bring it back. A later request that names it starts it again from the
    initial data. The default namespace cannot be deleted (reset it instead).

    Args:
        name (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeleteNamespaceResponse200 | Error
    """

    return (
        await asyncio_detailed(
            name=name,
            client=client,
        )
    ).parsed
