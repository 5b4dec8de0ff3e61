"""docker-compose.yml, Dockerfile and .dockerignore, checked without a Docker engine."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from memexd.settings import Settings, load_settings

ROOT = Path(__file__).resolve().parent.parent
_VARIABLE = re.compile(r"\$\{(\w+)(?::?-([^}]*))?\}")


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


def interpolate(value: str) -> str:
    """Compose's ``${VAR:-default}`` with nothing set: the default."""
    return _VARIABLE.sub(lambda m: m.group(2) or "", value).replace("$$", "$")


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


def test_dockerfile_installs_and_serves_as_non_root() -> None:
    lines = [
        line.strip()
        for line in (ROOT / "Dockerfile").read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert lines[0].startswith("FROM python:3.11-slim")
    users = [line.split()[1] for line in lines if line.startswith("USER ")]
    assert users, "no USER line"
    assert users[-1] not in {"root", "0"}
    assert "EXPOSE 8700" in lines
    cmd = [line for line in lines if line.startswith("CMD ")]
    assert cmd == ['CMD ["memexd", "serve", "--host", "0.0.0.0"]']


def test_dockerignore_keeps_the_package_directories() -> None:
    patterns = {
        line.strip().strip("/")
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    assert {".git", ".venv", "**/node_modules", "memexd-data"} <= patterns
    for kept in ("memexd", "schema", "resolvers", "cypher", "migrations", "pyproject.toml"):
        assert kept not in patterns
        assert (ROOT / kept).exists()
