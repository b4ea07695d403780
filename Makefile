# Geoledger. `make run` and `make test` are all you need; see README.md.
SWIFT      ?= swift
BIN        := .build/debug/geoledger
RELEASE    := .build/release
TEST_PORT  ?= 55439
CITUS_PORT ?= 55446

.PHONY: run test test-citus citus bench build release deps python-tools db-start db-stop db-status migrate clean fmt

deps:
	@scripts/ensure-deps.sh

# openapi-python-client, for the test that generates a client from /openapi.json and uses it.
python-tools:
	@scripts/python-tools.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# The HTTP API in the foreground (scripts/run.sh): a release build, the private cluster under .data/ unless
# DATABASE_URL is set, migrations, an admin token on the first run (.data/admin-token), then geoledger serve.
run: release
	@GEOLEDGER=$(RELEASE)/geoledger scripts/run.sh

# A throwaway cluster for the test run, stopped and removed even when tests fail. It lives in a fresh folder
# under /tmp, which the postgres user can always reach (the checkout's own folders may not let it in). The tests
# connect as its superuser: they create databases and roles.
test: deps python-tools
	@scripts/ensure-deps.sh --test
	$(SWIFT) build --build-tests
	@dir=$$(mktemp -d /tmp/geoledger-test.XXXXXX) || exit 1; \
	trap '$(BIN) db stop --dir '"$$dir"' --port $(TEST_PORT) >/dev/null; rm -rf '"$$dir" EXIT; \
	url=$$($(BIN) db start --dir $$dir --port $(TEST_PORT) --throwaway --print superuser) || exit 1; \
	DATABASE_URL="$$url" GEOLEDGER_BIN="$(CURDIR)/$(BIN)" GEOLEDGER_PYTHON_TOOLS="$(CURDIR)/.build/python-tools" \
		$(SWIFT) test --skip-build

# Citus, built from the vendored source and installed into PostgreSQL's folders; cached, so a second run is instant.
citus:
	@scripts/citus.sh

# The event store and ingest suites (projections, show, history, reports) against a throwaway Citus cluster: a
# coordinator on CITUS_PORT and two workers on the next two ports, stopped and removed even when tests fail.
test-citus: deps citus
	$(SWIFT) build --build-tests
	@dir=$$(mktemp -d /tmp/geoledger-citus-test.XXXXXX) || exit 1; chmod 755 $$dir; \
	trap '$(BIN) db stop --dir '"$$dir"' --port $(CITUS_PORT) >/dev/null; rm -rf '"$$dir" EXIT; \
	url=$$($(BIN) db start --citus --dir $$dir --port $(CITUS_PORT) --throwaway --print superuser) || exit 1; \
	DATABASE_URL="$$url" GEOLEDGER_TEST_CITUS=1 GEOLEDGER_BIN="$(CURDIR)/$(BIN)" \
		$(SWIFT) test --skip-build --filter 'EventStoreTests|IngestionTests'

# On a throwaway cluster, geoledger-bench citus (the same stages on that cluster and on a throwaway Citus cluster: a
# coordinator on CITUS_PORT, workers on the next two ports, with CITUS_BENCH_OPTIONS), geoledger-bench soak (serve
# under a steady load for 10 minutes, with SOAK_OPTIONS), then geoledger-bench all, whose RESULT line stays the last.
bench: release citus
	@dir=$$(mktemp -d /tmp/geoledger-bench.XXXXXX) || exit 1; \
	trap '$(RELEASE)/geoledger db stop --dir '"$$dir"' --port $(TEST_PORT) >/dev/null; rm -rf '"$$dir" EXIT; \
	url=$$($(RELEASE)/geoledger db start --dir $$dir --port $(TEST_PORT) --throwaway --print superuser) || exit 1; \
	DATABASE_URL="$$url" $(RELEASE)/geoledger-bench citus --port $(CITUS_PORT) $(CITUS_BENCH_OPTIONS) && \
	DATABASE_URL="$$url" $(RELEASE)/geoledger-bench soak $(SOAK_OPTIONS) && \
	DATABASE_URL="$$url" $(RELEASE)/geoledger-bench all $(BENCH_OPTIONS)

db-start: build
	@$(BIN) db start

db-stop: build
	@$(BIN) db stop

db-status: build
	@$(BIN) db status

migrate: build
	@$(BIN) migrate

fmt:
	@command -v swift-format >/dev/null && swift-format format -i -r Sources Tests || $(SWIFT) format -i -r Sources Tests

clean:
	-@[ -x $(BIN) ] && $(BIN) db stop >/dev/null 2>&1; true
	rm -rf .build .data
