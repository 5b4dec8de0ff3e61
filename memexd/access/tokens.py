"""JSON Web Tokens (PyJWT): HS256 with a shared secret, RS256 / ES256 with a
public key file or a JWKS file read at start-up (no network fetch).

The algorithm is taken from the key, never from the token alone: an HS256
token is checked only against the shared secret, an RS/ES token only
against the public keys, so one kind of key is never used as the other.
``exp`` is required; ``iss`` and ``aud`` are checked when configured. The
grants are a list of ``right:prefix`` strings (or one space-separated
string) in the claim named by ``MEMEXD_JWT_GRANTS_CLAIM``; the caller's
name in logs is ``sub``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.serialization import load_pem_public_key

from memexd.access.grants import Access, parse_grants
from memexd.errors import BadUserInput, SettingsError, Unauthenticated
from memexd.settings import Settings

__all__ = ["TokenVerifier"]

_ASYMMETRIC = ("RS256", "ES256")


class TokenVerifier:
    """Verifies tokens against the configured keys; ``None`` if none is."""

    def __init__(
        self, settings: Settings, secret: str | None, keys: Mapping[str | None, Any]
    ) -> None:
        self.settings = settings
        self.secret = secret
        #: public keys by ``kid`` (``None``: the single key of a PEM file)
        self.keys = keys

    @classmethod
    def configure(cls, settings: Settings) -> TokenVerifier | None:
        secret = settings.jwt_secret.get_secret_value() if settings.jwt_secret else None
        keys: dict[str | None, Any] = {}
        if settings.jwt_public_key_file is not None:
            keys[None] = _pem(settings.jwt_public_key_file)
        if settings.jwt_jwks_file is not None:
            keys.update(_jwks(settings.jwt_jwks_file))
        if secret is None and not keys:
            return None
        return cls(settings, secret, keys)

    def authenticate(self, token: str) -> Access:
        try:
            header = jwt.get_unverified_header(token)
            key, algorithm = self._key(header)
            claims = jwt.decode(
                token,
                key,
                algorithms=[algorithm],
                issuer=self.settings.jwt_issuer,
                audience=self.settings.jwt_audience,
                leeway=self.settings.jwt_leeway_s,
                options={"require": ["exp"] + (["iss"] if self.settings.jwt_issuer else [])},
            )
        except jwt.PyJWTError as exc:
            raise Unauthenticated(f"bad token: {exc}") from None
        subject = claims.get("sub")
        name = subject if isinstance(subject, str) and subject else "jwt"
        try:
            return Access.of(name, parse_grants(_grant_list(claims, self.settings)))
        except BadUserInput as exc:
            raise Unauthenticated(f"bad token: {exc.message}") from None

    def _key(self, header: Mapping[str, Any]) -> tuple[Any, str]:
        algorithm = header.get("alg")
        if algorithm == "HS256" and self.secret is not None:
            return self.secret, algorithm
        if algorithm in _ASYMMETRIC and self.keys:
            kid = header.get("kid")
            if kid is None and len(self.keys) == 1:
                key = next(iter(self.keys.values()))
            else:
                key = self.keys.get(kid)
            if key is None:
                raise jwt.InvalidKeyError("no key with this kid")
            if _algorithm_of(key) != algorithm:
                raise jwt.InvalidAlgorithmError("the key is not for this algorithm")
            return key, algorithm
        raise jwt.InvalidAlgorithmError(f"algorithm {algorithm!r} is not accepted")


def _grant_list(claims: Mapping[str, Any], settings: Settings) -> list[str]:
    value = claims.get(settings.jwt_grants_claim, [])
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    raise jwt.InvalidTokenError(f"claim {settings.jwt_grants_claim} is not a list of grants")


def _algorithm_of(key: Any) -> str:
    if isinstance(key, rsa.RSAPublicKey):
        return "RS256"
    if isinstance(key, ec.EllipticCurvePublicKey) and isinstance(key.curve, ec.SECP256R1):
        return "ES256"
    return "none"


def _pem(path: Path) -> Any:
    try:
        key = load_pem_public_key(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise SettingsError(
            f"MEMEXD_JWT_PUBLIC_KEY_FILE: cannot read a PEM public key: {exc}"
        ) from None
    if _algorithm_of(key) == "none":
        raise SettingsError("MEMEXD_JWT_PUBLIC_KEY_FILE: need an RSA or P-256 public key")
    return key


def _jwks(path: Path) -> dict[str | None, Any]:
    try:
        found = jwt.PyJWKSet.from_json(path.read_text())
    except (OSError, jwt.PyJWTError) as exc:
        raise SettingsError(f"MEMEXD_JWT_JWKS_FILE: cannot read a JWKS: {exc}") from None
    keys = {k.key_id: k.key for k in found.keys if _algorithm_of(k.key) != "none"}
    if not keys:
        raise SettingsError("MEMEXD_JWT_JWKS_FILE: no RSA or P-256 public key in it")
    return keys
