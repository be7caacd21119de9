"""Deployment settings as an operator meets them: the documented production environment
(README.md and docs/platform.md, "The production environment") makes `manage.py check --deploy`
report nothing; docker-compose refuses to start without a SECRET_KEY (its file is read with
PyYAML and interpolated as compose does: Docker is not needed); and with PostgreSQL and DEBUG off
every manage.py command refuses the development key or a weak one, while `make run`'s embedded
default (SQLite) still runs with no configuration at all."""

from __future__ import annotations

import base64
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


def signing_key() -> str:
    """A REPLAY_SIGNING_KEY as README says to make one: 32 random bytes in base64."""
    return base64.b64encode(os.urandom(32)).decode()


def keys() -> dict[str, str]:
    return {"SECRET_KEY": secrets.token_urlsafe(50), "REPLAY_SIGNING_KEY": signing_key()}


@pytest.mark.parametrize("service", APP_SERVICES)
@pytest.mark.parametrize("variable", ["SECRET_KEY", "REPLAY_SIGNING_KEY"])
def test_compose_refuses_to_start_without_a_secret_key(service: str, variable: str) -> None:
    others = {name: value for name, value in keys().items() if name != variable}
    with pytest.raises(MissingVariable, match=variable) as refused:
        compose_service_environment(service, others)
    assert "README" in str(refused.value)  # the message says where to read more
    with pytest.raises(MissingVariable, match=variable):
        compose_service_environment(service, others | {variable: ""})  # an empty one too


def test_compose_has_no_default_key_anywhere() -> None:
    text = COMPOSE.read_text()
    assert "change-me" not in text and "insecure" not in text.lower()
    assert re.search(r"SECRET_KEY: \$\{SECRET_KEY:\?[^}]+\}", text)
    assert re.search(r"REPLAY_SIGNING_KEY: \$\{REPLAY_SIGNING_KEY:\?[^}]+\}", text)


def test_compose_passes_the_production_environment_through_and_defaults_to_plain_http() -> None:
    production = documented_environment(ROOT / "README.md") | keys()
    for service in APP_SERVICES:
        given = compose_service_environment(service, production)
        assert {name: given.get(name) for name in production} == production, service
    laptop = compose_service_environment("web", keys())
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
    """README's production environment with generated keys, plus docker-compose's URLs."""
    documented = documented_environment(ROOT / "README.md") | keys()
    return compose_service_environment("web", documented) | changes


def test_readme_and_the_platform_doc_list_the_same_production_environment() -> None:
    readme = documented_environment(ROOT / "README.md")
    assert readme == documented_environment(ROOT / "docs" / "platform.md")
    assert readme["SECRET_KEY"].startswith("<")  # a placeholder, never a key to copy
    assert readme["REPLAY_SIGNING_KEY"].startswith("<")
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


def test_production_refuses_to_start_without_a_replay_signing_key(tmp_path: Path) -> None:
    environment = production_environment()
    del environment["REPLAY_SIGNING_KEY"]
    result = manage(["check"], environment, tmp_path)
    assert result.returncode != 0
    assert "lineit.E009" in result.stderr and "REPLAY_SIGNING_KEY" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "var" / "replay-signing-key.pem").exists()  # production makes no key of its own


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
    assert "lineit.E007" not in result.stderr and "lineit.E009" not in result.stderr


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


# --- docker-compose's services, the worker-only file, the Dockerfile and the lock files ----------

WORKER_COMPOSE = ROOT / "docker-compose.worker.yml"
DOCKERFILE = ROOT / "Dockerfile"
LOCK = ROOT / "requirements.lock"
BUILD_LOCK = ROOT / "deploy" / "build-requirements.lock"


def compose_file(path: Path = COMPOSE) -> dict[str, Any]:
    return yaml.safe_load(path.read_text())


def healthcheck_command(service: dict[str, Any]) -> str:
    return " ".join(service["healthcheck"]["test"][1:])


