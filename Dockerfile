# One image for web, workers and beat, in two stages: `build` has the compiler and builds the
# virtual environment (every dependency from requirements.lock, by hash) and the mypyc engine;
# the final image copies the result and has no compiler. The worker runs bots in bubblewrap +
# seccomp as the unprivileged user lineit (as root RLIMIT_NPROC is not enforced and root-owned
# files stay readable). docs/deployment.md says what each part is for.

# --- build ------------------------------------------------------------------------------------
FROM python:3.11-slim-bookworm AS build

ENV PYTHONDONTWRITEBYTECODE=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN apt-get update \
 && apt-get install -y --no-install-recommends gcc libc6-dev \
 && rm -rf /var/lib/apt/lists/*

# Dependencies before the source: this layer is rebuilt only when a lock file changes, not when
# the code does. --require-hashes: pip installs exactly the files `make lock` pinned, or fails.
COPY requirements.lock /tmp/requirements.lock
COPY deploy/build-requirements.lock /tmp/build-requirements.lock
RUN python -m venv /opt/venv \
 && /opt/venv/bin/pip install --require-hashes --no-deps -r /tmp/requirements.lock \
 && python -m venv /opt/build \
 && /opt/build/bin/pip install --require-hashes --no-deps -r /tmp/build-requirements.lock

WORKDIR /app
COPY pyproject.toml README.md* manage.py ./
COPY lineit ./lineit
COPY lineit_platform ./lineit_platform
COPY bots ./bots
COPY tournaments ./tournaments
COPY notifications ./notifications
COPY templates ./templates
# the documentation the site shows at /docs/ (and lineit/rules.md links to docs/rules.md)
COPY docs ./docs
COPY scripts ./scripts
# The project runs from /app (a .pth file puts it on the environment's path: no build backend in
# the image), the engine's hot modules compiled by mypyc from the build tools' environment (they
# import only the standard library), and the static files collected once, here.
RUN echo /app > /opt/venv/lib/python3.11/site-packages/lineit-arena.pth \
 && /opt/build/bin/python scripts/build_engine.py \
 && STATIC_ROOT=/app/static VAR_DIR=/tmp/var /opt/venv/bin/python manage.py collectstatic --noinput -v0 \
 && rm -rf /tmp/var

# --- the image ----------------------------------------------------------------------------------
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PATH=/opt/venv/bin:$PATH \
    VAR_DIR=/var/lib/lineit STATIC_ROOT=/app/static WHITENOISE_USE_FINDERS=false
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap libseccomp2 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --create-home --uid 10001 lineit \
 && mkdir -p /var/lib/lineit/cpu-claims /var/lib/lineit/media && chown -R lineit:lineit /var/lib/lineit

COPY --from=build /opt/venv /opt/venv
COPY --from=build /app /app
WORKDIR /app

USER lineit
EXPOSE 8000
# The web's health (lineit_platform/health.py: 200 while the database and the broker answer);
# docker-compose gives the workers and beat their own (their heartbeats).
HEALTHCHECK --interval=15s --timeout=6s --start-period=30s --retries=3 \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/health/', timeout=5)"]
CMD ["gunicorn", "lineit_platform.wsgi", "-c", "python:lineit_platform.metrics_gunicorn", "--bind", "0.0.0.0:8000", "--workers", "3", "--threads", "3", "--worker-class", "gthread"]
