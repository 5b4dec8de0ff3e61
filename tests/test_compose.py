"""docker-compose.yml, Dockerfile and .dockerignore, checked without a Docker
engine; and memexd with the compose file's settings run as a real process
against a real Neo4j (the launcher's): refused without a key, then started
with the first key the compose file's comment says how to make."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from memexd.settings import Settings, load_settings
from tests import processes as proc
from tests.neo4j_server import Neo4jServer

ROOT = Path(__file__).resolve().parent.parent
_VARIABLE = re.compile(r"\$\{(\w+)(?::?([-?])([^}]*))?\}")
#: What the compose file's variables are set to here (.env): a password of
#: eight characters or more, as its comment asks.
DOTENV = {"NEO4J_PASSWORD": "compose-test-password"}


def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return loaded


def service(name: str) -> dict[str, Any]:
    services: dict[str, dict[str, Any]] = compose()["services"]
    assert name in services, f"no service {name!r}"
    return services[name]


def environment(name: str) -> dict[str, str]:
    env = service(name).get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return {str(k): str(v) for k, v in env.items()}


def interpolate(value: str, env: dict[str, str] | None = None) -> str:
    """Compose's ``${VAR:-default}`` and ``${VAR:?error}`` with ``env`` set (the
    default :data:`DOTENV`); a required variable left unset is an error, as
    in compose."""
    env = DOTENV if env is None else env

    def value_of(m: re.Match[str]) -> str:
        name, how, text = m.group(1), m.group(2), m.group(3) or ""
        if env.get(name):
            return env[name]
        if how == "?":
            raise KeyError(f"{name}: {text}")
        return text

    return _VARIABLE.sub(value_of, value).replace("$$", "$")


def test_neo4j_image_is_a_pinned_neo4j_5_community_release() -> None:
    image = service("neo4j")["image"]
    assert re.fullmatch(r"neo4j:5\.\d+\.\d+(-community)?", image), image
    assert "latest" not in image
    assert "enterprise" not in image


def test_neo4j_credentials_data_volume_and_ports() -> None:
    neo4j = service("neo4j")
    auth = environment("neo4j")["NEO4J_AUTH"]
    assert auth.startswith("neo4j/${"), "the password must come from a compose variable"
    assert len(interpolate(auth).removeprefix("neo4j/")) >= 8  # Neo4j 5's minimum
    with pytest.raises(KeyError, match="NEO4J_PASSWORD"):  # no public default password
        interpolate(auth, {})
    volume = next(v.split(":")[0] for v in neo4j["volumes"] if v.endswith(":/data"))
    assert volume in (compose().get("volumes") or {}), "the /data volume must be named"
    published = " ".join(str(p) for p in neo4j["ports"])
    assert ":7474" in published
    assert ":7687" in published


@pytest.mark.parametrize("name", ["neo4j", "memexd"])
def test_services_have_healthchecks(name: str) -> None:
    check = service(name)["healthcheck"]
    assert check["test"]
    assert check.get("disable") is not True


def test_memexd_is_built_here_and_waits_for_a_healthy_neo4j() -> None:
    memexd = service("memexd")
    build = memexd["build"]
    context = ROOT / (build if isinstance(build, str) else build.get("context", "."))
    dockerfile = "Dockerfile" if isinstance(build, str) else build.get("dockerfile", "Dockerfile")
    assert (context / dockerfile).is_file()
    assert memexd["depends_on"]["neo4j"]["condition"] == "service_healthy"
    assert any(str(p).endswith("8700:8700") for p in memexd["ports"])


def test_memexd_environment_names_real_settings_and_reaches_neo4j(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    env = environment("memexd")
    known = {f"MEMEXD_{name.upper()}" for name in Settings.model_fields}
    assert set(env) - known == set(), "unknown MEMEXD_* variables"
    for key, value in env.items():
        monkeypatch.setenv(key, interpolate(value))
    settings = load_settings(env_file=None)
    assert settings.host == "0.0.0.0"
    assert settings.port == 8700
    assert settings.graph_uri == "bolt://neo4j:7687"
    assert settings.graph_user == "neo4j"
    neo4j_password = interpolate(environment("neo4j")["NEO4J_AUTH"]).removeprefix("neo4j/")
    assert settings.password() == neo4j_password
    assert env["MEMEXD_GRAPH_PASSWORD"] == environment("neo4j")["NEO4J_AUTH"].removeprefix("neo4j/")
    assert settings.env == "production"
    assert settings.jwt_secret is None  # optional: from .env when set


def test_the_key_file_is_on_a_named_volume_and_the_launcher_is_the_image() -> None:
    """Keys survive a new container; the image is the Neo4j the tests run on."""
    keys = Path(environment("memexd")["MEMEXD_KEYS_FILE"])
    mounts = dict(v.split(":", 1)[::-1] for v in service("memexd")["volumes"])
    assert mounts[str(keys.parent)] in (compose().get("volumes") or {})
    launcher = (ROOT / "tools" / "neo4j" / "pom.xml").read_text()
    version = re.search(r"<neo4j.version>([^<]+)</neo4j.version>", launcher)
    assert version is not None
    assert service("neo4j")["image"] == f"neo4j:{version.group(1)}-community"
    assert service("memexd")["restart"].startswith("on-failure:")  # a refusal does not loop


def test_the_compose_settings_serve_on_a_real_neo4j(neo4j: Neo4jServer, tmp_path: Path) -> None:
    """memexd with exactly the compose file's settings, but for the two names
    only compose knows (Neo4j's address on the compose network, and where
    the volume is mounted): refused without a key, as the comment says;
    serving authenticated requests after the documented first key."""
    port = proc.free_port()
    env = {k: interpolate(v, {"NEO4J_PASSWORD": neo4j.password})
           for k, v in environment("memexd").items()}  # fmt: skip
    env |= {"MEMEXD_GRAPH_URI": env["MEMEXD_GRAPH_URI"].replace("neo4j:7687", neo4j.uri[7:]),
            "MEMEXD_KEYS_FILE": str(tmp_path / "volume" / "keys.json"),
            "MEMEXD_PORT": str(port)}  # fmt: skip
    environ = {k: v for k, v in os.environ.items() if not k.startswith("MEMEXD_")} | env
    serve = [*proc.MEMEXD, "serve", "--data-dir", str(tmp_path / "data")]
    refused = subprocess.run(serve, env=environ, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2
    assert "refusing to listen on 0.0.0.0 without authentication" in refused.stderr
    first_key = [*proc.MEMEXD, "keys", "create", "--name", "admin", "--grant", "admin:"]
    made = subprocess.run(first_key, env=environ, capture_output=True, text=True, timeout=60,
                          check=True)  # fmt: skip
    key = made.stdout.strip()
    process = subprocess.Popen(serve, env=environ, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        if not proc.wait_healthy(url, process):
            pytest.fail(f"memexd did not start: {process.stderr.read() if process.stderr else ''}")
        query = {"query": "{ items(limit: 1) { id } }"}
        assert httpx.post(f"{url}/graphql", json=query).status_code == 401
        bearer = {"Authorization": f"Bearer {key}"}
        create = {
            "query": 'mutation { createItem(input: {scope: "s", kind: "k", content: {}, '
            'author: "a", sourceKind: "o", authority: 0.5}) { item { id } } }'
        }
        made_item = httpx.post(f"{url}/graphql", json=create, headers=bearer).json()
        (item,) = [made_item["data"]["createItem"]["item"]]
        assert httpx.post(f"{url}/graphql", json=query, headers=bearer).json() == {
            "data": {"items": [item]}}  # fmt: skip
        assert httpx.get(f"{url}/healthz").json() == {"status": "ok", "backend": "neo4j"}
        assert httpx.get(f"{url}/graphql").status_code != 200  # production: no GraphiQL
    finally:
        proc.stop(process)
