from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.fault import Fault
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: int,
    *,
    namespace: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["namespace"] = namespace

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/faults/{id}".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | Fault | None:
    if response.status_code == 200:
        response_200 = Fault.from_dict(response.json())

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
) -> Response[Error | Fault]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: int,
    *,
    client: AuthenticatedClient | Client,
    namespace: str | Unset = UNSET,
) -> Response[Error | Fault]:
    """Disarm one fault

     Removes one fault of the namespace and answers it as it ended, with how often it fired; the others
    stay armed.

    Args:
        id (int):
        namespace (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | Fault]
    """

    kwargs = _get_kwargs(
        id=id,
        namespace=namespace,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: int,
    *,
    client: AuthenticatedClient | Client,
    namespace: str | Unset = UNSET,
) -> Error | Fault | None:
    """Disarm one fault

     Removes one fault of the namespace and answers it as it ended, with how often it fired; the others
    stay armed.

    Args:
        id (int):
        namespace (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | Fault
    """

    return sync_detailed(
        id=id,
        client=client,
        namespace=namespace,
    ).parsed


async def asyncio_detailed(
    id: int,
    *,
    client: AuthenticatedClient | Client,
    namespace: str | Unset = UNSET,
) -> Response[Error | Fault]:
    """Disarm one fault

     Removes one fault of the namespace and answers it as it ended, with how often it fired; the others
    stay armed.

    Args:
        id (int):
        namespace (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | Fault]
    """

    kwargs = _get_kwargs(
        id=id,
        namespace=namespace,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: int,
    *,
    client: AuthenticatedClient | Client,
    namespace: str | Unset = UNSET,
) -> Error | Fault | None:
    """Disarm one fault

     Removes one fault of the namespace and answers it as it ended, with how often it fired; the others
    stay armed.

    Args:
        id (int):
        namespace (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | Fault
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            namespace=namespace,
        )
    ).parsed
