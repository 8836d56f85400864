# engrain over streamable HTTP. The database is external (ENGRAIN_DATABASE_URL): see docker-compose.yml.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    ENGRAIN_HOME=/data ENGRAIN_SCHEDULER=off

RUN useradd --create-home --uid 10001 engrain && mkdir -p /data && chown engrain /data
WORKDIR /app
COPY pyproject.toml README.md ./
COPY engrain ./engrain
RUN pip install .

USER engrain
VOLUME ["/data"]
EXPOSE 8765
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8765/healthz', timeout=4)"]
# Inside a container the port is published, so bind every interface; ENGRAIN_TOKENS is required.
CMD ["engrain", "serve", "--transport", "http", "--host", "0.0.0.0", "--port", "8765", "--log-json"]
