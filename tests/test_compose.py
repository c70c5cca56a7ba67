"""compose.yaml and deploy/nginx.conf agree with each other and with memproxy's settings (no Docker engine here:
the file is also checked against the Compose Specification's JSON schema by hand, see docs/deployment.md)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from proxy.config import load_settings

ROOT = Path(__file__).resolve().parents[1]


def compose() -> dict:
    return dict(yaml.safe_load((ROOT / "compose.yaml").read_text()))


def test_nginx_balances_over_exactly_the_replicas_compose_defines() -> None:
    services = compose()["services"]
    replicas = {name for name, service in services.items() if service.get("build") == "."}
    assert len(replicas) == 2
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    assert set(re.findall(r"server (\S+):8787", conf)) == replicas
    assert services["lb"]["ports"] == ["8787:8787"]


def test_each_replicas_environment_loads_as_a_postgres_store_in_keys_mode() -> None:
    for name in ("memproxy-a", "memproxy-b"):
        environ = {
            key: value.replace("${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}", "secret")
            for key, value in compose()["services"][name]["environment"].items()
        }
        environ["MEMPROXY_UPSTREAM_BASE_URL"] = "https://api.openai.com/v1"
        settings = load_settings(environ=environ)
        assert settings.store.backend == "postgres" and settings.auth.mode == "keys"
        assert settings.store.dsn == "postgresql://memproxy:secret@db/memproxy"


def test_the_database_is_postgres_15_on_a_named_volume_with_a_health_check() -> None:
    doc = compose()
    db = doc["services"]["db"]
    assert db["image"] == "postgres:15" and "pg_isready" in " ".join(db["healthcheck"]["test"])
    assert db["volumes"][0].split(":")[0] in doc["volumes"]
    assert all(
        doc["services"][r]["depends_on"]["db"]["condition"] == "service_healthy" for r in ("memproxy-a", "memproxy-b")
    )
