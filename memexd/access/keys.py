"""API keys, kept in a JSON file (``MEMEXD_KEYS_FILE``, by default
``<data dir>/keys.json``) that holds only SHA-256 hashes of the secrets.

A key reads ``mxk_<id>_<secret>``: the id finds the record, the secret is
compared with its hash in constant time. Secrets are 256 random bits, so a
fast hash is enough (a slow password hash protects low-entropy secrets).

The file, not the graph: the CLI manages keys while ``memexd serve`` holds
the embedded engine, and the service sees every change at its next request
(it re-reads the file when its size, inode or modification time changes,
a ``stat`` per request), so a revoked key stops working at once. Writers
take an exclusive lock and replace the file atomically; it is created
readable by its owner only.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import hmac
import os
import re
import secrets
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import orjson

from memexd.access.grants import Access, parse_grants
from memexd.errors import BadUserInput, SettingsError, Unauthenticated

__all__ = ["ApiKey", "KeyFileError", "KeyStore"]

_KEY = re.compile(r"mxk_([0-9a-f]{16})_([A-Za-z0-9_-]{43})")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}")


class KeyFileError(SettingsError):
    """The key file exists but cannot be read or parsed: at start-up memexd
    stops with one line; a request meanwhile is ``UNAVAILABLE`` (fail closed)."""


@dataclass(frozen=True, slots=True)
class ApiKey:
    """A stored key: never the secret, only its hash."""

    id: str
    name: str
    hash: str
    grants: tuple[str, ...]
    created_at: int
    revoked_at: int | None = None

    @property
    def active(self) -> bool:
        return self.revoked_at is None


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


class KeyStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._seen: tuple[int, int, int] | None = None
        self._keys: dict[str, ApiKey] = {}
        self._access: dict[str, Access] = {}

    # ------------------------------------------------------------ reading

    def records(self) -> list[ApiKey]:
        self._refresh()
        return sorted(self._keys.values(), key=lambda k: (k.created_at, k.id))

    def configured(self) -> bool:
        """Whether any key was ever created (revoked ones count: revoking the
        last key does not reopen the service to anonymous callers)."""
        self._refresh()
        return bool(self._keys)

    def authenticate(self, presented: str) -> Access:
        """The access of a presented key, or ``Unauthenticated``."""
        match = _KEY.fullmatch(presented)
        if match is None:
            raise Unauthenticated("malformed API key")
        self._refresh()
        key = self._keys.get(match.group(1))
        if key is None or not hmac.compare_digest(key.hash, _digest(match.group(2))):
            raise Unauthenticated("unknown API key")
        if not key.active:
            raise Unauthenticated(f"API key {key.name!r} was revoked")
        return self._access[key.id]

    def _refresh(self) -> None:
        """Re-read the file if it changed. No file (or no data directory yet):
        no keys. A file that cannot be read or parsed: ``KeyFileError``."""
        try:
            st = os.stat(self.path)
        except (FileNotFoundError, NotADirectoryError):
            self._seen, self._keys, self._access = None, {}, {}
            return
        except OSError as exc:
            raise KeyFileError(
                f"MEMEXD_KEYS_FILE: cannot read {self.path}: {exc.strerror}"
            ) from None
        seen = (st.st_ino, st.st_size, st.st_mtime_ns)
        if seen != self._seen:
            try:
                keys = _load(self.path)
                access = {k.id: Access.of(k.name, parse_grants(k.grants)) for k in keys.values()}
            except (OSError, ValueError, KeyError, TypeError, BadUserInput) as exc:
                raise KeyFileError(
                    f"MEMEXD_KEYS_FILE: {self.path} is not a key file: {exc}"
                ) from None
            self._keys, self._access, self._seen = keys, access, seen

    # ------------------------------------------------------------ writing

    def create(self, name: str, grants: Sequence[str]) -> tuple[ApiKey, str]:
        """A new key; returns its record and the only copy of the full key."""
        if not _NAME.fullmatch(name):
            raise BadUserInput("letters, digits and ._:@/- only, up to 128", field="name")
        if not grants:
            raise BadUserInput("give at least one grant", field="grant")
        checked = tuple(str(g) for g in parse_grants(grants))
        key_id, secret = secrets.token_hex(8), secrets.token_urlsafe(32)
        with self._locked() as keys:
            if any(k.name == name and k.active for k in keys.values()):
                raise BadUserInput(f"an active key is named {name!r}", field="name")
            key = ApiKey(key_id, name, _digest(secret), checked, time.time_ns() // 1_000_000)
            keys[key_id] = key
        return key, f"mxk_{key_id}_{secret}"

    def revoke(self, name_or_id: str) -> ApiKey:
        with self._locked() as keys:
            found = [k for k in keys.values() if name_or_id in (k.id, k.name) and k.active]
            if not found:
                raise BadUserInput(f"no active key named {name_or_id!r}")
            revoked = ApiKey(**{**asdict(found[0]), "revoked_at": time.time_ns() // 1_000_000})
            keys[revoked.id] = revoked
        return revoked

    @contextlib.contextmanager
    def _locked(self) -> Iterator[dict[str, ApiKey]]:
        """The keys, to change under an exclusive lock; written back atomically."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lock_path = self.path.with_name(self.path.name + ".lock")
        with open(os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)) as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            keys = _load(self.path) if self.path.exists() else {}
            yield keys
            _save(self.path, keys)


def _load(path: Path) -> dict[str, ApiKey]:
    document = orjson.loads(path.read_bytes())
    if not isinstance(document, dict):
        raise ValueError("not a JSON object")
    records = document.get("keys", [])
    keys = [ApiKey(**{**r, "grants": tuple(r["grants"])}) for r in records]
    return {k.id: k for k in keys}


def _save(path: Path, keys: dict[str, ApiKey]) -> None:
    body = orjson.dumps({"keys": [asdict(k) for k in keys.values()]}, option=orjson.OPT_INDENT_2)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with open(fd, "wb") as out:
        out.write(body)
        out.flush()
        os.fsync(out.fileno())
    os.replace(temp, path)
