# memexd: the GraphQL service, for `docker compose up` (which wires it to Neo4j)
# or on its own (embedded FalkorDB under /var/lib/memexd/data).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore

# The whole context: schema/, resolvers/, cypher/ and migrations/ are packaged
# as memexd sub-packages from the top-level folders.
WORKDIR /src
COPY . .
# The data directory exists in the image, owned by memexd, so that a named
# volume mounted there (docker-compose.yml) starts out writable by it.
RUN pip install --no-cache-dir . \
    && useradd --system --uid 10001 --user-group \
       --home-dir /var/lib/memexd --create-home --shell /usr/sbin/nologin memexd \
    && install -d -o memexd -g memexd /var/lib/memexd/data

USER memexd
WORKDIR /var/lib/memexd
ENV MEMEXD_DATA_DIR=/var/lib/memexd/data

EXPOSE 8700
CMD ["memexd", "serve", "--host", "0.0.0.0"]
