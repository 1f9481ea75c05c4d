from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.clock import Clock
from ...models.error import Error
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    namespace: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["namespace"] = namespace

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/clock",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Clock | Error | None:
    if response.status_code == 200:
        response_200 = Clock.from_dict(response.json())

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
) -> Response[Clock | Error]:
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
) -> Response[Clock | Error]:
    """Put a namespace's clock to real time, not back to CLOCK

     Makes the namespace's clock follow real time from now on, even when the CLOCK setting started it
    elsewhere; its pets, journal and faults are left as they are. To put the clock back where it started
    (CLOCK) with the rest of the namespace, use reset.

    Args:
        namespace (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Clock | Error]
    """

    kwargs = _get_kwargs(
        namespace=namespace,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    namespace: str | Unset = UNSET,
) -> Clock | Error | None:
    """Put a namespace's clock to real time, not back to CLOCK

     Makes the namespace's clock follow real time from now on, even when the CLOCK setting started it
    elsewhere; its pets, journal and faults are left as they are. To put the clock back where it started
    (CLOCK) with the rest of the namespace, use reset.

    Args:
        namespace (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Clock | Error
    """

    return sync_detailed(
        client=client,
        namespace=namespace,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    namespace: str | Unset = UNSET,
) -> Response[Clock | Error]:
    """Put a namespace's clock to real time, not back to CLOCK

     Makes the namespace's clock follow real time from now on, even when the CLOCK setting started it
    elsewhere; its pets, journal and faults are left as they are. To put the clock back where it started
    (CLOCK) with the rest of the namespace, use reset.

    Args:
        namespace (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Clock | Error]
    """

    kwargs = _get_kwargs(
        namespace=namespace,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    namespace: str | Unset = UNSET,
) -> Clock | Error | None:
    """Put a namespace's clock to real time, not back to CLOCK

     Makes the namespace's clock follow real time from now on, even when the CLOCK setting started it
    elsewhere; its pets, journal and faults are left as they are. To put the clock back where it started
    (CLOCK) with the rest of the namespace, use reset.

    Args:
        namespace (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Clock | Error
    """

    return (
        await asyncio_detailed(
            client=client,
            namespace=namespace,
        )
    ).parsed
