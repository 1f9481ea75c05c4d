from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/tls/ca",
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | str | None:
    if response.status_code == 200:
        response_200 = response.text
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
) -> Response[Error | str]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[Error | str]:
    """Read the CA that HTTPS was made with

     With TLS=auto, the CA certificate (PEM) the sandbox made at this start and signed its certificate
    with; the same text TLS_CA_OUT's file holds (in the image, /tmp/animal-store-ca.pem). Trust it, and
    nothing else, in the client under test. A client reaching this over HTTPS already trusts it: this
    answer serves a browser that opened the explorer past its warning, or a tool that holds the admin
    token but not the file. Not namespaced: one CA serves every namespace.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | str]
    """

    kwargs = _get_kwargs()

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
) -> Error | str | None:
    """Read the CA that HTTPS was made with

     With TLS=auto, the CA certificate (PEM) the sandbox made at this start and signed its certificate
    with; the same text TLS_CA_OUT's file holds (in the image, /tmp/animal-store-ca.pem). Trust it, and
    nothing else, in the client under test. A client reaching this over HTTPS already trusts it: this
    answer serves a browser that opened the explorer past its warning, or a tool that holds the admin
    token but not the file. Not namespaced: one CA serves every namespace.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | str
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[Error | str]:
    """Read the CA that HTTPS was made with

     With TLS=auto, the CA certificate (PEM) the sandbox made at this start and signed its certificate
    with; the same text TLS_CA_OUT's file holds (in the image, /tmp/animal-store-ca.pem). Trust it, and
    nothing else, in the client under test. A client reaching this over HTTPS already trusts it: this
    answer serves a browser that opened the explorer past its warning, or a tool that holds the admin
    token but not the file. Not namespaced: one CA serves every namespace.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | str]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
) -> Error | str | None:
    """Read the CA that HTTPS was made with

     With TLS=auto, the CA certificate (PEM) the sandbox made at this start and signed its certificate
    with; the same text TLS_CA_OUT's file holds (in the image, /tmp/animal-store-ca.pem). Trust it, and
    nothing else, in the client under test. A client reaching this over HTTPS already trusts it: this
    answer serves a browser that opened the explorer past its warning, or a tool that holds the admin
    token but not the file. Not namespaced: one CA serves every namespace.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | str
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
