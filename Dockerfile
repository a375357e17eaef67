# sedimem server image: the wheel (as CI builds and installs it) with the server, Redis and
# PostgreSQL extras, run as a non-root user. Not built in CI (see docs/deployment.md).
#
#   docker build -t sedimem:local .
#   docker compose up          # with compose.yaml: sedimem, a worker, Redis, PostgreSQL

ARG PYTHON=3.12

# -- build: the sdist, then the wheel from it, as `python -m build` makes them in CI ----------
FROM python:${PYTHON}-slim AS build
WORKDIR /src
RUN python -m pip install --no-cache-dir "build>=1.2"
COPY pyproject.toml README.md LICENSE NOTICE ./
COPY src ./src
RUN python -m build --outdir /dist .

# -- runtime: a fresh virtualenv holding the wheel and its runtime dependencies only ----------
FROM python:${PYTHON}-slim
RUN groupadd --system --gid 10001 sedimem \
 && useradd --system --uid 10001 --gid sedimem --home-dir /data --create-home sedimem
COPY --from=build /dist /tmp/dist
RUN python -m venv /opt/sedimem \
 && wheel="$(ls /tmp/dist/sedimem-*.whl)" \
 && /opt/sedimem/bin/pip install --no-cache-dir "${wheel}[server,redis,postgres]" \
 && rm -rf /tmp/dist

ENV PATH=/opt/sedimem/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    SEDIMEM_HOME=/data \
    SEDIMEM_SERVER__HOST=0.0.0.0 \
    SEDIMEM_SERVER__PORT=8077
USER sedimem
WORKDIR /data
VOLUME ["/data"]
EXPOSE 8077

# liveness: /healthz asks no store (readiness, with the stores, is /readyz)
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8077/healthz', timeout=4)"]

ENTRYPOINT ["sedimem"]
CMD ["serve"]
