"""Authentication: API keys, JWT, anonymous access, and what each caller sees."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import time
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from tests.conftest import ApiFactory
from tests.support import Api

ITEM = "query($id: ID!) { item(id: $id) { id scope } }"
ITEMS = "{ items { id scope } }"


async def two_tenants(api: Api) -> tuple[str, str]:
    """One item in each tenant, created while the service is still open."""
    a = (await api.create(scope="tenant:a/notes"))["id"]
    b = (await api.create(scope="tenant:b/notes"))["id"]
    return a, b


async def test_open_on_loopback_until_a_key_exists(api: Api) -> None:
    a, b = await two_tenants(api)
    assert len((await api.ok(ITEMS))["items"]) == 2
    reader = api.with_grants("read:tenant:a/")
    response = await api.client.post("/graphql", json={"query": ITEMS})
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert response.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
    assert [i["id"] for i in (await reader.ok(ITEMS))["items"]] == [a]
    assert (await reader.ok(ITEM, id=b))["item"] is None


async def test_anonymous_refused_off_loopback(make_api: ApiFactory) -> None:
    api = await make_api(host="0.0.0.0")
    assert await api.codes(ITEMS) == ["UNAUTHENTICATED"]
    allowed = await make_api(host="0.0.0.0", allow_anonymous=True)
    assert (await allowed.ok(ITEMS))["items"] == []


async def test_bad_credentials_are_unauthenticated(api: Api) -> None:
    api.with_grants("read:")
    for credential in ("nope", "mxk_0123456789abcdef_" + "A" * 43, "eyJhbGciOi.x.y"):
        assert await api.as_key(credential).codes(ITEMS) == ["UNAUTHENTICATED"]
    assert await api.codes(ITEMS, Authorization="Basic dXNlcjpwdw==") == ["UNAUTHENTICATED"]


async def test_revoked_key_stops_at_once(api: Api) -> None:
    reader = api.with_grants("read:", name="agent")
    assert (await reader.ok(ITEMS))["items"] == []
    api.keys.revoke("agent")
    assert await reader.codes(ITEMS) == ["UNAUTHENTICATED"]


async def test_only_a_hash_is_stored_and_secrets_are_never_logged(
    api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    _, secret = api.keys.create("agent", ["read:"])
    stored = api.keys.path.read_text()
    assert secret not in stored
    assert secret.split("_", 2)[2] not in stored  # the random part may hold "_" too
    await api.as_key(secret).ok(ITEMS)
    await api.as_key(secret[:-1] + "x").codes(ITEMS)
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert secret.split("_", 2)[2] not in logged
    assert secret[:-1] not in logged
    assert "by agent" in logged  # the key's name, for the operator


def _token(key: Any, algorithm: str, **claims: Any) -> str:
    body = {"sub": "agent:7", "exp": int(time.time()) + 60, "memexd_grants": ["read:tenant:a/"]}
    body.update(claims)
    headers = {"kid": claims.pop("kid")} if "kid" in claims else None
    return jwt.encode({k: v for k, v in body.items() if v is not None and k != "kid"}, key,
                      algorithm=algorithm, headers=headers)  # fmt: skip


def _hmac_token(secret: bytes, claims: dict[str, Any]) -> str:
    """An HS256 token built by hand (PyJWT refuses to sign with a PEM key)."""

    def part(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    head = part(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    body = part(json.dumps(claims).encode())
    mac = hmac.new(secret, f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{part(mac)}"


async def test_jwt_hs256(make_api: ApiFactory) -> None:
    secret = "s3cret-s3cret-s3cret-s3cret-s3cret!"
    api = await make_api(jwt_secret=secret, jwt_issuer="idp", jwt_audience="memexd")
    a, b = await two_tenants(api.with_grants("write:tenant:"))
    good = _token(secret, "HS256", iss="idp", aud="memexd")
    assert [i["id"] for i in (await api.as_key(good).ok(ITEMS))["items"]] == [a]
    bad = [
        _token(secret, "HS256", iss="idp", aud="memexd", exp=int(time.time()) - 5),
        _token(secret, "HS256", iss="other", aud="memexd"),
        _token(secret, "HS256", iss="idp", aud="else"),
        _token(secret, "HS256", aud="memexd"),  # no issuer
        _token(secret, "HS256", iss="idp", aud="memexd", exp=None),  # no expiry
        _token("another-secret-another-secret-xx", "HS256", iss="idp", aud="memexd"),
        _token(secret, "HS256", iss="idp", aud="memexd", memexd_grants=["root:x"]),
    ]
    for token in bad:
        assert await api.as_key(token).codes(ITEMS) == ["UNAUTHENTICATED"], token
    spaced = _token(secret, "HS256", iss="idp", aud="memexd", memexd_grants="read:tenant:b/")
    assert [i["id"] for i in (await api.as_key(spaced).ok(ITEMS))["items"]] == [b]


async def test_jwt_rs256_pem_and_es256_jwks(make_api: ApiFactory, tmp_path: Any) -> None:
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = tmp_path / "rs.pem"
    pem.write_bytes(rsa_key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))  # fmt: skip
    ec_key = ec.generate_private_key(ec.SECP256R1())
    jwk = jwt.algorithms.ECAlgorithm.to_jwk(ec_key.public_key(), as_dict=True)
    jwks = tmp_path / "keys.jwks"
    jwks.write_text(json.dumps({"keys": [{**jwk, "kid": "ec1", "use": "sig"}]}))
    api = await make_api(jwt_public_key_file=pem)
    a, _ = await two_tenants(api.with_grants("write:"))
    rs = _token(rsa_key, "RS256")
    assert [i["id"] for i in (await api.as_key(rs).ok(ITEMS))["items"]] == [a]
    # the public key is never taken as an HMAC secret (algorithm confusion)
    claims = {"sub": "x", "exp": int(time.time()) + 60, "memexd_grants": ["admin:"]}
    assert await api.as_key(_hmac_token(pem.read_bytes(), claims)).codes(ITEMS) == [
        "UNAUTHENTICATED"
    ]
    both = await make_api(jwt_jwks_file=jwks)
    es = _token(ec_key, "ES256", kid="ec1")
    assert [i["id"] for i in (await both.as_key(es).ok(ITEMS))["items"]] == [a]
    assert await both.as_key(_token(ec_key, "ES256", kid="other")).codes(ITEMS) == [
        "UNAUTHENTICATED"
    ]
    assert await both.as_key(rs).codes(ITEMS) == ["UNAUTHENTICATED"]


def test_grants_parse_and_rights_include_lower_ones() -> None:
    from memexd.access.gate import is_loopback
    from memexd.access.grants import Access, parse_grants
    from memexd.errors import BadUserInput

    access = Access.of("x", parse_grants(["read:a/", "write:a/b/", "admin:c/", "read:a/z/"]))
    assert access.read == ("a/", "c/")  # a/z/ is inside a/; admin includes read
    assert access.write == ("a/b/", "c/")
    assert access.admin == ("c/",)
    assert access.can_read("a/q")
    assert not access.can_write("a/q")
    assert access.can_write("c/x")
    assert not access.can_read("ab/")
    assert Access.of("y", parse_grants(["read:"])).can_read("anything")
    for bad in ("read", "own:x", "read:has space", "write:" + "x" * 257):
        with pytest.raises(BadUserInput):
            parse_grants([bad])
    assert is_loopback("127.0.0.1")
    assert is_loopback("::1")
    assert is_loopback("localhost")
    assert not is_loopback("0.0.0.0")
    assert not is_loopback("192.0.2.1")


async def test_an_unreadable_key_file_fails_closed(api: Api) -> None:
    reader = api.with_grants("read:")
    api.keys.path.write_text("{not json")
    for caller in (reader, api.as_key(None)):
        response = await caller.client.post(
            "/graphql", json={"query": ITEMS}, headers=caller.headers
        )
        assert response.status_code == 503
        assert response.json()["errors"][0]["extensions"]["code"] == "UNAVAILABLE"


async def test_a_reader_cannot_resolve_even_a_settled_pair(api: Api) -> None:
    """Valid but not allowed is FORBIDDEN even where the write would be a no-op."""
    a, _ = await two_tenants(api)
    other = (await api.create(scope="tenant:a/more"))["id"]
    reader = api.with_grants("read:tenant:a/")
    resolve = "mutation($w: ID!, $l: ID!) { resolveContradiction(winnerId: $w, loserId: $l, " \
              'author: "user:r") { events { id } } }'  # fmt: skip
    assert await reader.codes(resolve, w=a, l=other) == ["FORBIDDEN"]
    writer = api.with_grants("write:tenant:a/")
    assert (await writer.ok(resolve, w=a, l=other))["resolveContradiction"]["events"] == []
