"""Deployment settings as an operator meets them: the documented production environment
(README.md and docs/platform.md, "The production environment") makes `manage.py check --deploy`
report nothing; docker-compose refuses to start without a SECRET_KEY (its file is read with
PyYAML and interpolated as compose does: Docker is not needed); and with PostgreSQL and DEBUG off
every manage.py command refuses the development key or a weak one, while `make run`'s embedded
default (SQLite) still runs with no configuration at all."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.core.exceptions import ImproperlyConfigured

from lineit_platform.settings import env_proxy_ssl_header

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = ROOT / "docker-compose.yml"
NO_ISSUES = "System check identified no issues (0 silenced).\n"


def documented_environment(document: Path) -> dict[str, str]:
    """The NAME=value lines of the block after ``<!-- production-environment -->``."""
    text = document.read_text()
    block = re.search(r"<!-- production-environment -->\s*```sh\n(.*?)```", text, re.DOTALL)
    assert block, f"{document.name} lists no production environment"
    pairs = (line.split("=", 1) for line in block.group(1).splitlines() if line.strip())
    return {name: value for name, value in pairs}


# --- docker-compose, read as compose reads it ----------------------------------------------------

_VARIABLE = re.compile(r"\$\$|\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:?[-?])(?P<arg>[^}]*))?\}")


class MissingVariable(Exception):
    pass


def interpolate(value: str, environment: dict[str, str]) -> str:
    """Compose's interpolation: ${NAME}, ${NAME:-default}, ${NAME-default}, ${NAME:?error},
    ${NAME?error}, and $$ for a dollar."""

    def replace(found: re.Match[str]) -> str:
        if found.group() == "$$":
            return "$"
        name, op, arg = found.group("name"), found.group("op"), found.group("arg")
        given = environment.get(name)
        missing = given is None or (given == "" and op is not None and op.startswith(":"))
        if op in (":?", "?") and missing:
            raise MissingVariable(f"{name}: {arg}")
        if op in (":-", "-") and missing:
            return arg
        return given or ""

    return _VARIABLE.sub(replace, value)


def compose_service_environment(service: str, environment: dict[str, str]) -> dict[str, str]:
    compose = yaml.safe_load(COMPOSE.read_text())
    declared = compose["services"][service].get("environment", {})
    return {name: interpolate(str(value), environment) for name, value in declared.items()}


APP_SERVICES = ["migrate", "web", "worker", "beat"]


@pytest.mark.parametrize("service", APP_SERVICES)
def test_compose_refuses_to_start_without_a_secret_key(service: str) -> None:
    with pytest.raises(MissingVariable, match="SECRET_KEY") as refused:
        compose_service_environment(service, {})
    assert "README" in str(refused.value)  # the message says where to read more
    with pytest.raises(MissingVariable, match="SECRET_KEY"):
        compose_service_environment(service, {"SECRET_KEY": ""})  # an empty one too


def test_compose_has_no_default_key_anywhere() -> None:
    text = COMPOSE.read_text()
    assert "change-me" not in text and "insecure" not in text.lower()
    assert re.search(r"SECRET_KEY: \$\{SECRET_KEY:\?[^}]+\}", text)


def test_compose_passes_the_production_environment_through_and_defaults_to_plain_http() -> None:
    production = documented_environment(ROOT / "README.md") | {"SECRET_KEY": secrets.token_urlsafe(50)}
    for service in APP_SERVICES:
        given = compose_service_environment(service, production)
        assert {name: given.get(name) for name in production} == production, service
    laptop = compose_service_environment("web", {"SECRET_KEY": secrets.token_urlsafe(50)})
    assert laptop["SECURE_SSL_REDIRECT"] == "false" and laptop["SECURE_HSTS_SECONDS"] == "0"
    assert laptop["SECURE_PROXY_SSL_HEADER"] == ""


# --- manage.py check, in a process of its own ----------------------------------------------------


def manage(arguments: list[str], environment: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``manage.py`` with only ``environment`` (and PATH): nothing leaks in from the test run."""
    variables = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "VAR_DIR": str(tmp_path / "var")} | environment
    return subprocess.run(
        [sys.executable, "manage.py", *arguments], cwd=ROOT, env=variables, capture_output=True, text=True, timeout=300
    )


def production_environment(**changes: str) -> dict[str, str]:
    """README's production environment with a generated key, plus docker-compose's URLs."""
    documented = documented_environment(ROOT / "README.md") | {"SECRET_KEY": secrets.token_urlsafe(50)}
    return compose_service_environment("web", documented) | changes