def test_every_compose_service_restarts_and_has_a_healthcheck() -> None:
    services = compose_file()["services"]
    for name, service in services.items():
        if name == "migrate":  # a one-shot: the others wait for it to complete, it never restarts
            assert service["restart"] == "no" and service["healthcheck"] == {"disable": True}
            continue
        assert service["restart"] == "unless-stopped", name
        assert service["healthcheck"]["test"][0] in ("CMD", "CMD-SHELL"), name
    assert "pg_isready" in healthcheck_command(services["db"])
    assert healthcheck_command(services["redis"]) == "redis-cli ping"
    assert "http://127.0.0.1:8000/health/" in healthcheck_command(services["web"])
    assert "/healthcheck" in healthcheck_command(services["flower"]) and services["flower"]["profiles"] == ["flower"]
    # migrate waits for a healthy database and broker, and everything else for migrate
    assert services["migrate"]["depends_on"]["redis"] == {"condition": "service_healthy"}
    assert services["migrate"]["depends_on"]["db"] == {"condition": "service_healthy"}
    for name in ("web", "worker", "worker-interactive", "housekeeping", "outbound", "beat"):
        assert services[name]["depends_on"] == {"migrate": {"condition": "service_completed_successfully"}}, name


@pytest.mark.parametrize(
    ("service", "role"),
    [
        ("worker", "bulk"),
        ("worker-interactive", "interactive"),
        ("housekeeping", "housekeeping"),
        ("outbound", "outbound"),
        ("beat", "beat"),
    ],
)
def test_each_worker_and_the_beat_is_checked_by_its_own_heartbeat(service: str, role: str) -> None:
    given = compose_file()["services"][service]
    # compose turns $$ into $: the shell then reads the container's hostname, which Celery's %h is
    assert healthcheck_command(given) == f"python manage.py worker_health {role}@$$HOSTNAME"
    if role != "beat":
        assert f"-n {role}@%h" in given["command"]


def test_the_workers_that_run_bots_get_the_sandbox_profiles_and_nothing_wider() -> None:
    services = compose_file()["services"]
    apparmor_name = re.search(r"^profile (\S+)", (ROOT / "deploy" / "apparmor-worker").read_text(), re.MULTILINE)
    assert apparmor_name
    for document, name in ((COMPOSE, "worker"), (COMPOSE, "worker-interactive"), (WORKER_COMPOSE, "worker")):
        options = [interpolate(option, {}) for option in compose_file(document)["services"][name]["security_opt"]]
        assert options == [
            "seccomp=deploy/seccomp-worker.json", f"apparmor={apparmor_name.group(1)}", "no-new-privileges:true"
        ]  # fmt: skip
        assert (document.parent / options[0].removeprefix("seccomp=")).is_file()
    for name in ("web", "housekeeping", "outbound", "beat", "migrate"):  # they run no bot: Docker's defaults
        assert "security_opt" not in services[name], name
    for document in (COMPOSE, WORKER_COMPOSE):  # unconfined only where a comment says how to ask for it
        assert not [line for line in document.read_text().splitlines() if "unconfined" in line.split("#")[0]]


def test_the_caches_are_shared_on_redis_in_compose(tmp_path: Path) -> None:
    given = production_environment()
    assert given["CACHE_URL"].startswith("redis://redis:6379/") and given["API_CACHE_URL"].startswith("redis://")
    script = (
        "import django, json; django.setup(); from django.conf import settings as s;"
        " print(json.dumps([s.CACHES['default']['BACKEND'], s.CACHES['default']['LOCATION']]))"
    )
    variables = given | {"DJANGO_SETTINGS_MODULE": "lineit_platform.settings", "PATH": os.environ["PATH"]}
    variables |= {"VAR_DIR": str(tmp_path / "var")}
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=variables, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert yaml.safe_load(result.stdout) == ["lineit_platform.redis_cache.OutageTolerantRedisCache", given["CACHE_URL"]]


