from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.pact import Pact
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    namespace: str | Unset = UNSET,
    consumer: str | Unset = UNSET,
    provider: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["namespace"] = namespace

    params["consumer"] = consumer

    params["provider"] = provider

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/pact",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | Pact | None:
    if response.status_code == 200:
        response_200 = Pact.from_dict(response.json())

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
) -> Response[Error | Pact]:
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
    consumer: str | Unset = UNSET,
    provider: str | Unset = UNSET,
) -> Response[Error | Pact]:
    """Export the namespace's calls as a Pact

     The journal's calls as a consumer contract (Pact specification V4): one interaction per distinct
    request and response shape, each named for people, its response body the spec's schema with matchers
    (types, the enums as regexes, the Error shape), and provider states naming the data the namespace
    started from (a seed, a snapshot or the initial data), which `animal-store-sandbox pact verify`
    restores. Credentials stay redacted: the verifier sends a real key in their place. Calls shaped by a
    fault or `Prefer`, cut off, or on paths the spec lacks are left out; `metadata.animal-store-sandbox`
    counts them, and the calls the journal dropped (JOURNAL_SIZE).

    Args:
        namespace (str | Unset):
        consumer (str | Unset):
        provider (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | Pact]
    """

    kwargs = _get_kwargs(
        namespace=namespace,
        consumer=consumer,
        provider=provider,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    namespace: str | Unset = UNSET,
    consumer: str | Unset = UNSET,
    provider: str | Unset = UNSET,
) -> Error | Pact | None:
    """Export the namespace's calls as a Pact

     The journal's calls as a consumer contract (Pact specification V4): one interaction per distinct
    request and response shape, each named for people, its response body the spec's schema with matchers
    (types, the enums as regexes, the Error shape), and provider states naming the data the namespace
    started from (a seed, a snapshot or the initial data), which `animal-store-sandbox pact verify`
    restores. Credentials stay redacted: the verifier sends a real key in their place. Calls shaped by a
    fault or `Prefer`, cut off, or on paths the spec lacks are left out; `metadata.animal-store-sandbox`
    counts them, and the calls the journal dropped (JOURNAL_SIZE).

    Args:
        namespace (str | Unset):
        consumer (str | Unset):
        provider (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | Pact
    """

    return sync_detailed(
        client=client,
        namespace=namespace,
        consumer=consumer,
        provider=provider,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    namespace: str | Unset = UNSET,
    consumer: str | Unset = UNSET,
    provider: str | Unset = UNSET,
) -> Response[Error | Pact]:
    """Export the namespace's calls as a Pact

     The journal's calls as a consumer contract (Pact specification V4): one interaction per distinct
    request and response shape, each named for people, its response body the spec's schema with matchers
    (types, the enums as regexes, the Error shape), and provider states naming the data the namespace
    started from (a seed, a snapshot or the initial data), which `animal-store-sandbox pact verify`
    restores. Credentials stay redacted: the verifier sends a real key in their place. Calls shaped by a
    fault or `Prefer`, cut off, or on paths the spec lacks are left out; `metadata.animal-store-sandbox`
    counts them, and the calls the journal dropped (JOURNAL_SIZE).

    Args:
        namespace (str | Unset):
        consumer (str | Unset):
        provider (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | Pact]
    """

    kwargs = _get_kwargs(
        namespace=namespace,
        consumer=consumer,
        provider=provider,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    namespace: str | Unset = UNSET,
    consumer: str | Unset = UNSET,
    provider: str | Unset = UNSET,
) -> Error | Pact | None:
    """Export the namespace's calls as a Pact

     The journal's calls as a consumer contract (Pact specification V4): one interaction per distinct
    request and response shape, each named for people, its response body the spec's schema with matchers
    (types, the enums as regexes, the Error shape), and provider states naming the data the namespace
    started from (a seed, a snapshot or the initial data), which `animal-store-sandbox pact verify`
    restores. Credentials stay redacted: the verifier sends a real key in their place. Calls shaped by a
    fault or `Prefer`, cut off, or on paths the spec lacks are left out; `metadata.animal-store-sandbox`
    counts them, and the calls the journal dropped (JOURNAL_SIZE).

    Args:
        namespace (str | Unset):
        consumer (str | Unset):
        provider (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | Pact
    """

    return (
        await asyncio_detailed(
            client=client,
            namespace=namespace,
            consumer=consumer,
            provider=provider,
        )
    ).parsed