def test_readme_and_the_platform_doc_list_the_same_production_environment() -> None:
    readme = documented_environment(ROOT / "README.md")
    assert readme == documented_environment(ROOT / "docs" / "platform.md")
    assert readme["SECRET_KEY"].startswith("<")  # a placeholder, never a key to copy
    assert {"SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE"} <= set(readme)


def test_check_deploy_reports_nothing_with_the_production_environment(tmp_path: Path) -> None:
    result = manage(["check", "--deploy", "--fail-level", "WARNING"], production_environment(), tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, NO_ISSUES, "")


def test_check_deploy_names_what_a_bare_deployment_misses(tmp_path: Path) -> None:
    bare = {"DATABASE_URL": "postgres://lineit@db/lineit", "SECRET_KEY": secrets.token_urlsafe(50)}
    output = manage(["check", "--deploy"], bare, tmp_path).stderr
    for warning in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert warning in output  # HSTS, SSL redirect, session and CSRF cookies


@pytest.mark.parametrize(
    "key",
    [
        None,
        "insecure-development-key-set-SECRET_KEY-in-production",
        "change-me",
        "x" * 60,
        "django-insecure-" + "k" * 50,
    ],
)
def test_production_refuses_a_default_or_weak_key_at_every_command(key: str | None, tmp_path: Path) -> None:
    environment = production_environment()
    del environment["SECRET_KEY"]
    if key is not None:
        environment["SECRET_KEY"] = key
    result = manage(["check"], environment, tmp_path)
    assert result.returncode != 0
    assert "lineit.E007" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "environment",
    [
        {},  # make run on a laptop: SQLite, the development key
        {"DATABASE_URL": "postgres://lineit@db/lineit", "DEBUG": "true"},  # development on PostgreSQL
    ],
)
def test_the_embedded_default_and_debug_still_run_with_the_development_key(
    environment: dict[str, str], tmp_path: Path
) -> None:
    result = manage(["check"], environment, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "lineit.E007" not in result.stderr


def test_the_production_settings_are_what_the_environment_says(tmp_path: Path) -> None:
    script = (
        "import django, json; django.setup(); from django.conf import settings as s; print(json.dumps([s.SECURE_SSL_REDIRECT,"
        " s.SECURE_HSTS_SECONDS, s.SECURE_HSTS_INCLUDE_SUBDOMAINS, s.SECURE_HSTS_PRELOAD, s.SESSION_COOKIE_SECURE,"
        " s.CSRF_COOKIE_SECURE, s.SECURE_PROXY_SSL_HEADER, s.CSRF_TRUSTED_ORIGINS]))"
    )
    variables = production_environment() | {"DJANGO_SETTINGS_MODULE": "lineit_platform.settings"}
    variables |= {"PATH": os.environ["PATH"], "VAR_DIR": str(tmp_path / "var")}
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=variables, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert yaml.safe_load(result.stdout) == [
        True, 31536000, True, True, True, True, ["HTTP_X_FORWARDED_PROTO", "https"], ["https://arena.example.org"]
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("raw", "parsed"),
    [
        ("X-Forwarded-Proto", ("HTTP_X_FORWARDED_PROTO", "https")),
        ("x-forwarded-proto: https", ("HTTP_X_FORWARDED_PROTO", "https")),
        ("X-Forwarded-Ssl: on", ("HTTP_X_FORWARDED_SSL", "on")),
        ("", None),
    ],
)
def test_the_proxy_ssl_header_variable(monkeypatch: Any, raw: str, parsed: tuple[str, str] | None) -> None:
    monkeypatch.setenv("SECURE_PROXY_SSL_HEADER", raw)
    assert env_proxy_ssl_header("SECURE_PROXY_SSL_HEADER") == parsed


@pytest.mark.parametrize("raw", ["X Forwarded Proto", "X-Forwarded-Proto: https, http", "HTTP_X_FORWARDED_PROTO;"])
def test_a_proxy_ssl_header_that_cannot_be_read_is_refused(monkeypatch: Any, raw: str) -> None:
    monkeypatch.setenv("SECURE_PROXY_SSL_HEADER", raw)
    with pytest.raises(ImproperlyConfigured, match="SECURE_PROXY_SSL_HEADER"):
        env_proxy_ssl_header("SECURE_PROXY_SSL_HEADER")


def test_a_bad_setting_is_one_line_naming_its_variable_not_a_traceback() -> None:
    import os
    import subprocess
    import sys

    environment = {**os.environ, "LADDER_TABLE_SIZES": "x"}
    done = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, capture_output=True, text=True, timeout=120, env=environment
    )

    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        "manage.py: bad configuration: LADDER_TABLE_SIZES must be a comma-separated list of integers, not ['x']"
    ]
