from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.new_snapshot import NewSnapshot
from ...models.snapshot import Snapshot
from ...types import Response


def _get_kwargs(
    *,
    body: NewSnapshot,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/snapshots",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | Snapshot | None:
    if response.status_code == 201:
        response_201 = Snapshot.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = Error.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = Error.from_dict(response.json())

        return response_404

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
) -> Response[Error | Snapshot]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: NewSnapshot,
) -> Response[Error | Snapshot]:
    """Freeze a namespace's pets and clock under a name

     Copies the pets and the clock of `namespace` (the default namespace when omitted) into a snapshot
    called `name`, on disk before the answer (its own file beside DATA_FILE, written atomically; in
    memory only when the data is). A snapshot never changes: a namespace reset to it (`POST /reset` with
    `snapshot`) starts from its pets, copy-on-write, so a fork costs the same whatever the snapshot
    holds. Snapshots survive a restart; a name is taken until the snapshot is deleted.

    Args:
        body (NewSnapshot):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | Snapshot]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: NewSnapshot,
) -> Error | Snapshot | None:
    """Freeze a namespace's pets and clock under a name

     Copies the pets and the clock of `namespace` (the default namespace when omitted) into a snapshot
    called `name`, on disk before the answer (its own file beside DATA_FILE, written atomically; in
    memory only when the data is). A snapshot never changes: a namespace reset to it (`POST /reset` with
    `snapshot`) starts from its pets, copy-on-write, so a fork costs the same whatever the snapshot
    holds. Snapshots survive a restart; a name is taken until the snapshot is deleted.

    Args:
        body (NewSnapshot):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | Snapshot
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: NewSnapshot,
) -> Response[Error | Snapshot]:
    """Freeze a namespace's pets and clock under a name

     Copies the pets and the clock of `namespace` (the default namespace when omitted) into a snapshot
    called `name`, on disk before the answer (its own file beside DATA_FILE, written atomically; in
    memory only when the data is). A snapshot never changes: a namespace reset to it (`POST /reset` with
    `snapshot`) starts from its pets, copy-on-write, so a fork costs the same whatever the snapshot
    holds. Snapshots survive a restart; a name is taken until the snapshot is deleted.

    Args:
        body (NewSnapshot):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | Snapshot]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: NewSnapshot,
) -> Error | Snapshot | None:
    """Freeze a namespace's pets and clock under a name

     Copies the pets and the clock of `namespace` (the default namespace when omitted) into a snapshot
    called `name`, on disk before the answer (its own file beside DATA_FILE, written atomically; in
    memory only when the data is). A snapshot never changes: a namespace reset to it (`POST /reset` with
    `snapshot`) starts from its pets, copy-on-write, so a fork costs the same whatever the snapshot
    holds. Snapshots survive a restart; a name is taken until the snapshot is deleted.

    Args:
        body (NewSnapshot):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | Snapshot
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
