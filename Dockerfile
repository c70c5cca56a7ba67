# memproxy: slim, non-root, data in a volume, keys mode (it listens beyond loopback). Build: docker build -t memproxy .
# Keys: docker run --rm -v memproxy-data:/data memproxy memproxy keys create --user NAME
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    LITELLM_LOCAL_MODEL_COST_MAP=True \
    MEMPROXY_SERVER_HOST=0.0.0.0 MEMPROXY_DATA_DIR=/data MEMPROXY_AUTH_MODE=keys

WORKDIR /app
RUN useradd --create-home --uid 10001 memproxy && mkdir /data && chown memproxy /data

# Dependencies first, so code changes reuse this layer.
COPY pyproject.toml README.md ./
RUN mkdir proxy && touch proxy/__init__.py && pip install . && pip uninstall -y memproxy-gateway && rm -rf proxy

COPY proxy ./proxy
RUN pip install --no-deps .

USER memproxy
VOLUME ["/data"]
EXPOSE 8787
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s \
    CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8787/healthz').status != 200)"
CMD ["memproxy", "serve"]
