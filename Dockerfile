# One image for web, worker and beat. The worker runs bots in bubblewrap + seccomp, as an
# unprivileged user (as root RLIMIT_NPROC is not enforced and root-owned files stay readable).
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 VAR_DIR=/var/lib/lineit

RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap libseccomp2 gcc libc6-dev \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --create-home --uid 10001 lineit \
 && mkdir -p /var/lib/lineit/cpu-claims && chown -R lineit:lineit /var/lib/lineit

WORKDIR /app
COPY pyproject.toml README.md* ./
COPY lineit ./lineit
COPY lineit_platform ./lineit_platform
COPY bots ./bots
COPY tournaments ./tournaments
COPY templates ./templates
# the documentation the site shows at /docs/ (and lineit/rules.md links to docs/rules.md)
COPY docs ./docs
COPY manage.py ./
COPY scripts ./scripts
# mypy brings mypyc, which compiles the engine's hot modules (scripts/build_engine.py).
RUN pip install -e . gunicorn "mypy>=1.11" \
 && python scripts/build_engine.py \
 && python manage.py collectstatic --noinput -v0 && chown -R lineit:lineit /var/lib/lineit

USER lineit
EXPOSE 8000
CMD ["gunicorn", "lineit_platform.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3", "--threads", "3", "--worker-class", "gthread"]