def test_the_worker_only_file_needs_the_database_the_broker_and_the_key_and_no_more() -> None:
    service = compose_file(WORKER_COMPOSE)["services"]["worker"]
    declared = service["environment"]
    needed = {
        "DATABASE_URL": "postgres://lineit:pw@db.internal/lineit",
        "CELERY_BROKER_URL": "redis://r.internal:6379/0",
    }
    needed["SECRET_KEY"] = secrets.token_urlsafe(50)
    for missing in needed:
        with pytest.raises(MissingVariable, match=missing):
            {
                name: interpolate(str(value), {k: v for k, v in needed.items() if k != missing})
                for name, value in declared.items()
            }
    given = {name: interpolate(str(value), needed) for name, value in declared.items()}
    assert {name: given[name] for name in needed} == needed
    assert given["BOT_STORAGE"] == "local"  # bot code from the database, cached on this host
    assert set(compose_file(WORKER_COMPOSE)["services"]) == {"worker"}  # no database, broker or web here
    assert "-Q interactive,bulk -n bulk@%h" in service["command"]


def dockerfile_stages() -> list[list[str]]:
    """The Dockerfile's instructions (continuation lines joined), one list per stage."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    stages: list[list[str]] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("FROM "):
            stages.append([])
        stages[-1].append(line)
    return stages


def test_the_dockerfile_builds_in_one_stage_and_ships_another_without_a_compiler() -> None:
    build, final = dockerfile_stages()
    assert build[0].endswith(" AS build") and not final[0].endswith(" AS build")
    assert any("gcc" in line for line in build)
    assert not any(word in line for line in final for word in ("gcc", "libc6-dev", "build-essential", "mypy"))
    assert any(line.startswith("COPY --from=build /opt/venv") for line in final)
    # dependencies before the source: the first COPY of code comes after the install from the lock
    first_source = next(i for i, line in enumerate(build) if line.startswith("COPY lineit "))
    install = next(i for i, line in enumerate(build) if "--require-hashes" in line and "requirements.lock" in line)
    assert install < first_source
    assert all(
        "requirements.lock" not in line or "--require-hashes" in line for line in build if line.startswith("RUN")
    )
    assert any(line.startswith("HEALTHCHECK ") and "/health/" in line for line in final)
    assert any(line.startswith("USER lineit") for line in final)


def locked(path: Path) -> dict[str, tuple[str, int]]:
    """Each pinned package of a lock file: its version and how many hashes it has."""
    pins: dict[str, tuple[str, int]] = {}
    text = path.read_text()
    for found in re.finditer(
        r"^([A-Za-z0-9._-]+)==(\S+) \\\n((?:\s+--hash=sha256:[0-9a-f]{64}(?: \\)?\n)+)", text, re.M
    ):
        pins[canonical(found.group(1))] = (found.group(2), found.group(3).count("--hash="))
    assert len(pins) == len(re.findall(r"^[A-Za-z0-9._-]+==", text, re.M)), f"a pin of {path.name} has no hash"
    return pins


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_the_lock_file_pins_every_dependency_of_pyproject_within_its_range() -> None:
    import tomllib

    from packaging.requirements import Requirement

    pins = locked(LOCK)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    # and the s3 extra: an image started with BOT_STORAGE=s3 needs django-storages and boto3
    dependencies = project["dependencies"] + project["optional-dependencies"]["s3"] + ["boto3"]
    for line in dependencies:
        requirement = Requirement(line)
        name = canonical(requirement.name)
        assert name in pins, f"{requirement.name} is not in requirements.lock: run make lock"
        assert requirement.specifier.contains(pins[name][0]), (
            f"{name}=={pins[name][0]} is outside {requirement}: make lock"
        )
    assert all(count >= 1 for _, count in pins.values())
    assert "mypy" not in pins and "pytest" not in pins  # build tools and test tools stay out of the image


def test_the_build_tools_lock_pins_what_the_build_stage_needs() -> None:
    from packaging.requirements import Requirement

    pins = locked(BUILD_LOCK)
    wanted = (ROOT / "deploy" / "build-requirements.in").read_text().splitlines()
    for line in (line for line in wanted if line.strip() and not line.startswith("#")):
        requirement = Requirement(line)
        assert requirement.specifier.contains(pins[canonical(requirement.name)][0]), line
