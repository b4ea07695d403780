# Build on the official Swift image of the toolchain the project is developed with (6.3; the package needs 6.2 or
# later, its swift-tools-version: a test keeps the two in step); run on a slim image with the C libraries only.
FROM swift:6.3-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends libpq-dev libssl-dev libjemalloc-dev libmicrohttpd-dev libgnutls28-dev zlib1g-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
COPY Migrations ./Migrations
COPY Tests ./Tests
RUN swift build -c release --product geoledger \
    && mkdir -p /out && cp .build/release/geoledger /out/ && cp -R .build/release/*.resources /out/

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends libpq5 libssl3 libjemalloc2 libmicrohttpd12 libgnutls30 zlib1g ca-certificates \
       libcurl4 libxml2 tzdata libjs-leaflet \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /usr/lib/swift/linux/*.so /usr/lib/swift/linux/
COPY --from=build /out/ /app/
COPY scripts/run.sh /app/run.sh
ENV LD_LIBRARY_PATH=/usr/lib/swift/linux GEOLEDGER=/app/geoledger GEOLEDGER_DATA_DIR=/data \
    GEOLEDGER_LISTEN=0.0.0.0:8080 GEOLEDGER_CONNECT_RETRY=60
WORKDIR /app
EXPOSE 8080
# scripts/run.sh, as `make run` runs it: migrations, an admin token on the first run (/data/admin-token), then
# geoledger serve in the foreground. `docker compose run --rm geoledger ./geoledger COMMAND` runs the CLI.
CMD ["/app/run.sh"]
